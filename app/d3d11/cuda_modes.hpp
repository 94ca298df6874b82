// app/d3d11/cuda_modes.hpp — how a scene's results reach the Direct3D 11 renderer's resources: the D3D11
// backend's modes (modes_of(GraphicsApi::D3d11)), each behind the one mode interface (app/modes/mode.hpp),
// made and judged by app/d3d/mode_factory.hpp:
// clang-format off
//   cpu         the CPU reference writes host memory; Renderer::upload (no CUDA)   app/modes/cpu_mode.hpp
//   interop     each resource registered once (cudaGraphicsD3D11RegisterResource),
//               mapped and unmapped every frame on the stream                      mode_interop.cpp
//   reregister  the same, registered and unregistered every frame (what it costs)  mode_interop.cpp
//   staging     the kernels write cudaMalloc memory, copied through pinned host
//               memory                                                             app/modes/staging_mode.hpp
//   external    keyed-mutex shared resources imported into CUDA once, handed over
//               with their keyed mutexes every frame                               mode_external.cpp
// clang-format on
// The CUDA modes, in a build with CUDA: cuda_modes.cpp specialises the factory's create_cuda_mode and
// cuda_mode_availability for this Renderer (the D3D11 device is on the CUDA device when
// cudaD3D11GetDevices names it). A frame is: the cubes pass (scenes with DrawPlan::cubes_target),
// produce(), then the frame pass; Direct3D 11 orders its own work on the immediate context, so the
// interface passes no fences. Needs the CUDA runtime (and on Windows its cuda_d3d11_interop.h) and the
// interop library.
#pragma once

#include "app/d3d/mode_factory.hpp"
#include "app/d3d11/renderer.hpp"
#include "app/modes/mode.hpp"

#include <memory>
#include <string>

namespace lab {
namespace d3d11 {

using Mode = lab::Mode<Renderer>;

}  // namespace d3d11

// The factory's CUDA modes for this Renderer (defined in cuda_modes.cpp; none in a build without CUDA).
LAB_D3D_DECLARE_CUDA_MODES(d3d11);

}  // namespace lab
