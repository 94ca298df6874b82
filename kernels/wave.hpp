// kernels/wave.hpp — the `wave` scene: an animated height field over [-1, 1]^2 whose positions and
// normals CUDA writes into a GL vertex buffer. The normal is the analytic gradient of the height,
// so no neighbour reads are needed and the kernel is one thread per vertex.
#pragma once

#include "kernels/common.hpp"

#include <cuda_runtime_api.h>

namespace kernels {

struct WaveVertex {
  Vec3 position;
  Vec3 normal;
};
static_assert(sizeof(WaveVertex) == 24, "WaveVertex is the GL vertex layout: 2 x vec3, tightly packed");

struct WaveParams {
  int grid_x = 256;  // vertices along x
  int grid_z = 256;  // vertices along z
  float time = 0.0f;
};

KERNELS_HD inline int wave_vertex_count(const WaveParams& p) {
  return p.grid_x * p.grid_z;
}

// Height and its partial derivatives at (x, z): a travelling cross wave plus a ring from the centre.
struct WaveSample {
  float height, d_dx, d_dz;
};

KERNELS_HD inline WaveSample wave_sample(float x, float z, float t) {
  const float a = 4.0f * x + 1.3f * t;
  const float b = 3.0f * z + 0.7f * t;
  const float r = sqrtf(x * x + z * z + 1e-6f);
  const float c = 9.0f * r - 2.5f * t;
  const float cross_amp = 0.10f;
  const float ring_amp = 0.05f;
  WaveSample s;
  s.height = cross_amp * sinf(a) * cosf(b) + ring_amp * sinf(c);
  const float ring_slope = ring_amp * 9.0f * cosf(c) / r;
  s.d_dx = cross_amp * 4.0f * cosf(a) * cosf(b) + ring_slope * x;
  s.d_dz = -cross_amp * 3.0f * sinf(a) * sinf(b) + ring_slope * z;
  return s;
}

// Vertex (i, j) of the grid: i along x, j along z; stored at index j * grid_x + i.
KERNELS_HD inline WaveVertex wave_vertex(int i, int j, const WaveParams& p) {
  const float x = -1.0f + 2.0f * static_cast<float>(i) / static_cast<float>(p.grid_x - 1);
  const float z = -1.0f + 2.0f * static_cast<float>(j) / static_cast<float>(p.grid_z - 1);
  const WaveSample s = wave_sample(x, z, p.time);
  return {{x, s.height, z}, normalize(Vec3{-s.d_dx, 1.0f, -s.d_dz})};
}

// The lit colour of a surface point; assets/shaders/wave.frag computes the same per fragment (the GL
// tests compare rendered pixels with this function).
KERNELS_HD inline Vec3 wave_shade(Vec3 normal, float height) {
  const Vec3 light = normalize(Vec3{0.4f, 1.0f, 0.3f});
  const Vec3 deep{0.05f, 0.20f, 0.45f};
  const Vec3 crest{0.55f, 0.85f, 0.95f};
  const Vec3 base = mix(deep, crest, clamp01(height * 4.0f + 0.5f));
  const float diffuse = fmaxf(dot(normalize(normal), light), 0.0f);
  return base * (0.25f + 0.75f * diffuse);
}

// The CPU reference: all vertices into host memory.
void wave_cpu(WaveVertex* vertices, const WaveParams& params);
// The same on the GPU; `vertices` is device memory (e.g. a mapped GL buffer).
void wave_cuda(WaveVertex* vertices, const WaveParams& params, cudaStream_t stream);

}  // namespace kernels
