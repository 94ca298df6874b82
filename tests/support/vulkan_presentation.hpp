// tests/support/vulkan_presentation.hpp — what the Vulkan window tests skip on: a Vulkan device that cannot
// present to this X server (NVIDIA's Vulkan under an Xvfb that runs Mesa's GLX, as on a GPU server without a
// display) lacks something; any other failure is the code's own.
#pragma once

#include <string>

namespace labtest {

// Whether `why` (what the presenter or the app threw) says the device cannot present to this display.
inline bool cannot_present_here(const std::string& why) {
  return why.find("cannot present") != std::string::npos ||
         why.find("glfwCreateWindowSurface") != std::string::npos;
}

}  // namespace labtest
