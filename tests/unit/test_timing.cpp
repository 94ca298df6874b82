// tests/unit/test_timing.cpp — frame timing: window statistics, per-frame sums, tags, clear() and the
// ring of frames in flight, through the CPU-only paths and graphics phases timed by scripted timer
// queries (a graphics API's are GpuTimerQueries; GL's and Vulkan's are tested with their APIs). No GL
// context; CUDA only where a device happens to exist.
// The window's median and p90 are app/timing/statistics.hpp's, as the benchmark's: linear interpolation
// between the two closest ranks (numpy's default), so an even count's median is the mean of the two
// middle samples.
#include "app/timing/frame_pacer.hpp"
#include "app/timing/step_laps.hpp"
#include "app/timing/timing.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

using lab::FrameTimers;
using lab::Phase;
using lab::PhaseStats;
using lab::PhaseWindow;

constexpr int kWindow = PhaseWindow::kWindow;

PhaseWindow window_of(const std::vector<float>& samples) {
  PhaseWindow window;
  for (float sample : samples) window.push(sample);
  return window;
}

// One frame of `tag` whose only host-side record is `ms` of `phase`.
void cpu_frame(FrameTimers& timers, int tag, Phase phase, double ms) {
  timers.begin_frame(tag);
  timers.cpu_add(phase, ms);
  timers.end_frame();
}

TEST(PhaseWindowTest, EmptyWindowIsAllZero) {
  const PhaseWindow window;
  const PhaseStats& stats = window.stats();
  EXPECT_EQ(stats.samples, 0);
  EXPECT_EQ(stats.last_ms, 0.0f);
  EXPECT_EQ(stats.average_ms, 0.0f);
  EXPECT_EQ(stats.median_ms, 0.0f);
  EXPECT_EQ(stats.p90_ms, 0.0f);
  EXPECT_TRUE(stats.history.empty());
}

TEST(PhaseWindowTest, OneSampleIsEveryStatistic) {
  const PhaseStats stats = window_of({2.5f}).stats();
  EXPECT_EQ(stats.samples, 1);
  EXPECT_FLOAT_EQ(stats.last_ms, 2.5f);
  EXPECT_FLOAT_EQ(stats.average_ms, 2.5f);
  EXPECT_FLOAT_EQ(stats.median_ms, 2.5f);
  EXPECT_FLOAT_EQ(stats.p90_ms, 2.5f);
}

TEST(PhaseWindowTest, OddCountTakesTheMiddleSample) {
  const PhaseStats stats = window_of({3.0f, 1.0f, 8.0f}).stats();
  EXPECT_FLOAT_EQ(stats.last_ms, 8.0f);
  EXPECT_FLOAT_EQ(stats.average_ms, 4.0f);
  EXPECT_FLOAT_EQ(stats.median_ms, 3.0f);
  EXPECT_FLOAT_EQ(stats.p90_ms, 7.0f);  // position 0.9 * 2 = 1.8: 3 + 0.8 * (8 - 3)
}

TEST(PhaseWindowTest, EvenCountAveragesTheTwoMiddleSamples) {
  // 1..10 pushed out of order: the statistics must not depend on arrival order, the history must.
  const std::vector<float> samples{7, 2, 10, 4, 1, 9, 3, 6, 8, 5};
  const PhaseStats stats = window_of(samples).stats();
  EXPECT_EQ(stats.samples, 10);
  EXPECT_FLOAT_EQ(stats.last_ms, 5.0f);
  EXPECT_FLOAT_EQ(stats.average_ms, 5.5f);
  EXPECT_FLOAT_EQ(stats.median_ms, 5.5f);
  EXPECT_FLOAT_EQ(stats.p90_ms, 9.1f);  // position 0.9 * 9 = 8.1, between the 9th and 10th
  EXPECT_EQ(stats.history, samples);
}

TEST(PhaseWindowTest, P90InterpolatesBetweenTheClosestRanksOfAHundred) {
  std::vector<float> samples(100);
  std::iota(samples.begin(), samples.end(), 1.0f);
  const PhaseStats stats = window_of(samples).stats();
  EXPECT_FLOAT_EQ(stats.p90_ms, 90.1f);  // position 0.9 * 99 = 89.1: 90 + 0.1
  EXPECT_FLOAT_EQ(stats.median_ms, 50.5f);
  EXPECT_FLOAT_EQ(stats.average_ms, 50.5f);
}

