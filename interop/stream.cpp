// interop/stream.cpp — Stream and Event.
#include "interop/stream.hpp"

#include "interop/error.hpp"

namespace interop {

namespace detail {
void StreamTraits::destroy(Handle stream) noexcept {
  INTEROP_CUDA_REPORT(cudaStreamDestroy(stream));
}
void EventTraits::destroy(Handle event) noexcept {
  INTEROP_CUDA_REPORT(cudaEventDestroy(event));
}
}  // namespace detail

Stream::Stream() {
  cudaStream_t stream = nullptr;
  INTEROP_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  m_stream = Owner<detail::StreamTraits>(stream);
}

void Stream::synchronize() const {
  INTEROP_CUDA_CHECK(cudaStreamSynchronize(get()));
}

Event::Event() {
  cudaEvent_t event = nullptr;
  INTEROP_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  m_event = Owner<detail::EventTraits>(event);
}

void Event::order(cudaStream_t recorded_on, cudaStream_t waits) const {
  INTEROP_CUDA_CHECK(cudaEventRecord(get(), recorded_on));
  INTEROP_CUDA_CHECK(cudaStreamWaitEvent(waits, get(), 0));
}

}  // namespace interop
