// interop/stream.cpp — Stream.
#include "interop/stream.hpp"

#include "interop/error.hpp"

#include <utility>

namespace interop {

Stream::Stream() { INTEROP_CUDA_CHECK(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking)); }

Stream::~Stream() {
  if (m_stream) INTEROP_CUDA_REPORT(cudaStreamDestroy(m_stream));
}

Stream::Stream(Stream&& other) noexcept : m_stream(std::exchange(other.m_stream, nullptr)) {}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    Stream old(std::move(*this));
    m_stream = std::exchange(other.m_stream, nullptr);
  }
  return *this;
}

void Stream::synchronize() const { INTEROP_CUDA_CHECK(cudaStreamSynchronize(m_stream)); }

Event::Event() { INTEROP_CUDA_CHECK(cudaEventCreateWithFlags(&m_event, cudaEventDisableTiming)); }

Event::~Event() {
  if (m_event) INTEROP_CUDA_REPORT(cudaEventDestroy(m_event));
}

Event::Event(Event&& other) noexcept : m_event(std::exchange(other.m_event, nullptr)) {}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    Event old(std::move(*this));
    m_event = std::exchange(other.m_event, nullptr);
  }
  return *this;
}

void Event::order(cudaStream_t recorded_on, cudaStream_t waits) const {
  INTEROP_CUDA_CHECK(cudaEventRecord(m_event, recorded_on));
  INTEROP_CUDA_CHECK(cudaStreamWaitEvent(waits, m_event, 0));
}

}  // namespace interop
