// app/vulkan/modes.cpp — which Vulkan modes run here, and the factory.
#include "app/vulkan/modes.hpp"

#include <stdexcept>

namespace lab::vulkan {

std::unique_ptr<Mode> create_cpu_mode();
std::unique_ptr<Mode> create_staging_mode(const CudaContext& cuda);

ModeAvailability mode_availability(ModeId mode, const CudaContext& cuda, const std::string& cuda_error) {
  if (!has_mode(GraphicsApi::Vulkan, mode))
    return {false, std::string(to_string(mode)) + " is not a mode of --api vulkan"};
  const std::string no_device =
      "no CUDA device: " + (cuda_error.empty() ? "none is visible to this process (check nvidia-smi and "
                                                 "CUDA_VISIBLE_DEVICES); use --mode cpu"
                                               : cuda_error);
  switch (mode) {
    case ModeId::Cpu:
      return {true, ""};
    case ModeId::Staging:
      if (cuda.device >= 0) return {true, ""};
      return {false, no_device};
    case ModeId::External:
      return {false, "external on vulkan is not built yet; use --mode staging or cpu"};
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
    default:
      break;
  }
  throw std::logic_error(std::string("mode_availability passed ") + to_string(id) +
                         " but no Vulkan mode makes it");
}

}  // namespace lab::vulkan
