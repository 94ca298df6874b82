// app/vulkan/pass_sync.hpp — the semaphores a Vulkan pass waits on and signals, as a mode hands them to the
// renderer's passes and as GL's external mode hands the same ones to GL's semaphore calls. No Vulkan call.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <vector>

namespace lab::vulkan {

// A semaphore a pass waits on or signals: timeline (value > 0) or binary (value 0).
struct SemaphoreSignal {
  VkSemaphore semaphore = VK_NULL_HANDLE;
  uint64_t value = 0;
};
struct PassSync {
  std::vector<SemaphoreSignal> wait;    // waited on before the pass's first command (all stages)
  std::vector<SemaphoreSignal> signal;  // signalled when the pass's commands are done
};

}  // namespace lab::vulkan
