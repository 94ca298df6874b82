// interop/stream.hpp — a CUDA stream and a CUDA event, each owned by one object. Every map, kernel and
// unmap of a frame goes on one stream so that they order among themselves without device-wide
// synchronisation; an Event orders two streams (of one device or of two) the same way.
#pragma once

#include "interop/owner.hpp"

#include <cuda_runtime_api.h>

namespace interop {

namespace detail {
struct StreamTraits {
  using Handle = cudaStream_t;
  static void destroy(Handle stream) noexcept;  // cudaStreamDestroy
};
struct EventTraits {
  using Handle = cudaEvent_t;
  static void destroy(Handle event) noexcept;  // cudaEventDestroy
};
}  // namespace detail

// A CUDA stream that is destroyed with its owner. Move-only; a move leaves the source empty.
class Stream {
 public:
  Stream();  // cudaStreamNonBlocking: no implicit synchronisation with the legacy default stream

  cudaStream_t get() const { return m_stream.get(); }
  void synchronize() const;

 private:
  Owner<detail::StreamTraits> m_stream;
};

// A CUDA event without timing, for ordering one stream after another (on the same device or not):
// record it on the first, make the second wait for it. Created on the current device; record it only
// on that device's streams.
class Event {
 public:
  Event();  // cudaEventDisableTiming: the cheapest kind, for ordering only

  cudaEvent_t get() const { return m_event.get(); }
  // cudaEventRecord on `recorded_on`, then cudaStreamWaitEvent(`waits`, ...): work queued on `waits`
  // from now on starts after what was queued on `recorded_on` so far. No host wait.
  void order(cudaStream_t recorded_on, cudaStream_t waits) const;

 private:
  Owner<detail::EventTraits> m_event;
};

}  // namespace interop
