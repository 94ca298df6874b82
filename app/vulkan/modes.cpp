// app/vulkan/modes.cpp — which Vulkan modes run here, and the factory.
#include "app/vulkan/modes.hpp"
#include "app/cli/remedy.hpp"
#include "interop/vmm.hpp"

#include <stdexcept>

namespace lab::vulkan {

std::unique_ptr<Mode> create_cpu_mode();
std::unique_ptr<Mode> create_staging_mode(const CudaContext& cuda);
std::unique_ptr<Mode> create_external_mode(const CudaContext& cuda, interop::SemaphoreKind kind);
std::unique_ptr<Mode> create_exported_mode(const CudaContext& cuda, interop::SemaphoreKind kind);
std::unique_ptr<Mode> create_buffer_mode(const CudaContext& cuda, interop::SemaphoreKind kind);

ModeAvailability mode_availability(ModeId mode, const CudaContext& cuda, const std::string& cuda_error) {
  if (!has_mode(GraphicsApi::Vulkan, mode))
    return {false, std::string(to_string(mode)) + " is not a mode of --api vulkan"};
  const std::string no_device = no_cuda_device_reason(cuda_error);
  switch (mode) {
    case ModeId::Cpu:
    case ModeId::Buffer:  // without a CUDA device, its cpu form (mode_buffer.cpp)
      return {true, ""};
    case ModeId::Staging:
    case ModeId::External:
      if (cuda.device >= 0) return {true, ""};
      return {false, no_device};
    case ModeId::Exported: {
      if (cuda.device < 0) return {false, no_device};
      const interop::VmmExportSupport vmm = interop::probe_vmm_export(cuda.device);
      if (vmm.supported) return {true, ""};
      return {false, vmm.reason + "; use --mode external"};
    }
    default:
      break;
  }
  return {false, std::string(to_string(mode)) + " is not a mode of --api vulkan"};
}

std::unique_ptr<Mode> create_mode(ModeId id, const CudaContext& cuda) {
  const ModeAvailability availability = mode_availability(id, cuda, "");
  if (!availability.available)
    throw std::runtime_error(std::string("--mode ") + to_string(id) +
                             " is unavailable: " + availability.reason);
  switch (id) {
    case ModeId::Cpu:
      return create_cpu_mode();
    case ModeId::Staging:
      return create_staging_mode(cuda);
    case ModeId::External:
      return create_external_mode(cuda, cuda.semaphores);
    case ModeId::Exported:
      return create_exported_mode(cuda, cuda.semaphores);
    case ModeId::Buffer:
      return create_buffer_mode(cuda, cuda.semaphores);
    default:
      break;
  }
  throw std::logic_error(std::string("mode_availability passed ") + to_string(id) +
                         " but no Vulkan mode makes it");
}

}  // namespace lab::vulkan
