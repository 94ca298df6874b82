// kernels/blit.hpp — a picture (8-bit gray, RGB or RGBA, row 0 at the top, as arrays and PNGs have it)
// copied into a frame texture (RGBA8, row 0 at the bottom, as every backend keeps it) where its view puts it
// (kernels/view.hpp: a fit or a zoomed and panned view, nearest sampled), black around it. The picture
// sources (app/scene/picture.hpp: another process's frames, a caller's arrays) run it every frame.
#pragma once

#include "kernels/common.hpp"
#include "kernels/image.hpp"
#include "kernels/view.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace kernels {

struct BlitParams {
  const uint8_t* pixels = nullptr;  // the picture: device memory for blit_cuda, host memory for blit_cpu
  size_t pitch = 0;                 // bytes between its rows
  int width = 0, height = 0;
  int channels = 4;   // 1 (gray), 3 (RGB, opaque) or 4 (RGBA)
  ViewSampling view;  // where it lies in the target (app/scene/view.hpp's sampling_of)
};

// Texel (x, y) of a target_width x target_height frame (row 0 at the bottom): the picture's pixel under it,
// or opaque black off the picture.
KERNELS_HD inline Rgba8 blit_texel(int x, int y, int target_width, int target_height, const BlitParams& p) {
  int sx = 0, sy = 0;
  if (!view_pixel(p.view, p.width, p.height, target_width, target_height, x, target_height - 1 - y, &sx, &sy))
    return Rgba8{0, 0, 0, 255};
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
