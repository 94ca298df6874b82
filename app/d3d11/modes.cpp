// app/d3d11/modes.cpp — the Direct3D 11 mode factory of a build with CUDA: the cpu mode (mode_cpu.cpp) and
// the CUDA modes (cuda_modes.hpp), judged by cuda_mode_availability. A build without CUDA links
// cpu_only.cpp instead.
#include "app/d3d11/modes.hpp"
#include "app/d3d11/cuda_modes.hpp"

#include <stdexcept>

namespace lab::d3d11 {

std::unique_ptr<Mode> create_cpu_mode();

ModeAvailability mode_availability(ModeId mode, const CudaContext& cuda, const std::string& cuda_error) {
  if (!has_mode(GraphicsApi::D3d11, mode))
    return {false, std::string(to_string(mode)) + " is not a mode of --api d3d11"};
  if (mode == ModeId::Cpu) return {true, ""};
  return cuda_mode_availability(mode, cuda, cuda_error);
}

std::unique_ptr<Mode> create_mode(ModeId id, const CudaContext& cuda) {
  const ModeAvailability availability = mode_availability(id, cuda, "");
  if (!availability.available)
    throw std::runtime_error(std::string("--mode ") + to_string(id) +
                             " is unavailable: " + availability.reason);
  if (id == ModeId::Cpu) return create_cpu_mode();
  std::unique_ptr<Mode> mode = create_cuda_mode(id, cuda);
  if (!mode)
    throw std::logic_error(std::string("mode_availability passed ") + to_string(id) +
                           " but no Direct3D 11 mode makes it");
  return mode;
}

}  // namespace lab::d3d11
