// tests/windows/d3d_mode_factory_check.cpp — the Direct3D mode factory of a build with CUDA
// (app/d3d/mode_factory.hpp without INTEROP_LAB_D3D_WITHOUT_CUDA: cpu, and each API's CUDA modes through
// the create_cuda_mode and cuda_mode_availability its cuda_modes.cpp specialises), instantiated for both
// renderers as app/d3d/backend.hpp's Backend instantiates it. Compiled only (d3d_cuda_modes_compile_check):
// interop-lab.exe here is built without CUDA, so its factory is the one that refuses the CUDA modes.
#include "app/d3d/mode_factory.hpp"
#include "app/d3d11/cuda_modes.hpp"  // each API's specialisations, declared where make_mode calls them
#include "app/d3d12/cuda_modes.hpp"

#include <memory>
#include <string>

namespace lab::d3d {

template ModeAvailability judge_mode<d3d11::Renderer>(GraphicsApi, ModeId, const CudaContext&,
                                                      const std::string&);
template std::unique_ptr<Mode<d3d11::Renderer>> make_mode<d3d11::Renderer>(ModeId, const ModeAvailability&,
                                                                           const CudaContext&);
template ModeAvailability judge_mode<d3d12::Renderer>(GraphicsApi, ModeId, const CudaContext&,
                                                      const std::string&);
template std::unique_ptr<Mode<d3d12::Renderer>> make_mode<d3d12::Renderer>(ModeId, const ModeAvailability&,
                                                                           const CudaContext&);

}  // namespace lab::d3d
