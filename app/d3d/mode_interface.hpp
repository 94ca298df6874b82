// app/d3d/mode_interface.hpp — the Direct3D backends' mode interface, one template over the backend's
// Renderer: app/d3d11/modes.hpp and app/d3d12/modes.hpp name it Mode in their namespaces. The same shape as
// app/vulkan/modes.hpp, without semaphores: each Direct3D renderer orders its own passes (D3D11's
// immediate context; D3D12's queue fence), and the external modes' hand-overs are their links' business.
//
// A frame is: the cubes pass (scenes with DrawPlan::cubes_target), produce(), then the frame pass.
#pragma once

#include "app/scene/scene_compute.hpp"
#include "app/core/vocabulary.hpp"

#include <cuda_runtime_api.h>

namespace lab::d3d {

// The CUDA device a CUDA mode works on and the stream of every frame on it.
struct CudaContext {
  int device = -1;  // -1: no CUDA device / CUDA-free build
  cudaStream_t stream = nullptr;
};

template <class Renderer>
class Mode {
 public:
  virtual ~Mode() = default;
  virtual ModeId id() const = 0;
  // Whether the renderer must create the scene's resources shared (keyed mutex on D3D11 /
  // D3D12_HEAP_FLAG_SHARED) for CUDA's external-memory import.
  virtual bool needs_shared_resources() const { return false; }
  // Allocates / registers / imports what renderer.resources() need; a failure halfway releases what was
  // done and rethrows.
  virtual void attach(Renderer& renderer) = 0;
  // Releases all of it, after the work in flight is done; before the resources go.
  virtual void detach() = 0;
  // Makes renderer.resources() hold frame's results; the cubes pass (DrawPlan::cubes_target) is already
  // drawn.
  virtual void produce(Renderer& renderer, SceneCompute& scene, const FrameInfo& frame) = 0;
};

}  // namespace lab::d3d
