// interop/memory.cpp — DeviceBuffer and PinnedHostBuffer.
#include "interop/memory.hpp"

#include "interop/error.hpp"

#include <atomic>

namespace interop {

namespace detail {
// The process-wide counts behind live_device_bytes / live_pinned_host_bytes (as gl.cpp's counters);
// vmm.cpp's exportable allocations count in the first.
std::atomic<size_t>& device_bytes() {
  static std::atomic<size_t> bytes{0};
  return bytes;
}
namespace {
std::atomic<size_t>& pinned_host_bytes() {
  static std::atomic<size_t> bytes{0};
  return bytes;
}
}  // namespace

void DeviceMemoryTraits::destroy(Handle allocation) noexcept {
  if (!allocation.data) return;
  INTEROP_CUDA_REPORT(cudaFree(allocation.data));
  device_bytes() -= allocation.size;
}
void PinnedHostMemoryTraits::destroy(Handle allocation) noexcept {
  if (!allocation.data) return;
  INTEROP_CUDA_REPORT(cudaFreeHost(allocation.data));
  pinned_host_bytes() -= allocation.size;
}
}  // namespace detail

size_t live_device_bytes() {
  return detail::device_bytes().load();
}
size_t live_pinned_host_bytes() {
  return detail::pinned_host_bytes().load();
}

DeviceBuffer::DeviceBuffer(size_t bytes) {
  detail::DeviceAllocation allocation;
  allocation.size = bytes;
  INTEROP_CUDA_CHECK(cudaGetDevice(&allocation.device));
  INTEROP_CUDA_CHECK(cudaMalloc(&allocation.data, bytes));
  m_memory = Owner<detail::DeviceMemoryTraits>(allocation);
  detail::device_bytes() += bytes;
}

PinnedHostBuffer::PinnedHostBuffer(size_t bytes) {
  detail::HostAllocation allocation;
  allocation.size = bytes;
  INTEROP_CUDA_CHECK(cudaMallocHost(&allocation.data, bytes));
  m_memory = Owner<detail::PinnedHostMemoryTraits>(allocation);
  detail::pinned_host_bytes() += bytes;
}

}  // namespace interop
