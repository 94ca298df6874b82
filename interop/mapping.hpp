// interop/mapping.hpp — ScopedMap: maps N registered resources in one cudaGraphicsMapResources call
// on a stream and unmaps them in its destructor.
//
// Mapping is a scoped guard, never a standing state: while a resource is mapped, GL must not touch
// it (undefined behaviour per the CUDA documentation), so keep the scope to the CUDA work.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <initializer_list>
#include <vector>

namespace interop {

struct MappedPointer {
  void* data = nullptr;
  size_t size = 0;  // bytes
};

// Tells compute-sanitizer (NVTX memory API) that `bytes` at `data` hold defined contents once the work
// queued on `stream` so far has run. What a graphics API wrote, or what was copied out of a mapped
// graphics array, is invisible to initcheck, which would report every kernel read of it as
// uninitialised (and, stopping those kernels, change the frame). Does nothing without a tool attached.
void declare_initialised(const void* data, size_t bytes, cudaStream_t stream);

class ScopedMap {
 public:
  ScopedMap(std::initializer_list<cudaGraphicsResource_t> resources, cudaStream_t stream);
  ScopedMap(std::vector<cudaGraphicsResource_t> resources, cudaStream_t stream);
  ~ScopedMap();
  ScopedMap(const ScopedMap&) = delete;
  ScopedMap& operator=(const ScopedMap&) = delete;
  ScopedMap(ScopedMap&& other) noexcept;
  ScopedMap& operator=(ScopedMap&&) = delete;

  size_t size() const { return m_resources.size(); }
  // The device pointer of resource `index` (a registered buffer). Its range is declared initialised to
  // compute-sanitizer (NVTX memory API): the graphics API wrote it, out of initcheck's sight.
  MappedPointer pointer(size_t index) const;
  // The cudaArray of resource `index` (a registered texture); layer is the array index or cube face.
  cudaArray_t array(size_t index, unsigned int layer = 0, unsigned int mip_level = 0) const;
  // Unmaps now and reports failure by throwing; the destructor then has nothing left to do.
  void unmap();

 private:
  std::vector<cudaGraphicsResource_t> m_resources;
  cudaStream_t m_stream = nullptr;
};

}  // namespace interop
