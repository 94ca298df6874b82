// app/panel/panel.cpp — the panel (app/panel/panel.hpp). Unavailable modes are shown greyed out with their
// reason as a tooltip, so a user sees why interop is off on their machine instead of a missing entry. Timings
// are GPU times (CUDA events, the API's timer queries) read a few frames late, so measuring never stalls the
// frame.
#include "app/panel/panel.hpp"

#include "app/core/hotkeys.hpp"
#include "app/glfw/panel_layout.hpp"
#include "app/timing/timing_ui.hpp"

#include <imgui.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace lab::panel {
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

std::string no_other_mode_notice(ModeId running, const std::vector<ModeId>& modes,
                                 const std::vector<ModeAvailability>& availability) {
  // The reasons in the modes' order, each with the modes it keeps out.
  std::vector<std::pair<std::string, std::string>> reasons;  // reason, modes
  for (size_t i = 0; i < modes.size() && i < availability.size(); ++i) {
    if (modes[i] == running) continue;
    const std::string& reason = availability[i].reason;
    const auto found = std::find_if(reasons.begin(), reasons.end(),
                                    [&](const auto& entry) { return entry.first == reason; });
    if (found == reasons.end())
      reasons.emplace_back(reason, to_string(modes[i]));
    else
      found->second += std::string(", ") + to_string(modes[i]);
  }
  std::string notice = std::string("M: no other mode runs here; ") + to_string(running) + " stays.";
  for (const auto& [reason, names] : reasons)
    notice += " " + names + ": " + reason + (reason.empty() ? "" : ".");
  return notice;
}

PanelActions draw_panel(const PanelModel& model, PanelPlace& place) {
  PanelActions actions;
  ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
  glfw::keep_window_inside_display("interop-lab");  // whatever the layout file or a resize left
  // Auto-resized: the panel grows with the timing rows and the mode table as they appear.
  ImGui::Begin("interop-lab", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
  place.x = ImGui::GetWindowPos().x;
  place.y = ImGui::GetWindowPos().y;

  ImGui::Text("graphics API: %s (%s)", to_string(model.api), display_name(model.api));
  for (const auto& [label, text] : model.status) ImGui::Text("%s: %s", label.c_str(), text.c_str());
  ImGui::TextUnformatted("scene");
  for (const SceneId scene : all_scenes()) {
    ImGui::SameLine();
    if (ImGui::RadioButton(to_string(scene), scene == model.scene) && scene != model.scene)
      actions.scene = scene;
    if (ImGui::IsItemHovered()) wrapped_tooltip(describe(scene));
  }
  if (!model.source.empty()) {
    // Another source makes the frames (--attach): which and how it is doing; a scene above leaves it.
    ImGui::Text("source: %s", model.source.c_str());
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + 420.0f);
    ImGui::TextUnformatted(model.source_status.c_str());
    ImGui::PopTextWrapPos();
    if (!model.publishers.empty()) {
      ImGui::PushItemWidth(260);
      if (ImGui::BeginCombo("publisher", model.published.c_str())) {
        for (const std::string& name : model.publishers)
          if (ImGui::Selectable(name.c_str(), name == model.published) && name != model.published)
            actions.source = name;
        ImGui::EndCombo();
      }
      ImGui::PopItemWidth();
      if (ImGui::IsItemHovered())
        wrapped_tooltip("the names published now: pick one to show its frames instead");
    }
  }
  if (model.scene_ui) model.scene_ui();

  ImGui::Separator();
  ImGui::TextUnformatted("mode");
  const std::vector<ModeId>& modes = model.mode_ids;
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
      wrapped_tooltip(availability.available ? describe(modes[i]) : availability.reason.c_str());
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
  if (model.semaphore_choice) {
    ImGui::TextUnformatted("semaphores");
    for (const auto& [kind, name] : {std::pair{interop::SemaphoreKind::Timeline, "timeline"},
                                     std::pair{interop::SemaphoreKind::Binary, "binary"}}) {
      ImGui::SameLine();
      if (ImGui::RadioButton(name, model.semaphores == kind) && model.semaphores != kind)
        actions.semaphores = kind;
    }
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
    wrapped_tooltip(
        "CUDA events and the graphics API's timer queries in every frame; on an H200 with GL they add about "
        "0.33 ms a frame");
  if (model.timers && model.timing) {
    draw_timings(*model.timers, model.mode);
    if (!model.graphics_untimed.empty())
      ImGui::TextDisabled("draw untimed: %s", model.graphics_untimed.c_str());
    if (!model.timers->cuda_timing_off_reason().empty())
      ImGui::TextDisabled("CUDA phases untimed: %s", model.timers->cuda_timing_off_reason().c_str());
    if (ImGui::CollapsingHeader("modes compared", ImGuiTreeNodeFlags_DefaultOpen))
      draw_mode_table(*model.timers);
  }

  bool vsync = model.vsync;
  if (ImGui::Checkbox("vsync", &vsync)) actions.vsync = vsync;
  if (ImGui::IsItemHovered()) wrapped_tooltip("wait for the display's refresh (V, --vsync on|off)");
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
  if (model.doctor_ui && ImGui::CollapsingHeader("doctor")) model.doctor_ui();
  if (ImGui::CollapsingHeader("system"))
    for (const std::string& line : model.system) ImGui::TextWrapped("%s", line.c_str());
  ImGui::End();
  return actions;
}

}  // namespace lab::panel
