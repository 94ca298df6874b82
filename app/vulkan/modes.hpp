// app/vulkan/modes.hpp — how a scene's results reach the Vulkan renderer's resources: the Vulkan
// backend's modes, one small interface so that each lives in its own file.
//
//   staging   the kernels write cudaMalloc memory; copied to pinned host memory; Renderer::upload
//             (inputs the other way: Renderer::download, then to the device)          modes_copy.cpp
//   cpu       the CPU reference writes host memory; Renderer::upload (no CUDA at all)    modes_copy.cpp
//   external  Vulkan allocates exportable memory and semaphores, CUDA imports them once; each frame
//             CUDA waits on a semaphore, runs the kernels and signals               mode_external.cpp
//
// A frame is: the cubes pass (scenes with DrawPlan::cubes_target) with cubes_sync(), produce(), then the
// frame pass with frame_sync(). The copying modes need no semaphores (Renderer::download waits, and
// uploads land at the start of the next pass); the external mode orders CUDA between the two passes
// with the semaphores it hands in.
#pragma once

#include "app/scene/scene_compute.hpp"
#include "app/timing/timing.hpp"
#include "app/core/vocabulary.hpp"
#include "app/vulkan/renderer.hpp"
#include "interop/external.hpp"

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

namespace lab::vulkan {

class Mode {
 public:
  virtual ~Mode() = default;
  virtual ModeId id() const = 0;
  // Whether the renderer must create the scene's resources with exportable memory (for CUDA to import).
  virtual bool needs_exportable_resources() const { return false; }

  // Allocates / imports what renderer.resources() need; they stay until detach. A failure halfway
  // releases what was done and rethrows.
  virtual void attach(Renderer& renderer) = 0;
  // Releases all of it, after the work in flight is done. Must run before the resources are destroyed.
  virtual void detach() = 0;
  // Makes the renderer's resources hold `frame`'s results of `scene`, reading its inputs after the cubes
  // pass. Records its phases in `timers` (kernel, the copies, the external mode's wait and signal).
  virtual void produce(Renderer& renderer, SceneCompute& scene, const FrameInfo& frame, FrameTimers& timers) = 0;

  // What the cubes pass and the frame pass wait on and signal this frame.
  virtual PassSync cubes_sync(const FrameInfo&) { return {}; }
  virtual PassSync frame_sync(const FrameInfo&) { return {}; }
};

// The CUDA device a CUDA mode works on and the stream of every frame on it.
struct CudaContext {
  int device = -1;  // -1: no CUDA device
  cudaStream_t stream = nullptr;
  interop::SemaphoreKind semaphores = interop::SemaphoreKind::Timeline;  // the external mode's (--semaphores)
};

// Whether `mode` runs on Vulkan here: cpu always; staging needs a CUDA device (cuda_error says why there
// is none); external too, and what it needs of the Vulkan device (semaphore export, timelines) is said
// by the exception attach throws where it is missing; the modes of other APIs never
// (modes_of(GraphicsApi::Vulkan)).
ModeAvailability mode_availability(ModeId mode, const CudaContext& cuda, const std::string& cuda_error);

// The mode `id`; throws std::runtime_error with the reason when it is unavailable.
std::unique_ptr<Mode> create_mode(ModeId id, const CudaContext& cuda);

}  // namespace lab::vulkan
