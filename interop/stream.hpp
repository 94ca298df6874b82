// interop/stream.hpp — a CUDA stream and a CUDA event, each owned by one object. Every map, kernel and
// unmap of a frame goes on one stream so that they order among themselves without device-wide
// synchronisation; an Event orders two streams (of one device or of two) the same way.
#pragma once

#include <cuda_runtime_api.h>

namespace interop {

// A CUDA stream that is destroyed with its owner.
class Stream {
 public:
  Stream();  // cudaStreamNonBlocking: no implicit synchronisation with the legacy default stream
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;

  cudaStream_t get() const { return m_stream; }
  void synchronize() const;

 private:
  cudaStream_t m_stream = nullptr;
};

// A CUDA event without timing, for ordering one stream after another (on the same device or not):
// record it on the first, make the second wait for it. Created on the current device; record it only
// on that device's streams.
class Event {
 public:
  Event();  // cudaEventDisableTiming: the cheapest kind, for ordering only
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;

  cudaEvent_t get() const { return m_event; }
  // cudaEventRecord on `recorded_on`, then cudaStreamWaitEvent(`waits`, ...): work queued on `waits`
  // from now on starts after what was queued on `recorded_on` so far. No host wait.
  void order(cudaStream_t recorded_on, cudaStream_t waits) const;

 private:
  cudaEvent_t m_event = nullptr;
};

}  // namespace interop
