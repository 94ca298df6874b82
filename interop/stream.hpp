// interop/stream.hpp — a CUDA stream owned by one object. Every map, kernel and unmap of a frame
// goes on one stream so that they order among themselves without device-wide synchronisation.
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

}  // namespace interop
