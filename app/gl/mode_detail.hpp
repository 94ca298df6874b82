// app/gl/mode_detail.hpp — what the modes that map GL objects (interop, reregister, pbo, split) share
// besides their registrations (app/gl/registrations.hpp): re-registering for new flags, and one timed map
// -> kernels -> unmap sequence.
#pragma once

#include "app/gl/mode.hpp"
#include "app/gl/registrations.hpp"
#include "app/scene/frame_graph.hpp"
#include "interop/error.hpp"
#include "interop/gl.hpp"
#include "interop/mapping.hpp"

#include <optional>
#include <string>
#include <vector>

namespace lab::gl::detail {

// Applies new access settings to a mode's registrations: re-registers when the register flags change
// (calling `before_unregister` first, so the mode can let work that uses the registered objects
// finish), else sets the map flags. While nothing is registered it only records them: the next
// registration applies them.
template <class BeforeUnregister>
void apply_access(gl::SceneRegistrations& registrations, const std::vector<gl::Resource>& specs,
                  bool surfaces, AccessSettings& current, const AccessSettings& wanted,
                  const BeforeUnregister& before_unregister) {
  const bool reregister = wanted.register_access != current.register_access;
  current = wanted;
  if (registrations.empty()) return;
  if (reregister) {
    before_unregister();
    registrations.clear();
    registrations.register_all(specs, current, surfaces);
  } else {
    registrations.apply_map_access(specs, current);
  }
}

// Maps `resources` in one call on `stream` into `mapped`, timed as TimingClocks says: by CUDA events
// around the call, or on the host (an event before the map costs a context switch on some GPUs).
inline void timed_map(std::optional<interop::ScopedMap>& mapped,
                      const std::vector<cudaGraphicsResource_t>& resources, cudaStream_t stream,
                      FrameTimers& timers) {
  if (timers.clocks().map_on_gpu) {
    CudaPhase phase(timers, Phase::Map, stream);
    mapped.emplace(resources, stream);
  } else {
    CpuPhase phase(timers, Phase::Map);
    mapped.emplace(resources, stream);
  }
}

// Runs the scene's kernels on `views` on `stream`, timed on the GPU as the kernel phase; with `graph`
// (--graph), launched as one CUDA graph (app/scene/frame_graph.hpp).
inline void compute(FrameSource& scene, const FrameInfo& frame, const std::vector<CudaResourceView>& views,
                    cudaStream_t stream, FrameTimers& timers, FrameGraph* graph) {
  CudaPhase phase(timers, Phase::Kernel, stream);
  const auto kernels = [&] {
    scene.compute_cuda(frame, views, stream);
    INTEROP_CUDA_CHECK(cudaGetLastError());  // a failed launch, reported at its frame
  };
  if (graph != nullptr)
    graph->launch(stream, kernels);
  else
    kernels();
}

// Unmaps `mapped`, timed on the host: a CUDA event recorded after it makes the GPU switch back to the CUDA
// context while GL draws, one more cross-context hand-off (+0.34 ms a frame on an H200).
inline void timed_unmap(interop::ScopedMap& mapped, FrameTimers& timers) {
  CpuPhase phase(timers, Phase::Unmap);
  mapped.unmap();
}

// Maps `resources` in one call on the stream, lets `bind(mapped)` fill the views, runs the scene's
// kernels on them and unmaps; the kernels are timed on the GPU, unmap on the host, the map as TimingClocks
// says. With `graph` (--graph), the kernels are launched as one CUDA graph.
template <class Bind>
void map_compute_unmap(const std::vector<cudaGraphicsResource_t>& resources, cudaStream_t stream,
                       FrameSource& scene, const FrameInfo& frame, const std::vector<CudaResourceView>& views,
                       FrameTimers& timers, const Bind& bind, FrameGraph* graph = nullptr) {
  std::optional<interop::ScopedMap> mapped;
  timed_map(mapped, resources, stream, timers);
  bind(*mapped);
  compute(scene, frame, views, stream, timers, graph);
  timed_unmap(*mapped, timers);
}

}  // namespace lab::gl::detail
