// app/gl/ui.cpp — the panel. Unavailable modes are shown greyed out with their reason as a tooltip, so a
// user sees why interop is off on their machine instead of a missing entry. Timings are GPU times
// (CUDA events, GL timer queries) read a few frames late, so measuring never stalls the frame.
#include "app/gl/ui.hpp"

#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include "app/core/hotkeys.hpp"
#include "app/gl/profiling.hpp"
#include "app/glfw/panel_layout.hpp"
#include "app/timing/timing_ui.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>

namespace lab {
namespace {

// A flags choice: unset (each resource's best) or one of the three.
std::optional<std::optional<interop::Access>> flags_combo(const char* label,
                                                          std::optional<interop::Access> current) {
  constexpr const char* kBest = "best per resource";
  std::optional<std::optional<interop::Access>> picked;
  if (ImGui::BeginCombo(label, current ? interop::to_string(*current) : kBest)) {
    if (ImGui::Selectable(kBest, !current) && current) picked = std::optional<interop::Access>{};
    for (const interop::AccessName& entry : interop::kAccessNames)
      if (ImGui::Selectable(entry.name, current == entry.value) && current != entry.value)
        picked = entry.value;
    ImGui::EndCombo();
  }
  return picked;
}

}  // namespace

Panel::Panel(GLFWwindow* window, const PanelDesc& desc) : m_layout_file(desc.layout_file) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  glfw::use_layout_file(m_layout_file);
  ImGui::StyleColorsDark();
  // High DPI: the default font rasterised at the scaled size (sharp, unlike FontGlobalScale), and every
  // padding and rounding scaled with it.
  const float scale = desc.content_scale > 0.0f ? desc.content_scale : 1.0f;
  if (scale != 1.0f) {
    ImFontConfig font;
    font.SizePixels = 13.0f * scale;
    io.Fonts->AddFontDefault(&font);
    ImGui::GetStyle().ScaleAllSizes(scale);
  }
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 450");
}

Panel::~Panel() {
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
}

