// app/mode_detail.hpp — what the modes that map GL objects (interop, reregister, pbo) share: one timed
// map -> kernels -> unmap sequence, and the flags they report to the panel.
#pragma once

#include "app/mode.hpp"
#include "interop/error.hpp"
#include "interop/mapping.hpp"

#include <optional>
#include <string>
#include <vector>

namespace lab::detail {

// Maps `resources` in one call on the stream, lets `bind(mapped)` fill the views, runs the scene's
// kernels on them and unmaps; map and kernels are timed on the GPU, unmap on the host (see below).
template <class Bind>
void map_compute_unmap(const std::vector<cudaGraphicsResource_t>& resources, cudaStream_t stream, Scene& scene,
                       const FrameInfo& frame, const std::vector<CudaResourceView>& views, FrameTimers& timers,
                       const Bind& bind) {
  std::optional<interop::ScopedMap> mapped;
  {
    CudaPhase phase(timers, Phase::Map, stream);
    mapped.emplace(resources, stream);
  }
  bind(*mapped);
  {
    CudaPhase phase(timers, Phase::Kernel, stream);
    scene.compute_cuda(frame, views, stream);
    INTEROP_CUDA_CHECK(cudaGetLastError());  // a failed launch, reported at its frame
  }
  // Unmap is timed on the host: a CUDA event recorded after it makes the GPU switch back to the CUDA
  // context while GL draws, one more cross-context hand-off (+0.34 ms a frame on an H200).
  CpuPhase phase(timers, Phase::Unmap);
  mapped->unmap();
}

inline std::vector<RegisteredFlags> registered_flags(const std::vector<ResourceSpec>& specs,
                                                     const AccessSettings& access, const char* suffix) {
  std::vector<RegisteredFlags> flags;
  for (const ResourceSpec& spec : specs)
    flags.push_back({spec.label + std::string(suffix), spec.role, resolve_access(access.register_access, spec.role),
                     resolve_access(access.map_access, spec.role)});
  return flags;
}

}  // namespace lab::detail
