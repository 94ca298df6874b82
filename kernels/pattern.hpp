// kernels/pattern.hpp — the `pattern` scene: an animated procedural image (plasma bands, rings moving
// out from a wandering centre, a faint checker) written into a GL texture.
#pragma once

#include "kernels/common.hpp"
#include "kernels/image.hpp"

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

// Both launchers write a target of params.width x params.height texels.
// The CPU reference, into host memory (a linear target).
void pattern_cpu(ImageTarget target, const PatternParams& params);
// CUDA, into a surface (a mapped GL texture registered with SurfaceLoadStore) or linear device memory
// (a mapped pixel buffer, cudaMalloc).
void pattern_cuda(ImageTarget target, const PatternParams& params, cudaStream_t stream);

}  // namespace kernels
