// interop/memory.hpp — plain CUDA allocations owned by one object: device memory (cudaMalloc) and
// page-locked host memory (cudaMallocHost, so copies to and from it run asynchronously at full speed;
// with unified addressing, every 64-bit platform CUDA supports, any device can copy to and from it).
#pragma once

#include "interop/owner.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace interop {

namespace detail {
struct DeviceAllocation {
  void* data = nullptr;
  size_t size = 0;
  int device = -1;
  bool operator==(const DeviceAllocation& other) const {
    return data == other.data && size == other.size && device == other.device;
  }
};
struct DeviceMemoryTraits {
  using Handle = DeviceAllocation;
  static void destroy(Handle allocation) noexcept;  // cudaFree
};

struct HostAllocation {
  void* data = nullptr;
  size_t size = 0;
  bool operator==(const HostAllocation& other) const { return data == other.data && size == other.size; }
};
struct PinnedHostMemoryTraits {
  using Handle = HostAllocation;
  static void destroy(Handle allocation) noexcept;  // cudaFreeHost
};
}  // namespace detail

// Device memory of the current CUDA device. Move-only; a move leaves the source empty.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes);

  void* data() const { return m_memory.get().data; }
  size_t size() const { return m_memory.get().size; }
  // The CUDA device the memory is on (current at allocation); -1 when empty.
  int device() const { return m_memory.get().device; }

 private:
  Owner<detail::DeviceMemoryTraits> m_memory;
};

// Page-locked host memory. Move-only; a move leaves the source empty.
class PinnedHostBuffer {
 public:
  PinnedHostBuffer() = default;
  explicit PinnedHostBuffer(size_t bytes);

  void* data() const { return m_memory.get().data; }
  size_t size() const { return m_memory.get().size; }

 private:
  Owner<detail::PinnedHostMemoryTraits> m_memory;
};

// Bytes held through DeviceBuffer and ExportableAllocation (interop/vmm.hpp), and through PinnedHostBuffer,
// and not yet freed, process-wide. Leak checks read them: unlike cudaMemGetInfo, which sees every process
// on the device, they count this process's own.
size_t live_device_bytes();
size_t live_pinned_host_bytes();

}  // namespace interop
