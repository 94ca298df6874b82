// interop/mapping.cpp — ScopedMap.
#include "interop/mapping.hpp"

#include "interop/error.hpp"

#include <nvtx3/nvToolsExtMemCudaRt.h>

#include <atomic>
#include <utility>

namespace interop {
namespace detail {
std::atomic<int>& mapping_counter();  // defined in gl.cpp
}

// Without a tool attached, the NVTX call is a function-pointer check and returns.
void declare_initialised(const void* data, size_t bytes, cudaStream_t stream) {
  static const nvtxDomainHandle_t domain = nvtxDomainCreateA("interop");
  const nvtxMemVirtualRangeDesc_t range{bytes, data};
  nvtxMemMarkInitializedBatch_t batch{};
  batch.extCompatID = NVTX_EXT_COMPATID_MEM;
  batch.structSize = sizeof(batch);
  batch.regionType = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
  batch.regionDescCount = 1;
  batch.regionDescElementSize = sizeof(range);
  batch.regionDescElements = &range;
  nvtxMemCudaMarkInitialized(domain, stream, 0, &batch);
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
  INTEROP_CUDA_CHECK(
      cudaGraphicsUnmapResources(static_cast<int>(resources.size()), resources.data(), m_stream));
}

MappedPointer ScopedMap::pointer(size_t index) const {
  MappedPointer mapped;
  INTEROP_CUDA_CHECK(cudaGraphicsResourceGetMappedPointer(&mapped.data, &mapped.size, m_resources.at(index)));
  declare_initialised(mapped.data, mapped.size, m_stream);  // GL wrote it, out of initcheck's sight
  return mapped;
}

cudaArray_t ScopedMap::array(size_t index, unsigned int layer, unsigned int mip_level) const {
  cudaArray_t array = nullptr;
  INTEROP_CUDA_CHECK(cudaGraphicsSubResourceGetMappedArray(&array, m_resources.at(index), layer, mip_level));
  return array;
}

}  // namespace interop
