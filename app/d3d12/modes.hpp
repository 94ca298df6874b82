// app/d3d12/modes.hpp — how a scene's results reach the Direct3D 12 renderer's resources: the D3D12
// backend's modes behind one small interface (the same shape as app/vulkan/modes.hpp). cpu needs no
// CUDA; the CUDA modes (staging, external) come from cuda_modes.hpp.
#pragma once

#include "app/d3d12/renderer.hpp"
#include "app/scene_compute.hpp"
#include "app/vocabulary.hpp"

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

namespace lab::d3d12 {

struct CudaContext { int device = -1; cudaStream_t stream = nullptr; };

class Mode {
 public:
  virtual ~Mode() = default;
  virtual ModeId id() const = 0;
  virtual bool needs_shared_resources() const { return false; }  // keyed-mutex (D3D11) / D3D12_HEAP_FLAG_SHARED resources for external memory
  virtual void attach(Renderer& renderer) = 0;   // a failure halfway releases what was done and rethrows
  virtual void detach() = 0;                      // after the work in flight is done; before resources go
  virtual void produce(Renderer& renderer, SceneCompute& scene, const FrameInfo& frame) = 0;  // cubes pass already drawn
};

ModeAvailability mode_availability(ModeId mode, const CudaContext& cuda, const std::string& cuda_error);
std::unique_ptr<Mode> create_mode(ModeId id, const CudaContext& cuda);

}  // namespace lab::d3d12
