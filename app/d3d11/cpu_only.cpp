// app/d3d11/cpu_only.cpp — the Direct3D 11 mode factory of a build without CUDA (the mingw-w64 cross build
// that checks Direct3D under Wine, tests/windows): it makes the cpu mode and refuses the CUDA modes, saying
// that this build has no CUDA. Also the judgement both Direct3D backends' CUDA-free factories share
// (cpu_only_availability). The build with CUDA links the factory of every mode instead.
#include "app/d3d11/mode_cpu.hpp"
#include "app/d3d11/modes.hpp"

#include <stdexcept>

namespace lab {

ModeAvailability d3d::cpu_only_availability(GraphicsApi api, ModeId mode) {
  if (!has_mode(api, mode))
    return {false, std::string(to_string(mode)) + " is not a mode of --api " + to_string(api)};
  if (mode == ModeId::Cpu) return {true, ""};
  return {false, std::string("this interop-lab.exe was built without CUDA (a cross build for checking "
                             "Direct3D); --mode ") +
                     to_string(mode) + " needs a CUDA build"};
}

namespace d3d11 {

std::unique_ptr<Mode> create_cpu_mode();

ModeAvailability mode_availability(ModeId mode, const CudaContext& /*cuda*/,
                                   const std::string& /*cuda_error*/) {
  return d3d::cpu_only_availability(GraphicsApi::D3d11, mode);
}

std::unique_ptr<Mode> create_mode(ModeId id, const CudaContext& cuda) {
  const ModeAvailability availability = mode_availability(id, cuda, "");
  if (!availability.available)
    throw std::runtime_error(std::string("--mode ") + to_string(id) +
                             " is unavailable: " + availability.reason);
  return create_cpu_mode();
}

}  // namespace d3d11
}  // namespace lab
