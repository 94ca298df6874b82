// tests/support/frame_timeline.hpp — what a rendered frame's timeline (app/timing/timeline.hpp) must say on
// any graphics API whose timer queries give timestamps: a placed graphics lane whose spans lie inside the
// frame and follow one another in the order the frame issued them (the postprocess scene's cubes pass, then
// its copies, then the frame pass where there is one). One body for GL's loop (tests/gl) and the core loop on
// Vulkan (tests/vulkan); the tolerance is the lane's calibration uncertainty and a quarter millisecond of
// rounding.
#pragma once

#include "app/timing/timeline.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace labtest {

// Renders `frames` frames of `app` (its scene: one with a cubes pass), waits for their timings and checks
// the last frame's timeline as the file comment says.
template <class App>
void expect_graphics_lane_in_issue_order(App& app, int tag, int frames) {
  for (int frame = 0; frame < frames; ++frame) ASSERT_TRUE(app.render_frame(frame));
  app.timers().flush();
  const lab::FrameTimeline timeline = lab::last_frame_timeline(app.timers(), tag);
  EXPECT_EQ(timeline.frame, frames - 1);
  const lab::LaneState* graphics = nullptr;
  for (const lab::LaneState& lane : timeline.lanes)
    if (lane.lane == lab::Lane::Graphics) graphics = &lane;
  ASSERT_NE(graphics, nullptr) << "the frame's timeline has no graphics lane";
  ASSERT_TRUE(graphics->placed) << graphics->why_not;
  std::vector<lab::TimelineSpan> spans;
  for (const lab::TimelineSpan& span : timeline.spans)
    if (span.lane == lab::Lane::Graphics) spans.push_back(span);
  const double tolerance = graphics->uncertainty_ms + 0.25;
  std::string listed = "frame_ms " + std::to_string(timeline.frame_ms) + ": ";
  for (const lab::TimelineSpan& span : spans)
    listed += span.name + " " + std::to_string(span.start_ms) + ".." + std::to_string(span.end_ms) + "; ";
  ASSERT_GE(spans.size(), 2u) << "a cubes pass and a frame pass: " << listed;
  EXPECT_EQ(spans.front().name, "draw") << listed;  // the cubes pass comes first ...
  // ... and the frame pass, where there is one, last (headless GL shows an image scene's texture as the
  // frame itself: no frame pass, its last span is the upload's copy).
  if (std::count_if(spans.begin(), spans.end(),
                    [](const lab::TimelineSpan& span) { return span.name == "draw"; }) > 1) {
    EXPECT_EQ(spans.back().name, "draw") << listed;
  }
  for (size_t i = 0; i < spans.size(); ++i) {
    EXPECT_GE(spans[i].start_ms, -tolerance) << listed;
    EXPECT_LE(spans[i].end_ms, timeline.frame_ms + tolerance) << listed;
    EXPECT_LE(spans[i].start_ms, spans[i].end_ms) << listed;
    // One queue (or one GL context) runs its work in the order it was issued.
    if (i > 0) {
      EXPECT_GE(spans[i].start_ms, spans[i - 1].end_ms - tolerance) << listed;
    }
  }
}

}  // namespace labtest
