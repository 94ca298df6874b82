// tests/support/vulkan_device.hpp — what the Vulkan tests skip on: this machine has no Vulkan device.
#pragma once

#include "app/vulkan/device.hpp"

#include <stdexcept>
#include <string>

namespace labtest {

// "" when this machine has a Vulkan device, else why not (the Context's own message).
inline std::string vulkan_missing() {
  try {
    lab::vulkan::Context context(nullptr);
    return "";
  } catch (const std::runtime_error& error) {
    return error.what();
  }
}

}  // namespace labtest
