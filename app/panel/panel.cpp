// app/panel/panel.cpp — the panel (app/panel/panel.hpp). Unavailable modes are shown greyed out with their
// reason as a tooltip, so a user sees why interop is off on their machine instead of a missing entry. Timings
// are GPU times (CUDA events, the API's timer queries) read a few frames late, so measuring never stalls the
// frame.
#include "app/panel/panel.hpp"

#include "app/core/hotkeys.hpp"
#include "app/glfw/panel_layout.hpp"
#include "app/scene/view.hpp"
#include "app/timing/timing_ui.hpp"
#include "kernels/convert.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace lab::panel {
namespace {

using Kind = Command::Kind;

// The panel's label of a control: the control table's (app/controls/controls.hpp).
const char* label(Kind kind) {
  return control_of(kind).label;
}

// A command of `kind`, for the caller to fill in.
Command& add(std::vector<Command>& commands, Kind kind) {
  Command command;
  command.kind = kind;
  commands.push_back(command);
  return commands.back();
}

// A flags choice (kind MapFlags or RegisterFlags): unset (each resource's best) or one of the three.
void flags_combo(Kind kind, std::optional<interop::Access> current, std::vector<Command>& commands) {
  constexpr const char* kBest = "best per resource";
  if (ImGui::BeginCombo(label(kind), current ? interop::to_string(*current) : kBest)) {
    if (ImGui::Selectable(kBest, !current) && current) add(commands, kind).access = std::nullopt;
    for (const interop::AccessName& entry : interop::kAccessNames)
      if (ImGui::Selectable(entry.name, current == entry.value) && current != entry.value)
        add(commands, kind).access = entry.value;
    ImGui::EndCombo();
  }
}

// The tooltip of the item just drawn: why it does not apply now, else the table's line.
void control_tooltip(const Control& control, const ControlState& state) {
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    wrapped_tooltip(state.why_not.empty() ? control.what : state.why_not.c_str());
}

// An on/off control (a Switch of the table) as a checkbox with the control's label, greyed with why not as
// its tooltip where it does not apply now, else the table's line.
void switch_box(Kind kind, const ControlState& state, std::vector<Command>& commands) {
  bool on = state.on;
  ImGui::BeginDisabled(!state.why_not.empty());
  if (ImGui::Checkbox(label(kind), &on)) add(commands, kind).on = on;
  ImGui::EndDisabled();
  control_tooltip(control_of(kind), state);
}

// A Choice: its label, then a radio button per option on its row; greyed with why not where it does not
// apply now.
void choice_row(const Control& control, const ControlState& state, std::vector<Command>& commands) {
  ImGui::BeginDisabled(!state.why_not.empty());
  ImGui::TextUnformatted(control.label);
  ImGui::PushID(control.key);
  for (const std::string& option : control.options()) {
    ImGui::SameLine();
    if (ImGui::RadioButton(option.c_str(), option == state.choice) && option != state.choice)
      add(commands, control.kind).text = option;
    control_tooltip(control, state);
  }
  ImGui::PopID();
  ImGui::EndDisabled();
}

// A Number: a slider over its range (from 0, shown as what 0 means, where the row takes 0); a value dragged
// between 0 and the range's low end is sent as that end.
void number_slider(const Control& control, const ControlState& state, std::vector<Command>& commands) {
  const float low = static_cast<float>(control.zero ? 0.0 : control.low);
  float value = static_cast<float>(state.number);
  ImGui::BeginDisabled(!state.why_not.empty());
  const char* format = control.zero && value == 0.0f ? control.zero : control.whole ? "%.0f" : "%.2f";
  if (ImGui::SliderFloat(control.label, &value, low, static_cast<float>(control.high), format)) {
    double number = control.whole ? std::round(value) : static_cast<double>(value);
    if (!takes_number(control, number)) number = number > 0.0 ? control.low : 0.0;
    add(commands, control.kind).number = number;
  }
  ImGui::EndDisabled();
  control_tooltip(control, state);
}

// The table's controls of `group`, in its order: the switches and actions on one row, a choice or a number
// on a row of its own. What a control of the table gets without a line of the panel's own
// (app/controls/controls.hpp).
void draw_group(Group group, const ControlStates& states, std::vector<Command>& commands) {
  bool row_open = false;  // a switch or an action is on the row: the next one joins it
  for (const Control& control : all_controls()) {
    if (control.group != group || control.not_on_panel != nullptr) continue;
    const ControlState& state = states[static_cast<size_t>(control.kind)];
    const bool on_row = control.widget == Widget::Switch || control.widget == Widget::Action;
    if (on_row && row_open) ImGui::SameLine();
    row_open = on_row;
    switch (control.widget) {
      case Widget::Switch:
        switch_box(control.kind, state, commands);
        break;
      case Widget::Action:
        if (ImGui::Button(control.label)) add(commands, control.kind);
        if (ImGui::IsItemHovered()) wrapped_tooltip(control.what);
        break;
      case Widget::Choice:
        choice_row(control, state, commands);
        break;
      case Widget::Number:
        number_slider(control, state, commands);
        break;
      case Widget::Own:
        break;
    }
  }
}

// The frame's size (typed, applied with its button), the frame-rate cap, and the table's switches of each
// frame (the CUDA graph, timing) and of the animation clock (pause, step).
void draw_size_and_time(const PanelModel& model, std::vector<Command>& commands) {
  // What is typed stays between frames until applied; a frame of another size starts it again.
  static int typed[2] = {0, 0};
  static Extent typed_for;
  if (model.extent != typed_for) {
    typed_for = model.extent;
    typed[0] = model.extent.width;
    typed[1] = model.extent.height;
  }
  ImGui::PushItemWidth(150);
  ImGui::InputInt2("##size", typed);
  ImGui::SameLine();
  if (ImGui::Button(label(Kind::Size)) && typed[0] > 0 && typed[1] > 0)
    add(commands, Kind::Size).size = {typed[0], typed[1]};
  if (ImGui::IsItemHovered()) wrapped_tooltip(control_of(Kind::Size).what);
  draw_group(Group::Rate, model.states, commands);
  ImGui::PopItemWidth();
  draw_group(Group::Frame, model.states, commands);
  draw_group(Group::Clock, model.states, commands);
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

std::vector<Command> frame_pointer(FramePointer& pointer, Extent frame) {
  const ImGuiIO& io = ImGui::GetIO();
  const double scale_x = io.DisplayFramebufferScale.x > 0.0f ? io.DisplayFramebufferScale.x : 1.0f;
  const double scale_y = io.DisplayFramebufferScale.y > 0.0f ? io.DisplayFramebufferScale.y : 1.0f;
  const double x = io.MousePos.x * scale_x, y = io.MousePos.y * scale_y;
  const bool over_frame = ImGui::IsMousePosValid() && !io.WantCaptureMouse && x >= 0.0 && y >= 0.0 &&
                          x < frame.width && y < frame.height;
  std::vector<Command> commands;
  if (over_frame && io.MouseWheel != 0.0f) {
    Command& zoom = add(commands, Kind::Zoom);
    zoom.x = x;
    zoom.y = y;
    zoom.factor = std::pow(view::kWheelZoom, static_cast<double>(io.MouseWheel));
  }
  if (over_frame && ImGui::IsMouseClicked(0)) pointer.dragging = true;
  if (!io.MouseDown[0]) pointer.dragging = false;
  if (pointer.dragging && (io.MouseDelta.x != 0.0f || io.MouseDelta.y != 0.0f)) {
    Command& pan = add(commands, Kind::Pan);
    pan.x = io.MouseDelta.x * scale_x;
    pan.y = io.MouseDelta.y * scale_y;
  }
  pointer.at = over_frame ? std::optional<std::array<double, 2>>({x, y}) : std::nullopt;
  return commands;
}

void draw_colorbar(const uint8_t* colours, double low, double high) {
  constexpr float kWidth = 256.0f, kHeight = 14.0f;
  ImDrawList* list = ImGui::GetWindowDrawList();
  const ImVec2 at = ImGui::GetCursorScreenPos();
  for (int i = 0; i < 256; ++i) {
    const uint8_t* c = colours + i * 4;
    list->AddRectFilled(ImVec2(at.x + static_cast<float>(i), at.y),
                        ImVec2(at.x + static_cast<float>(i + 1), at.y + kHeight),
                        IM_COL32(c[0], c[1], c[2], 255));
  }
  ImGui::Dummy(ImVec2(kWidth, kHeight));
  char high_text[32];
  std::snprintf(high_text, sizeof high_text, "%.6g", high);
  ImGui::Text("%.6g", low);
  ImGui::SameLine(at.x - ImGui::GetWindowPos().x + kWidth - ImGui::CalcTextSize(high_text).x);
  ImGui::TextUnformatted(high_text);
}

std::vector<Command> draw_caller_tools(const std::optional<caller::Stack>& stack,
                                       const caller::Registry* controls,
                                       std::vector<std::array<float, 4>>* rects) {
  std::vector<Command> commands;
  if (stack && stack->frames > 1) {
    int index = stack->index;
    if (ImGui::SliderInt(label(Kind::Index), &index, 0, stack->frames - 1) && index != stack->index)
      add(commands, Kind::Index).index = index;
    if (ImGui::IsItemHovered()) wrapped_tooltip(control_of(Kind::Index).what);
  }
  if (controls == nullptr || controls->all().empty()) return commands;
  ImGui::Separator();
  ImGui::TextUnformatted(label(Kind::Control));
  ImGui::PushID("caller controls");  // apart from the panel's own widgets, whatever the names
  const std::vector<caller::Control>& all = controls->all();
  if (rects != nullptr) rects->resize(all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    const caller::Control& control = all[i];
    const auto changed = [&]() -> Command& {
      Command& command = add(commands, Kind::Control);
      command.name = control.name;
      return command;
    };
    switch (control.kind) {
      case caller::Kind::Slider: {
        double value = control.value;
        if (ImGui::SliderScalar(control.name.c_str(), ImGuiDataType_Double, &value, &control.low,
                                &control.high, "%.4g") &&
            value != control.value) {
          Command& command = changed();
          command.value = Command::Value::Number;
          command.number = std::clamp(value, control.low, control.high);  // typed in past an end
        }
        break;
      }
      case caller::Kind::Checkbox: {
        bool value = control.value != 0.0;
        if (ImGui::Checkbox(control.name.c_str(), &value)) {
          Command& command = changed();
          command.value = Command::Value::Boolean;
          command.on = value;
        }
        break;
      }
      case caller::Kind::Button:
        if (ImGui::Button(control.name.c_str())) {
          Command& command = changed();
          command.value = Command::Value::Boolean;
          command.on = true;
        }
        break;
      case caller::Kind::Choice: {
        int index = static_cast<int>(control.value);
        const auto option = [](void* data, int n, const char** text) {
          *text = static_cast<const std::vector<std::string>*>(data)->at(static_cast<size_t>(n)).c_str();
          return true;
        };
        if (ImGui::Combo(control.name.c_str(), &index, option,
                         const_cast<std::vector<std::string>*>(&control.options),
                         static_cast<int>(control.options.size())) &&
            index != static_cast<int>(control.value)) {
          Command& command = changed();
          command.value = Command::Value::Text;
          command.text = control.options.at(static_cast<size_t>(index));
        }
        break;
      }
    }
    if (rects != nullptr) {
      const ImVec2 low = ImGui::GetItemRectMin(), high = ImGui::GetItemRectMax();
      (*rects)[i] = {low.x, low.y, high.x, high.y};
    }
  }
  ImGui::PopID();
  return commands;
}

std::vector<Command> draw_panel(const PanelModel& model, PanelPlace& place) {
  std::vector<Command> commands;
  ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
  glfw::keep_window_inside_display("interop-lab");  // whatever the layout file or a resize left
  // Auto-resized: the panel grows with the timing rows and the mode table as they appear.
  ImGui::Begin("interop-lab", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
  place.x = ImGui::GetWindowPos().x;
  place.y = ImGui::GetWindowPos().y;

  ImGui::Text("graphics API: %s (%s)", to_string(model.api), display_name(model.api));
  for (const auto& [label, text] : model.status) ImGui::Text("%s: %s", label.c_str(), text.c_str());
  if (model.scenes_offered) {
    ImGui::TextUnformatted(label(Kind::Scene));
    for (const SceneId scene : all_scenes()) {
      ImGui::SameLine();
      if (ImGui::RadioButton(to_string(scene), scene == model.scene) && scene != model.scene)
        add(commands, Kind::Scene).scene = scene;
      if (ImGui::IsItemHovered()) wrapped_tooltip(describe(scene));
    }
  }
  if (!model.source.empty()) {
    // Another source makes the frames (--attach): which and how it is doing; a scene above leaves it.
    ImGui::Text("source: %s", model.source.c_str());
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + 420.0f);
    ImGui::TextUnformatted(model.source_status.c_str());
    if (!model.picture_readout.empty()) {
      ImGui::TextUnformatted(model.picture_readout.c_str());
      if (ImGui::IsItemHovered()) wrapped_tooltip(control_of(Kind::Hover).what);
    }
    if (model.picture_colorbar) {
      std::array<uint8_t, 256 * 4> gray{};
      if (model.picture_colormap == nullptr) kernels::gray_colormap(gray.data());
      draw_colorbar(model.picture_colormap ? model.picture_colormap : gray.data(),
                    (*model.picture_colorbar)[0], (*model.picture_colorbar)[1]);
    }
    ImGui::PopTextWrapPos();
    for (Command& command : draw_caller_tools(model.stack, model.caller_controls, &place.caller_controls))
      commands.push_back(std::move(command));
    if (!model.publishers.empty()) {
      ImGui::PushItemWidth(260);
      if (ImGui::BeginCombo(label(Kind::Source), model.published.c_str())) {
        for (const std::string& name : model.publishers)
          if (ImGui::Selectable(name.c_str(), name == model.published) && name != model.published)
            add(commands, Kind::Source).source = name;
        ImGui::EndCombo();
      }
      ImGui::PopItemWidth();
      if (ImGui::IsItemHovered())
        wrapped_tooltip("the names published now: pick one to show its frames instead");
    }
  }
  if (model.filter) {
    ImGui::TextUnformatted(label(Kind::Filter));
    for (const kernels::FilterName& filter : kernels::kFilterNames) {
      ImGui::SameLine();
      if (ImGui::RadioButton(filter.name, *model.filter == filter.value) && *model.filter != filter.value)
        add(commands, Kind::Filter).filter = filter.value;
    }
  }
  if (model.filter == kernels::Filter::Blur && model.blur_radius) {
    int radius = *model.blur_radius;
    if (ImGui::SliderInt(label(Kind::BlurRadius), &radius, 1, 16))
      add(commands, Kind::BlurRadius).blur_radius = radius;
  }

  ImGui::Separator();
  ImGui::TextUnformatted(label(Kind::Mode));
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
      add(commands, Kind::Mode).mode = modes[i];
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      wrapped_tooltip(availability.available ? describe(modes[i]) : availability.reason.c_str());
  }
  if (!model.devices.empty()) {
    ImGui::PushItemWidth(260);
    const char* current =
        model.device >= 0 ? model.devices[static_cast<size_t>(model.device)].c_str() : "none";
    if (ImGui::BeginCombo(label(Kind::Device), current)) {
      for (size_t i = 0; i < model.devices.size(); ++i)
        if (ImGui::Selectable(model.devices[i].c_str(), static_cast<int>(i) == model.device))
          add(commands, Kind::Device).device = static_cast<int>(i);
      ImGui::EndCombo();
    }
    if (uses_compute_device(model.mode) && model.compute_device >= 0) {
      if (ImGui::BeginCombo(label(Kind::ComputeDevice),
                            model.devices[static_cast<size_t>(model.compute_device)].c_str())) {
        for (size_t i = 0; i < model.devices.size(); ++i)
          if (ImGui::Selectable(model.devices[i].c_str(), static_cast<int>(i) == model.compute_device))
            add(commands, Kind::ComputeDevice).device = static_cast<int>(i);
        ImGui::EndCombo();
      }
    }
    ImGui::PopItemWidth();
  }
  // The split mode's and the external modes' choices show where they apply (the page greys them instead).
  if (uses_compute_device(model.mode)) {
    draw_group(Group::Split, model.states, commands);
    ImGui::TextWrapped("%s", model.transfer.c_str());
  }
  if (model.states[static_cast<size_t>(Kind::Semaphores)].why_not.empty())
    draw_group(Group::Semaphores, model.states, commands);
  if (!model.flags.empty()) {
    ImGui::PushItemWidth(170);
    flags_combo(Kind::MapFlags, model.access.map_access, commands);
    flags_combo(Kind::RegisterFlags, model.access.register_access, commands);
    ImGui::PopItemWidth();
    for (const RegisteredFlags& flags : model.flags)
      ImGui::BulletText("%s (%s): register %s, map %s", flags.label.c_str(),
                        flags.role == ResourceRole::Input ? "CUDA reads" : "CUDA writes",
                        interop::to_string(flags.register_access), interop::to_string(flags.map_access));
  }
  if (!model.notice.empty()) ImGui::TextWrapped("%s", model.notice.c_str());

  ImGui::Separator();
  ImGui::Text("%d x %d, %s", model.extent.width, model.extent.height, to_string(model.mode));
  draw_size_and_time(model, commands);
  const bool timing = model.states[static_cast<size_t>(Kind::Timing)].on;
  if (model.timers && timing) {
    draw_timings(*model.timers, model.mode);
    if (!model.graphics_untimed.empty())
      ImGui::TextDisabled("draw untimed: %s", model.graphics_untimed.c_str());
    if (!model.timers->cuda_timing_off_reason().empty())
      ImGui::TextDisabled("CUDA phases untimed: %s", model.timers->cuda_timing_off_reason().c_str());
    if (ImGui::CollapsingHeader("modes compared", ImGuiTreeNodeFlags_DefaultOpen))
      draw_mode_table(*model.timers);
  }

  const bool vsync = model.states[static_cast<size_t>(Kind::Vsync)].on;
  switch_box(Kind::Vsync, model.states[static_cast<size_t>(Kind::Vsync)], commands);
  ImGui::SameLine();
  if (vsync && model.timers && model.timers->has(static_cast<int>(model.mode), Phase::Frame)) {
    const double frame_ms = model.timers->stats(static_cast<int>(model.mode), Phase::Frame).median_ms;
    if (const int multiple = vsync_multiple(frame_ms, model.refresh_hz); multiple > 0)
      ImGui::TextColored(ImVec4(1.0f, 0.8f, 0.3f, 1.0f),
                         "vsync-bound: frame %.2f ms = %d x %.2f ms (%.0f Hz)", frame_ms, multiple,
                         1000.0 / model.refresh_hz, model.refresh_hz);
    else
      ImGui::TextDisabled("not vsync-bound (frame %.2f ms)", frame_ms);
  } else {
    ImGui::TextDisabled(vsync ? "" : "frames as fast as they come");
  }
  if (ImGui::Button(label(Kind::Screenshot))) add(commands, Kind::Screenshot);
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
  return commands;
}

}  // namespace lab::panel