TEST(PhaseWindowTest, OneOutlierMovesTheMeanNotTheMedian) {
  std::vector<float> samples(19, 1.0f);
  samples.push_back(41.0f);
  const PhaseStats stats = window_of(samples).stats();
  EXPECT_FLOAT_EQ(stats.average_ms, 3.0f);
  EXPECT_FLOAT_EQ(stats.median_ms, 1.0f);
  EXPECT_FLOAT_EQ(stats.p90_ms, 1.0f);  // the outlier is above the 90th percentile of 20
}

TEST(PhaseWindowTest, OldestSamplesLeaveAfterAFullWindow) {
  PhaseWindow window;
  const int extra = 30;
  for (int i = 1; i <= kWindow + extra; ++i) window.push(static_cast<float>(i));
  const PhaseStats& stats = window.stats();
  ASSERT_EQ(stats.samples, kWindow);
  ASSERT_EQ(stats.history.size(), static_cast<size_t>(kWindow));
  EXPECT_FLOAT_EQ(stats.history.front(), static_cast<float>(extra + 1));
  EXPECT_FLOAT_EQ(stats.history.back(), static_cast<float>(kWindow + extra));
  EXPECT_FLOAT_EQ(stats.last_ms, static_cast<float>(kWindow + extra));
  // 31..150: mean and median 90.5; p90 at position 0.9 * 119 = 107.1, between 138 and 139.
  EXPECT_FLOAT_EQ(stats.average_ms, 90.5f);
  EXPECT_FLOAT_EQ(stats.median_ms, 90.5f);
  EXPECT_FLOAT_EQ(stats.p90_ms, 138.1f);
}

TEST(PhaseWindowTest, ClearEmptiesTheWindow) {
  PhaseWindow window = window_of({1.0f, 2.0f});
  window.clear();
  EXPECT_EQ(window.stats().samples, 0);
  EXPECT_TRUE(window.stats().history.empty());
  window.push(4.0f);
  EXPECT_FLOAT_EQ(window.stats().average_ms, 4.0f);
}

TEST(PhaseTest, EveryPhaseHasItsOwnName) {
  const std::vector<std::string> expected{
      "register",          "map",       "wait",    "kernel",      "signal",    "unmap",
      "unregister",        "cuda copy", "gl copy", "vulkan copy", "host copy", "draw",
      "other (not timed)", "frame"};
  std::vector<std::string> names;
  for (Phase phase : lab::all_phases()) names.push_back(lab::to_string(phase));
  EXPECT_EQ(names, expected);
  EXPECT_EQ(static_cast<int>(lab::all_phases().back()), lab::kPhaseCount - 1);
  EXPECT_STREQ(lab::to_string(lab::Clock::Cuda), "cuda");
  EXPECT_STREQ(lab::to_string(lab::Clock::Gl), "gl");
  EXPECT_STREQ(lab::to_string(lab::Clock::Vulkan), "vulkan");
  EXPECT_STREQ(lab::to_string(lab::Clock::Cpu), "cpu");
}

TEST(FrameTimersTest, NothingRecordedGivesZeroStats) {
  const FrameTimers timers;
  EXPECT_FALSE(timers.has(0, Phase::Kernel));
  EXPECT_EQ(timers.stats(0, Phase::Kernel).samples, 0);
  EXPECT_EQ(timers.stats(0, Phase::Kernel).last_ms, 0.0f);
  EXPECT_EQ(timers.cuda_timing_off_reason(), "");
}

TEST(FrameTimersTest, CpuFrameShowsUpAtEndFrame) {
  FrameTimers timers;
  cpu_frame(timers, 1, Phase::Kernel, 3.0);
  // CPU-only frames have nothing to wait for: no flush() needed.
  EXPECT_TRUE(timers.has(1, Phase::Kernel));
  EXPECT_FLOAT_EQ(timers.stats(1, Phase::Kernel).last_ms, 3.0f);
  EXPECT_EQ(timers.stats(1, Phase::Kernel).clock, lab::Clock::Cpu);
  EXPECT_FALSE(timers.has(1, Phase::Draw));  // never recorded: no zero samples
}

