// tests/gl/test_frame_timeline.cpp — GL's GL_TIMESTAMP counters place a rendered frame's GL work on the host
// clock (llvmpipe, headless EGL, in CI): the graphics lane is placed, its spans lie inside the frame in the
// order issued (tests/support/frame_timeline.hpp). And with timing off, nothing is recorded. cpu mode's
// kernel sits in the cpu lane, the other lane and row make up the frame, and the mode key says why it stays.
#include "tests/support/app_fixture.hpp"
#include "tests/support/frame_timeline.hpp"

#include <string>

namespace {

using lab::ModeId;
using lab::SceneId;

TEST(GlFrameTimeline, TheGraphicsLaneIsPlacedInsideTheFrameInIssueOrder) {
  lab::gl::App app(labtest::app_options(SceneId::Postprocess, ModeId::Cpu, 320, 180));
  labtest::expect_graphics_lane_in_issue_order(app, static_cast<int>(ModeId::Cpu), 4);
}

TEST(GlFrameTimeline, TimingOffRecordsNoFrame) {
  lab::gl::App app(labtest::app_options(SceneId::Postprocess, ModeId::Cpu, 320, 180));
  app.set_timing(false);
  for (int frame = 0; frame < 3; ++frame) ASSERT_TRUE(app.render_frame(frame));
  app.timers().flush();
  EXPECT_EQ(app.timers().last_frame(static_cast<int>(ModeId::Cpu)), nullptr);
}

TEST(GlFrameTimeline, CpuModesKernelIsInTheCpuLaneAndTheRowsAddUpToTheFrame) {
  lab::gl::App app(labtest::app_options(SceneId::Postprocess, ModeId::Cpu, 320, 180));
  // More frames than a window holds: every row's average is then over the same frames.
  for (int frame = 0; frame < lab::PhaseWindow::kWindow + 4; ++frame) ASSERT_TRUE(app.render_frame(frame));
  app.timers().flush();
  const int tag = static_cast<int>(ModeId::Cpu);
  const lab::FrameTimeline timeline = lab::last_frame_timeline(app.timers(), tag);
  bool cpu_kernel = false;
  for (const lab::TimelineSpan& span : timeline.spans) {
    EXPECT_NE(span.lane, lab::Lane::Cuda) << span.name << ": nothing ran on CUDA in cpu mode";
    cpu_kernel = cpu_kernel || (span.lane == lab::Lane::Cpu && span.name == "kernel");
  }
  EXPECT_TRUE(cpu_kernel) << "no kernel span in the cpu lane";
  ASSERT_FALSE(timeline.lanes.empty());
  EXPECT_EQ(timeline.lanes.back().lane, lab::Lane::Other);
  // The table's rows (every phase but the frame, the other row among them) add up to the frame within 5 %.
  const lab::FrameTimers& timers = app.timers();
  ASSERT_TRUE(timers.has(tag, lab::Phase::Other));
  double rows = 0;
  std::string table;
  for (const lab::Phase phase : lab::all_phases())
    if (timers.has(tag, phase)) {
      const double ms = timers.stats(tag, phase).average_ms;
      if (phase != lab::Phase::Frame) rows += ms;
      table += std::string(to_string(phase)) + " " + std::to_string(ms) + "\n";
    }
  const double frame = timers.stats(tag, lab::Phase::Frame).average_ms;
  EXPECT_NEAR(rows, frame, 0.05 * frame) << table;
}

TEST(GlFrameTimeline, TheModeKeySaysWhyNoOtherModeIsTaken) {
  lab::gl::App app(labtest::app_options(SceneId::Pattern, ModeId::Cpu, 64, 64));
  ASSERT_TRUE(app.render_frame(0));
  std::string reasons;
  for (const ModeId mode : lab::modes_of(lab::GraphicsApi::Gl)) {
    if (mode == ModeId::Cpu) continue;
    const lab::ModeAvailability runs = app.availability(mode);
    if (runs.available) GTEST_SKIP() << to_string(mode) << " runs here: the key switches to it";
    reasons += runs.reason;
  }
  app.handle_hotkey(lab::Hotkey::NextMode);
  ASSERT_TRUE(app.render_frame(1));
  EXPECT_EQ(app.mode_id(), ModeId::Cpu);
  const std::string notice = app.notice();
  EXPECT_NE(notice.find("no other mode runs here"), std::string::npos) << notice;
  EXPECT_NE(notice.find("cpu stays"), std::string::npos) << notice;
  // Each other mode named with its reason.
  for (const ModeId mode : lab::modes_of(lab::GraphicsApi::Gl))
    if (mode != ModeId::Cpu) {
      EXPECT_NE(notice.find(to_string(mode)), std::string::npos) << notice;
      EXPECT_NE(notice.find(app.availability(mode).reason), std::string::npos) << notice;
    }
}

}  // namespace
