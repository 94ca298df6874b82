// app/glfw/panel_layout.cpp — the panel kept inside the display (app/glfw/panel_layout.hpp).
#include "app/glfw/panel_layout.hpp"

#include <imgui.h>
#include <imgui_internal.h>

#include <cstdio>
#include <filesystem>
#include <system_error>

namespace lab::glfw {

void use_layout_file(const std::string& path) {
  // Never an imgui.ini next to wherever the app was started: the user's config folder, or nothing.
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  if (path.empty()) return;
  std::error_code error;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), error);
  if (error) {
    std::fprintf(stderr,
                 "interop-lab: the panel layout will not be kept: cannot create the folder of %s (%s)\n",
                 path.c_str(), error.message().c_str());
    return;
  }
  io.IniFilename = path.c_str();
}

std::optional<PanelRect> window_rect(const char* name) {
  if (const ImGuiWindow* window = ImGui::FindWindowByName(name))
    return PanelRect{window->Pos.x, window->Pos.y, window->SizeFull.x, window->SizeFull.y};
  // Before its first Begin, a window that a layout file names is only its settings.
  if (const ImGuiWindowSettings* settings = ImGui::FindWindowSettings(ImHashStr(name)))
    return PanelRect{static_cast<float>(settings->Pos.x), static_cast<float>(settings->Pos.y),
                     static_cast<float>(settings->Size.x), static_cast<float>(settings->Size.y)};
  return std::nullopt;
}

void keep_window_inside_display(const char* name) {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  if (display.x <= 0.0f || display.y <= 0.0f) return;  // minimised, or no frame begun yet
  const std::optional<PanelRect> rect = window_rect(name);
  if (!rect) return;
  // Set every frame, even where it is inside already: a position set so leaves out ImGui's own clamp, which
  // would keep only 19 pixels of the window in view (a 1x1 window put the panel at -18,-18). A drag moved
  // the window in NewFrame, before this, so the panel still follows the mouse.
  const PanelRect inside = keep_inside(*rect, display.x, display.y);
  ImGui::SetNextWindowPos(ImVec2(inside.x, inside.y));
}

}  // namespace lab::glfw
