// app/doctor/ui_doctor.cpp — the panel's doctor tab: the --doctor report drawn with Dear ImGui, the verdict
// first (green when CUDA-GL interop works, red with its reason when not), then one collapsing header
// per section with a two-column key/value table. It draws what it is given and never collects: the
// caller gathers the report (collect_doctor_report_for_current_context) once, not every frame.
#include "app/doctor/doctor.hpp"

#include <imgui.h>

#include <algorithm>

namespace lab {

void draw_doctor_report(const DoctorReport& report) {
  const ImVec4 colour =
      report.interop_works ? ImVec4(0.45f, 0.85f, 0.45f, 1.0f) : ImVec4(0.95f, 0.45f, 0.4f, 1.0f);
  // Long values wrap instead of widening the panel: at most the width the window already has (an
  // auto-resizing panel would otherwise grow to fit the table, from about 450 to 660 pixels).
  const float width = std::min(ImGui::GetFontSize() * 48.0f, ImGui::GetContentRegionAvail().x);
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
  ImGui::TextColored(colour, "verdict: %s", doctor_verdict(report).c_str());
  ImGui::PopTextWrapPos();
  for (const DoctorSection& section : report.sections) {
    ImGui::PushID(section.title.c_str());
    // Open where it matters: the advice, and why each mode is or is not available.
    const bool open_first = section.title == "remedies" || section.title == "modes";
    if (ImGui::CollapsingHeader(section.title.c_str(), open_first ? ImGuiTreeNodeFlags_DefaultOpen : 0) &&
        ImGui::BeginTable(
            "lines", 2,
            ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit,
            ImVec2(width, 0.0f))) {
      ImGui::TableSetupColumn("key", ImGuiTableColumnFlags_WidthFixed);
      ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch);
      for (const DoctorLine& line : section.lines) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(line.key.c_str());
        ImGui::TableNextColumn();
        ImGui::TextWrapped("%s", line.value.c_str());
      }
      ImGui::EndTable();
    }
    ImGui::PopID();
  }
}

}  // namespace lab
