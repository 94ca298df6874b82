// app/vulkan/modes.cpp — Vulkan's mode table: which modes run here, and the factory.
#include "app/vulkan/modes.hpp"
#include "app/cli/remedy.hpp"
#include "app/modes/mode_table.hpp"
#include "interop/vmm.hpp"

#include <stdexcept>
#include <vector>

namespace lab::vulkan {

std::unique_ptr<Mode> create_cpu_mode();
std::unique_ptr<Mode> create_staging_mode(const CudaContext& cuda);
std::unique_ptr<Mode> create_external_mode(const CudaContext& cuda, interop::SemaphoreKind kind);
std::unique_ptr<Mode> create_exported_mode(const CudaContext& cuda, interop::SemaphoreKind kind);
std::unique_ptr<Mode> create_buffer_mode(const CudaContext& cuda, interop::SemaphoreKind kind);

namespace {

// What a Vulkan mode needs, in the order mode_availability asks it.
enum class Needs {
  Nothing,     // cpu; buffer (its cpu form without a CUDA device: mode_buffer.cpp)
  CudaDevice,  // staging; external (what it needs of the Vulkan device, attach says where it is missing)
  VmmExport,   // exported: a device whose VMM allocations export as POSIX FDs
};

using Factory = std::unique_ptr<Mode> (*)(const CudaContext&);

// Vulkan's mode table: a row per mode of modes_of(GraphicsApi::Vulkan), in that order (test_cli checks it).
struct VulkanModeRow {
  ModeId id;
  Needs needs;
  Factory create;
};

const VulkanModeRow kVulkanModes[] = {
    {ModeId::External, Needs::CudaDevice,
     [](const CudaContext& cuda) { return create_external_mode(cuda, cuda.semaphores); }},
    {ModeId::Exported, Needs::VmmExport,
     [](const CudaContext& cuda) { return create_exported_mode(cuda, cuda.semaphores); }},
    {ModeId::Buffer, Needs::Nothing,
     [](const CudaContext& cuda) { return create_buffer_mode(cuda, cuda.semaphores); }},
    {ModeId::Staging, Needs::CudaDevice, create_staging_mode},
    {ModeId::Cpu, Needs::Nothing, [](const CudaContext&) { return create_cpu_mode(); }},
};

}  // namespace

const std::vector<ModeId>& mode_table_order() {
  static const std::vector<ModeId> order = modes_of_table(kVulkanModes);
  return order;
}

ModeAvailability mode_availability(ModeId mode, const CudaContext& cuda, const std::string& cuda_error) {
  const VulkanModeRow* row = mode_row_of(kVulkanModes, mode);
  if (row == nullptr) return {false, std::string(to_string(mode)) + " is not a mode of --api vulkan"};
  const std::string no_device = no_cuda_device_reason(cuda_error);
  switch (row->needs) {
    case Needs::Nothing:
      return {true, ""};
    case Needs::CudaDevice:
      if (cuda.device >= 0) return {true, ""};
      return {false, no_device};
    case Needs::VmmExport: {
      if (cuda.device < 0) return {false, no_device};
      const interop::VmmExportSupport vmm = interop::probe_vmm_export(cuda.device);
      if (vmm.supported) return {true, ""};
      return {false, vmm.reason + "; use --mode external"};
    }
  }
  return {false, std::string(to_string(mode)) + " is not a mode of --api vulkan"};
}

std::unique_ptr<Mode> create_mode(ModeId id, const CudaContext& cuda) {
  const ModeAvailability availability = mode_availability(id, cuda, "");
  if (!availability.available)
    throw std::runtime_error(std::string("--mode ") + to_string(id) +
                             " is unavailable: " + availability.reason);
  return mode_row_of(kVulkanModes, id)->create(cuda);
}

}  // namespace lab::vulkan
