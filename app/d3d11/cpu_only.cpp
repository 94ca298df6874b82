// app/d3d11/cpu_only.cpp — the Direct3D 11 mode factory of a build without CUDA (the mingw-w64 cross build
// that checks Direct3D under Wine, tests/windows): it makes the cpu mode and refuses the CUDA modes, saying
// that this build has no CUDA (d3d::without_cuda, which app/d3d12/cpu_only.cpp says too). The build with
// CUDA links the factory of every mode instead (modes.cpp).
#include "app/d3d/mode_factory.hpp"
#include "app/d3d11/modes.hpp"

namespace lab {

ModeAvailability d3d::without_cuda(ModeId mode) {
  return {false, std::string("this interop-lab.exe was built without CUDA (a cross build for checking "
                             "Direct3D); --mode ") +
                     to_string(mode) + " needs a CUDA build"};
}

namespace d3d11 {

ModeAvailability mode_availability(ModeId mode, const CudaContext& /*cuda*/,
                                   const std::string& /*cuda_error*/) {
  return d3d::judge_mode(GraphicsApi::D3d11, mode, [mode] { return d3d::without_cuda(mode); });
}

std::unique_ptr<Mode> create_mode(ModeId id, const CudaContext& cuda) {
  return d3d::make_mode<Renderer>(id, mode_availability(id, cuda, ""), nullptr);
}

}  // namespace d3d11
}  // namespace lab
