// tests/unit/test_timeline.cpp — one frame's timeline (app/timing/timeline.hpp) on synthetic clocks: a device
// clock brought onto the host's by one sample (an offset) and by several (a drifting rate), spans placed in
// milliseconds from the frame start, a lane without a calibration kept with its reason and without spans,
// and the programmer errors refused; FrameTimers' records of a frame (build_timeline) and FrameTimers
// itself with timer queries on a synthetic GPU clock.
#include "app/timing/timeline.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
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

TEST(TimelineTest, EveryRecordedPhaseHasALaneNamedByWhatRanIt) {
  // The frame is the strip's length and Other its gaps (the other lane): neither is a recorded span.
  for (const lab::Phase phase : lab::all_phases())
    EXPECT_EQ(lab::lane_of(phase, lab::Clock::Cuda).has_value(),
              phase != lab::Phase::Frame && phase != lab::Phase::Other)
        << lab::to_string(phase);
  // cpu mode's reference kernel runs on the host: its lane is "cpu", not "cuda".
  EXPECT_EQ(lab::lane_of(lab::Phase::Kernel, lab::Clock::Cpu), Lane::Cpu);
  EXPECT_STREQ(lab::to_string(Lane::Cpu), "cpu");
  EXPECT_EQ(lab::lane_of(lab::Phase::Kernel, lab::Clock::Cuda), Lane::Cuda);
  EXPECT_EQ(lab::lane_of(lab::Phase::Map, lab::Clock::Cpu), Lane::Handoff);  // the hand-off is where it is
  EXPECT_EQ(lab::lane_of(lab::Phase::Draw, lab::Clock::Cpu), Lane::Graphics);
  EXPECT_EQ(lab::lane_of(lab::Phase::Map, lab::Clock::Cuda), Lane::Handoff);
  EXPECT_EQ(lab::lane_of(lab::Phase::Signal, lab::Clock::Cuda), Lane::Handoff);
  EXPECT_EQ(lab::lane_of(lab::Phase::Kernel, lab::Clock::Cuda), Lane::Cuda);
  EXPECT_EQ(lab::lane_of(lab::Phase::Draw, lab::Clock::Cuda), Lane::Graphics);
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

TEST(TimelineTest, AHostDurationWithoutItsStartIsListedNotPlaced) {
  lab::FrameTimers timers;
  timers.begin_frame(3);
  timers.cpu_add(lab::Phase::Kernel, 2.5);
  timers.end_frame();
  const lab::FrameTimeline timeline = lab::last_frame_timeline(timers, 3);
  ASSERT_EQ(timeline.lanes.size(), 1u);  // no placed lane: no gaps to say, no other lane
  EXPECT_EQ(timeline.lanes[0].lane, Lane::Cpu);
  EXPECT_EQ(timeline.lanes[0].clock, "cpu");
  EXPECT_FALSE(timeline.lanes[0].placed);
  EXPECT_NE(timeline.lanes[0].why_not.find("without its start"), std::string::npos)
      << timeline.lanes[0].why_not;
  EXPECT_TRUE(timeline.spans.empty());
}

// ---- build_timeline: FrameTimers' records of a frame onto its axis

using lab::Clock;
using lab::FrameRecords;
using lab::Phase;

FrameRecords::Span span_of(Phase phase, Clock clock, int64_t start_ns, int64_t end_ns, int calibration = -1) {
  return {phase, clock, start_ns, end_ns, calibration, true};
}

const lab::LaneState* lane_in(const lab::FrameTimeline& timeline, Lane lane) {
  for (const lab::LaneState& state : timeline.lanes)
    if (state.lane == lane) return &state;
  return nullptr;
}

std::vector<lab::TimelineSpan> spans_in(const lab::FrameTimeline& timeline, Lane lane) {
  std::vector<lab::TimelineSpan> spans;
  for (const lab::TimelineSpan& span : timeline.spans)
    if (span.lane == lane) spans.push_back(span);
  return spans;
}

TEST(BuildTimelineTest, EachClocksSpansLandInOrderWithTheirCalibrationsOffsets) {
  const int64_t start = 50'000 * kMs;  // host
  FrameRecords records;
  records.frame = 12;
  records.start_host_ns = start;
  records.end_host_ns = start + 16 * kMs;
  // GL's clock read 900 ms when the host's read the frame start + 1 ms; CUDA's reference event ran at the
  // frame start + 2 ms (its spans are ns after it).
  records.calibrations = {{{900 * kMs, start + 1 * kMs, 3'000}}, {{0, start + 2 * kMs, 8'000}}};
  // Recorded in the frame's order, clock by clock (CUDA's, then the graphics API's, then the host's), as
  // FrameTimers gives them; the timeline sorts each lane by start.
  records.spans = {span_of(Phase::Kernel, Clock::Cuda, 1 * kMs, 3 * kMs, 1),
                   span_of(Phase::Draw, Clock::Gl, 899 * kMs, 900 * kMs, 0),
                   span_of(Phase::Draw, Clock::Gl, 905 * kMs, 906 * kMs, 0),
                   span_of(Phase::Map, Clock::Cpu, start + 2 * kMs, start + 2 * kMs + kMs / 2),
                   span_of(Phase::Unmap, Clock::Cuda, 4 * kMs, 5 * kMs, 1)};
  const lab::FrameTimeline timeline = lab::build_timeline(records);
  EXPECT_EQ(timeline.frame, 12);
  EXPECT_EQ(timeline.start_host_ns, start);
  EXPECT_DOUBLE_EQ(timeline.frame_ms, 16.0);
  ASSERT_EQ(timeline.lanes.size(), 4u);  // graphics, hand-off, cuda and the other lane
  EXPECT_EQ(timeline.lanes.back().lane, Lane::Other);

  const std::vector<lab::TimelineSpan> graphics = spans_in(timeline, Lane::Graphics);
  ASSERT_EQ(graphics.size(), 2u);
  EXPECT_DOUBLE_EQ(graphics[0].start_ms, 0.0);  // 899 ms on GL's clock is the host's frame start
  EXPECT_DOUBLE_EQ(graphics[0].end_ms, 1.0);
  EXPECT_DOUBLE_EQ(graphics[1].start_ms, 6.0);
  EXPECT_EQ(graphics[1].name, "draw");
  EXPECT_EQ(lane_in(timeline, Lane::Graphics)->clock, "gl");
  EXPECT_DOUBLE_EQ(lane_in(timeline, Lane::Graphics)->uncertainty_ms, 0.003);

  const std::vector<lab::TimelineSpan> handoff = spans_in(timeline, Lane::Handoff);
  ASSERT_EQ(handoff.size(), 2u);
  EXPECT_EQ(handoff[0].name, "map");
  EXPECT_DOUBLE_EQ(handoff[0].start_ms, 2.0);
  EXPECT_EQ(handoff[1].name, "unmap");
  EXPECT_DOUBLE_EQ(handoff[1].start_ms, 6.0);  // the reference's 2 ms + 4 ms after it
  EXPECT_EQ(lane_in(timeline, Lane::Handoff)->clock, "cpu+cuda");
  EXPECT_TRUE(lane_in(timeline, Lane::Handoff)->placed);
  EXPECT_DOUBLE_EQ(lane_in(timeline, Lane::Handoff)->uncertainty_ms, 0.008);  // the larger of the two

  const std::vector<lab::TimelineSpan> cuda = spans_in(timeline, Lane::Cuda);
  ASSERT_EQ(cuda.size(), 1u);
  EXPECT_DOUBLE_EQ(cuda[0].start_ms, 3.0);
  EXPECT_DOUBLE_EQ(cuda[0].end_ms, 5.0);

  // What no lane covers: 1-2, 2.5-3, 5-6 and 7-16 ms; with the spans, the whole frame.
  const std::vector<lab::TimelineSpan> other = spans_in(timeline, Lane::Other);
  const std::vector<std::pair<double, double>> gaps = {{1.0, 2.0}, {2.5, 3.0}, {5.0, 6.0}, {7.0, 16.0}};
  ASSERT_EQ(other.size(), gaps.size());
  for (size_t i = 0; i < gaps.size(); ++i) {
    EXPECT_EQ(other[i].name, lab::kNotTimedSpan);
    EXPECT_NEAR(other[i].start_ms, gaps[i].first, 1e-6);
    EXPECT_NEAR(other[i].end_ms, gaps[i].second, 1e-6);
  }
  EXPECT_TRUE(lane_in(timeline, Lane::Other)->why_not.empty());  // every lane is on the frame's clock
}

TEST(BuildTimelineTest, TheOtherLaneSaysWhichLanesItsGapsMayHold) {
  FrameRecords records;
  records.frame = 2;
  records.start_host_ns = 10 * kMs;
  records.end_host_ns = 56 * kMs;                          // 46 ms, as Mesa's frames
  records.spans = {span_of(Phase::Draw, Clock::Gl, 5, 9),  // no calibration: not on the frame's clock
                   span_of(Phase::Kernel, Clock::Cpu, 11 * kMs, 21 * kMs)};
  const lab::FrameTimeline timeline = lab::build_timeline(records);
  const std::vector<lab::TimelineSpan> other = spans_in(timeline, Lane::Other);
  ASSERT_EQ(other.size(), 2u);
  EXPECT_DOUBLE_EQ(other[0].start_ms, 0.0);
  EXPECT_DOUBLE_EQ(other[0].end_ms, 1.0);
  EXPECT_DOUBLE_EQ(other[1].start_ms, 11.0);
  EXPECT_DOUBLE_EQ(other[1].end_ms, 46.0);
  EXPECT_NE(lane_in(timeline, Lane::Other)->why_not.find("graphics"), std::string::npos)
      << lane_in(timeline, Lane::Other)->why_not;
}

TEST(BuildTimelineTest, ALaneWhoseClockHasNoCalibrationKeepsItsReasonAndNoSpans) {
  FrameRecords records;
  records.frame = 3;
  records.start_host_ns = 10 * kMs;
  records.end_host_ns = 20 * kMs;
  records.spans = {span_of(Phase::Draw, Clock::Vulkan, 5, 9),
                   span_of(Phase::Kernel, Clock::Cpu, 11 * kMs, 12 * kMs)};
  records.why_uncalibrated[static_cast<size_t>(Clock::Vulkan)] = "the queue was never idle";
  const lab::FrameTimeline timeline = lab::build_timeline(records);
  const lab::LaneState* graphics = lane_in(timeline, Lane::Graphics);
  ASSERT_NE(graphics, nullptr);
  EXPECT_FALSE(graphics->placed);
  EXPECT_EQ(graphics->clock, "vulkan");
  EXPECT_NE(graphics->why_not.find("the queue was never idle"), std::string::npos) << graphics->why_not;
  EXPECT_NE(graphics->why_not.find("1 spans not shown"), std::string::npos) << graphics->why_not;
  EXPECT_TRUE(spans_in(timeline, Lane::Graphics).empty());
  ASSERT_EQ(spans_in(timeline, Lane::Cpu).size(), 1u);  // a host-timed kernel ran on the host
  EXPECT_DOUBLE_EQ(spans_in(timeline, Lane::Cpu)[0].start_ms, 1.0);
}

TEST(BuildTimelineTest, ASpanBeforeTheFrameStartIsNegativeAndOverlappingSpansAreBothKept) {
  FrameRecords records;
  records.frame = 8;
  records.start_host_ns = 100 * kMs;
  records.end_host_ns = 110 * kMs;
  // A registration made between frames (it counts in the next one), and two copies on one lane that
  // overlap (two streams).
  records.spans = {span_of(Phase::Register, Clock::Cpu, 97 * kMs, 98 * kMs),
                   span_of(Phase::CudaCopy, Clock::Cpu, 104 * kMs, 107 * kMs),
                   span_of(Phase::CudaCopy, Clock::Cpu, 102 * kMs, 105 * kMs)};
  const lab::FrameTimeline timeline = lab::build_timeline(records);
  const std::vector<lab::TimelineSpan> handoff = spans_in(timeline, Lane::Handoff);
  ASSERT_EQ(handoff.size(), 1u);
  EXPECT_DOUBLE_EQ(handoff[0].start_ms, -3.0);
  EXPECT_DOUBLE_EQ(handoff[0].end_ms, -2.0);
  const std::vector<lab::TimelineSpan> cuda = spans_in(timeline, Lane::Cpu);  // host-timed: the cpu lane
  ASSERT_EQ(cuda.size(), 2u);
  EXPECT_DOUBLE_EQ(cuda[0].start_ms, 2.0);  // sorted by start
  EXPECT_DOUBLE_EQ(cuda[1].start_ms, 4.0);
  EXPECT_GT(cuda[0].end_ms, cuda[1].start_ms);  // the overlap is kept as measured
  EXPECT_DOUBLE_EQ(timeline.frame_ms, 10.0);
}

TEST(BuildTimelineTest, TheStripGrowsToHoldWorkThatEndedAfterTheNextFrameBegan) {
  FrameRecords records;
  records.start_host_ns = 0;
  records.end_host_ns = 2 * kMs;
  records.calibrations = {{{0, 0, 0}}};
  records.spans = {span_of(Phase::Draw, Clock::Gl, 1 * kMs, 3'500'000, 0)};
  EXPECT_DOUBLE_EQ(lab::build_timeline(records).frame_ms, 3.5);
}

TEST(BuildTimelineTest, SpansOfAPlacedLaneOnAnUncalibratedClockAreSaidDropped) {
  FrameRecords records;
  records.start_host_ns = 0;
  records.end_host_ns = 10 * kMs;
  records.spans = {span_of(Phase::Map, Clock::Cpu, 1 * kMs, 2 * kMs),
                   span_of(Phase::Unmap, Clock::Cuda, 0, kMs)};
  records.why_uncalibrated[static_cast<size_t>(Clock::Cuda)] = "cudaStreamCreate: cudaErrorMemoryAllocation";
  const lab::FrameTimeline timeline = lab::build_timeline(records);
  const lab::LaneState* handoff = lane_in(timeline, Lane::Handoff);
  ASSERT_NE(handoff, nullptr);
  EXPECT_TRUE(handoff->placed);
  EXPECT_NE(handoff->why_not.find("cuda spans not on the frame's clock: cudaStreamCreate"), std::string::npos)
      << handoff->why_not;
  EXPECT_EQ(spans_in(timeline, Lane::Handoff).size(), 1u);
}

TEST(BuildTimelineTest, AHostSpanAddedLaterGetsItsLaneInOrderAndLengthensTheStrip) {
  FrameRecords records;
  records.frame = 4;
  records.start_host_ns = 1'000 * kMs;
  records.end_host_ns = 1'010 * kMs;
  records.spans = {span_of(Phase::Draw, Clock::Cpu, 1'001 * kMs, 1'002 * kMs),
                   span_of(Phase::Kernel, Clock::Cpu, 1'000 * kMs, 1'001 * kMs)};
  lab::FrameTimeline timeline = lab::build_timeline(records);
  lab::add_host_span(timeline, Lane::Desk, "read-back", 1'011 * kMs, 1'012 * kMs);
  lab::add_host_span(timeline, Lane::Handoff, "map", 1'000 * kMs, 1'001 * kMs);
  ASSERT_EQ(timeline.lanes.size(), 5u);
  EXPECT_EQ(timeline.lanes[1].lane, Lane::Handoff);
  EXPECT_EQ(timeline.lanes[2].lane, Lane::Cpu);
  EXPECT_EQ(timeline.lanes[3].lane, Lane::Desk);
  EXPECT_EQ(timeline.lanes[3].clock, "cpu");
  EXPECT_EQ(timeline.lanes[4].lane, Lane::Other);
  EXPECT_DOUBLE_EQ(timeline.frame_ms, 12.0);
  ASSERT_EQ(timeline.spans.size(), 5u);
  EXPECT_EQ(timeline.spans[1].name, "map");  // by lane, then start
  EXPECT_EQ(timeline.spans[3].name, "read-back");
  EXPECT_DOUBLE_EQ(timeline.spans[3].start_ms, 11.0);
  // The other lane follows: the read-back covers 11-12 ms, so what no span covers is 2-11 ms.
  EXPECT_EQ(timeline.spans[4].lane, Lane::Other);
  EXPECT_DOUBLE_EQ(timeline.spans[4].start_ms, 2.0);
  EXPECT_DOUBLE_EQ(timeline.spans[4].end_ms, 11.0);
}

// ---- FrameTimers' records through scripted timer queries on a synthetic GPU clock

// A GPU clock 7 s ahead of the host's: every query's start and end, and every sample, read the host clock
// and add the offset. `refuse`: sample_clock refuses with that reason; `busy`: it returns nullopt unless
// it may wait.
struct GpuClockScript {
  int64_t offset_ns = 7'000 * kMs;
  std::string refuse;
  bool busy = false;
  int samples = 0;
  std::vector<bool> may_wait;
  std::vector<lab::GpuInterval> intervals;  // by query - 1
};

class OffsetClockQueries final : public lab::GpuTimerQueries {
 public:
  explicit OffsetClockQueries(GpuClockScript& script) : m_script(script) {}
  Clock clock() const override { return Clock::Gl; }
  unsigned int create() override {
    m_script.intervals.emplace_back();
    return static_cast<unsigned int>(m_script.intervals.size());
  }
  void begin(unsigned int query) override { m_script.intervals[query - 1].start_ns = now(); }
  void end(unsigned int query) override { m_script.intervals[query - 1].end_ns = now(); }
  bool available(unsigned int) override { return true; }
  double elapsed_ms(unsigned int query) override {
    const lab::GpuInterval& interval = m_script.intervals[query - 1];
    return static_cast<double>(interval.end_ns - interval.start_ns) / 1e6;
  }
  std::vector<lab::GpuInterval> intervals(unsigned int query) override {
    return {m_script.intervals[query - 1]};
  }
  std::optional<lab::ClockSample> sample_clock(bool may_wait, std::string& why_not) override {
    m_script.may_wait.push_back(may_wait);
    if (!m_script.refuse.empty()) {
      why_not = m_script.refuse;
      return std::nullopt;
    }
    if (m_script.busy && !may_wait) return std::nullopt;
    ++m_script.samples;
    const int64_t host = lab::host_clock_ns();
    return lab::ClockSample{host + m_script.offset_ns, host, 0};
  }
  void destroy(const std::vector<unsigned int>&, bool) override {}

 private:
  int64_t now() const { return lab::host_clock_ns() + m_script.offset_ns; }
  GpuClockScript& m_script;
};

// Two draws (the cubes pass, the frame pass) around a host-timed kernel, as a cpu-mode frame has them.
void draw_kernel_draw(lab::FrameTimers& timers, long long frame) {
  timers.begin_frame(0, frame);
  { const lab::GraphicsPhase phase(timers, Phase::Draw); }
  { const lab::CpuPhase phase(timers, Phase::Kernel); }
  { const lab::GraphicsPhase phase(timers, Phase::Draw); }
  timers.end_frame();
}

TEST(FrameTimersTimelineTest, AFramesGraphicsAndHostSpansLieInsideItInTheOrderIssued) {
  GpuClockScript script;
  lab::FrameTimers timers(std::make_unique<OffsetClockQueries>(script));
  draw_kernel_draw(timers, 41);
  draw_kernel_draw(timers, 42);
  const lab::FrameRecords* records = timers.last_frame(0);
  ASSERT_NE(records, nullptr);
  EXPECT_EQ(records->frame, 42);
  const lab::FrameTimeline timeline = lab::last_frame_timeline(timers, 0);
  EXPECT_EQ(timeline.frame, 42);
  ASSERT_NE(lane_in(timeline, Lane::Graphics), nullptr);
  EXPECT_TRUE(lane_in(timeline, Lane::Graphics)->placed);
  const std::vector<lab::TimelineSpan> draws = spans_in(timeline, Lane::Graphics);
  const std::vector<lab::TimelineSpan> kernels = spans_in(timeline, Lane::Cpu);  // cpu mode's, on the host
  EXPECT_TRUE(spans_in(timeline, Lane::Cuda).empty());
  ASSERT_EQ(draws.size(), 2u);
  ASSERT_EQ(kernels.size(), 1u);
  // On the host's axis although measured 7 s off it: inside the frame, and in the order issued.
  constexpr double kTolerance = 0.001;  // ms: the synthetic calibration is exact, this is rounding
  for (const lab::TimelineSpan& span : timeline.spans) {
    EXPECT_GE(span.start_ms, -kTolerance) << span.name;
    EXPECT_LE(span.end_ms, timeline.frame_ms + kTolerance) << span.name;
  }
  EXPECT_LE(draws[0].end_ms, kernels[0].start_ms + kTolerance);
  EXPECT_LE(kernels[0].end_ms, draws[1].start_ms + kTolerance);
  // The stats are the durations as before.
  EXPECT_NEAR(timers.stats(0, Phase::Draw).last_ms,
              (draws[0].end_ms - draws[0].start_ms) + (draws[1].end_ms - draws[1].start_ms), 1e-3);
  // One sample at the first frame: the next comes after kCalibrationIntervalNs.
  EXPECT_EQ(script.samples, 1);
  ASSERT_FALSE(script.may_wait.empty());
  EXPECT_TRUE(script.may_wait.front());  // the first may wait for the GPU
}

TEST(FrameTimersTimelineTest, AClockThatCannotBeReadLeavesTheGraphicsLaneUnplacedWithItsReason) {
  GpuClockScript script;
  script.refuse = "GL_TIMESTAMP has no counter bits";
  lab::FrameTimers timers(std::make_unique<OffsetClockQueries>(script));
  draw_kernel_draw(timers, 1);
  draw_kernel_draw(timers, 2);
  const lab::FrameTimeline timeline = lab::last_frame_timeline(timers, 0);
  const lab::LaneState* graphics = lane_in(timeline, Lane::Graphics);
  ASSERT_NE(graphics, nullptr);
  EXPECT_FALSE(graphics->placed);
  EXPECT_NE(graphics->why_not.find("GL_TIMESTAMP has no counter bits"), std::string::npos)
      << graphics->why_not;
  ASSERT_NE(lane_in(timeline, Lane::Cpu), nullptr);
  EXPECT_TRUE(lane_in(timeline, Lane::Cpu)->placed);  // the host's lane does not depend on it
  // Refused for good: asked again only after kCalibrationIntervalNs, not every frame.
  EXPECT_EQ(script.may_wait.size(), 1u);
}

TEST(FrameTimersTimelineTest, TheFirstSampleMayWaitForABusyGpu) {
  GpuClockScript script;
  script.busy = true;
  lab::FrameTimers timers(std::make_unique<OffsetClockQueries>(script));
  draw_kernel_draw(timers, 1);  // the first sample may wait: taken
  EXPECT_EQ(script.samples, 1);
  EXPECT_TRUE(lane_in(lab::last_frame_timeline(timers, 0), Lane::Graphics)->placed);
}

TEST(FrameTimersTimelineTest, WithTheGraphicsClockOffTheClockIsNeverRead) {
  GpuClockScript script;
  lab::FrameTimers timers(std::make_unique<OffsetClockQueries>(script));
  lab::TimingClocks clocks;
  clocks.graphics = false;
  timers.set_clocks(clocks);
  draw_kernel_draw(timers, 1);
  EXPECT_TRUE(script.may_wait.empty());
  EXPECT_EQ(lane_in(lab::last_frame_timeline(timers, 0), Lane::Graphics), nullptr);
}

// Timer queries as an API without timestamps has them: durations, and GpuTimerQueries' defaults for the rest.
class DurationOnlyQueries final : public lab::GpuTimerQueries {
 public:
  Clock clock() const override { return Clock::Gl; }
  unsigned int create() override { return ++m_created; }
  void begin(unsigned int) override {}
  void end(unsigned int) override {}
  bool available(unsigned int) override { return true; }
  double elapsed_ms(unsigned int) override { return 0.5; }
  void destroy(const std::vector<unsigned int>&, bool) override {}

 private:
  unsigned int m_created = 0;
};

TEST(FrameTimersTimelineTest, TimerQueriesWithoutTimestampsListTheirLaneWithWhyAndKeepTheirDurations) {
  lab::FrameTimers timers(std::make_unique<DurationOnlyQueries>());
  draw_kernel_draw(timers, 1);
  EXPECT_FLOAT_EQ(timers.stats(0, Phase::Draw).last_ms, 1.0f);  // two draws of 0.5 ms, as ever
  const lab::FrameTimeline timeline = lab::last_frame_timeline(timers, 0);
  const lab::LaneState* graphics = lane_in(timeline, Lane::Graphics);
  ASSERT_NE(graphics, nullptr);
  EXPECT_FALSE(graphics->placed);
  EXPECT_NE(graphics->why_not.find("durations only"), std::string::npos) << graphics->why_not;
  EXPECT_NE(graphics->why_not.find("2 spans not shown"), std::string::npos) << graphics->why_not;
  EXPECT_TRUE(spans_in(timeline, Lane::Graphics).empty());
}

TEST(FrameTimersTimelineTest, HostRecordsBetweenFramesArePlacedBeforeTheFrameStarts) {
  lab::FrameTimers timers;
  { const lab::CpuPhase phase(timers, Phase::Register); }  // an attach before the frame
  timers.begin_frame(5, 0);
  timers.end_frame();
  const lab::FrameTimeline timeline = lab::last_frame_timeline(timers, 5);
  const std::vector<lab::TimelineSpan> handoff = spans_in(timeline, Lane::Handoff);
  ASSERT_EQ(handoff.size(), 1u);
  EXPECT_EQ(handoff[0].name, "register");
  EXPECT_LE(handoff[0].end_ms, 0.0);
  EXPECT_LE(handoff[0].start_ms, handoff[0].end_ms);
}

TEST(FrameTimersTimelineTest, AFramesStripEndsWhereTheNextFrameBegins) {
  lab::FrameTimers timers;
  timers.begin_frame(0, 0);
  { const lab::CpuPhase phase(timers, Phase::Kernel); }
  timers.end_frame();
  const double at_end = lab::last_frame_timeline(timers, 0).frame_ms;
  std::this_thread::sleep_for(std::chrono::milliseconds(2));  // the present, the wait for the next frame
  timers.begin_frame(0, 1);
  const lab::FrameTimeline timeline = lab::last_frame_timeline(timers, 0);
  EXPECT_EQ(timeline.frame, 0);
  EXPECT_GE(timeline.frame_ms, at_end + 2.0);
  timers.end_frame();
}

TEST(FrameTimersTimelineTest, ClearForgetsTheLastFrame) {
  lab::FrameTimers timers;
  draw_kernel_draw(timers, 1);
  ASSERT_NE(timers.last_frame(0), nullptr);
  timers.clear();
  EXPECT_EQ(timers.last_frame(0), nullptr);
}

}  // namespace
