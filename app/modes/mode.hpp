// app/modes/mode.hpp — the one mode interface of every graphics API that draws through a Renderer (Vulkan,
// Direct3D 11, Direct3D 12): how a scene's results reach the renderer's resources. A mode owns everything it
// allocates, registers or imports for them from attach to detach, so switching live is detach + attach and
// leaves nothing behind. The copying and external modes are templates over the renderer
// (app/modes/cpu_mode.hpp, staging_mode.hpp, external_mode.hpp) that each API instantiates.
//
// A frame is: the cubes pass (scenes with DrawPlan::cubes_target) with cubes_sync(), produce(), then the
// frame pass with frame_sync(). A renderer whose passes order themselves (Direct3D's immediate context or
// queue fence) has PassSync = NoPassSync; Vulkan's carries the semaphores the external mode hands in.
//
// What a Renderer offers a mode: resources() (each with its ResourceDesc `desc`, in FrameSource::
// resources() order), upload(int, const void*) and download(int, void*) for the copying modes, and the
// API's own handles for the CUDA modes.
#pragma once

#include "app/core/vocabulary.hpp"
#include "app/modes/access.hpp"
#include "app/scene/scene_compute.hpp"
#include "app/timing/timing.hpp"
#include "interop/external.hpp"

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace lab {

// The pass syncs of a renderer that orders its own passes.
struct NoPassSync {};

// Where a mode's begin_frame puts the resources for a caller who writes them with code of its own: the
// CUDA modes' views (a mapped texture's array too, for copies) or the cpu mode's host memory, one per
// resource in renderer.resources() order; the other list is empty.
struct FrameAccess {
  std::vector<CudaResourceView> cuda;
  std::vector<HostResourceView> host;
};

template <class Renderer>
class Mode {
 public:
  using PassSync = typename Renderer::PassSync;

  virtual ~Mode() = default;
  virtual ModeId id() const = 0;
  // Whether the renderer must create the scene's resources so that CUDA can import them (Vulkan: exportable
  // memory; Direct3D: shared resources, a keyed mutex on D3D11, D3D12_HEAP_FLAG_SHARED on D3D12).
  virtual bool needs_importable_resources() const { return false; }

  // Allocates / registers / imports what renderer.resources() need; they stay until detach. A failure
  // halfway releases what was done and rethrows.
  virtual void attach(Renderer& renderer) = 0;
  // Releases all of it, after the work in flight is done. Must run before the resources are destroyed.
  virtual void detach() = 0;
  // Makes the renderer's resources hold `frame`'s results of `scene`, reading its inputs after the cubes
  // pass. Records its phases in `timers` (kernel, the copies, the external mode's wait and signal).
  virtual void produce(Renderer& renderer, FrameSource& scene, const FrameInfo& frame,
                       FrameTimers& timers) = 0;

  // The frame in two halves around writes of the caller's own (python/bridge.cpp: a Python block runs while
  // the resources are mapped): begin_frame makes the resources available, on `stream` for CUDA, and says
  // where; end_frame gives them back to the renderer, its CUDA work queued on that stream after the caller's.
  // The modes that have the halves (GL's interop, every API's cpu) make produce() of them: begin_frame, the
  // source's compute, end_frame. The others have none: splits_frame() is false and begin_frame throws.
  virtual bool splits_frame() const { return false; }
  virtual FrameAccess begin_frame(Renderer&, cudaStream_t /*stream*/, FrameTimers&) {
    throw std::logic_error("this mode makes a frame in one piece (produce): it has no begin_frame");
  }
  virtual void end_frame(Renderer&, FrameTimers&) {}

  // What the cubes pass and the frame pass wait on and signal this frame.
  virtual PassSync cubes_sync(const FrameInfo&) { return {}; }
  virtual PassSync frame_sync(const FrameInfo&) { return {}; }

  // Modes that register the resources with CUDA (GL's interop, reregister, pbo, split) take register and
  // map flags, checked with check_access against the scene first; new register flags re-register. The
  // others ignore them and list nothing.
  virtual void apply_access(const AccessSettings&) {}
  virtual std::vector<RegisteredFlags> registered_flags() const { return {}; }
  // How results travel, for the panel (the split mode's devices and copy, the external mode's memory and
  // semaphores); "" where there is nothing more to say than the mode's name.
  virtual std::string transfer() const { return ""; }
};

// What the CUDA modes share with the app: the device whose CUDA context works with the graphics API's
// resources and the one stream of every frame on it; for GL's split mode, the device its kernels run on, a
// stream there, and how results cross over (compute_device == device is the one-GPU case: two streams, one
// device); and the external modes' semaphores.
struct CudaContext {
  int device = -1;  // -1: no CUDA device
  cudaStream_t stream = nullptr;
  int compute_device = -1;
  cudaStream_t compute_stream = nullptr;
  SplitCopy split_copy = SplitCopy::Peer;
  interop::SemaphoreKind semaphores = interop::SemaphoreKind::Timeline;  // --semaphores
  bool graph = false;  // --graph: the frame's CUDA work as one CUDA graph, in the modes that have the form
};

}  // namespace lab
