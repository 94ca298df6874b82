// tests/gl/test_frame_timeline.cpp — GL's GL_TIMESTAMP counters place a rendered frame's GL work on the host
// clock (llvmpipe, headless EGL, in CI): the graphics lane is placed, its spans lie inside the frame in the
// order issued (tests/support/frame_timeline.hpp). And with timing off, nothing is recorded.
#include "tests/support/app_fixture.hpp"
#include "tests/support/frame_timeline.hpp"

namespace {

using lab::ModeId;
using lab::SceneId;

TEST(GlFrameTimeline, TheGraphicsLaneIsPlacedInsideTheFrameInIssueOrder) {
  lab::App app(labtest::app_options(SceneId::Postprocess, ModeId::Cpu, 320, 180));
  labtest::expect_graphics_lane_in_issue_order(app, static_cast<int>(ModeId::Cpu), 4);
}

TEST(GlFrameTimeline, TimingOffRecordsNoFrame) {
  lab::App app(labtest::app_options(SceneId::Postprocess, ModeId::Cpu, 320, 180));
  app.set_timing(false);
  for (int frame = 0; frame < 3; ++frame) ASSERT_TRUE(app.render_frame(frame));
  app.timers().flush();
  EXPECT_EQ(app.timers().last_frame(static_cast<int>(ModeId::Cpu)), nullptr);
}

}  // namespace
