// tests/support/headless_imgui.hpp — an ImGui context without a renderer, for the tests of what the panels
// draw: its draw lists are built, never shown, and its text is read back through ImGui's log.
#pragma once

#include <imgui.h>

namespace lab::testing {

// Makes the current ImGui context: a display of `width` x `height`, no settings file, its font atlas built.
inline void create_headless_imgui(float width, float height) {
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.DisplaySize = ImVec2(width, height);
  unsigned char* pixels = nullptr;
  int atlas_width = 0, atlas_height = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &atlas_width, &atlas_height);
}

}  // namespace lab::testing