TEST(FrameTimersTest, TwoRecordsOfAPhaseInAFrameAddUp) {
  FrameTimers timers;
  timers.begin_frame(0);
  timers.cpu_add(Phase::GlCopy, 1.25);
  timers.cpu_add(Phase::Kernel, 4.0);
  timers.cpu_add(Phase::GlCopy, 2.0);
  timers.end_frame();
  const PhaseStats& copy = timers.stats(0, Phase::GlCopy);
  EXPECT_EQ(copy.samples, 1);  // one sample per frame, of the sum
  EXPECT_FLOAT_EQ(copy.last_ms, 3.25f);
  EXPECT_FLOAT_EQ(timers.stats(0, Phase::Kernel).last_ms, 4.0f);
}

TEST(FrameTimersTest, TagsAreKeptApart) {
  FrameTimers timers;
  cpu_frame(timers, 1, Phase::Kernel, 4.0);
  cpu_frame(timers, 2, Phase::Kernel, 8.0);
  cpu_frame(timers, 1, Phase::Kernel, 6.0);
  EXPECT_EQ(timers.stats(1, Phase::Kernel).samples, 2);
  EXPECT_FLOAT_EQ(timers.stats(1, Phase::Kernel).average_ms, 5.0f);
  EXPECT_EQ(timers.stats(2, Phase::Kernel).samples, 1);
  EXPECT_FLOAT_EQ(timers.stats(2, Phase::Kernel).last_ms, 8.0f);
  EXPECT_FALSE(timers.has(3, Phase::Kernel));
}

TEST(FrameTimersTest, FrameTimeIsWhatTheCallerRecords) {
  FrameTimers timers;
  cpu_frame(timers, 5, Phase::Kernel, 1.0);
  EXPECT_FALSE(timers.has(5, Phase::Frame));  // the timers measure no frame time of their own
  // The App's way: the previous frame's start-to-start time, just before begin_frame.
  timers.cpu_add(Phase::Frame, 16.5);
  timers.begin_frame(5);
  timers.end_frame();
  ASSERT_TRUE(timers.has(5, Phase::Frame));
  EXPECT_FLOAT_EQ(timers.stats(5, Phase::Frame).last_ms, 16.5f);
}

