// interop/mapping.cpp — ScopedMap.
#include "interop/mapping.hpp"

#include "interop/error.hpp"

#include <atomic>
#include <utility>

namespace interop {
namespace detail {
std::atomic<int>& mapping_counter();  // defined in gl.cpp
}

ScopedMap::ScopedMap(std::initializer_list<cudaGraphicsResource_t> resources, cudaStream_t stream)
    : ScopedMap(std::vector<cudaGraphicsResource_t>(resources), stream) {}

ScopedMap::ScopedMap(std::vector<cudaGraphicsResource_t> resources, cudaStream_t stream)
    : m_resources(std::move(resources)), m_stream(stream) {
  if (m_resources.empty()) return;
  INTEROP_CUDA_CHECK(
      cudaGraphicsMapResources(static_cast<int>(m_resources.size()), m_resources.data(), m_stream));
  detail::mapping_counter() += static_cast<int>(m_resources.size());
}

ScopedMap::ScopedMap(ScopedMap&& other) noexcept
    : m_resources(std::exchange(other.m_resources, {})), m_stream(other.m_stream) {}

ScopedMap::~ScopedMap() {
  if (m_resources.empty()) return;
  INTEROP_CUDA_REPORT(
      cudaGraphicsUnmapResources(static_cast<int>(m_resources.size()), m_resources.data(), m_stream));
  detail::mapping_counter() -= static_cast<int>(m_resources.size());
}

void ScopedMap::unmap() {
  if (m_resources.empty()) return;
  std::vector<cudaGraphicsResource_t> resources = std::exchange(m_resources, {});
  detail::mapping_counter() -= static_cast<int>(resources.size());
  INTEROP_CUDA_CHECK(cudaGraphicsUnmapResources(static_cast<int>(resources.size()), resources.data(), m_stream));
}

MappedPointer ScopedMap::pointer(size_t index) const {
  MappedPointer mapped;
  INTEROP_CUDA_CHECK(cudaGraphicsResourceGetMappedPointer(&mapped.data, &mapped.size, m_resources.at(index)));
  return mapped;
}

cudaArray_t ScopedMap::array(size_t index, unsigned int layer, unsigned int mip_level) const {
  cudaArray_t array = nullptr;
  INTEROP_CUDA_CHECK(cudaGraphicsSubResourceGetMappedArray(&array, m_resources.at(index), layer, mip_level));
  return array;
}

}  // namespace interop
