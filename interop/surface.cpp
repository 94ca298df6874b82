// interop/surface.cpp — surface and texture objects.
#include "interop/surface.hpp"

#include "interop/error.hpp"

#include <utility>

namespace interop {

SurfaceObject::SurfaceObject(cudaArray_t array) {
  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypeArray;
  resource.res.array.array = array;
  INTEROP_CUDA_CHECK(cudaCreateSurfaceObject(&m_surface, &resource));
}

SurfaceObject::~SurfaceObject() {
  if (m_surface) INTEROP_CUDA_REPORT(cudaDestroySurfaceObject(m_surface));
}

SurfaceObject::SurfaceObject(SurfaceObject&& other) noexcept : m_surface(std::exchange(other.m_surface, 0)) {}

SurfaceObject& SurfaceObject::operator=(SurfaceObject&& other) noexcept {
  if (this != &other) {
    SurfaceObject old(std::move(*this));
    m_surface = std::exchange(other.m_surface, 0);
  }
  return *this;
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
  INTEROP_CUDA_CHECK(cudaCreateTextureObject(&m_texture, &resource, &texture, nullptr));
}

TextureObject::~TextureObject() {
  if (m_texture) INTEROP_CUDA_REPORT(cudaDestroyTextureObject(m_texture));
}

TextureObject::TextureObject(TextureObject&& other) noexcept : m_texture(std::exchange(other.m_texture, 0)) {}

TextureObject& TextureObject::operator=(TextureObject&& other) noexcept {
  if (this != &other) {
    TextureObject old(std::move(*this));
    m_texture = std::exchange(other.m_texture, 0);
  }
  return *this;
}

}  // namespace interop