TEST(FrameTimersTest, CpuPhaseTimesItsScope) {
  FrameTimers timers;
  timers.begin_frame(0);
  {
    const lab::CpuPhase phase(timers, Phase::Register);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  timers.end_frame();
  ASSERT_TRUE(timers.has(0, Phase::Register));
  EXPECT_GE(timers.stats(0, Phase::Register).last_ms, 1.0f);
  EXPECT_LT(timers.stats(0, Phase::Register).last_ms, 10000.0f);
}

TEST(FrameTimersTest, HostRecordsBetweenFramesCountInTheNextFrame) {
  FrameTimers timers;
  timers.cpu_add(Phase::Register, 1.0);  // e.g. the first attach, before the first frame
  cpu_frame(timers, 0, Phase::Kernel, 2.0);
  timers.cpu_add(Phase::Unregister, 0.5);  // a switch between frames: credited to the new tag
  timers.cpu_add(Phase::Unregister, 0.25);
  cpu_frame(timers, 7, Phase::Register, 3.0);
  EXPECT_FLOAT_EQ(timers.stats(0, Phase::Register).last_ms, 1.0f);
  EXPECT_TRUE(timers.has(0, Phase::Kernel));
  EXPECT_FALSE(timers.has(0, Phase::Unregister));
  EXPECT_FLOAT_EQ(timers.stats(7, Phase::Unregister).last_ms, 0.75f);
  EXPECT_EQ(timers.stats(7, Phase::Unregister).samples, 1);
  EXPECT_FLOAT_EQ(timers.stats(7, Phase::Register).last_ms, 3.0f);
  cpu_frame(timers, 7, Phase::Kernel, 1.0);
  EXPECT_EQ(timers.stats(7, Phase::Unregister).samples, 1);  // carried once, not into every frame
}

TEST(FrameTimersTest, GpuRecordsOutsideAFrameAreDropped) {
  // They need a frame's slot; dropping them touches neither CUDA nor GL.
  FrameTimers timers;
  { const lab::CudaPhase phase(timers, Phase::Map, nullptr); }
  cpu_frame(timers, 0, Phase::Kernel, 1.0);
  EXPECT_FALSE(timers.has(0, Phase::Map));
  EXPECT_EQ(timers.cuda_timing_off_reason(), "");  // CUDA was never tried
}

TEST(FrameTimersTest, ManyMoreFramesThanSlotsKeepEverySampleInOrder) {
  FrameTimers timers;
  const int frames = 5 * FrameTimers::kSlots + 1;
  for (int i = 0; i < frames; ++i) cpu_frame(timers, 0, Phase::Map, i);
  timers.flush();
  const PhaseStats& stats = timers.stats(0, Phase::Map);
  ASSERT_EQ(stats.samples, frames);
  for (int i = 0; i < frames; ++i) EXPECT_FLOAT_EQ(stats.history[static_cast<size_t>(i)], i);
}

TEST(FrameTimersTest, FrameBegunAndNeverEndedIsDropped) {
  FrameTimers timers;
  timers.begin_frame(0);
  timers.cpu_add(Phase::Kernel, 100.0);  // as if the frame threw here
  cpu_frame(timers, 0, Phase::Kernel, 1.0);
  EXPECT_EQ(timers.stats(0, Phase::Kernel).samples, 1);
  EXPECT_FLOAT_EQ(timers.stats(0, Phase::Kernel).last_ms, 1.0f);
}

TEST(FrameTimersTest, ClearForgetsEveryTag) {
  FrameTimers timers;
  cpu_frame(timers, 1, Phase::Kernel, 4.0);
  cpu_frame(timers, 2, Phase::Draw, 2.0);
  timers.clear();
  EXPECT_FALSE(timers.has(1, Phase::Kernel));
  EXPECT_FALSE(timers.has(2, Phase::Draw));
  cpu_frame(timers, 1, Phase::Kernel, 6.0);
  EXPECT_EQ(timers.stats(1, Phase::Kernel).samples, 1);
  EXPECT_FLOAT_EQ(timers.stats(1, Phase::Kernel).average_ms, 6.0f);
}

TEST(FrameTimersTest, ClearKeepsTheFrameBeingRecorded) {
  // A scene switch clears mid-frame; the registration of the new scene happens in that very frame.
  FrameTimers timers;
  cpu_frame(timers, 1, Phase::Kernel, 4.0);
  timers.begin_frame(1);
  timers.clear();
  timers.cpu_add(Phase::Register, 3.0);
  timers.end_frame();
  EXPECT_FALSE(timers.has(1, Phase::Kernel));
  EXPECT_FLOAT_EQ(timers.stats(1, Phase::Register).last_ms, 3.0f);
}

TEST(FrameTimersTest, ClearKeepsRecordsForTheComingFrame) {
  // The App's order: the old scene's unregistration, clear() for the switch, then the next frame.
  FrameTimers timers;
  cpu_frame(timers, 1, Phase::Kernel, 4.0);
  timers.cpu_add(Phase::Unregister, 2.0);
  timers.clear();
  cpu_frame(timers, 1, Phase::Kernel, 5.0);
  EXPECT_FLOAT_EQ(timers.stats(1, Phase::Unregister).last_ms, 2.0f);
  EXPECT_EQ(timers.stats(1, Phase::Kernel).samples, 1);
}

TEST(FrameTimersTest, FlushWithNothingPendingReturns) {
  FrameTimers timers;
  timers.flush();
  cpu_frame(timers, 0, Phase::Draw, 1.0);
  timers.flush();
  timers.flush();
  EXPECT_EQ(timers.stats(0, Phase::Draw).samples, 1);
}

TEST(FrameTimersTest, CudaPhasesAreTimedWithADeviceAndNoOpsWithout) {
  // The same test on both kinds of machine: with no CUDA device (the unit tests' usual home) the
  // phase is a no-op that says why; with one, it is timed on the device's clock.
  FrameTimers timers;
  timers.begin_frame(0);
  { const lab::CudaPhase phase(timers, Phase::Kernel, nullptr); }
  timers.cpu_add(Phase::Register, 1.0);
  timers.end_frame();
  timers.flush();
  if (!timers.cuda_timing_off_reason().empty()) {
    // "cudaEventCreate: cudaErrorInsufficientDriver" with no driver, cudaErrorNoDevice with no GPU.
    EXPECT_EQ(timers.cuda_timing_off_reason().rfind("cudaEventCreate: cudaError", 0), 0u)
        << timers.cuda_timing_off_reason();
    EXPECT_FALSE(timers.has(0, Phase::Kernel));
  } else {
    ASSERT_TRUE(timers.has(0, Phase::Kernel));
    EXPECT_EQ(timers.stats(0, Phase::Kernel).clock, lab::Clock::Cuda);
    EXPECT_GE(timers.stats(0, Phase::Kernel).last_ms, 0.0f);
  }
  EXPECT_TRUE(timers.has(0, Phase::Register));  // CPU timing does not depend on CUDA's
}

// Timer queries whose results the test decides: each query's time is what `next_ms` held at its end,
// and it is available once `available_through` reaches its creation order.
struct ScriptedQueries {
  double next_ms = 0.0;
  unsigned int available_through = 0;
  std::map<unsigned int, double> measured;
  std::vector<unsigned int> destroyed;
  unsigned int created = 0;
  int open = 0;  // begun and not ended
};

class ScriptedTimerQueries final : public lab::GpuTimerQueries {
 public:
  explicit ScriptedTimerQueries(ScriptedQueries& script) : m_script(script) {}
  lab::Clock clock() const override { return lab::Clock::Vulkan; }
  unsigned int create() override { return ++m_script.created; }
  void begin(unsigned int) override { ++m_script.open; }
  void end(unsigned int query) override {
    --m_script.open;
    m_script.measured[query] = m_script.next_ms;
  }
  bool available(unsigned int query) override { return query <= m_script.available_through; }
  double elapsed_ms(unsigned int query) override { return m_script.measured.at(query); }
  void destroy(const std::vector<unsigned int>& queries, bool open) override {
    m_script.destroyed = queries;
    if (open) --m_script.open;
  }

 private:
  ScriptedQueries& m_script;
};

TEST(FrameTimersTest, GraphicsPhasesAreSummedPerFrameOnTheirApisClock) {
  ScriptedQueries script;
  script.available_through = 100;
  FrameTimers timers(std::make_unique<ScriptedTimerQueries>(script));
  timers.begin_frame(3);
  script.next_ms = 0.25;
  { const lab::GraphicsPhase phase(timers, Phase::Draw); }
  script.next_ms = 0.5;
  { const lab::GraphicsPhase phase(timers, Phase::Draw); }
  timers.end_frame();
  ASSERT_TRUE(timers.has(3, Phase::Draw));
  EXPECT_FLOAT_EQ(timers.stats(3, Phase::Draw).last_ms, 0.75f);
  EXPECT_EQ(timers.stats(3, Phase::Draw).clock, lab::Clock::Vulkan);
  EXPECT_EQ(script.created, 2u);
  EXPECT_EQ(script.open, 0);
}

TEST(FrameTimersTest, AFrameWaitsForItsGraphicsQueriesAndLaterFramesWaitBehindIt) {
  ScriptedQueries script;
  FrameTimers timers(std::make_unique<ScriptedTimerQueries>(script));
  for (int frame = 0; frame < 2; ++frame) {
    timers.begin_frame(0);
    script.next_ms = 1.0 + frame;
    { const lab::GraphicsPhase phase(timers, Phase::Draw); }
    timers.cpu_add(Phase::Frame, 10.0);
    timers.end_frame();
  }
  // Neither query is done: nothing is collected, not even the host-timed frame (histories stay in order).
  EXPECT_FALSE(timers.has(0, Phase::Draw));
  EXPECT_FALSE(timers.has(0, Phase::Frame));
  script.available_through = 1;  // the first frame's query
  timers.begin_frame(0);
  timers.end_frame();
  EXPECT_EQ(timers.stats(0, Phase::Draw).samples, 1);
  EXPECT_FLOAT_EQ(timers.stats(0, Phase::Draw).last_ms, 1.0f);
  timers.flush();  // reads the second one whether available or not
  EXPECT_EQ(timers.stats(0, Phase::Draw).samples, 2);
  EXPECT_FLOAT_EQ(timers.stats(0, Phase::Draw).last_ms, 2.0f);
}

TEST(FrameTimersTest, QueriesAreReusedOnceReadAndDestroyedWithTheTimers) {
  ScriptedQueries script;
  script.available_through = 1000;
  {
    FrameTimers timers(std::make_unique<ScriptedTimerQueries>(script));
    for (int frame = 0; frame < 3 * FrameTimers::kSlots; ++frame) {
      timers.begin_frame(0);
      { const lab::GraphicsPhase phase(timers, Phase::Draw); }
      timers.end_frame();
    }
    EXPECT_EQ(timers.stats(0, Phase::Draw).samples, 3 * FrameTimers::kSlots);
  }
  // One query per slot, reused frame after frame, and all of them deleted at the end.
  EXPECT_EQ(script.created, static_cast<unsigned int>(FrameTimers::kSlots));
  EXPECT_EQ(script.destroyed.size(), static_cast<size_t>(FrameTimers::kSlots));
}

TEST(FrameTimersTest, GraphicsPhasesAreNotTimedWithTheirClockOffOrWithoutQueries) {
  ScriptedQueries script;
  script.available_through = 100;
  FrameTimers timers(std::make_unique<ScriptedTimerQueries>(script));
  lab::TimingClocks clocks;
  clocks.graphics = false;
  timers.set_clocks(clocks);
  timers.begin_frame(0);
  { const lab::GraphicsPhase phase(timers, Phase::Draw); }
  timers.end_frame();
  EXPECT_FALSE(timers.has(0, Phase::Draw));
  EXPECT_EQ(script.created, 0u);

  FrameTimers without_queries;
  without_queries.begin_frame(0);
  { const lab::GraphicsPhase phase(without_queries, Phase::Draw); }
  without_queries.cpu_add(Phase::Frame, 1.0);
  without_queries.end_frame();
  EXPECT_FALSE(without_queries.has(0, Phase::Draw));
  EXPECT_TRUE(without_queries.has(0, Phase::Frame));
}

TEST(FrameTimersTest, AFrameThatThrowsWithAGraphicsPhaseOpenEndsItsQuery) {
  ScriptedQueries script;
  script.available_through = 100;
  FrameTimers timers(std::make_unique<ScriptedTimerQueries>(script));
  timers.begin_frame(0);
  timers.graphics_begin(Phase::Draw);  // and the frame never ends it (it threw)
  EXPECT_EQ(script.open, 1);
  timers.begin_frame(0);  // drops the frame, ending the query so the next one can begin
  EXPECT_EQ(script.open, 0);
  { const lab::GraphicsPhase phase(timers, Phase::Draw); }
  timers.end_frame();
  EXPECT_EQ(timers.stats(0, Phase::Draw).samples, 1);
}

// ---- What no timer saw, and what a timer did not see

// Frames as Mesa's GL shows them: a 46 ms frame (start to start, recorded before the next begin_frame as the
// App does) of which the timers see some 10 ms; `draws` scripted GL timer readings.
void mesa_like_frame(FrameTimers& timers, ScriptedQueries& script, double frame_ms, double kernel_ms,
                     double draw_ms) {
  timers.cpu_add(Phase::Frame, frame_ms);
  timers.begin_frame(0);
  script.next_ms = draw_ms;
  { const lab::GraphicsPhase phase(timers, Phase::Draw); }
  timers.cpu_add(Phase::Kernel, kernel_ms);
  script.next_ms = 0.0;  // the copy the timer missed
  { const lab::GraphicsPhase phase(timers, Phase::GlCopy); }
  timers.end_frame();
}

// The table's rows as the panel lists them (every phase but the frame), summed over `column`.
template <class Column>
double rows_sum(const FrameTimers& timers, int tag, Column column) {
  double sum = 0;
  for (const Phase phase : lab::all_phases())
    if (phase != Phase::Frame && timers.has(tag, phase)) sum += column(timers.stats(tag, phase));
  return sum;
}

TEST(FrameTimersTest, OtherIsTheFrameLessItsPhasesSoTheRowsAddUpToTheFrame) {
  ScriptedQueries script;
  script.available_through = 1000;
  FrameTimers timers(std::make_unique<ScriptedTimerQueries>(script));
  const double frames[] = {46.0, 44.5, 47.25, 45.0, 52.0, 41.0};
  for (size_t i = 0; i < std::size(frames); ++i)
    mesa_like_frame(timers, script, frames[i], 9.5 + 0.1 * static_cast<double>(i), 0.4);
  ASSERT_TRUE(timers.has(0, Phase::Other));
  EXPECT_STREQ(lab::to_string(Phase::Other), "other (not timed)");
  const PhaseStats& frame = timers.stats(0, Phase::Frame);
  const PhaseStats& other = timers.stats(0, Phase::Other);
  EXPECT_EQ(other.samples, frame.samples);
  EXPECT_NEAR(other.last_ms, 41.0 - 10.0 - 0.4, 1e-3);
  // The acceptance: the rows add up to the frame within 5 %, in the last frame and on average.
  const double last = rows_sum(timers, 0, [](const PhaseStats& stats) { return stats.last_ms; });
  const double average = rows_sum(timers, 0, [](const PhaseStats& stats) { return stats.average_ms; });
  EXPECT_NEAR(last, frame.last_ms, 0.05 * frame.last_ms);
  EXPECT_NEAR(average, frame.average_ms, 0.05 * frame.average_ms);
  // Without the other row, the phases alone are about a quarter of the frame.
  EXPECT_LT(last - other.last_ms, 0.3 * frame.last_ms);
}

TEST(FrameTimersTest, OtherNeedsAFrameTimeAndIsNegativeByTheOverlapOfPhases) {
  FrameTimers timers;
  cpu_frame(timers, 0, Phase::Kernel, 3.0);  // no frame time (the first frame): nothing to take from
  EXPECT_FALSE(timers.has(0, Phase::Other));
  // Phases that overlap (a GPU's work beside the host's) add up to more than the frame: the rows still
  // add up, Other saying by how much they overlapped.
  timers.cpu_add(Phase::Frame, 2.0);
  cpu_frame(timers, 0, Phase::Kernel, 3.0);
  ASSERT_TRUE(timers.has(0, Phase::Other));
  EXPECT_FLOAT_EQ(timers.stats(0, Phase::Other).last_ms, -1.0f);
}

TEST(FrameTimersTest, AGpuTimerThatSawNoWorkIsNotMeasuredRatherThanZero) {
  ScriptedQueries script;
  script.available_through = 1000;
  FrameTimers timers(std::make_unique<ScriptedTimerQueries>(script));
  for (int i = 0; i < 5; ++i) mesa_like_frame(timers, script, 46.0, 9.5, 0.001);
  // llvmpipe's readings: draw 0.001, gl copy 0.000.
  const PhaseStats& copy = timers.stats(0, Phase::GlCopy);
  const PhaseStats& draw = timers.stats(0, Phase::Draw);
  EXPECT_FALSE(copy.measured);
  EXPECT_FALSE(draw.measured);
  EXPECT_EQ(lab::phase_ms_text(copy, copy.last_ms), lab::kNotMeasuredHere);
  EXPECT_EQ(lab::phase_ms_text(draw, draw.average_ms), "not measured here");
  // Host time is measured whatever it reads, and so is a GPU timer that saw work.
  EXPECT_TRUE(timers.stats(0, Phase::Kernel).measured);
  EXPECT_TRUE(timers.stats(0, Phase::Other).measured);
  for (int i = 0; i < 10; ++i) mesa_like_frame(timers, script, 46.0, 9.5, 0.4);
  EXPECT_TRUE(timers.stats(0, Phase::Draw).measured);
  EXPECT_EQ(lab::phase_ms_text(timers.stats(0, Phase::Draw), 0.4f), "0.400");
  // A CUDA event pair reads what it reads: short kernels are real.
  PhaseWindow cuda;
  cuda.push(0.0005f, lab::Clock::Cuda);
  EXPECT_TRUE(cuda.stats().measured);
  PhaseWindow gl;
  gl.push(0.0005f, lab::Clock::Gl);
  EXPECT_FALSE(gl.stats().measured);
}

TEST(FrameTimersTest, AGpuReadingLongerThanTheFrameCouldHaveRunIsNoSample) {
  ScriptedQueries script;
  script.available_through = 1000;
  FrameTimers timers(std::make_unique<ScriptedTimerQueries>(script));
  mesa_like_frame(timers, script, 46.0, 9.5, 5.6e9);  // llvmpipe's first query: 5.6e6 s
  EXPECT_FALSE(timers.has(0, Phase::Draw));
  EXPECT_NEAR(timers.stats(0, Phase::Other).last_ms, 46.0 - 9.5, 1e-3);  // the draw's time is not known
  mesa_like_frame(timers, script, 46.0, 9.5, 0.4);
  EXPECT_EQ(timers.stats(0, Phase::Draw).samples, 1);
  EXPECT_FLOAT_EQ(timers.stats(0, Phase::Draw).last_ms, 0.4f);
}

// The frame-rate cap (app/timing/frame_pacer.hpp): a deadline a period on from the later of when the frame
// was due and when it started; none without a cap; a new cap starts the next frame at once.
TEST(FramePacerTest, TheNextDeadlineIsAPeriodOnFromTheLaterOfDueAndStarted) {
  using Clock = lab::FramePacer::Clock;
  const Clock::time_point due = Clock::time_point() + std::chrono::seconds(100);
  const auto later = due + std::chrono::milliseconds(30);
  const auto period = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / 50));
  EXPECT_EQ(lab::FramePacer::next_deadline(due, due - std::chrono::milliseconds(5), 50), due + period)
      << "a frame that started early (the sleep woke first) keeps the beat";
  EXPECT_EQ(lab::FramePacer::next_deadline(due, later, 50), later + period)
      << "a slow frame: the next one is a period after it, not sooner to catch up";
}

