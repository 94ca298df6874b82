// tests/gpu/test_frame_timeline.cpp — a GL interop frame's timeline with CUDA's events on the host clock
// (their times after a reference event of known host time): the kernel lies after the map on the stream and
// before the frame pass that draws what it wrote, both of which the APIs guarantee. Whether the hand-off
// overlaps GL's work is what the GPU happens to do (on an H200 the contexts take turns): said in the test's
// output, not asserted. Needs a CUDA device whose GL interop works; skips elsewhere with the reason.
#include "tests/support/app_fixture.hpp"
#include "tests/support/timeline_spans.hpp"

#include <iostream>

namespace {

using lab::Lane;
using lab::ModeId;
using lab::SceneId;

TEST(GpuFrameTimeline, TheKernelLiesBetweenTheMapAndTheFramePassThatShowsIt) {
  // The wave: its kernel writes the mesh that the frame pass draws (headless, an image scene has no frame
  // pass: its image is the frame).
  lab::gl::App app(labtest::app_options(SceneId::Wave, ModeId::Cpu, 640, 360));
  if (!app.interop_support().usable)
    LABTEST_NEEDS_GPUS(1, "needs a CUDA device whose GL interop works: " << app.interop_support().reason);
  ASSERT_TRUE(app.request_mode(ModeId::Interop).available) << app.availability(ModeId::Interop).reason;
  lab::TimingClocks clocks;
  clocks.map_on_gpu = true;  // the map on the stream, so that stream order says where the kernel starts
  app.timers().set_clocks(clocks);
  for (int frame = 0; frame < 8; ++frame) ASSERT_TRUE(app.render_frame(frame));
  app.timers().flush();
  const lab::FrameTimeline timeline =
      lab::last_frame_timeline(app.timers(), static_cast<int>(ModeId::Interop));
  const std::string said = labtest::describe(timeline);

  const auto cuda = labtest::lane_state(timeline, Lane::Cuda);
  const auto handoff = labtest::lane_state(timeline, Lane::Handoff);
  const auto graphics = labtest::lane_state(timeline, Lane::Graphics);
  ASSERT_TRUE(cuda && cuda->placed) << said;
  ASSERT_TRUE(handoff && handoff->placed) << said;
  ASSERT_TRUE(graphics && graphics->placed) << said;
  const std::vector<lab::TimelineSpan> kernels = labtest::spans_named(timeline, Lane::Cuda, "kernel");
  const std::vector<lab::TimelineSpan> maps = labtest::spans_named(timeline, Lane::Handoff, "map");
  const std::vector<lab::TimelineSpan> draws = labtest::spans_named(timeline, Lane::Graphics, "draw");
  ASSERT_EQ(kernels.size(), 1u) << said;
  ASSERT_EQ(maps.size(), 1u) << said;
  ASSERT_FALSE(draws.empty()) << said;
  ASSERT_EQ(labtest::spans_named(timeline, Lane::Handoff, "unmap").size(), 1u) << said;

  // One stream: the map's end event before the kernel's begin (the same reference: no calibration error).
  constexpr double kRounding = 0.001;  // ms
  EXPECT_LE(maps[0].end_ms, kernels[0].start_ms + kRounding) << said;
  // The frame pass reads what the kernel wrote: GL's work after the unmap waits for it (two clocks: both
  // calibrations' uncertainty).
  const double across = cuda->uncertainty_ms + graphics->uncertainty_ms + kRounding;
  EXPECT_GE(draws.back().start_ms, kernels[0].end_ms - across) << said;
  for (const lab::TimelineSpan& span : timeline.spans) EXPECT_LE(span.start_ms, span.end_ms) << said;

  bool overlap = false;
  for (const lab::TimelineSpan& draw : draws)
    for (const lab::TimelineSpan& step : labtest::spans_named(timeline, Lane::Cuda))
      overlap = overlap || (step.start_ms < draw.end_ms && draw.start_ms < step.end_ms);
  std::cout << "CUDA and GL work " << (overlap ? "overlapped" : "took turns") << " in " << said << "\n";
}

}  // namespace
