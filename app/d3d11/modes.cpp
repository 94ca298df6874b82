// app/d3d11/modes.cpp — the Direct3D 11 mode factory of a build with CUDA: the cpu mode
// (app/core/cpu_mode.hpp) and the CUDA modes (cuda_modes.hpp), judged by cuda_mode_availability. A build
// without CUDA links cpu_only.cpp instead.
#include "app/d3d11/modes.hpp"
#include "app/d3d/mode_factory.hpp"
#include "app/d3d11/cuda_modes.hpp"

namespace lab::d3d11 {

ModeAvailability mode_availability(ModeId mode, const CudaContext& cuda, const std::string& cuda_error) {
  return d3d::judge_mode(GraphicsApi::D3d11, mode,
                         [&] { return cuda_mode_availability(mode, cuda, cuda_error); });
}

std::unique_ptr<Mode> create_mode(ModeId id, const CudaContext& cuda) {
  return d3d::make_mode<Renderer>(id, mode_availability(id, cuda, ""),
                                  [&] { return create_cuda_mode(id, cuda); });
}

}  // namespace lab::d3d11
