// app/ui.cpp — the panel. Unavailable modes are shown greyed out with their reason as a tooltip, so a
// user sees why interop is off on their machine instead of a missing entry.
#include "app/ui.hpp"

#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>

namespace lab {

Panel::Panel(GLFWwindow* window) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini written next to wherever the app was started
  ImGui::StyleColorsDark();
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 450");
}

Panel::~Panel() {
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
}

PanelActions Panel::draw(const PanelModel& model) {
  m_frame_ms[m_next] = model.frame_ms;
  m_next = (m_next + 1) % kHistory;
  m_average_ms = m_average_ms == 0.0f ? model.frame_ms : 0.95f * m_average_ms + 0.05f * model.frame_ms;

  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();

  PanelActions actions;
  ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(360, 0), ImGuiCond_FirstUseEver);
  ImGui::Begin("interop-lab");

  int scene_index = 0;
  const std::vector<SceneId>& scenes = all_scenes();
  for (size_t i = 0; i < scenes.size(); ++i)
    if (scenes[i] == model.scene) scene_index = static_cast<int>(i);
  for (size_t i = 0; i < scenes.size(); ++i) {
    if (i > 0) ImGui::SameLine();
    if (ImGui::RadioButton(to_string(scenes[i]), scene_index == static_cast<int>(i)) && scenes[i] != model.scene)
      actions.scene = scenes[i];
  }

  ImGui::Separator();
  ImGui::TextUnformatted("mode");
  const std::vector<ModeId>& modes = all_modes();
  for (size_t i = 0; i < modes.size(); ++i) {
    const ModeAvailability& availability = model.modes[i];
    ImGui::BeginDisabled(!availability.available);
    if (ImGui::RadioButton(to_string(modes[i]), modes[i] == model.mode) && modes[i] != model.mode)
      actions.mode = modes[i];
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip("%s", availability.available ? describe(modes[i]) : availability.reason.c_str());
  }
  if (!model.notice.empty()) ImGui::TextWrapped("%s", model.notice.c_str());

  ImGui::Separator();
  ImGui::Text("%d x %d", model.extent.width, model.extent.height);
  ImGui::Text("frame %.2f ms (avg %.2f ms)", model.frame_ms, m_average_ms);
  const float peak = *std::max_element(m_frame_ms.begin(), m_frame_ms.end());
  ImGui::PlotLines("##frame_ms", m_frame_ms.data(), kHistory, m_next, "frame time (ms)", 0.0f,
                   std::max(peak * 1.2f, 1.0f), ImVec2(-1, 60));

  ImGui::Separator();
  ImGui::TextWrapped("GL: %s", model.renderer.c_str());
  ImGui::TextWrapped("%s", model.platform.c_str());
  ImGui::TextWrapped("%s", model.cuda.c_str());
  ImGui::End();

  ImGui::Render();
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  return actions;
}

}  // namespace lab
