// interop/memory.cpp — DeviceBuffer and PinnedHostBuffer.
#include "interop/memory.hpp"

#include "interop/error.hpp"

#include <utility>

namespace interop {

DeviceBuffer::DeviceBuffer(size_t bytes) : m_size(bytes) {
  INTEROP_CUDA_CHECK(cudaGetDevice(&m_device));
  INTEROP_CUDA_CHECK(cudaMalloc(&m_data, bytes));
}

DeviceBuffer::~DeviceBuffer() {
  if (m_data) INTEROP_CUDA_REPORT(cudaFree(m_data));
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : m_data(std::exchange(other.m_data, nullptr)),
      m_size(std::exchange(other.m_size, 0)),
      m_device(std::exchange(other.m_device, -1)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    DeviceBuffer old(std::move(*this));
    m_data = std::exchange(other.m_data, nullptr);
    m_size = std::exchange(other.m_size, 0);
    m_device = std::exchange(other.m_device, -1);
  }
  return *this;
}

PinnedHostBuffer::PinnedHostBuffer(size_t bytes) : m_size(bytes) {
  INTEROP_CUDA_CHECK(cudaMallocHost(&m_data, bytes));
}

PinnedHostBuffer::~PinnedHostBuffer() {
  if (m_data) INTEROP_CUDA_REPORT(cudaFreeHost(m_data));
}

PinnedHostBuffer::PinnedHostBuffer(PinnedHostBuffer&& other) noexcept
    : m_data(std::exchange(other.m_data, nullptr)), m_size(std::exchange(other.m_size, 0)) {}

PinnedHostBuffer& PinnedHostBuffer::operator=(PinnedHostBuffer&& other) noexcept {
  if (this != &other) {
    PinnedHostBuffer old(std::move(*this));
    m_data = std::exchange(other.m_data, nullptr);
    m_size = std::exchange(other.m_size, 0);
  }
  return *this;
}

}  // namespace interop
