// kernels/points_cpu.cpp — the CPU reference of the points' drawing (kernels/points.hpp): the points in
// order, each kept where it is nearer than what a pixel holds, then each pixel's winner looked up.
#include "kernels/points.hpp"

#include <cassert>
#include <vector>

namespace kernels {

void draw_points_cpu(const PointsDesc& desc, const ImageTarget& frame) {
  assert(frame.surface == 0 && "draw_points_cpu writes host memory: pass linear_target(pixels, pitch, ...)");
  assert(frame.width == desc.width && frame.height == desc.height);
  if (desc.width <= 0 || desc.height <= 0) return;
  std::vector<unsigned long long> keys(static_cast<size_t>(desc.width) * desc.height, kNoPoint);
  const float half = 0.5f * desc.size;
  for (long long index = 0; index < desc.count; ++index) {
    const float* p = desc.xyz + index * 3;
    float x = 0.0f, y = 0.0f, depth = 0.0f;
    if (!place_point(desc.view_projection, p[0], p[1], p[2], desc.width, desc.height, &x, &y, &depth))
      continue;
    int first_column = 0, end_column = 0, first_row = 0, end_row = 0;
    covered(x, half, desc.width, &first_column, &end_column);
    covered(y, half, desc.height, &first_row, &end_row);
    const unsigned long long key = depth_key(depth, index);
    for (int row = first_row; row < end_row; ++row)
      for (int column = first_column; column < end_column; ++column) {
        unsigned long long& pixel = keys[static_cast<size_t>(row) * desc.width + column];
        if (key < pixel) pixel = key;
      }
  }
  for (int y = 0; y < desc.height; ++y)
    for (int x = 0; x < desc.width; ++x)
      store(frame, x, y, pixel_of(keys[static_cast<size_t>(y) * desc.width + x], desc.rgba));
}

}  // namespace kernels
