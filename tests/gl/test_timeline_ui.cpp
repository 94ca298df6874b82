// tests/gl/test_timeline_ui.cpp — the panel's timeline strip (app/timing/timing_ui.hpp's draw_timeline) built
// without a renderer (ImGui's draw lists are only built): a placed lane's spans become bars, a lane off the
// frame's clock is said in text instead of drawn. What it said is read back through ImGui's text log.
#include "app/timing/timing_ui.hpp"

#include <gtest/gtest.h>
#include <imgui.h>

#include <string>

namespace {

constexpr int64_t kMs = 1'000'000;

// Draws `timeline` in a window for two frames (a new window is measured on its first) and returns the
// text logged on the second; `vertices`: the draw data's vertex count then.
std::string draw(const lab::FrameTimeline& timeline, int& vertices) {
  std::string logged;
  for (int frame = 0; frame < 2; ++frame) {
    ImGui::NewFrame();
    ImGui::Begin("timeline");
    if (frame == 1) ImGui::LogToClipboard();
    lab::draw_timeline(timeline);
    if (frame == 1) ImGui::LogFinish();
    ImGui::End();
    ImGui::Render();
  }
  vertices = ImGui::GetDrawData()->TotalVtxCount;
  return ImGui::GetClipboardText();
}

TEST(TimelinePanel, BarsForPlacedSpansAndWordsForALaneOffTheClock) {
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.DisplaySize = ImVec2(1280, 720);
  unsigned char* pixels = nullptr;
  int width = 0, height = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &width, &height);

  const auto timeline_with = [](int spans) {
    lab::TimelineBuilder builder(5, 0);
    builder.place_lane(lab::Lane::Cuda, "cuda", lab::TimelineBuilder::host_clock());
    for (int i = 0; i < spans; ++i)
      builder.add_span(lab::Lane::Cuda, "kernel", i * 2 * kMs, (i * 2 + 1) * kMs);
    builder.refuse_lane(lab::Lane::Graphics, "gl", "durations only");
    return builder.build(16 * kMs);
  };
  int without_spans = 0, with_spans = 0;
  const std::string drawn = draw(timeline_with(0), without_spans);
  draw(timeline_with(3), with_spans);
  ImGui::DestroyContext();

  EXPECT_NE(drawn.find("frame: 16.000 ms"), std::string::npos) << drawn;
  EXPECT_NE(drawn.find("not on the frame's clock (gl)"), std::string::npos) << drawn;
  EXPECT_EQ(drawn.find("not on the frame's clock (cuda)"), std::string::npos) << drawn;
  // Each bar is a filled rectangle: four vertices.
  EXPECT_GE(with_spans - without_spans, 3 * 4);
}

}  // namespace
