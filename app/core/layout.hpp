// app/core/layout.hpp — where a panel may stand in a window: wholly inside it, whatever a saved layout or a
// resize left. Pure geometry (no ImGui), so unit_tests check it; app/glfw/panel_layout.cpp applies it to
// the panel of every API's window, at start (a saved position outside the window) and after every resize.
#pragma once

#include <algorithm>

namespace lab {

// A rectangle in window pixels, the origin at the top left.
struct PanelRect {
  float x = 0.0f, y = 0.0f;
  float width = 0.0f, height = 0.0f;
  bool operator==(const PanelRect& other) const {
    return x == other.x && y == other.y && width == other.width && height == other.height;
  }
};

// `panel` moved the least that puts it inside a window of `window_width` x `window_height`; a panel wider
// or taller than the window keeps its left edge or title bar at 0 instead, so what it starts with (its
// title and first controls) stays in view. Its size is kept.
inline PanelRect keep_inside(PanelRect panel, float window_width, float window_height) {
  panel.x = std::max(0.0f, std::min(panel.x, window_width - panel.width));
  panel.y = std::max(0.0f, std::min(panel.y, window_height - panel.height));
  return panel;
}

}  // namespace lab