PanelActions Panel::draw(const PanelModel& model) {
  const ProfileScope scope("panel");
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();

  PanelActions actions;
  ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
  glfw::keep_window_inside_display("interop-lab");  // whatever the layout file or a resize left
  // Auto-resized: the panel grows with the timing rows and the mode table as they appear.
  ImGui::Begin("interop-lab", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
  m_x = ImGui::GetWindowPos().x;
  m_y = ImGui::GetWindowPos().y;

  // The panel is the GL backend's: the other APIs run headless (--api).
  ImGui::Text("graphics API: %s (%s)", to_string(GraphicsApi::Gl), display_name(GraphicsApi::Gl));
  ImGui::TextUnformatted("scene");
  for (const SceneId scene : all_scenes()) {
    ImGui::SameLine();
    if (ImGui::RadioButton(to_string(scene), scene == model.scene) && scene != model.scene)
      actions.scene = scene;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", describe(scene));
  }
  if (model.scene_ui) model.scene_ui();

  ImGui::Separator();
  ImGui::TextUnformatted("mode");
  const std::vector<ModeId>& modes = all_modes();
  // Five to a row, so that a new mode makes the panel taller, not wider than the window.
  constexpr size_t kModesPerRow = 5;
  const float row_start = ImGui::GetCursorPosX() + ImGui::CalcTextSize("mode ").x;
  for (size_t i = 0; i < modes.size(); ++i) {
    const ModeAvailability& availability = model.modes[i];
    if (i % kModesPerRow == 0 && i > 0)
      ImGui::SetCursorPosX(row_start);
    else
      ImGui::SameLine();
    ImGui::BeginDisabled(!availability.available);
    if (ImGui::RadioButton(to_string(modes[i]), modes[i] == model.mode) && modes[i] != model.mode)
      actions.mode = modes[i];
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip("%s", availability.available ? describe(modes[i]) : availability.reason.c_str());
  }
  if (!model.devices.empty()) {
    ImGui::PushItemWidth(260);
    const char* current =
        model.device >= 0 ? model.devices[static_cast<size_t>(model.device)].c_str() : "none";
    if (ImGui::BeginCombo("CUDA device", current)) {
      for (size_t i = 0; i < model.devices.size(); ++i)
        if (ImGui::Selectable(model.devices[i].c_str(), static_cast<int>(i) == model.device))
          actions.device = static_cast<int>(i);
      ImGui::EndCombo();
    }
    if (model.mode == ModeId::Split && model.compute_device >= 0) {
      if (ImGui::BeginCombo("compute device",
                            model.devices[static_cast<size_t>(model.compute_device)].c_str())) {
        for (size_t i = 0; i < model.devices.size(); ++i)
          if (ImGui::Selectable(model.devices[i].c_str(), static_cast<int>(i) == model.compute_device))
            actions.compute_device = static_cast<int>(i);
        ImGui::EndCombo();
      }
    }
    ImGui::PopItemWidth();
  }
  if (model.mode == ModeId::Split) {
    ImGui::TextUnformatted("copy");
    for (const SplitCopy copy : all_split_copies()) {
      ImGui::SameLine();
      if (ImGui::RadioButton(to_string(copy), copy == model.split_copy) && copy != model.split_copy)
        actions.split_copy = copy;
    }
    ImGui::TextWrapped("%s", model.transfer.c_str());
  }
  if (!model.flags.empty()) {
    ImGui::PushItemWidth(170);
    actions.map_access = flags_combo("map flags", model.access.map_access);
    actions.register_access = flags_combo("register flags", model.access.register_access);
    ImGui::PopItemWidth();
    for (const RegisteredFlags& flags : model.flags)
      ImGui::BulletText("%s (%s): register %s, map %s", flags.label.c_str(),
                        flags.role == ResourceRole::Input ? "CUDA reads" : "CUDA writes",
                        interop::to_string(flags.register_access), interop::to_string(flags.map_access));
  }
  if (!model.notice.empty()) ImGui::TextWrapped("%s", model.notice.c_str());

  ImGui::Separator();
  ImGui::Text("%d x %d, %s", model.extent.width, model.extent.height, to_string(model.mode));
  bool timing = model.timing;
  if (ImGui::Checkbox("time each phase", &timing)) actions.timing = timing;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "CUDA events and GL timer queries in every frame; on an H200 they add about 0.33 ms a frame");
  if (model.timers && model.timing) {
    draw_timings(*model.timers, model.mode);
    if (ImGui::CollapsingHeader("modes compared", ImGuiTreeNodeFlags_DefaultOpen))
      draw_mode_table(*model.timers);
  }

  bool vsync = model.vsync;
  if (ImGui::Checkbox("vsync", &vsync)) actions.vsync = vsync;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("wait for the display's refresh (V, --vsync on|off)");
  ImGui::SameLine();
  if (model.vsync && model.timers && model.timers->has(static_cast<int>(model.mode), Phase::Frame)) {
    const double frame_ms = model.timers->stats(static_cast<int>(model.mode), Phase::Frame).median_ms;
    if (const int multiple = vsync_multiple(frame_ms, model.refresh_hz); multiple > 0)
      ImGui::TextColored(ImVec4(1.0f, 0.8f, 0.3f, 1.0f),
                         "vsync-bound: frame %.2f ms = %d x %.2f ms (%.0f Hz)", frame_ms, multiple,
                         1000.0 / model.refresh_hz, model.refresh_hz);
    else
      ImGui::TextDisabled("not vsync-bound (frame %.2f ms)", frame_ms);
  } else {
    ImGui::TextDisabled(model.vsync ? "" : "frames as fast as they come");
  }
  if (ImGui::Button("screenshot")) actions.screenshot = true;
  if (!model.last_screenshot.empty()) {
    ImGui::SameLine();
    ImGui::TextDisabled("last: %s", model.last_screenshot.c_str());
  }

  if (ImGui::CollapsingHeader("keys")) {
    if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_SizingFixedFit)) {
      for (const HotkeyInfo& key : hotkey_list()) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(key.keys);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(key.what);
      }
      ImGui::EndTable();
    }
  }
  if (model.doctor && ImGui::CollapsingHeader("doctor")) draw_doctor_report(*model.doctor);
  if (ImGui::CollapsingHeader("system")) {
    ImGui::TextWrapped("GL: %s", model.renderer.c_str());
    ImGui::TextWrapped("%s", model.platform.c_str());
    ImGui::TextWrapped("%s", model.cuda.c_str());
  }
  ImGui::End();

  ImGui::Render();
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  return actions;
}

}  // namespace lab
