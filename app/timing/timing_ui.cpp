// app/timing/timing_ui.cpp — the timing tables of the panel (app/panel/panel.cpp).
#include "app/timing/timing_ui.hpp"

#include "app/core/names.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

namespace lab {
namespace {

constexpr Phase kShownPhases[] = {Phase::Register, Phase::Map,        Phase::Wait,       Phase::Kernel,
                                  Phase::Signal,   Phase::Unmap,      Phase::Unregister, Phase::CudaCopy,
                                  Phase::GlCopy,   Phase::VulkanCopy, Phase::HostCopy,   Phase::Draw,
                                  Phase::Other,    Phase::Frame};

constexpr const char* kOtherTooltip =
    "the frame less the phases above: present and vsync, the panel, the host's own calls, and work a timer "
    "did not see (a phase 'not measured here'); with it the rows add up to the frame. Negative where phases "
    "overlapped (a GPU's work beside the host's), by the overlap";

}  // namespace

float tooltip_wrap_width(float display_width, float font_size, float padding) {
  const float wanted = font_size * 35.0f;
  const float room = display_width - 2.0f * padding - font_size;  // the tooltip's padding, and a margin
  return std::max(std::min(wanted, room), font_size * 4.0f);
}

void wrapped_tooltip(const char* text) {
  const ImGuiStyle& style = ImGui::GetStyle();
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(
      tooltip_wrap_width(ImGui::GetIO().DisplaySize.x, ImGui::GetFontSize(), style.WindowPadding.x));
  ImGui::TextUnformatted(text);
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

void draw_timings(const FrameTimers& timers, ModeId mode) {
  const int tag = static_cast<int>(mode);
  if (ImGui::BeginTable("phases", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("phase");
    ImGui::TableSetupColumn("last ms");
    ImGui::TableSetupColumn("avg ms");
    ImGui::TableSetupColumn("p90 ms");
    ImGui::TableHeadersRow();
    for (const Phase phase : kShownPhases) {
      if (!timers.has(tag, phase)) continue;
      const PhaseStats& stats = timers.stats(tag, phase);
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(to_string(phase));
      if (phase == Phase::Other && ImGui::IsItemHovered()) wrapped_tooltip(kOtherTooltip);
      if (!stats.measured) {
        // One cell, not three: the timer read nothing of the work, so no column has a number to give.
        ImGui::TableNextColumn();
        ImGui::TextDisabled("%s", kNotMeasuredHere);
        if (ImGui::IsItemHovered()) {
          char why[256];
          std::snprintf(
              why, sizeof why,
              "the %s timer read under %.3f ms: the driver ran the work outside it (Mesa's llvmpipe "
              "rasterises at the flush); its time is in '%s'",
              to_string(stats.clock), static_cast<double>(kUnseenGpuMs), to_string(Phase::Other));
          wrapped_tooltip(why);
        }
        ImGui::TableNextColumn();
        ImGui::TableNextColumn();
        continue;
      }
      for (const float ms : {stats.last_ms, stats.average_ms, stats.p90_ms}) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(phase_ms_text(stats, ms).c_str());
      }
    }
    ImGui::EndTable();
  }
  for (const Phase phase : {Phase::Kernel, Phase::Frame}) {
    if (!timers.has(tag, phase)) continue;
    const std::vector<float>& history = timers.stats(tag, phase).history;
    if (history.empty()) continue;
    const float peak = *std::max_element(history.begin(), history.end());
    const std::string label = std::string(to_string(phase)) + " (ms)";
    // A fixed width: -1 ("fill the window") collapses to nothing in an auto-sized window.
    ImGui::PlotLines(("##" + label).c_str(), history.data(), static_cast<int>(history.size()), 0,
                     label.c_str(), 0.0f, std::max(peak * 1.2f, 0.01f), ImVec2(400, 50));
  }
  if (ImGui::CollapsingHeader("timeline of the last frame")) draw_timeline(last_frame_timeline(timers, tag));
}

void draw_timeline(const FrameTimeline& timeline) {
  // The same width as the plots above; the label column, then the frame's axis.
  constexpr float kWidth = 400.0f, kLabel = 70.0f, kRow = 18.0f;
  const float axis_ms = static_cast<float>(std::max(timeline.frame_ms, 0.001));
  ImDrawList* draw = ImGui::GetWindowDrawList();
  // Each lane's bars in its own colour (the desk's page uses the same): the contexts' turns at a glance.
  const ImU32 kBars[kLaneCount] = {IM_COL32(102, 204, 255, 255), IM_COL32(255, 204, 102, 255),
                                   IM_COL32(153, 238, 102, 255), IM_COL32(238, 153, 102, 255),
                                   IM_COL32(204, 153, 255, 255), IM_COL32(119, 119, 119, 255)};
  const ImU32 kText = IM_COL32(220, 220, 220, 255), kGrid = IM_COL32(80, 80, 80, 255);
  ImGui::Text("frame: %.3f ms", timeline.frame_ms);
  for (const LaneState& lane : timeline.lanes) {
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    draw->AddText(origin, kText, to_string(lane.lane));
    const float left = origin.x + kLabel, right = origin.x + kWidth;
    draw->AddLine(ImVec2(left, origin.y + kRow - 2), ImVec2(right, origin.y + kRow - 2), kGrid);
    if (!lane.placed) {
      // Said, not drawn: a bar placed by a guess would read as a measurement.
      ImGui::SetCursorScreenPos(ImVec2(left, origin.y));
      ImGui::TextDisabled("not on the frame's clock (%s); hover for why", lane.clock.c_str());
      if (ImGui::IsItemHovered()) wrapped_tooltip(lane.why_not.c_str());
      ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + kRow));
      ImGui::Dummy(ImVec2(kWidth, 0));
      continue;
    }
    for (const TimelineSpan& span : timeline.spans) {
      if (span.lane != lane.lane) continue;
      const auto x = [&](double ms) {
        return left + std::clamp(static_cast<float>(ms) / axis_ms, 0.0f, 1.0f) * (right - left);
      };
      const ImVec2 from(x(span.start_ms), origin.y + 2),
          to(std::max(x(span.end_ms), x(span.start_ms) + 1.0f), origin.y + kRow - 4);
      draw->AddRectFilled(from, to, kBars[static_cast<size_t>(lane.lane)]);
      if (ImGui::IsMouseHoveringRect(from, to)) {
        char text[160];
        std::snprintf(text, sizeof text, "%s: %.3f to %.3f ms (%s clock, within %.3f ms)", span.name.c_str(),
                      span.start_ms, span.end_ms, lane.clock.c_str(), lane.uncertainty_ms);
        wrapped_tooltip((text + (lane.why_not.empty() ? std::string() : "\n" + lane.why_not)).c_str());
      }
    }
    ImGui::Dummy(ImVec2(kWidth, kRow));
  }
}

