// app/timing/timeline.hpp — one frame on one time axis, the Gantt strip of the panel and the desk's page:
// spans of the graphics API's work, the hand-off between it and CUDA (map/unmap, semaphore wait/signal),
// the CUDA kernels and copies, and the desk's read-back and encode, one lane each, in milliseconds from the
// frame's start on the host clock.
//
// Each lane is measured on its own clock (GL_TIMESTAMP ticks, Vulkan timestamps, CUDA events, the host's
// steady_clock). A ClockCalibration brings a clock onto the host's from samples read at the same moment on
// both (glGetInteger64v(GL_TIMESTAMP) beside steady_clock::now(), VK_EXT_calibrated_timestamps' pairs, a
// CUDA event synchronised on); a lane whose clock has none is kept with the reason and without spans, rather
// than placed by a guess. No GPU and no graphics API here: the unit tests feed synthetic clocks.
#pragma once

#include "app/timing/timing.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lab {

// The strip's rows, top to bottom, named by what ran in them: the CUDA kernels and copies in "cuda", the
// host's reference kernels (cpu mode) in "cpu". Other holds the frame's stretches that no span of a placed
// lane covers (Phase::Other's time, where it lies).
enum class Lane { Graphics, Handoff, Cuda, Cpu, Desk, Other };
constexpr int kLaneCount = 6;
const char* to_string(Lane lane);  // "graphics", "hand-off", "cuda", "cpu", "desk", "other"
const std::vector<Lane>& all_lanes();
// The lane a frame phase measured on `clock` is drawn in: a kernel or copy timed on the host ran there (the
// cpu lane), on a CUDA stream otherwise; nullopt for Phase::Frame (the strip's length itself) and for
// Phase::Other (worked out, never recorded).
std::optional<Lane> lane_of(Phase phase, Clock clock);

// One piece of work, in milliseconds from the frame's start (negative: before it, e.g. a read-back of the
// frame before that was collected late).
struct TimelineSpan {
  Lane lane = Lane::Graphics;
  std::string name;  // "draw", "map", "kernel", "read-back", ...
  double start_ms = 0;
  double end_ms = 0;
};

// What a lane's row says besides its spans: the clock it was measured on and whether that clock is on the
// host's; when not, why (its spans are left out).
struct LaneState {
  Lane lane = Lane::Graphics;
  std::string clock;  // "gl", "vulkan", "cuda", "cpu"
  bool placed = false;
  std::string why_not;        // when not placed; when placed, what of it could not be (or "")
  double uncertainty_ms = 0;  // when placed: how far its clock's calibration may be off
};

struct FrameTimeline {
  long long frame = -1;          // -1: none yet
  int64_t start_host_ns = 0;     // the frame's start on the host clock (host_clock_ns()): its zero
  double frame_ms = 0;           // the strip's length: the frame start to start (or to its last span's end)
  std::vector<LaneState> lanes;  // those the frame used, in all_lanes() order
  std::vector<TimelineSpan> spans;  // placed lanes' only, by lane then start
};

// A device clock's nanoseconds onto the host clock's. One sample (device_ns, host_ns) read at the same
// moment fixes the offset (the device clock ticks at the host's rate, as GL_TIMESTAMP, Vulkan timestamps
// after timestampPeriod and CUDA events do); two or more fit the rate too, by least squares, so that drift
// over a long run does not move spans. `uncertainty_ns`: how far apart the two reads could be (a calibrated
// pair's maxDeviation; the time a GL_TIMESTAMP read took).
class ClockCalibration {
 public:
  void add_sample(int64_t device_ns, int64_t host_ns, int64_t uncertainty_ns = 0);
  bool calibrated() const { return !m_samples.empty(); }
  // The host time of a device time; calibrated() must hold (std::logic_error otherwise).
  double host_ns(int64_t device_ns) const;
  // Host nanoseconds per device nanosecond (1 with one sample).
  double rate() const;
  // The largest uncertainty among the samples.
  int64_t uncertainty_ns() const { return m_uncertainty_ns; }

 private:
  struct Sample {
    int64_t device_ns;
    int64_t host_ns;
  };
  // The least-squares line through the samples, about the first one.
  struct Fit {
    double rate = 1.0;
    double device_mean = 0, host_mean = 0;
  };
  Fit fit() const;
  std::vector<Sample> m_samples;
  int64_t m_uncertainty_ns = 0;
};

