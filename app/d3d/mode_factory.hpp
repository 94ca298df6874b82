// app/d3d/mode_factory.hpp — the Direct3D mode factory, once for both APIs (app/d3d/backend.hpp's
// mode_availability and create_mode): how a mode is judged and made. cpu runs everywhere; the CUDA modes
// are each API's, declared here once as function templates over its Renderer that the API's
// cuda_modes.cpp specialises (app/d3d11/cuda_modes.hpp, app/d3d12/cuda_modes.hpp say which modes). A build
// without CUDA (INTEROP_LAB_D3D_WITHOUT_CUDA: the mingw-w64 cross build that checks Direct3D under Wine,
// tests/windows) compiles no cuda_modes.cpp and refuses the CUDA modes, saying so (without_cuda).
#pragma once

#include "app/core/vocabulary.hpp"
#include "app/modes/cpu_mode.hpp"
#include "app/modes/mode.hpp"

#include <memory>
#include <stdexcept>
#include <string>

namespace lab::d3d {

// The CUDA mode `id` on `cuda`; nullptr for cpu and for modes the API does not have. Attach checks what
// cuda_mode_availability checks, with the renderer's device, and throws its reason.
template <class Renderer>
std::unique_ptr<Mode<Renderer>> create_cuda_mode(ModeId id, const CudaContext& cuda);

// Whether `id` can run with `cuda` (cuda_error: why there is no CUDA device) and, once it exists,
// `device` (nullptr: not created yet, only the CUDA side is judged): app/d3d/d3d_handoff.hpp's rules, with
// the API's device on the CUDA device.
template <class Renderer>
ModeAvailability cuda_mode_availability(ModeId id, const CudaContext& cuda, const std::string& cuda_error,
                                        const typename Renderer::Device* device = nullptr);

#ifndef INTEROP_LAB_D3D_WITHOUT_CUDA
// Declares, at namespace lab, the two specialisations an API's cuda_modes.cpp defines for its namespace
// `api` (d3d11, d3d12), so that every use sees them: the API's cuda_modes.hpp says it once.
#define LAB_D3D_DECLARE_CUDA_MODES(api)                                                               \
  template <>                                                                                         \
  std::unique_ptr<Mode<api::Renderer>> d3d::create_cuda_mode<api::Renderer>(ModeId id,                \
                                                                            const CudaContext& cuda); \
  template <>                                                                                         \
  ModeAvailability d3d::cuda_mode_availability<api::Renderer>(                                        \
      ModeId id, const CudaContext& cuda, const std::string& cuda_error, const api::Device* device)
#else
#define LAB_D3D_DECLARE_CUDA_MODES(api) static_assert(true, "a build without CUDA has no CUDA modes")
#endif

#ifdef INTEROP_LAB_D3D_WITHOUT_CUDA
// What a build without CUDA says of a CUDA mode: it needs a build with CUDA.
inline ModeAvailability without_cuda(ModeId mode) {
  return {false, std::string("this interop-lab.exe was built without CUDA (a cross build for checking "
                             "Direct3D); --mode ") +
                     to_string(mode) + " needs a CUDA build"};
}
#endif

// `mode` on `api`: not one of its modes, cpu (always available), or a CUDA mode judged by the API's
// cuda_mode_availability (or refused by a build without CUDA).
template <class Renderer>
ModeAvailability judge_mode(GraphicsApi api, ModeId mode, const CudaContext& cuda,
                            const std::string& cuda_error) {
  if (!has_mode(api, mode))
    return {false, std::string(to_string(mode)) + " is not a mode of --api " + to_string(api)};
  if (is_cpu_mode(mode)) return {true, ""};
#ifdef INTEROP_LAB_D3D_WITHOUT_CUDA
  static_cast<void>(cuda);
  static_cast<void>(cuda_error);
  return without_cuda(mode);
#else
  return cuda_mode_availability<Renderer>(mode, cuda, cuda_error);
#endif
}

// The mode `id` as judged by `availability` (std::runtime_error with the reason when it is not available):
// cpu is app/modes/cpu_mode.hpp's over `Renderer`, the CUDA modes are the API's create_cuda_mode (none in a
// build without CUDA, whose availability refuses them).
template <class Renderer>
std::unique_ptr<Mode<Renderer>> make_mode(ModeId id, const ModeAvailability& availability,
                                          const CudaContext& cuda) {
  if (!availability.available)
    throw std::runtime_error(std::string("--mode ") + to_string(id) +
                             " is unavailable: " + availability.reason);
  std::unique_ptr<Mode<Renderer>> mode;
  if (is_cpu_mode(id)) mode = std::make_unique<CpuMode<Renderer>>();
#ifndef INTEROP_LAB_D3D_WITHOUT_CUDA
  else
    mode = create_cuda_mode<Renderer>(id, cuda);
#else
  static_cast<void>(cuda);
#endif
  if (!mode)
    throw std::logic_error(std::string("mode_availability passed ") + to_string(id) +
                           " but no factory makes it");
  return mode;
}

}  // namespace lab::d3d
