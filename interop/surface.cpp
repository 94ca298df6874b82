// interop/surface.cpp — surface and texture objects.
#include "interop/surface.hpp"

#include "interop/error.hpp"

namespace interop {

namespace detail {
void SurfaceObjectTraits::destroy(Handle surface) noexcept {
  INTEROP_CUDA_REPORT(cudaDestroySurfaceObject(surface));
}
void TextureObjectTraits::destroy(Handle texture) noexcept {
  INTEROP_CUDA_REPORT(cudaDestroyTextureObject(texture));
}
}  // namespace detail

SurfaceObject::SurfaceObject(cudaArray_t array) {
  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypeArray;
  resource.res.array.array = array;
  cudaSurfaceObject_t surface = 0;
  INTEROP_CUDA_CHECK(cudaCreateSurfaceObject(&surface, &resource));
  m_surface = Owner<detail::SurfaceObjectTraits>(surface);
}

TextureObject::TextureObject(cudaArray_t array, const TextureObjectDesc& desc) {
  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypeArray;
  resource.res.array.array = array;
  cudaTextureDesc texture{};
  texture.addressMode[0] = texture.addressMode[1] = texture.addressMode[2] = desc.address;
  texture.filterMode = desc.filter;
  texture.readMode = desc.read_mode;
  texture.normalizedCoords = desc.normalized_coordinates ? 1 : 0;
  cudaTextureObject_t object = 0;
  INTEROP_CUDA_CHECK(cudaCreateTextureObject(&object, &resource, &texture, nullptr));
  m_texture = Owner<detail::TextureObjectTraits>(object);
}

}  // namespace interop
