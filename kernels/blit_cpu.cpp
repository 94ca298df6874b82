// kernels/blit_cpu.cpp — the CPU reference of a picture's copy into the frame.
#include "kernels/blit.hpp"

#include <cassert>

namespace kernels {

void blit_cpu(ImageTarget target, const BlitParams& params) {
  assert(target.surface == 0 && "blit_cpu writes host memory: pass linear_target(pixels, pitch, ...)");
  if (params.width <= 0 || params.height <= 0) return;
  for (int y = 0; y < target.height; ++y)
    for (int x = 0; x < target.width; ++x)
      store(target, x, y, blit_texel(x, y, target.width, target.height, params));
}

}  // namespace kernels
