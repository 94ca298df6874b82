// kernels/postprocess.hpp — the `postprocess` scene's filters over an RGBA8 image: Sobel edges, and a
// separable Gaussian blur in two passes (horizontal into a float scratch image, vertical from it into
// the target). Each output texel comes from a __host__ __device__ function below, so the CUDA launcher
// (postprocess.cu) and the CPU reference (postprocess_cpu.cpp) compute it with the same operations in
// the same order; built without fast-math they agree to within 1/255 per channel.
#pragma once

#include "kernels/common.hpp"
#include "kernels/image.hpp"

#include <cuda_runtime_api.h>

namespace kernels {

enum class Filter { Sobel, Blur };
// Every filter with its name (as --filter and the panel spell it), in the order they are offered.
struct FilterName {
  Filter value;
  const char* name;
  const char* description;
};
inline constexpr FilterName kFilterNames[] = {
    {Filter::Sobel, "sobel", "Sobel edge magnitude"},
    {Filter::Blur, "blur", "separable Gaussian blur"},
};
const char* to_string(Filter filter);  // the name in kFilterNames

constexpr int kMaxBlurRadius = 32;

struct PostprocessParams {
  Filter filter = Filter::Sobel;
  int blur_radius = 6;  // taps -radius..radius in each pass, sigma = radius / 2.5; 0..kMaxBlurRadius
};

// --- Sobel -----------------------------------------------------------------------------------------

KERNELS_HD inline float luminance(Vec4 c) {
  return 0.299f * c.x + 0.587f * c.y + 0.114f * c.z;
}

// Gradient magnitude of the luminance at (x, y), 3x3 Sobel, edges clamped. A step from black to white
// gives 4.
KERNELS_HD inline float sobel_magnitude(const ImageSource& s, int x, int y) {
  const float l00 = luminance(load(s, x - 1, y - 1));
  const float l10 = luminance(load(s, x, y - 1));
  const float l20 = luminance(load(s, x + 1, y - 1));
  const float l01 = luminance(load(s, x - 1, y));
  const float l21 = luminance(load(s, x + 1, y));
  const float l02 = luminance(load(s, x - 1, y + 1));
  const float l12 = luminance(load(s, x, y + 1));
  const float l22 = luminance(load(s, x + 1, y + 1));
  const float gx = (l20 + 2.0f * l21 + l22) - (l00 + 2.0f * l01 + l02);
  const float gy = (l02 + 2.0f * l12 + l22) - (l00 + 2.0f * l10 + l20);
  return sqrtf(gx * gx + gy * gy);
}

// What the Sobel output shows where there is no edge: a dark, slightly cool copy of the source, so the
// scene stays recognisable under its edges.
KERNELS_HD inline Vec3 sobel_background(Vec4 source) {
  return {source.x * 0.18f, source.y * 0.20f, source.z * 0.26f};
}

// Edges are drawn in this colour, at full strength from a magnitude of 1 / kSobelEdgeGain.
KERNELS_HD inline Vec3 sobel_edge_colour() {
  return {1.0f, 0.85f, 0.45f};
}
constexpr float kSobelEdgeGain = 2.0f;

// Output texel (x, y) of the Sobel filter; alpha is the source's.
KERNELS_HD inline Rgba8 sobel_texel(const ImageSource& s, int x, int y) {
  const Vec4 source = load(s, x, y);
  const float edge = clamp01(sobel_magnitude(s, x, y) * kSobelEdgeGain);
  Rgba8 out = to_rgba8(sobel_background(source) + sobel_edge_colour() * edge);
  out.a = to_unorm8(source.w);
  return out;
}

// --- Gaussian blur ---------------------------------------------------------------------------------

// The normalised 1D kernel of one pass: taps -radius..radius weigh weight[|offset|], summing to 1.
struct BlurWeights {
  int radius = 0;
  float weight[kMaxBlurRadius + 1] = {};
};

// Computed once per frame by the launcher and handed to every texel (on the GPU as a kernel parameter),
// so CPU and GPU blur with bit-identical weights. blur_radius is clamped to 0..kMaxBlurRadius here;
// the launchers reject values outside it.
KERNELS_HD inline BlurWeights blur_weights(const PostprocessParams& params) {
  BlurWeights w;
  w.radius = params.blur_radius < 0
                 ? 0
                 : (params.blur_radius > kMaxBlurRadius ? kMaxBlurRadius : params.blur_radius);
  if (w.radius == 0) {
    w.weight[0] = 1.0f;
    return w;
  }
  const float sigma = static_cast<float>(w.radius) / 2.5f;
  const float exponent_scale = -1.0f / (2.0f * sigma * sigma);
  float sum = 0.0f;
  for (int i = 0; i <= w.radius; ++i) {
    w.weight[i] = expf(static_cast<float>(i * i) * exponent_scale);
    sum += i == 0 ? w.weight[i] : 2.0f * w.weight[i];
  }
  for (int i = 0; i <= w.radius; ++i) w.weight[i] /= sum;
  return w;
}

// First pass, texel (x, y) of the scratch image: the source blurred along x. Taps pair up from the
// centre outwards, so a symmetric input gives an exactly symmetric output.
KERNELS_HD inline Vec4 blur_horizontal_texel(const ImageSource& s, int x, int y, const BlurWeights& w) {
  Vec4 sum = load(s, x, y) * w.weight[0];
  for (int i = 1; i <= w.radius; ++i) sum = sum + (load(s, x - i, y) + load(s, x + i, y)) * w.weight[i];
  return sum;
}

// Texel (x, y) of the scratch image (width x height, tightly packed rows), y clamped to the edge.
KERNELS_HD inline Vec4 scratch_at(const Vec4* scratch, int width, int height, int x, int y) {
  return scratch[static_cast<size_t>(clamp_index(y, height)) * static_cast<size_t>(width) +
                 static_cast<size_t>(x)];
}

// Second pass, output texel (x, y): the scratch image blurred along y.
KERNELS_HD inline Rgba8 blur_vertical_texel(const Vec4* scratch, int width, int height, int x, int y,
                                            const BlurWeights& w) {
  Vec4 sum = scratch_at(scratch, width, height, x, y) * w.weight[0];
  for (int i = 1; i <= w.radius; ++i)
    sum =
        sum + (scratch_at(scratch, width, height, x, y - i) + scratch_at(scratch, width, height, x, y + i)) *
                  w.weight[i];
  return to_rgba8(sum);
}

// --- Launchers -------------------------------------------------------------------------------------

// Bytes of the blur's scratch image: one Vec4 per texel (the Sobel filter does not touch it).
inline size_t postprocess_scratch_bytes(int width, int height) {
  return static_cast<size_t>(width) * static_cast<size_t>(height) * sizeof(Vec4);
}

// Throws std::invalid_argument naming the field and the fix: sizes that differ, an image with neither
// memory nor a CUDA object, blur_radius out of range, a blur without scratch. Both launchers call it.
void validate_postprocess(const ImageSource& source, const ImageTarget& target,
                          const PostprocessParams& params, const Vec4* scratch);

// Filters source into target (same size; for Sobel they must not overlap). The CPU reference reads and
// writes host memory only (no texture or surface objects); scratch is host memory of
// postprocess_scratch_bytes(width, height).
void postprocess_cpu(const ImageSource& source, const ImageTarget& target, const PostprocessParams& params,
                     Vec4* scratch);
// The same on `stream`; linear images and scratch are device memory.
void postprocess_cuda(const ImageSource& source, const ImageTarget& target, const PostprocessParams& params,
                      Vec4* scratch, cudaStream_t stream);

}  // namespace kernels
