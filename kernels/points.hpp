// kernels/points.hpp — draws points as GL draws GL_POINTS with a depth test, in CUDA (points.cu) and in the
// CPU reference (points_cpu.cpp): the Python viewer's Viewer.points (python/viewer_points.hpp).
//
// GL's point pipeline runs on the few graphics units of a data-centre GPU: 10 million points drew at 24
// frames a second on an H100 whatever the frame size. These kernels run on every SM. The rule is GL's:
//   clip = view_projection * (x, y, z, 1), each row one chain of fused multiply-adds; a point whose clip
//   position is outside -w..w on any axis (or w <= 0) is not drawn;
//   window x = (clip.x / w) * W/2 + W/2, y likewise (GL's, row 0 at the bottom), depth = (clip.z / w) / 2 +
//   1/2; a point of edge `size` covers the pixels whose centres lie within size / 2 of it on both axes (the
//   low edge in, the high edge out: GL leaves a centre on the edge to the implementation); of the points on
//   one pixel the nearest wins, and of equally near ones the first (GL_LESS in draw order).
// The frame is RGBA8, row 0 at the bottom (a GL texture's order), the winner's colour on opaque black; the
// interop path writes the GL texture itself through a surface.
#pragma once

#include "kernels/common.hpp"
#include "kernels/image.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace kernels {

struct PointsDesc {
  const float* xyz = nullptr;   // count x 3 float32, packed: device memory for CUDA, host memory for the CPU
  const Rgba8* rgba = nullptr;  // count colours, where xyz is
  long long count = 0;          // at most kMaxDrawnPoints
  float view_projection[16] = {};  // column-major, as glm keeps it
  float size = 1.0f;               // a point's edge, frame pixels
  int width = 0, height = 0;       // the frame
};

// A point's index must fit the low 32 bits of its depth key.
constexpr long long kMaxDrawnPoints = 1ll << 32;
// The per-pixel key of an empty pixel: nothing is nearer than a point.
constexpr unsigned long long kNoPoint = ~0ull;

// Where point (x, y, z) lands: window position and depth; false when it is clipped away.
KERNELS_HD inline bool place_point(const float* m, float x, float y, float z, int width, int height,
                                   float* window_x, float* window_y, float* depth) {
  const float cx = fmaf(m[0], x, fmaf(m[4], y, fmaf(m[8], z, m[12])));
  const float cy = fmaf(m[1], x, fmaf(m[5], y, fmaf(m[9], z, m[13])));
  const float cz = fmaf(m[2], x, fmaf(m[6], y, fmaf(m[10], z, m[14])));
  const float cw = fmaf(m[3], x, fmaf(m[7], y, fmaf(m[11], z, m[15])));
  // Written so that a NaN anywhere clips the point: every comparison with NaN is false.
  if (!(cw > 0.0f && cx >= -cw && cx <= cw && cy >= -cw && cy <= cw && cz >= -cw && cz <= cw)) return false;
  const float half_width = 0.5f * static_cast<float>(width), half_height = 0.5f * static_cast<float>(height);
  *window_x = fmaf(cx / cw, half_width, half_width);
  *window_y = fmaf(cy / cw, half_height, half_height);
  *depth = fmaf(cz / cw, 0.5f, 0.5f);
  return true;
}

// The first pixel column (or row) whose centre lies within half an edge of `at`, and one past the last:
// centre c + 0.5 with at - half <= c + 0.5 < at + half, so that an edge of 3 on a pixel corner still covers 3
// x 3.
KERNELS_HD inline void covered(float at, float half, int limit, int* first, int* end) {
  const float low_edge = at - half, high_edge = at + half;
  int low = static_cast<int>(floorf(low_edge)) - 1, high = static_cast<int>(floorf(high_edge)) + 1;
  while (low < high && !(low_edge <= static_cast<float>(low) + 0.5f)) ++low;
  while (high > low && !(static_cast<float>(high - 1) + 0.5f < high_edge)) --high;
  *first = low < 0 ? 0 : low;
  *end = high > limit ? limit : high;
}

// A point's depth key: nearer is smaller, then the earlier point (depth is in 0..1, whose float bits order
// as unsigned integers do).
KERNELS_HD inline unsigned long long depth_key(float depth, long long index) {
  uint32_t bits = 0;
  memcpy(&bits, &depth, sizeof bits);
  return (static_cast<unsigned long long>(bits) << 32) | static_cast<uint32_t>(index);
}

// Where a point lands and what it covers: pixel columns [first_column, end_column) and rows [first_row,
// end_row) (GL's, bottom first), none when it is clipped away, and its depth key.
struct Footprint {
  int first_column = 0, end_column = 0, first_row = 0, end_row = 0;
  unsigned long long key = kNoPoint;
};
KERNELS_HD inline Footprint footprint(const PointsDesc& desc, long long index) {
  Footprint at;
  const float* p = desc.xyz + index * 3;
  float x = 0.0f, y = 0.0f, depth = 0.0f;
  if (!place_point(desc.view_projection, p[0], p[1], p[2], desc.width, desc.height, &x, &y, &depth))
    return at;
  const float half = 0.5f * desc.size;
  covered(x, half, desc.width, &at.first_column, &at.end_column);
  covered(y, half, desc.height, &at.first_row, &at.end_row);
  at.key = depth_key(depth, index);
  return at;
}

// The pixel of a depth key: the winner's colour, or opaque black where no point is.
KERNELS_HD inline Rgba8 pixel_of(unsigned long long key, const Rgba8* rgba) {
  return key == kNoPoint ? Rgba8{0, 0, 0, 255} : rgba[key & 0xffffffffull];
}

// Bytes of the CUDA launcher's scratch for a width x height frame: one depth key a pixel.
inline size_t points_keys_bytes(int width, int height) {
  return static_cast<size_t>(width) * static_cast<size_t>(height) * sizeof(unsigned long long);
}

// CUDA: draws into `frame` (a surface or linear device memory, desc.width x desc.height) through `keys`
// (points_keys_bytes(width, height) of device memory, overwritten).
cudaError_t draw_points(const PointsDesc& desc, unsigned long long* keys, const ImageTarget& frame,
                        cudaStream_t stream);
// The CPU reference: the same bytes, from host memory into a linear target in host memory.
void draw_points_cpu(const PointsDesc& desc, const ImageTarget& frame);

}  // namespace kernels
