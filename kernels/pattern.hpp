// kernels/pattern.hpp — the `pattern` scene: an animated procedural image (plasma bands, rings moving
// out from a wandering centre, a faint checker) written into a GL texture.
#pragma once

#include "kernels/common.hpp"

#include <cuda_runtime_api.h>

namespace kernels {

struct PatternParams {
  int width = 0;
  int height = 0;
  float time = 0.0f;
};

KERNELS_HD inline Rgba8 pattern_texel(int x, int y, const PatternParams& p) {
  const float u = (static_cast<float>(x) + 0.5f) / static_cast<float>(p.width);
  const float v = (static_cast<float>(y) + 0.5f) / static_cast<float>(p.height);
  const float aspect = static_cast<float>(p.width) / static_cast<float>(p.height);
  const float t = p.time;
  const float cx = 0.5f + 0.25f * sinf(0.7f * t);
  const float cy = 0.5f + 0.25f * cosf(0.9f * t);
  const float dx = (u - cx) * aspect;
  const float dy = v - cy;
  const float ring = 0.5f + 0.5f * sinf(40.0f * sqrtf(dx * dx + dy * dy) - 4.0f * t);
  const float band = 0.5f + 0.5f * sinf(8.0f * u + 6.0f * v + 1.5f * t);
  const int checker = ((x >> 5) + (y >> 5)) & 1;
  const Vec3 warm{0.95f, 0.45f, 0.15f};
  const Vec3 cool{0.10f, 0.35f, 0.85f};
  Vec3 c = mix(cool, warm, band) * (0.55f + 0.45f * ring);
  c = c * (checker ? 1.0f : 0.9f);
  return to_rgba8(c);
}

// The CPU reference into a host image.
void pattern_cpu(PitchedImage image, const PatternParams& params);
// CUDA through a surface object (a mapped GL texture registered with SurfaceLoadStore).
void pattern_cuda_surface(cudaSurfaceObject_t surface, const PatternParams& params, cudaStream_t stream);
// CUDA into linear device memory (a mapped pixel buffer or plain cudaMalloc memory).
void pattern_cuda_linear(PitchedImage image, const PatternParams& params, cudaStream_t stream);

}  // namespace kernels
