// kernels/blit.hpp — a picture that another process published (8-bit gray, RGB or RGBA, row 0 at the top,
// as arrays and PNGs have it) copied into a frame texture (RGBA8, row 0 at the bottom, as every backend
// keeps it), nearest sampled when the two sizes differ. The published source (app/scene/published_source.hpp)
// runs it every frame.
#pragma once

#include "kernels/common.hpp"
#include "kernels/image.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace kernels {

struct BlitParams {
  const uint8_t* pixels = nullptr;  // the picture: device memory for blit_cuda, host memory for blit_cpu
  size_t pitch = 0;                 // bytes between its rows
  int width = 0, height = 0;
  int channels = 4;  // 1 (gray), 3 (RGB, opaque) or 4 (RGBA)
};

// Texel (x, y) of a target_width x target_height frame: the picture's pixel under it.
KERNELS_HD inline Rgba8 blit_texel(int x, int y, int target_width, int target_height, const BlitParams& p) {
  const int sx = static_cast<int>(static_cast<long long>(x) * p.width / target_width);
  const int sy = static_cast<int>(static_cast<long long>(target_height - 1 - y) * p.height / target_height);
  const uint8_t* pixel = p.pixels + static_cast<size_t>(sy) * p.pitch + static_cast<size_t>(sx) * p.channels;
  if (p.channels == 1) return Rgba8{pixel[0], pixel[0], pixel[0], 255};
  if (p.channels == 3) return Rgba8{pixel[0], pixel[1], pixel[2], 255};
  return Rgba8{pixel[0], pixel[1], pixel[2], pixel[3]};
}

// The CPU reference, into host memory (a linear target).
void blit_cpu(ImageTarget target, const BlitParams& params);
// CUDA, into a surface or linear device memory; the picture in device memory.
void blit_cuda(ImageTarget target, const BlitParams& params, cudaStream_t stream);

}  // namespace kernels
