// tests/unit/test_timeline.cpp — one frame's timeline (app/timing/timeline.hpp) on synthetic clocks: a device
// clock brought onto the host's by one sample (an offset) and by several (a drifting rate), spans placed in
// milliseconds from the frame start, a lane without a calibration kept with its reason and without spans,
// and the programmer errors refused.
#include "app/timing/timeline.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace {

using lab::ClockCalibration;
using lab::Lane;
using lab::TimelineBuilder;

constexpr int64_t kMs = 1'000'000;  // ns

TEST(ClockCalibrationTest, OneSampleFixesTheOffset) {
  ClockCalibration gpu;
  EXPECT_FALSE(gpu.calibrated());
  EXPECT_THROW(gpu.host_ns(0), std::logic_error);
  // The GPU clock read 5'000 ms when the host's read 100 ms.
  gpu.add_sample(5'000 * kMs, 100 * kMs, 20'000);
  ASSERT_TRUE(gpu.calibrated());
  EXPECT_DOUBLE_EQ(gpu.rate(), 1.0);
  EXPECT_DOUBLE_EQ(gpu.host_ns(5'003 * kMs), 103.0 * kMs);
  EXPECT_DOUBLE_EQ(gpu.host_ns(4'999 * kMs), 99.0 * kMs);
  EXPECT_EQ(gpu.uncertainty_ns(), 20'000);
}

TEST(ClockCalibrationTest, SeveralSamplesFitADriftingRate) {
  ClockCalibration gpu;
  // A device clock 100 ppm fast: host = 7 s + (device - 1 s) / 1.0001, sampled once a second for a minute.
  for (int second = 0; second < 60; ++second) {
    const int64_t device = (1'000 + second * 1'000) * kMs;
    const double host = 7'000.0 * kMs + static_cast<double>(device - 1'000 * kMs) / 1.0001;
    gpu.add_sample(device, static_cast<int64_t>(host), second % 2 ? 500 : 1'000);
  }
  EXPECT_NEAR(gpu.rate(), 1.0 / 1.0001, 1e-9);
  const int64_t device = 61'000 * kMs;  // a minute on: without the rate, 6 us off
  EXPECT_NEAR(gpu.host_ns(device), 7'000.0 * kMs + static_cast<double>(device - 1'000 * kMs) / 1.0001, 2.0);
  EXPECT_EQ(gpu.uncertainty_ns(), 1'000);
}

TEST(ClockCalibrationTest, SamplesAtOneDeviceTimeKeepTheRateAtOne) {
  ClockCalibration gpu;
  gpu.add_sample(10 * kMs, 1 * kMs);
  gpu.add_sample(10 * kMs, 3 * kMs);  // the same device read, two host reads: the middle is the estimate
  EXPECT_DOUBLE_EQ(gpu.rate(), 1.0);
  EXPECT_DOUBLE_EQ(gpu.host_ns(11 * kMs), 3.0 * kMs);
}

TEST(TimelineTest, SpansOfEachClockLandOnTheFramesAxis) {
  const int64_t frame_start = 1'000 * kMs;  // host
  TimelineBuilder builder(42, frame_start);
  ClockCalibration gl;
  gl.add_sample(77 * kMs, frame_start);  // GL_TIMESTAMP read 77 ms at the frame's start
  builder.place_lane(Lane::Graphics, "gl", gl);
  ClockCalibration cuda;  // CUDA events in ms after an event the host saw complete 0.5 ms into the frame
  cuda.add_sample(0, frame_start + kMs / 2);
  builder.place_lane(Lane::Cuda, "cuda", cuda);
  builder.place_lane(Lane::Desk, "cpu", TimelineBuilder::host_clock());

  builder.add_span(Lane::Cuda, "kernel", 1 * kMs, 3 * kMs);
  builder.add_span(Lane::Graphics, "draw", 81 * kMs, 82 * kMs);
  builder.add_span(Lane::Graphics, "gl copy", 77 * kMs, 78 * kMs);
  builder.add_span(Lane::Desk, "read-back", frame_start - 2 * kMs, frame_start - kMs);  // the frame before's
  const lab::FrameTimeline timeline = builder.build(frame_start + 4 * kMs);

  EXPECT_EQ(timeline.frame, 42);
  EXPECT_DOUBLE_EQ(timeline.frame_ms, 5.0);  // the draw ends after the next frame's start
  ASSERT_EQ(timeline.lanes.size(), 3u);
  EXPECT_EQ(timeline.lanes[0].lane, Lane::Graphics);  // in the strip's order, not the declaration's
  EXPECT_EQ(timeline.lanes[1].lane, Lane::Cuda);
  EXPECT_EQ(timeline.lanes[2].clock, "cpu");
  ASSERT_EQ(timeline.spans.size(), 4u);
  EXPECT_EQ(timeline.spans[0].name, "gl copy");  // by lane, then start
  EXPECT_DOUBLE_EQ(timeline.spans[0].start_ms, 0.0);
  EXPECT_DOUBLE_EQ(timeline.spans[1].start_ms, 4.0);
  EXPECT_DOUBLE_EQ(timeline.spans[1].end_ms, 5.0);
  EXPECT_EQ(timeline.spans[2].name, "kernel");
  EXPECT_DOUBLE_EQ(timeline.spans[2].start_ms, 1.5);
  EXPECT_DOUBLE_EQ(timeline.spans[2].end_ms, 3.5);
  EXPECT_DOUBLE_EQ(timeline.spans[3].start_ms, -2.0);
}

TEST(TimelineTest, ALaneWithoutACalibrationSaysWhyAndShowsNoSpan) {
  TimelineBuilder builder(1, 0);
  builder.refuse_lane(Lane::Graphics, "vulkan", "no VK_EXT_calibrated_timestamps and no calibration submit");
  builder.add_span(Lane::Graphics, "draw", 5, 9);
  builder.add_span(Lane::Graphics, "vulkan copy", 10, 12);
  const lab::FrameTimeline timeline = builder.build(16 * kMs);
  ASSERT_EQ(timeline.lanes.size(), 1u);
  EXPECT_FALSE(timeline.lanes[0].placed);
  EXPECT_EQ(timeline.lanes[0].why_not,
            "no VK_EXT_calibrated_timestamps and no calibration submit (2 spans not shown)");
  EXPECT_TRUE(timeline.spans.empty());
  EXPECT_DOUBLE_EQ(timeline.frame_ms, 16.0);
}

TEST(TimelineTest, RefusesUndeclaredLanesBackwardSpansAndEmptyCalibrations) {
  TimelineBuilder builder(1, 0);
  EXPECT_THROW(builder.add_span(Lane::Cuda, "kernel", 0, 1), std::logic_error);
  builder.place_lane(Lane::Cuda, "cuda", TimelineBuilder::host_clock());
  EXPECT_THROW(builder.add_span(Lane::Cuda, "kernel", 5, 4), std::logic_error);
  EXPECT_THROW(builder.place_lane(Lane::Graphics, "gl", ClockCalibration{}), std::logic_error);
}

TEST(TimelineTest, EveryPhaseButTheFrameHasALane) {
  for (const lab::Phase phase : lab::all_phases())
    EXPECT_EQ(lab::lane_of(phase).has_value(), phase != lab::Phase::Frame) << lab::to_string(phase);
  EXPECT_EQ(lab::lane_of(lab::Phase::Map), Lane::Handoff);
  EXPECT_EQ(lab::lane_of(lab::Phase::Signal), Lane::Handoff);
  EXPECT_EQ(lab::lane_of(lab::Phase::Kernel), Lane::Cuda);
  EXPECT_EQ(lab::lane_of(lab::Phase::Draw), Lane::Graphics);
  EXPECT_STREQ(lab::to_string(Lane::Handoff), "hand-off");
  EXPECT_EQ(lab::all_lanes().size(), static_cast<size_t>(lab::kLaneCount));
}

TEST(TimelineTest, PhasesKnownByTheirDurationsOnlyAreListedNotPlaced) {
  TimelineBuilder builder(7, 0);
  builder.place_lane(Lane::Desk, "cpu", TimelineBuilder::host_clock());
  builder.add_span(Lane::Desk, "read-back", 2 * kMs, 3 * kMs);
  const std::vector<lab::PhaseDuration> durations = {{lab::Phase::Map, lab::Clock::Cuda, 0.25},
                                                     {lab::Phase::Kernel, lab::Clock::Cuda, 1.5},
                                                     {lab::Phase::Unmap, lab::Clock::Cuda, 0.125},
                                                     {lab::Phase::Draw, lab::Clock::Gl, 0.5},
                                                     {lab::Phase::Frame, lab::Clock::Cpu, 16.0}};
  lab::refuse_duration_lanes(builder, durations);
  const lab::FrameTimeline timeline = builder.build(16 * kMs);
  ASSERT_EQ(timeline.lanes.size(), 4u);
  EXPECT_EQ(timeline.lanes[0].lane, Lane::Graphics);
  EXPECT_EQ(timeline.lanes[0].clock, "gl");
  EXPECT_FALSE(timeline.lanes[0].placed);
  EXPECT_NE(timeline.lanes[0].why_not.find("GL_TIME_ELAPSED"), std::string::npos)
      << timeline.lanes[0].why_not;
  EXPECT_NE(timeline.lanes[0].why_not.find("(draw 0.500 ms)"), std::string::npos)
      << timeline.lanes[0].why_not;
  EXPECT_EQ(timeline.lanes[1].lane, Lane::Handoff);
  EXPECT_NE(timeline.lanes[1].why_not.find("(map 0.250 ms, unmap 0.125 ms)"), std::string::npos)
      << timeline.lanes[1].why_not;
  EXPECT_EQ(timeline.lanes[2].lane, Lane::Cuda);
  EXPECT_NE(timeline.lanes[2].why_not.find("kernel 1.500 ms"), std::string::npos)
      << timeline.lanes[2].why_not;
  // The lane placed before keeps its spans; the refused ones add none.
  EXPECT_TRUE(timeline.lanes[3].placed);
  ASSERT_EQ(timeline.spans.size(), 1u);
  EXPECT_EQ(timeline.spans[0].name, "read-back");
  EXPECT_DOUBLE_EQ(timeline.spans[0].start_ms, 2.0);
}

TEST(TimelineTest, ThePanelsStripOfTimersThatRecordedNothingIsEmpty) {
  const lab::FrameTimers timers;
  const lab::FrameTimeline timeline = lab::last_frame_timeline(timers, 0);
  EXPECT_TRUE(timeline.lanes.empty());
  EXPECT_TRUE(timeline.spans.empty());
  EXPECT_DOUBLE_EQ(timeline.frame_ms, 0.0);
}

TEST(TimelineTest, ThePanelsStripListsWhatTheTimersRecorded) {
  lab::FrameTimers timers;
  timers.begin_frame(3);
  timers.cpu_add(lab::Phase::Kernel, 2.5);
  timers.end_frame();
  const lab::FrameTimeline timeline = lab::last_frame_timeline(timers, 3);
  ASSERT_EQ(timeline.lanes.size(), 1u);
  EXPECT_EQ(timeline.lanes[0].lane, Lane::Cuda);
  EXPECT_EQ(timeline.lanes[0].clock, "cpu");
  EXPECT_NE(timeline.lanes[0].why_not.find("kernel 2.500 ms"), std::string::npos)
      << timeline.lanes[0].why_not;
}

}  // namespace
