// app/scene/view.cpp — where a picture lies in its frame (app/scene/view.hpp).
#include "app/scene/view.hpp"

#include "app/core/tables.hpp"

#include <algorithm>
#include <cmath>

namespace lab::view {

std::optional<Fit> fit_named(const std::string& name) {
  return value_named(kPictureFits, name);
}

const char* fit_name(Fit fit) {
  return name_of(kPictureFits, fit);
}

Rect fit_rect(Fit fit, Size image, Size viewport) {
  const long long iw = image.width, ih = image.height, vw = viewport.width, vh = viewport.height;
  if (iw <= 0 || ih <= 0 || fit == Fit::Stretch) return {0, 0, vw, vh};
  long long w = iw, h = ih;
  if (fit == Fit::Contain || fit == Fit::Cover) {
    // Width-limited when vw / iw is the smaller scale (contain) or the larger (cover); the other edge is
    // rounded to the nearest pixel, so a picture of the viewport's aspect fills it exactly.
    const bool width_limited = fit == Fit::Contain ? vw * ih <= vh * iw : vw * ih >= vh * iw;
    if (width_limited) {
      w = vw;
      h = std::max<long long>(1, (2 * ih * vw + iw) / (2 * iw));
    } else {
      h = vh;
      w = std::max<long long>(1, (2 * iw * vh + ih) / (2 * ih));
    }
  }
  return {(vw - w) / 2, (vh - h) / 2, w, h};
}

Transform transform_of(const View& view, Size image, Size viewport) {
  if (view.free) return view.transform;
  const Rect rect = fit_rect(view.fit, image, viewport);
  const double iw = std::max(image.width, 1), ih = std::max(image.height, 1);
  return {static_cast<double>(rect.x), static_cast<double>(rect.y), static_cast<double>(rect.width) / iw,
          static_cast<double>(rect.height) / ih};
}

View zoom_at(const View& view, Size image, Size viewport, double x, double y, double factor) {
  const Transform from = transform_of(view, image, viewport);
  // Both scales by the same factor, within the limits; the factor each actually took moves the origin.
  const double scale_x = std::clamp(from.scale_x * factor, kMinScale, kMaxScale);
  const double scale_y = std::clamp(from.scale_y * factor, kMinScale, kMaxScale);
  View zoomed = view;
  zoomed.free = true;
  zoomed.transform = {x - (x - from.origin_x) * (scale_x / from.scale_x),
                      y - (y - from.origin_y) * (scale_y / from.scale_y), scale_x, scale_y};
  return zoomed;
}

View pan_by(const View& view, Size image, Size viewport, double dx, double dy) {
  View moved = view;
  moved.transform = transform_of(view, image, viewport);
  moved.transform.origin_x += dx;
  moved.transform.origin_y += dy;
  moved.free = true;
  return moved;
}

View actual_size_at(const View& view, Size image, Size viewport, double x, double y) {
  const Transform from = transform_of(view, image, viewport);
  const double image_x = (x - from.origin_x) / from.scale_x;
  const double image_y = (y - from.origin_y) / from.scale_y;
  View actual = view;
  actual.free = true;
  // Whole pixels: each image pixel then covers exactly one framebuffer pixel.
  actual.transform = {std::round(x - image_x), std::round(y - image_y), 1.0, 1.0};
  return actual;
}

View fitted(const View& view) {
  View fit = view;
  fit.free = false;
  return fit;
}

kernels::ViewSampling sampling_of(const View& view, Size image, Size viewport) {
  kernels::ViewSampling sampling;
  sampling.integer_rule = uses_integer_rule(view);
  if (sampling.integer_rule) {
    const Rect rect = fit_rect(view.fit, image, viewport);
    sampling.rect_x = rect.x;
    sampling.rect_y = rect.y;
    sampling.rect_width = rect.width;
    sampling.rect_height = rect.height;
  } else {
    const Transform t = transform_of(view, image, viewport);
    sampling.origin_x = t.origin_x;
    sampling.origin_y = t.origin_y;
    sampling.scale_x = t.scale_x;
    sampling.scale_y = t.scale_y;
  }
  return sampling;
}

std::optional<Pixel> pixel_at(const View& view, Size image, Size viewport, int x, int y) {
  if (viewport.width <= 0 || viewport.height <= 0) return std::nullopt;
  Pixel pixel;
  if (!kernels::view_pixel(sampling_of(view, image, viewport), image.width, image.height, viewport.width,
                           viewport.height, x, y, &pixel.x, &pixel.y))
    return std::nullopt;
  return pixel;
}

bool uses_integer_rule(const View& view) {
  return !view.free && (view.fit == Fit::Contain || view.fit == Fit::Stretch);
}

}  // namespace lab::view
