// app/vulkan/doctor_vulkan.hpp — Vulkan's part of `interop-lab --doctor` (app/doctor/doctor.hpp): every
// Vulkan device with its UUID, the CUDA device with the same UUID, and what the external interop needs of it.
#pragma once

#include "app/doctor/doctor.hpp"
#include "app/vulkan/device.hpp"

#include <string>
#include <vector>

namespace lab {

// The Vulkan section: every Vulkan device with its UUID, the CUDA device with the same UUID (matched by
// UUID, never by ordinal), and what external interop needs of it (VK_KHR_external_memory_fd,
// VK_KHR_external_semaphore_fd, timeline semaphores); `error` says why there is no list.
DoctorSection vulkan_section(const std::vector<vulkan::DeviceInfo>& devices, const interop::CudaDevices& cuda,
                             const std::string& error);

namespace vulkan {

// The section for this machine's Vulkan devices, listed on a thread of their own so that the caller's
// GL context stays current.
DoctorSource doctor_source();

}  // namespace vulkan
}  // namespace lab
