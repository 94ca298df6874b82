// app/d3d12/cpu_only.cpp — the Direct3D 12 mode factory of a build without CUDA (tests/windows' cross
// build): the cpu mode, and the CUDA modes refused as app/d3d11/cpu_only.cpp refuses them.
#include "app/d3d/mode_factory.hpp"
#include "app/d3d12/modes.hpp"

namespace lab::d3d12 {

ModeAvailability mode_availability(ModeId mode, const CudaContext& /*cuda*/,
                                   const std::string& /*cuda_error*/) {
  return d3d::judge_mode(GraphicsApi::D3d12, mode, [mode] { return d3d::without_cuda(mode); });
}

std::unique_ptr<Mode> create_mode(ModeId id, const CudaContext& cuda) {
  return d3d::make_mode<Renderer>(id, mode_availability(id, cuda, ""), nullptr);
}

}  // namespace lab::d3d12
