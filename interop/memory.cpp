// interop/memory.cpp — DeviceBuffer and PinnedHostBuffer.
#include "interop/memory.hpp"

#include "interop/error.hpp"

namespace interop {

namespace detail {
void DeviceMemoryTraits::destroy(Handle allocation) noexcept {
  if (allocation.data) INTEROP_CUDA_REPORT(cudaFree(allocation.data));
}
void PinnedHostMemoryTraits::destroy(Handle allocation) noexcept {
  if (allocation.data) INTEROP_CUDA_REPORT(cudaFreeHost(allocation.data));
}
}  // namespace detail

DeviceBuffer::DeviceBuffer(size_t bytes) {
  detail::DeviceAllocation allocation;
  allocation.size = bytes;
  INTEROP_CUDA_CHECK(cudaGetDevice(&allocation.device));
  INTEROP_CUDA_CHECK(cudaMalloc(&allocation.data, bytes));
  m_memory = Owner<detail::DeviceMemoryTraits>(allocation);
}

PinnedHostBuffer::PinnedHostBuffer(size_t bytes) {
  detail::HostAllocation allocation;
  allocation.size = bytes;
  INTEROP_CUDA_CHECK(cudaMallocHost(&allocation.data, bytes));
  m_memory = Owner<detail::PinnedHostMemoryTraits>(allocation);
}

}  // namespace interop