void draw_mode_table(const FrameTimers& timers) {
  // The phases some mode recorded (an API's own copy phase, the external mode's semaphores), in this order.
  std::vector<Phase> columns;
  for (const Phase phase :
       {Phase::Map, Phase::Wait, Phase::Kernel, Phase::Signal, Phase::Unmap, Phase::CudaCopy, Phase::GlCopy,
        Phase::VulkanCopy, Phase::HostCopy, Phase::Frame}) {
    const auto recorded = [&](ModeId mode) { return timers.has(static_cast<int>(mode), phase); };
    if (std::any_of(all_modes().begin(), all_modes().end(), recorded)) columns.push_back(phase);
  }
  if (!ImGui::BeginTable("modes", 1 + static_cast<int>(columns.size()),
                         ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit))
    return;
  ImGui::TableSetupColumn("mode (avg ms)");
  for (const Phase phase : columns) ImGui::TableSetupColumn(to_string(phase));
  ImGui::TableHeadersRow();
  for (const ModeId mode : all_modes()) {
    const int tag = static_cast<int>(mode);
    if (!timers.has(tag, Phase::Frame) && !timers.has(tag, Phase::Kernel)) continue;
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(to_string(mode));
    for (const Phase phase : columns) {
      ImGui::TableNextColumn();
      if (timers.has(tag, phase) && !timers.stats(tag, phase).measured) {
        ImGui::TextDisabled("%s", kNotMeasuredHere);
      } else if (timers.has(tag, phase)) {
        ImGui::Text("%.3f", timers.stats(tag, phase).average_ms);
      } else {
        ImGui::TextDisabled("-");
      }
    }
  }
  ImGui::EndTable();
}

}  // namespace lab
