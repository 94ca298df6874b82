// tests/windows/no_panel.cpp — the Dear ImGui calls of the scenes' panel controls (SceneCompute::on_ui), for
// the Windows check that has no panel (d3d_device_check): no reason to build ImGui into it.
// interop-lab.exe links the real ImGui instead. If ever reached, they say so and abort.
#include <imgui.h>

#include <cstdio>
#include <cstdlib>

namespace {
[[noreturn]] void not_in_this_build(const char* what) {
  std::fprintf(stderr, "%s was called, but this check has no panel\n", what);
  std::abort();
}
}  // namespace

namespace ImGui {
void TextUnformatted(const char* /*text*/, const char* /*text_end*/) {
  not_in_this_build("ImGui::TextUnformatted");
}
void SameLine(float /*offset_from_start_x*/, float /*spacing*/) {
  not_in_this_build("ImGui::SameLine");
}
bool RadioButton(const char* /*label*/, bool /*active*/) {
  not_in_this_build("ImGui::RadioButton");
}
bool SliderInt(const char* /*label*/, int* /*v*/, int /*v_min*/, int /*v_max*/, const char* /*format*/,
               int /*flags*/) {
  not_in_this_build("ImGui::SliderInt");
}
}  // namespace ImGui
