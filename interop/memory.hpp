// interop/memory.hpp — plain CUDA allocations owned by one object: device memory (cudaMalloc) and
// page-locked host memory (cudaMallocHost, so copies to and from it run asynchronously at full speed;
// with unified addressing, every 64-bit platform CUDA supports, any device can copy to and from it).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace interop {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;

  void* data() const { return m_data; }
  size_t size() const { return m_size; }
  // The CUDA device the memory is on (current at allocation); -1 when empty.
  int device() const { return m_device; }

 private:
  void* m_data = nullptr;
  size_t m_size = 0;
  int m_device = -1;
};

class PinnedHostBuffer {
 public:
  PinnedHostBuffer() = default;
  explicit PinnedHostBuffer(size_t bytes);
  ~PinnedHostBuffer();
  PinnedHostBuffer(const PinnedHostBuffer&) = delete;
  PinnedHostBuffer& operator=(const PinnedHostBuffer&) = delete;
  PinnedHostBuffer(PinnedHostBuffer&& other) noexcept;
  PinnedHostBuffer& operator=(PinnedHostBuffer&& other) noexcept;

  void* data() const { return m_data; }
  size_t size() const { return m_size; }

 private:
  void* m_data = nullptr;
  size_t m_size = 0;
};

}  // namespace interop