// Builds one frame's timeline from spans on each lane's own clock. Declare each lane the frame used with
// its calibration (place_lane) or why it has none (refuse_lane), add its spans, then build.
class TimelineBuilder {
 public:
  TimelineBuilder(long long frame, int64_t frame_start_host_ns);

  void place_lane(Lane lane, const std::string& clock, const ClockCalibration& calibration);
  bool declared(Lane lane) const { return m_lanes[static_cast<size_t>(lane)].has_value(); }
  void refuse_lane(Lane lane, const std::string& clock, const std::string& why_not);
  // A span in its lane's clock's nanoseconds (the host's for a lane placed with host_clock()). Throws
  // std::logic_error for a lane not declared, or an end before the start.
  void add_span(Lane lane, const std::string& name, int64_t start_ns, int64_t end_ns);
  // A span on another clock than its lane's (a hand-off lane with its map on the host and its unmap
  // on CUDA events); the lane's uncertainty becomes the larger of the two.
  void add_span(Lane lane, const std::string& name, int64_t start_ns, int64_t end_ns,
                const ClockCalibration& calibration);
  // A span of a placed lane that could not be placed (its clock has no calibration): said in the lane's
  // why_not with `why`.
  void drop_span(Lane lane, const std::string& clock, const std::string& why);

  // `frame_end_host_ns`: the next frame's start; the strip is as long as that or its last span, whichever
  // is later.
  FrameTimeline build(int64_t frame_end_host_ns) const;

  // The host clock as a calibration of itself (for lanes measured with steady_clock).
  static ClockCalibration host_clock();

 private:
  struct LaneClock {
    LaneState state;
    ClockCalibration calibration;
    int refused_spans = 0;
    std::vector<std::string> dropped;  // drop_span's, one line per clock
  };
  LaneClock& lane_clock(Lane lane, const char* what);

  long long m_frame;
  int64_t m_start_ns;
  std::vector<std::optional<LaneClock>> m_lanes = std::vector<std::optional<LaneClock>>(kLaneCount);
  std::vector<TimelineSpan> m_spans;
};

// A clock's samples as a calibration (empty samples: not calibrated).
ClockCalibration calibration_of(const std::vector<ClockSample>& samples);

// One finished frame's timeline from FrameTimers' records of it: each lane placed where all or some of its
// spans have a calibrated clock (host spans always do), its clocks named "cuda" or "cpu+cuda"; a lane none
// of whose spans could be placed is refused with its clock's reason.
FrameTimeline build_timeline(const FrameRecords& records);

// The name of the other lane's spans.
constexpr const char* kNotTimedSpan = "not timed";
// Sets `timeline`'s other lane: the stretches of [0, frame_ms] that no span of another placed lane covers,
// each a span named kNotTimedSpan (none for a timeline of no frame, or one without a placed lane). Where some
// lane is not on the frame's clock, its work lies somewhere in those stretches, and the lane says so.
// build_timeline and add_host_span keep it up to date.
void set_other_lane(FrameTimeline& timeline);

// Adds a span measured on the host clock (host_clock_ns()) to a built timeline: its lane is placed on
// the host clock if the timeline has it not yet, the strip grows to hold it. The desk's read-back.
void add_host_span(FrameTimeline& timeline, Lane lane, const std::string& name, int64_t start_host_ns,
                   int64_t end_host_ns);

// A phase's last duration on its clock, without a start time: what the state message's phases say, for a
// timeline made without FrameTimers' records (the desk's, when the loop hands none over).
struct PhaseDuration {
  Phase phase = Phase::Draw;
  Clock clock = Clock::Cpu;
  double ms = 0;
};
// The last durations of the phases `tag` recorded, in all_phases() order, Phase::Frame included.
std::vector<PhaseDuration> last_durations(const FrameTimers& timers, int tag);
// Declares the lanes of `durations` (Phase::Frame has none) on `builder`, each refused with why its clock is
// not on the frame's and what it measured ("draw 0.412 ms"); a lane already declared is left as it is.
void refuse_duration_lanes(TimelineBuilder& builder, const std::vector<PhaseDuration>& durations);
// The panel's and the desk's strip of `tag`'s last finished frame: build_timeline of its records; before
// any, the lanes of its phases, as refuse_duration_lanes says them (frame -1).
FrameTimeline last_frame_timeline(const FrameTimers& timers, int tag);

}  // namespace lab
