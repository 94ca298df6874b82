// kernels/view.hpp — which pixel of a picture a pixel of the frame shows, as every drawer of a picture picks
// it: the picture sources' blit (kernels/blit.hpp), on the GPU and in the CPU reference, and the Python
// viewer's readout. app/scene/view.hpp fills it from a view (a fit, or a zoomed and panned free view).
//
// Frame pixels with row 0 at the top, nearest sampling either way:
//   integer rule  a fit that stays within the frame (contain, stretch): the picture fills an integer
//                 rectangle, and a pixel picks (pixel - corner) * picture / rectangle in GL's bottom-up rows
//                 (the Python viewer's first rule, so a picture of the frame's aspect draws its bytes as
//                 they are)
//   transform     a free view, cover, actual: picture point = (pixel centre - origin) / scale, floored
#pragma once

#include "kernels/common.hpp"  // math.h's floor, for host and device alike

namespace kernels {

struct ViewSampling {
  bool integer_rule = true;
  long long rect_x = 0, rect_y = 0, rect_width = 0, rect_height = 0;  // integer rule: frame pixels, top-down
  double origin_x = 0.0, origin_y = 0.0, scale_x = 1.0, scale_y = 1.0;  // transform
};

// The picture pixel (*picture_x, *picture_y; row 0 at the top) that frame pixel (x, y) of a frame_width x
// frame_height frame shows; false: none, the background.
KERNELS_HD inline bool view_pixel(const ViewSampling& view, int picture_width, int picture_height,
                                  int frame_width, int frame_height, int x, int y, int* picture_x,
                                  int* picture_y) {
  if (picture_width <= 0 || picture_height <= 0 || x < 0 || y < 0 || x >= frame_width || y >= frame_height)
    return false;
  if (!view.integer_rule) {
    const double px = floor((x + 0.5 - view.origin_x) / view.scale_x);
    const double py = floor((y + 0.5 - view.origin_y) / view.scale_y);
    if (px < 0 || py < 0 || px >= picture_width || py >= picture_height) return false;
    *picture_x = static_cast<int>(px);
    *picture_y = static_cast<int>(py);
    return true;
  }
  const long long up = frame_height - 1 - y;
  const long long rect_bottom = frame_height - (view.rect_y + view.rect_height);
  if (x < view.rect_x || x >= view.rect_x + view.rect_width || up < rect_bottom ||
      up >= rect_bottom + view.rect_height)
    return false;
  *picture_x = static_cast<int>((x - view.rect_x) * picture_width / view.rect_width);
  *picture_y = static_cast<int>(picture_height - 1 - (up - rect_bottom) * picture_height / view.rect_height);
  return true;
}

}  // namespace kernels
