// app/d3d12/modes.hpp — how a scene's results reach the Direct3D 12 renderer's resources: the D3D12
// backend's modes (modes_of(GraphicsApi::D3d12)),
// each in its own file behind the one mode interface (app/core/mode.hpp).
//
//   cpu       the CPU reference writes host memory; Renderer::upload (no CUDA at all)
//             (app/core/cpu_mode.hpp, made by app/d3d/mode_factory.hpp's make_mode)
//   staging, external: the CUDA modes (cuda_modes.hpp), in a build with CUDA
//
// A frame is: the cubes pass (scenes with DrawPlan::cubes_target), produce(), then the frame pass.
// Each Renderer call waits for its command list on the queue's fence, so the interface passes none.
// The factory (create_mode, mode_availability): modes.cpp in a build with CUDA, cpu_only.cpp in one
// without (the mingw-w64 cross build that checks Direct3D under Wine), which makes the cpu mode only.
#pragma once

#include "app/core/mode.hpp"
#include "app/d3d12/renderer.hpp"

#include <memory>
#include <string>

namespace lab::d3d12 {

using Mode = lab::Mode<Renderer>;

// Whether `mode` runs on Direct3D 12 here (cuda_error: why there is no CUDA device, when there is none).
ModeAvailability mode_availability(ModeId mode, const CudaContext& cuda, const std::string& cuda_error);

// The mode `id`; throws std::runtime_error with the reason when it is unavailable.
std::unique_ptr<Mode> create_mode(ModeId id, const CudaContext& cuda);

}  // namespace lab::d3d12