TEST(FramePacerTest, WithoutACapWaitLeavesTheDeadlineAlone) {
  lab::FramePacer pacer;
  EXPECT_EQ(pacer.fps(), 0.0);
  const auto before = pacer.deadline();
  for (int i = 0; i < 3; ++i) pacer.wait();
  EXPECT_EQ(pacer.deadline(), before);
}

TEST(FramePacerTest, ACapSetsADeadlineOnePeriodAfterEachWait) {
  using Clock = lab::FramePacer::Clock;
  lab::FramePacer pacer(1000.0);
  const auto period = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1e-3));
  const Clock::time_point started = Clock::now();
  pacer.set_fps(1000.0);  // the next frame at once
  EXPECT_LE(pacer.deadline(), Clock::now());
  EXPECT_GE(pacer.deadline(), started);
  pacer.wait();
  const Clock::time_point first = pacer.deadline();
  EXPECT_GE(first, started + period);
  EXPECT_LE(first, Clock::now() + period);
  pacer.wait();  // sleeps until `first`
  EXPECT_GE(Clock::now(), first);
  EXPECT_GE(pacer.deadline(), first + period);
  pacer.set_fps(0.0);
  EXPECT_EQ(pacer.fps(), 0.0);
  EXPECT_LE(pacer.deadline(), Clock::now()) << "a changed cap starts the next frame at once";
}

