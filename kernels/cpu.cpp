// kernels/cpu.cpp — the CPU reference launchers of the wave and pattern scenes: the same per-element
// functions as the CUDA kernels, in plain loops over row ranges (kernels/parallel.hpp).
#include "kernels/parallel.hpp"
#include "kernels/pattern.hpp"
#include "kernels/wave.hpp"

#include <cassert>

namespace kernels {

void wave_cpu(WaveVertex* vertices, const WaveParams& params) {
  parallel_rows(params.grid_z, [&](int begin, int end) {
    for (int j = begin; j < end; ++j)
      for (int i = 0; i < params.grid_x; ++i) vertices[j * params.grid_x + i] = wave_vertex(i, j, params);
  });
}

void pattern_cpu(ImageTarget target, const PatternParams& params) {
  assert(target.surface == 0 && target.pixels != nullptr &&
         "pattern_cpu writes host memory: pass linear_target(pixels, pitch, ...), not a surface object");
  assert(target.width == params.width && target.height == params.height &&
         "pattern_cpu: ImageTarget and PatternParams must have the same size; build both from one extent");
  parallel_rows(params.height, [&](int begin, int end) {
    for (int y = begin; y < end; ++y)
      for (int x = 0; x < params.width; ++x) store(target, x, y, pattern_texel(x, y, params));
  });
}

}  // namespace kernels
