// app/mode.hpp — an interop mode: how the results of a scene's kernels reach its GL objects.
// Each mode owns everything it allocates or registers for a scene, from on_attach to on_detach, so
// switching modes live is detach + attach and leaves nothing behind.
#pragma once

#include "app/scene.hpp"

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

namespace lab {

class Mode {
 public:
  virtual ~Mode() = default;
  virtual ModeId id() const = 0;

  // Registers / allocates what scene.resources() needs. The scene stays attached until on_detach.
  virtual void on_attach(Scene& scene) = 0;
  // Releases all of it. Must run before the scene deletes or re-creates its GL objects.
  virtual void on_detach() = 0;
  // Makes the scene's GL objects hold `frame`: maps, runs the scene's kernels, unmaps (or copies).
  virtual void produce(Scene& scene, const FrameInfo& frame) = 0;
};

// What the CUDA modes share with the app: the device and the one stream of every frame.
struct CudaContext {
  int device = 0;
  cudaStream_t stream = nullptr;
};

std::unique_ptr<Mode> create_interop_mode(const CudaContext& cuda);
std::unique_ptr<Mode> create_cpu_mode();

}  // namespace lab
