// app/glfw/panel_layout.hpp — keeps an ImGui window (the panel) inside the display: every API's panel calls
// it between ImGui::NewFrame and ImGui::Begin, so neither a saved layout (imgui.ini) nor a resize of the
// window, down to 1x1, can leave its title bar or left edge outside. Needs Dear ImGui (its internal header:
// the window's saved settings before the window exists).
#pragma once

#include "app/core/layout.hpp"

#include <optional>
#include <string>

namespace lab::glfw {

// Makes ImGui read its layout from `path` when the first frame begins and write it there as it changes and
// when the context goes, its folder created first; "" keeps the layout in memory only, and so does a folder
// that cannot be made (said on stderr). ImGui keeps the pointer: `path` must outlive the context.
void use_layout_file(const std::string& path);

// Where the ImGui window `name` stands now, or as its saved settings put it before its first Begin; nullopt
// when ImGui knows nothing of it.
std::optional<PanelRect> window_rect(const char* name);

// Places the window `name` inside the display (ImGui's DisplaySize) at its next Begin, as keep_inside says
// (where it stands already when that is inside). Does nothing before ImGui knows the display or the window.
void keep_window_inside_display(const char* name);

}  // namespace lab::glfw
