// kernels/image.hpp — how kernels read and write RGBA8 images, wherever they live: a CUDA array (a
// mapped GL texture, read through a texture object, written through a surface object), linear device
// memory (a mapped pixel buffer, cudaMalloc) or host memory (the CPU reference). Kernels call load()
// and store() and never ask which.
//
// Plain C++ (g++) can include this header: the texture and surface paths are compiled for the device
// only, so host code must hand in linear images (the CPU launchers check that it does).
#pragma once

#include "kernels/common.hpp"

#include <cuda_runtime_api.h>

namespace kernels {

// Where a kernel reads an RGBA8 image. Rows are `pitch` bytes apart, row 0 first (GL's bottom row).
struct ImageSource {
  // Set: read through this texture object, made with unnormalised coordinates, point filtering, clamp
  // addressing and cudaReadModeNormalizedFloat (interop::TextureObjectDesc with that read mode).
  cudaTextureObject_t texture = 0;
  const Rgba8* pixels = nullptr;  // else: linear memory, device or host
  size_t pitch = 0;               // bytes
  int width = 0;
  int height = 0;
};

// Where a kernel writes an RGBA8 image.
struct ImageTarget {
  cudaSurfaceObject_t surface = 0;  // set: surf2Dwrite into the CUDA array behind it
  Rgba8* pixels = nullptr;          // else: linear memory, device or host
  size_t pitch = 0;                 // bytes
  int width = 0;
  int height = 0;
};

inline ImageSource texture_source(cudaTextureObject_t texture, int width, int height) {
  ImageSource source;
  source.texture = texture;
  source.width = width;
  source.height = height;
  return source;
}

inline ImageSource linear_source(const Rgba8* pixels, size_t pitch, int width, int height) {
  ImageSource source;
  source.pixels = pixels;
  source.pitch = pitch;
  source.width = width;
  source.height = height;
  return source;
}

inline ImageTarget surface_target(cudaSurfaceObject_t surface, int width, int height) {
  ImageTarget target;
  target.surface = surface;
  target.width = width;
  target.height = height;
  return target;
}

inline ImageTarget linear_target(Rgba8* pixels, size_t pitch, int width, int height) {
  ImageTarget target;
  target.pixels = pixels;
  target.pitch = pitch;
  target.width = width;
  target.height = height;
  return target;
}

// The same image seen as a source, e.g. to read back what a CPU launcher wrote.
inline ImageSource as_source(const ImageTarget& target) {
  ImageSource source;
  source.pixels = target.pixels;
  source.pitch = target.pitch;
  source.width = target.width;
  source.height = target.height;
  return source;
}

KERNELS_HD inline int clamp_index(int i, int size) {
  return i < 0 ? 0 : (i >= size ? size - 1 : i);
}

// Row y of a linear image.
KERNELS_HD inline const Rgba8* row(const ImageSource& s, int y) {
  return reinterpret_cast<const Rgba8*>(reinterpret_cast<const unsigned char*>(s.pixels) +
                                        static_cast<size_t>(y) * s.pitch);
}
KERNELS_HD inline Rgba8* row(const ImageTarget& t, int y) {
  return reinterpret_cast<Rgba8*>(reinterpret_cast<unsigned char*>(t.pixels) +
                                  static_cast<size_t>(y) * t.pitch);
}

// The texel at (x, y), coordinates clamped to the edge, as RGBA in [0, 1].
KERNELS_HD inline Vec4 load(const ImageSource& s, int x, int y) {
  x = clamp_index(x, s.width);
  y = clamp_index(y, s.height);
#ifdef __CUDA_ARCH__
  if (s.texture != 0) {
    const float4 c = tex2D<float4>(s.texture, static_cast<float>(x) + 0.5f, static_cast<float>(y) + 0.5f);
    return {c.x, c.y, c.z, c.w};
  }
#endif
  const Rgba8 c = row(s, y)[x];
  return {c.r / 255.0f, c.g / 255.0f, c.b / 255.0f, c.a / 255.0f};
}

// Writes texel (x, y), which the caller has checked is inside the image.
KERNELS_HD inline void store(const ImageTarget& t, int x, int y, Rgba8 c) {
#ifdef __CUDA_ARCH__
  if (t.surface != 0) {
    surf2Dwrite(make_uchar4(c.r, c.g, c.b, c.a), t.surface, x * static_cast<int>(sizeof(uchar4)), y);
    return;
  }
#endif
  row(t, y)[x] = c;
}

}  // namespace kernels
