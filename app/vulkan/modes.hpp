// app/vulkan/modes.hpp — how a scene's results reach the Vulkan renderer's resources: the Vulkan
// backend's modes, each in its own file behind the one mode interface (app/modes/mode.hpp).
//
//   staging   the kernels write cudaMalloc memory; copied to pinned host memory; Renderer::upload
//             (inputs the other way: Renderer::download, then to the device)          modes_copy.cpp
//   cpu       the CPU reference writes host memory; Renderer::upload (no CUDA at all)    modes_copy.cpp
//   external  Vulkan allocates exportable memory and semaphores, CUDA imports them once; each frame
//             CUDA waits on a semaphore, runs the kernels and signals               mode_external.cpp
//   exported  CUDA allocates exportable memory (cuMemCreate), Vulkan imports it as buffers; the same
//             semaphores as external; images copied from their buffer in the frame pass  mode_exported.cpp
//   buffer    the images live in storage buffers Vulkan exports and CUDA imports (device pointers); the
//             frame pass draws each image from its buffer in a fragment shader; the same semaphores as
//             external. Without a CUDA device its cpu form: the CPU reference writes the buffers
//             through their host mapping                                                mode_buffer.cpp
//
// A frame is: the cubes pass (scenes with DrawPlan::cubes_target) with cubes_sync(), produce(), then the
// frame pass with frame_sync(). The copying modes need no semaphores (Renderer::download waits, and
// uploads land at the start of the next pass); the external mode orders CUDA between the two passes
// with the semaphores it hands in.
#pragma once

#include "app/core/vocabulary.hpp"
#include "app/modes/mode.hpp"
#include "app/scene/scene_compute.hpp"
#include "app/timing/timing.hpp"
#include "app/vulkan/renderer.hpp"
#include "interop/external.hpp"

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

namespace lab::vulkan {

using Mode = lab::Mode<Renderer>;

// Whether `mode` runs on Vulkan here: cpu and buffer (its cpu form without CUDA) always; staging needs a CUDA
// device (cuda_error says why there is none); exported one whose VMM allocations export as POSIX FDs
// (interop::probe_vmm_export); external a device too, and what it needs of the Vulkan device (semaphore
// export, timelines) is said by the exception attach throws where it is missing; the modes of other APIs
// never (modes_of(GraphicsApi::Vulkan)).
ModeAvailability mode_availability(ModeId mode, const CudaContext& cuda, const std::string& cuda_error);

// The mode `id`; throws std::runtime_error with the reason when it is unavailable.
std::unique_ptr<Mode> create_mode(ModeId id, const CudaContext& cuda);
// The modes of the table behind both (modes.cpp's kVulkanModes), in its order:
// modes_of(GraphicsApi::Vulkan)'s.
const std::vector<ModeId>& mode_table_order();

}  // namespace lab::vulkan
