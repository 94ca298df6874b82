// app/scene/view.hpp — where a picture lies in its frame: the fit (contain, letterboxed; stretch; cover;
// actual, 1:1 centred), and a free view once the user zooms or pans. Pure math, no GL: the picture sources'
// blit (app/scene/picture.hpp, through kernels/view.hpp's sampling), the Python viewer's fragment shaders
// (python/viewer.cpp) and its readout follow these functions, pixel for pixel.
//
// Coordinates: framebuffer pixels with row 0 at the top; a pixel's centre is at (x + 0.5, y + 0.5).
// In a fit the picture fills an integer rectangle and a framebuffer pixel picks its image pixel by integer
// arithmetic (the viewer's original rule, so a picture of the frame's aspect draws the same bytes as before
// fits existed); in a free view the image point is (point - origin) / scale, floored: nearest sampling.
#pragma once

#include "app/core/vocabulary.hpp"
#include "kernels/view.hpp"

#include <optional>
#include <string>

namespace lab::view {

using Fit = PictureFit;  // app/core/vocabulary.hpp; named by app/core/tables.hpp's kPictureFits

// "contain", "stretch", "cover" or "actual"; nullopt for anything else.
std::optional<Fit> fit_named(const std::string& name);
const char* fit_name(Fit fit);

struct Size {
  int width = 0, height = 0;
};

struct Rect {
  long long x = 0, y = 0, width = 0, height = 0;  // framebuffer pixels, row 0 at the top
};

// image point = (framebuffer point - origin) / scale, both in pixels (top-down).
struct Transform {
  double origin_x = 0.0, origin_y = 0.0, scale_x = 1.0, scale_y = 1.0;
};

struct View {
  Fit fit = Fit::Contain;
  bool free = false;      // zoomed or panned away from the fit
  Transform transform{};  // the free view's (used while `free`)
};

struct Pixel {
  int x = 0, y = 0;
};

// The rectangle the picture fills in a fit, centred; contain and stretch never leave the viewport.
Rect fit_rect(Fit fit, Size image, Size viewport);

// The view's transform: a fit's rectangle as origin and scale, or the free one.
Transform transform_of(const View& view, Size image, Size viewport);

// Zooms by `factor` about the framebuffer point (x, y): the image point under it stays under it.
View zoom_at(const View& view, Size image, Size viewport, double x, double y, double factor);

// Moves the picture by (dx, dy) framebuffer pixels.
View pan_by(const View& view, Size image, Size viewport, double dx, double dy);

// One image pixel per framebuffer pixel, keeping the image point under (x, y) there.
View actual_size_at(const View& view, Size image, Size viewport, double x, double y);

// Back to the fit.
View fitted(const View& view);

// The image pixel the framebuffer pixel (x, y) shows, as the shaders pick it; nullopt: the background.
std::optional<Pixel> pixel_at(const View& view, Size image, Size viewport, int x, int y);

// The view as the blit's kernels read it (kernels/view.hpp).
kernels::ViewSampling sampling_of(const View& view, Size image, Size viewport);

// Whether a framebuffer pixel picks its image pixel by the integer rule (contain and stretch, never more
// than the viewport, so its products fit a GL int) rather than by the floating transform (a free view,
// cover, actual).
bool uses_integer_rule(const View& view);

// The zoom one notch of the wheel gives (the Python viewer's window and the app's).
constexpr double kWheelZoom = 1.25;

// The smallest and largest scale a free view takes (framebuffer pixels per image pixel).
constexpr double kMinScale = 1.0 / 64.0;
constexpr double kMaxScale = 512.0;

}  // namespace lab::view
