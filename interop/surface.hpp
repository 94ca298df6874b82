// interop/surface.hpp — RAII CUDA surface and texture objects over a cudaArray (usually a mapped GL
// texture). The array of a mapped texture can change between maps: create these per map.
#pragma once

#include <cuda_runtime_api.h>

namespace interop {

class SurfaceObject {
 public:
  SurfaceObject() = default;
  explicit SurfaceObject(cudaArray_t array);  // the array needs cudaArraySurfaceLoadStore
  ~SurfaceObject();
  SurfaceObject(const SurfaceObject&) = delete;
  SurfaceObject& operator=(const SurfaceObject&) = delete;
  SurfaceObject(SurfaceObject&& other) noexcept;
  SurfaceObject& operator=(SurfaceObject&& other) noexcept;

  cudaSurfaceObject_t get() const { return m_surface; }

 private:
  cudaSurfaceObject_t m_surface = 0;
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
  ~TextureObject();
  TextureObject(const TextureObject&) = delete;
  TextureObject& operator=(const TextureObject&) = delete;
  TextureObject(TextureObject&& other) noexcept;
  TextureObject& operator=(TextureObject&& other) noexcept;

  cudaTextureObject_t get() const { return m_texture; }

 private:
  cudaTextureObject_t m_texture = 0;
};

}  // namespace interop
