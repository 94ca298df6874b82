// tests/gl/test_timeline_ui.cpp — the panel's timeline strip (app/timing/timing_ui.hpp's draw_timeline) built
// without a renderer (ImGui's draw lists are only built): a placed lane's spans become bars, a lane off the
// frame's clock is said in text instead of drawn. What it said is read back through ImGui's text log. And the
// phase table beside it (draw_timings), and the panel's tooltips, wrapped to the display.
#include "app/timing/timing_ui.hpp"
#include "tests/support/headless_imgui.hpp"

#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

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

// An ImGui context without a renderer, on a display of `width` x `height`.
void create_context(float width, float height) {
  lab::testing::create_headless_imgui(width, height);
}

// Runs `body` inside a window for two frames and returns the text it logged on the second.
std::string logged_text(const std::function<void()>& body) {
  for (int frame = 0; frame < 2; ++frame) {
    ImGui::NewFrame();
    ImGui::Begin("panel");
    if (frame == 1) ImGui::LogToClipboard();
    body();
    if (frame == 1) ImGui::LogFinish();
    ImGui::End();
    ImGui::Render();
  }
  return ImGui::GetClipboardText();
}

TEST(TimelinePanel, BarsForPlacedSpansAndWordsForALaneOffTheClock) {
  create_context(1280, 720);

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

// Timer queries as Mesa's llvmpipe reads them: the draw and the copy run at the flush, outside the queries.
class MissingTimerQueries final : public lab::GpuTimerQueries {
 public:
  lab::Clock clock() const override { return lab::Clock::Gl; }
  unsigned int create() override { return ++m_created; }
  void begin(unsigned int) override {}
  void end(unsigned int) override {}
  bool available(unsigned int) override { return true; }
  double elapsed_ms(unsigned int) override { return 0.0005; }
  void destroy(const std::vector<unsigned int>&, bool) override {}

 private:
  unsigned int m_created = 0;
};

TEST(TimingsPanel, OtherMakesUpTheFrameAndAMissedTimerSaysNotMeasured) {
  lab::FrameTimers timers(std::make_unique<MissingTimerQueries>());
  const int tag = static_cast<int>(lab::ModeId::Cpu);
  for (int frame = 0; frame < 4; ++frame) {
    timers.cpu_add(lab::Phase::Frame, 46.0);
    timers.begin_frame(tag, frame);
    { const lab::GraphicsPhase phase(timers, lab::Phase::GlCopy); }
    timers.cpu_add(lab::Phase::Kernel, 10.0);
    { const lab::GraphicsPhase phase(timers, lab::Phase::Draw); }
    timers.end_frame();
  }
  create_context(1280, 720);
  const std::string drawn = logged_text([&] { lab::draw_timings(timers, lab::ModeId::Cpu); });
  ImGui::DestroyContext();
  // The remainder row, 46 - 10 - 2 x 0.0005 ms, and the frame it makes up.
  EXPECT_NE(drawn.find("other (not timed) | 35.999"), std::string::npos) << drawn;
  EXPECT_NE(drawn.find("46.000"), std::string::npos) << drawn;
  // The copy and the draw the timer missed: no 0.000 or 0.001 for them, but what it means.
  EXPECT_NE(drawn.find("gl copy"), std::string::npos) << drawn;
  EXPECT_NE(drawn.find("not measured here"), std::string::npos) << drawn;
  EXPECT_EQ(drawn.find("| 0.000 |"), std::string::npos) << drawn;
  EXPECT_EQ(drawn.find("| 0.001 |"), std::string::npos) << drawn;
}

TEST(TimingsPanel, ACpuModeTimelineNamesItsKernelLaneCpu) {
  lab::FrameTimers timers;
  const int tag = static_cast<int>(lab::ModeId::Cpu);
  for (int frame = 0; frame < 2; ++frame) {
    timers.begin_frame(tag, frame);
    { const lab::CpuPhase phase(timers, lab::Phase::Kernel); }
    timers.end_frame();
  }
  timers.begin_frame(tag, 2);  // the frame before ends here
  create_context(1280, 720);
  const std::string drawn = logged_text([&] { lab::draw_timeline(lab::last_frame_timeline(timers, tag)); });
  ImGui::DestroyContext();
  timers.end_frame();
  // The lane labels are drawn on the draw list, not logged: read the timeline the strip draws instead.
  const lab::FrameTimeline timeline = lab::last_frame_timeline(timers, tag);
  ASSERT_FALSE(timeline.lanes.empty()) << drawn;
  EXPECT_EQ(timeline.lanes.front().lane, lab::Lane::Cpu);
  EXPECT_STREQ(lab::to_string(timeline.lanes.front().lane), "cpu");
  EXPECT_EQ(timeline.lanes.back().lane, lab::Lane::Other);
}

TEST(TooltipTest, WrapsAtSomeCharactersAndNeverPastTheDisplay) {
  const float font = 13.0f, padding = 8.0f;
  EXPECT_FLOAT_EQ(lab::tooltip_wrap_width(1920.0f, font, padding), 35.0f * font);
  // A 400 px window: the tooltip's text, its padding and a margin fit inside it.
  const float narrow = lab::tooltip_wrap_width(400.0f, font, padding);
  EXPECT_LE(narrow + 2.0f * padding, 400.0f);
  EXPECT_GT(narrow, 300.0f);
  EXPECT_GT(lab::tooltip_wrap_width(10.0f, font, padding), 0.0f);  // a tiny window still wraps somewhere
}

// A tooltip whose text is longer than the display is wide: the window that ImGui makes for it.
ImGuiWindow* tooltip_of(const std::string& text, float display_width) {
  create_context(display_width, 600);
  for (int frame = 0; frame < 3; ++frame) {
    ImGui::NewFrame();
    ImGui::GetIO().MousePos = ImVec2(display_width - 40, 100);  // near the right edge, as a greyed mode is
    ImGui::Begin("panel");
    lab::wrapped_tooltip(text.c_str());
    ImGui::End();
    ImGui::Render();
  }
  return ImGui::FindWindowByName("##Tooltip_00");
}

TEST(TimingsPanel, ATooltipWrapsInsideTheDisplaySoItsRemedyIsSeen) {
  const std::string reason =
      "unavailable: cudaGraphicsGLRegisterImage: cudaErrorOperatingSystem - the GL context is not on an "
      "NVIDIA "
      "GPU (renderer: llvmpipe). Run with the NVIDIA GL driver, or use --mode staging or --mode cpu";
  for (const float width : {400.0f, 1280.0f}) {
    ImGuiWindow* tooltip = tooltip_of(reason, width);
    ASSERT_NE(tooltip, nullptr);
    EXPECT_GE(tooltip->Pos.x, 0.0f) << width;
    EXPECT_LE(tooltip->Pos.x + tooltip->Size.x, width) << "cut off at the display's edge: " << width;
    // Wrapped: several lines, not one line as wide as the text.
    EXPECT_GT(tooltip->Size.y, 3.0f * ImGui::GetFontSize()) << width;
    ImGui::DestroyContext();
  }
}

}  // namespace
