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
  for (long long index = 0; index < desc.count; ++index) {
    const Footprint at = footprint(desc, index);
    for (int row = at.first_row; row < at.end_row; ++row)
      for (int column = at.first_column; column < at.end_column; ++column) {
        unsigned long long& pixel = keys[static_cast<size_t>(row) * desc.width + column];
        if (at.key < pixel) pixel = at.key;
      }
  }
  for (int y = 0; y < desc.height; ++y)
    for (int x = 0; x < desc.width; ++x)
      store(frame, x, y, pixel_of(keys[static_cast<size_t>(y) * desc.width + x], desc.rgba));
}

}  // namespace kernels
