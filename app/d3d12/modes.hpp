// app/d3d12/modes.hpp — how a scene's results reach the Direct3D 12 renderer's resources: the D3D12
// backend's modes (modes_of(GraphicsApi::D3d12)), one small interface so that each lives in its own file.
//
//   cpu       the CPU reference writes host memory; Renderer::upload (no CUDA at all)       mode_cpu.cpp
//   staging, external: the CUDA modes (cuda_modes.hpp), in a build with CUDA
//
// A frame is: the cubes pass (scenes with DrawPlan::cubes_target), produce(), then the frame pass.
// Each Renderer call waits for its command list on the queue's fence, so the interface passes none.
// The factory (create_mode, mode_availability): modes.cpp in a build with CUDA, cpu_only.cpp in one
// without (the mingw-w64 cross build that checks Direct3D under Wine), which makes the cpu mode only.
#pragma once

#include "app/d3d12/renderer.hpp"
#include "app/scene_compute.hpp"
#include "app/vocabulary.hpp"

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

namespace lab::d3d12 {

// The CUDA device a CUDA mode works on and the stream of every frame on it.
struct CudaContext {
  int device = -1;  // -1: no CUDA device / CUDA-free build
  cudaStream_t stream = nullptr;
};

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

// Whether `mode` runs on Direct3D 12 here (cuda_error: why there is no CUDA device, when there is none).
ModeAvailability mode_availability(ModeId mode, const CudaContext& cuda, const std::string& cuda_error);

// The mode `id`; throws std::runtime_error with the reason when it is unavailable.
std::unique_ptr<Mode> create_mode(ModeId id, const CudaContext& cuda);

}  // namespace lab::d3d12