// Host-clock steps of a short piece of work (app/timing/step_laps.hpp): off, nothing is kept; on, each step
// that ran since the last take(), in the steps' order, its time the clock's between its lap and the one
// before.
TEST(StepLapsTest, OffItKeepsNothing) {
  lab::StepLaps laps({"map", "unmap"});
  EXPECT_FALSE(laps.enabled());
  laps.start();
  laps.lap(0);
  laps.lap(1);
  EXPECT_TRUE(laps.take().empty());
}

TEST(StepLapsTest, OnItSumsEachStepInTheStepsOrder) {
  lab::StepLaps laps({"wait", "map", "unmap"});
  laps.set_enabled(true);
  const auto started = std::chrono::steady_clock::now();
  laps.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  laps.lap(2);  // unmap: 2 ms at least
  laps.lap(1);  // map
  laps.start();
  laps.lap(1);  // map again: summed with the first
  const double elapsed_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  const std::vector<lab::StepTime> steps = laps.take();
  ASSERT_EQ(steps.size(), 2u) << "wait never ran";
  EXPECT_EQ(steps[0].name, "map");
  EXPECT_EQ(steps[1].name, "unmap");
  EXPECT_GE(steps[1].ms, 2.0);
  EXPECT_GE(steps[0].ms, 0.0);
  EXPECT_LE(steps[0].ms + steps[1].ms, elapsed_ms);
  EXPECT_TRUE(laps.take().empty()) << "take() starts the next frame's steps from nothing";
  laps.set_enabled(false);
  laps.start();
  laps.lap(0);
  EXPECT_TRUE(laps.take().empty());
}

}  // namespace
