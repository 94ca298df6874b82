// interop/surface.hpp — RAII CUDA surface and texture objects over a cudaArray (usually a mapped GL
// texture). The array of a mapped texture can change between maps: create these per map.
#pragma once

#include "interop/owner.hpp"

#include <cuda_runtime_api.h>

namespace interop {

namespace detail {
struct SurfaceObjectTraits {
  using Handle = cudaSurfaceObject_t;
  static void destroy(Handle surface) noexcept;  // cudaDestroySurfaceObject
};
struct TextureObjectTraits {
  using Handle = cudaTextureObject_t;
  static void destroy(Handle texture) noexcept;  // cudaDestroyTextureObject
};
}  // namespace detail

// Move-only, as the owners below; a move leaves the source empty.
class SurfaceObject {
 public:
  SurfaceObject() = default;
  explicit SurfaceObject(cudaArray_t array);  // the array needs cudaArraySurfaceLoadStore

  cudaSurfaceObject_t get() const { return m_surface.get(); }

 private:
  Owner<detail::SurfaceObjectTraits> m_surface;
};

struct TextureObjectDesc {
  cudaTextureFilterMode filter = cudaFilterModePoint;
  cudaTextureAddressMode address = cudaAddressModeClamp;
  cudaTextureReadMode read_mode = cudaReadModeElementType;  // or cudaReadModeNormalizedFloat
  bool normalized_coordinates = false;
};

class TextureObject {
 public:
  TextureObject() = default;
  TextureObject(cudaArray_t array, const TextureObjectDesc& desc);

  cudaTextureObject_t get() const { return m_texture.get(); }

 private:
  Owner<detail::TextureObjectTraits> m_texture;
};

}  // namespace interop
