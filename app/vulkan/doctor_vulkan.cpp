// app/vulkan/doctor_vulkan.cpp — Vulkan's section of the doctor's report: the devices the loader lists,
// matched to CUDA devices by UUID, with the extensions and semaphores the external modes need.
#include "app/vulkan/doctor_vulkan.hpp"

#include "interop/external.hpp"

#include <exception>

namespace lab {

DoctorSection vulkan_section(const std::vector<vulkan::DeviceInfo>& devices, const interop::CudaDevices& cuda,
                             const std::string& error) {
  DoctorSection section{"Vulkan", {}};
  if (!error.empty()) {
    section.lines.push_back({"devices", "none listed: " + error});
    return section;
  }
  if (devices.empty()) section.lines.push_back({"devices", "none: the Vulkan loader found no driver"});
  const auto yes_no = [](bool value) { return value ? "yes" : "no"; };
  for (size_t i = 0; i < devices.size(); ++i) {
    const vulkan::DeviceInfo& device = devices[i];
    const std::string uuid = vulkan::to_string(device.uuid);
    section.lines.push_back({"device " + std::to_string(i),
                             device.name + ", UUID " + uuid + ", " + cuda_device_with_uuid(cuda, uuid)});
    const bool external =
        device.external_memory_fd && device.external_semaphore_fd && device.timeline_semaphores;
    section.lines.push_back({"device " + std::to_string(i) + " external interop",
                             std::string(external ? "ready" : "incomplete") + ": memory FD " +
                                 yes_no(device.external_memory_fd) + ", semaphore FD " +
                                 yes_no(device.external_semaphore_fd) + ", timeline semaphores " +
                                 yes_no(device.timeline_semaphores) + ", Vulkan " +
                                 std::to_string(VK_API_VERSION_MAJOR(device.api_version)) + "." +
                                 std::to_string(VK_API_VERSION_MINOR(device.api_version))});
  }
  section.lines.push_back(
      {"handle types here", interop::handle_type_available(interop::ExternalHandleType::OpaqueFd)
                                ? "opaque FD, timeline FD (POSIX)"
                                : "NT handles: opaque Win32, D3D12 resource and fence, D3D11"});
  return section;
}

namespace vulkan {

DoctorSource doctor_source() {
  return {"Vulkan",
          [](DoctorCollection& collection) {
            std::vector<DeviceInfo> devices;
            std::string error;
            try {
              devices = on_own_thread([] { return enumerate_devices(); });  // keeps GL current
            } catch (const std::exception& failure) {
              error = failure.what();
            }
            return std::vector<DoctorSection>{vulkan_section(devices, collection.cuda, error)};
          },
          {},
          {}};
}

}  // namespace vulkan
}  // namespace lab
