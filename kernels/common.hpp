// kernels/common.hpp — what every kernel header shares: the host/device qualifier, small vector math
// and 8-bit colour. Per-element math lives in __host__ __device__ functions so that the CUDA launcher
// and the CPU reference run the very same code.
#pragma once

#include <math.h>  // sinf, cosf, sqrtf: declared for host and device alike
#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define KERNELS_HD __host__ __device__
#else
#define KERNELS_HD
#endif

namespace kernels {

struct Vec3 {
  float x, y, z;
};

KERNELS_HD inline Vec3 operator+(Vec3 a, Vec3 b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
KERNELS_HD inline Vec3 operator*(Vec3 a, float s) {
  return {a.x * s, a.y * s, a.z * s};
}
KERNELS_HD inline float dot(Vec3 a, Vec3 b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
KERNELS_HD inline Vec3 normalize(Vec3 v) {
  return v * (1.0f / sqrtf(dot(v, v)));
}
KERNELS_HD inline float clamp01(float v) {
  return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
}
KERNELS_HD inline Vec3 mix(Vec3 a, Vec3 b, float t) {
  return a * (1.0f - t) + b * t;
}

// An RGBA colour in [0, 1] (or an unnormalised sum on its way there). 16-byte aligned like float4, so
// device arrays of it load in one 128-bit access.
struct alignas(16) Vec4 {
  float x, y, z, w;
};
static_assert(sizeof(Vec4) == 16, "Vec4 must match float4");

KERNELS_HD inline Vec4 operator+(Vec4 a, Vec4 b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w};
}
KERNELS_HD inline Vec4 operator*(Vec4 a, float s) {
  return {a.x * s, a.y * s, a.z * s, a.w * s};
}

// One RGBA8 texel, the layout of GL_RGBA8 and of CUDA's uchar4.
struct Rgba8 {
  uint8_t r, g, b, a;
};
static_assert(sizeof(Rgba8) == 4, "Rgba8 must match GL_RGBA8 and uchar4");

KERNELS_HD inline bool operator==(Rgba8 a, Rgba8 b) {
  return a.r == b.r && a.g == b.g && a.b == b.b && a.a == b.a;
}
KERNELS_HD inline bool operator!=(Rgba8 a, Rgba8 b) {
  return !(a == b);
}

// [0, 1] -> [0, 255], rounded to nearest, as GL's unorm conversion does.
KERNELS_HD inline uint8_t to_unorm8(float v) {
  return static_cast<uint8_t>(clamp01(v) * 255.0f + 0.5f);
}

KERNELS_HD inline Rgba8 to_rgba8(Vec3 c) {
  return {to_unorm8(c.x), to_unorm8(c.y), to_unorm8(c.z), 255};
}
KERNELS_HD inline Rgba8 to_rgba8(Vec4 c) {
  return {to_unorm8(c.x), to_unorm8(c.y), to_unorm8(c.z), to_unorm8(c.w)};
}

// Frames are reproducible: animation time is a function of the frame index.
inline float time_of_frame(long long frame) {
  return static_cast<float>(frame) / 60.0f;
}

}  // namespace kernels
