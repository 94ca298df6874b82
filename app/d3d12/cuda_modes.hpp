// app/d3d12/cuda_modes.hpp — how a scene's results reach the Direct3D 12 renderer's resources: the D3D12
// backend's modes (modes_of(GraphicsApi::D3d12)), each behind the one mode interface (app/modes/mode.hpp),
// made and judged by app/d3d/mode_factory.hpp:
// clang-format off
//   cpu       the CPU reference writes host memory; Renderer::upload (no CUDA)     app/modes/cpu_mode.hpp
//   staging   the kernels write cudaMalloc memory, copied through pinned host
//             memory                                                               app/modes/staging_mode.hpp
//   external  shared committed resources and a shared fence imported into CUDA
//             once; each frame is ordered by fence values on the queue and the
//             stream                                                               mode_external.cpp
// clang-format on
// The CUDA modes, in a build with CUDA: cuda_modes.cpp specialises the factory's create_cuda_mode and
// cuda_mode_availability for this Renderer (the device is on the CUDA device when its adapter's LUID is
// the CUDA device's, cudaDeviceProp::luid). A frame is: the cubes pass (scenes with
// DrawPlan::cubes_target), produce(), then the frame pass; each Renderer call waits for its command list
// on the queue's fence, so the interface passes none. Needs the CUDA runtime and the interop library.
#pragma once

#include "app/d3d/mode_factory.hpp"
#include "app/d3d12/renderer.hpp"
#include "app/modes/mode.hpp"

#include <memory>
#include <string>

namespace lab {
namespace d3d12 {

using Mode = lab::Mode<Renderer>;

}  // namespace d3d12

// The factory's CUDA modes for this Renderer (defined in cuda_modes.cpp; none in a build without CUDA).
LAB_D3D_DECLARE_CUDA_MODES(d3d12);

}  // namespace lab
