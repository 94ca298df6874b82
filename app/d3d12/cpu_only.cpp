// app/d3d12/cpu_only.cpp — the Direct3D 12 mode factory of a build without CUDA (tests/windows' cross
// build): the cpu mode, and the CUDA modes refused as app/d3d11/cpu_only.cpp refuses them.
#include "app/d3d11/mode_cpu.hpp"
#include "app/d3d12/modes.hpp"

#include <stdexcept>

namespace lab::d3d12 {

std::unique_ptr<Mode> create_cpu_mode();

ModeAvailability mode_availability(ModeId mode, const CudaContext& /*cuda*/,
                                   const std::string& /*cuda_error*/) {
  return d3d::cpu_only_availability(GraphicsApi::D3d12, mode);
}

std::unique_ptr<Mode> create_mode(ModeId id, const CudaContext& cuda) {
  const ModeAvailability availability = mode_availability(id, cuda, "");
  if (!availability.available)
    throw std::runtime_error(std::string("--mode ") + to_string(id) +
                             " is unavailable: " + availability.reason);
  return create_cpu_mode();
}

}  // namespace lab::d3d12
