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

}  // namespace interop
