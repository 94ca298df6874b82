// app/timing/timeline.cpp — one frame's lanes on the host clock (app/timing/timeline.hpp).
#include "app/timing/timeline.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <utility>

namespace lab {

const char* to_string(Lane lane) {
  switch (lane) {
    case Lane::Graphics:
      return "graphics";
    case Lane::Handoff:
      return "hand-off";
    case Lane::Cuda:
      return "cuda";
    case Lane::Cpu:
      return "cpu";
    case Lane::Desk:
      return "desk";
    case Lane::Other:
      return "other";
  }
  return "?";
}

const std::vector<Lane>& all_lanes() {
  static const std::vector<Lane> lanes = {Lane::Graphics, Lane::Handoff, Lane::Cuda,
                                          Lane::Cpu,      Lane::Desk,    Lane::Other};
  return lanes;
}

std::optional<Lane> lane_of(Phase phase, Clock clock) {
  switch (phase) {
    case Phase::Draw:
    case Phase::GlCopy:
    case Phase::VulkanCopy:
      return Lane::Graphics;
    case Phase::Register:
    case Phase::Map:
    case Phase::Wait:
    case Phase::Signal:
    case Phase::Unmap:
    case Phase::Unregister:
      return Lane::Handoff;
    case Phase::Kernel:
    case Phase::CudaCopy:
      return clock == Clock::Cpu ? Lane::Cpu : Lane::Cuda;
    case Phase::HostCopy:  // --api none's frames into host memory: the host's own work
      return Lane::Cpu;
    case Phase::Other:
    case Phase::Frame:
      return std::nullopt;
  }
  return std::nullopt;
}

void ClockCalibration::add_sample(int64_t device_ns, int64_t host_ns, int64_t uncertainty_ns) {
  m_samples.push_back({device_ns, host_ns});
  m_uncertainty_ns = std::max(m_uncertainty_ns, uncertainty_ns);
}

ClockCalibration::Fit ClockCalibration::fit() const {
  // Least squares about the first sample, so that nanosecond counts of a long uptime keep their precision.
  const Sample& origin = m_samples.front();
  Fit line;
  for (const Sample& sample : m_samples) {
    line.device_mean += static_cast<double>(sample.device_ns - origin.device_ns);
    line.host_mean += static_cast<double>(sample.host_ns - origin.host_ns);
  }
  line.device_mean /= static_cast<double>(m_samples.size());
  line.host_mean /= static_cast<double>(m_samples.size());
  double covariance = 0, variance = 0;
  for (const Sample& sample : m_samples) {
    const double device = static_cast<double>(sample.device_ns - origin.device_ns) - line.device_mean;
    const double host = static_cast<double>(sample.host_ns - origin.host_ns) - line.host_mean;
    covariance += device * host;
    variance += device * device;
  }
  // One sample, or samples all at one device time, say nothing of the rate: the clocks tick alike.
  line.rate = variance > 0 ? covariance / variance : 1.0;
  return line;
}

double ClockCalibration::rate() const {
  return m_samples.empty() ? 1.0 : fit().rate;
}

double ClockCalibration::host_ns(int64_t device_ns) const {
  if (m_samples.empty())
    throw std::logic_error("ClockCalibration::host_ns: no sample; add one (add_sample) before mapping times");
  const Fit line = fit();
  const Sample& origin = m_samples.front();
  return static_cast<double>(origin.host_ns) + line.host_mean +
         line.rate * (static_cast<double>(device_ns - origin.device_ns) - line.device_mean);
}

TimelineBuilder::TimelineBuilder(long long frame, int64_t frame_start_host_ns)
    : m_frame(frame), m_start_ns(frame_start_host_ns) {}

ClockCalibration TimelineBuilder::host_clock() {
  ClockCalibration identity;
  identity.add_sample(0, 0);
  return identity;
}

void TimelineBuilder::place_lane(Lane lane, const std::string& clock, const ClockCalibration& calibration) {
  if (!calibration.calibrated())
    throw std::logic_error(std::string("TimelineBuilder::place_lane(") + to_string(lane) +
                           "): the calibration has no sample; refuse_lane says why a lane has none");
  LaneClock entry;
  entry.state = {lane, clock, true, "", static_cast<double>(calibration.uncertainty_ns()) / 1e6};
  entry.calibration = calibration;
  m_lanes[static_cast<size_t>(lane)] = entry;
}

void TimelineBuilder::refuse_lane(Lane lane, const std::string& clock, const std::string& why_not) {
  LaneClock entry;
  entry.state = {lane, clock, false, why_not, 0};
  m_lanes[static_cast<size_t>(lane)] = entry;
}

TimelineBuilder::LaneClock& TimelineBuilder::lane_clock(Lane lane, const char* what) {
  std::optional<LaneClock>& entry = m_lanes[static_cast<size_t>(lane)];
  if (!entry)
    throw std::logic_error(std::string("TimelineBuilder::") + what + ": lane " + to_string(lane) +
                           " was not declared; call place_lane or refuse_lane first");
  return *entry;
}

void TimelineBuilder::add_span(Lane lane, const std::string& name, int64_t start_ns, int64_t end_ns) {
  LaneClock& entry = lane_clock(lane, "add_span");
  add_span(lane, name, start_ns, end_ns, entry.calibration);
}

void TimelineBuilder::add_span(Lane lane, const std::string& name, int64_t start_ns, int64_t end_ns,
                               const ClockCalibration& calibration) {
  if (end_ns < start_ns)
    throw std::logic_error("TimelineBuilder::add_span(" + name + "): ends " +
                           std::to_string(start_ns - end_ns) + " ns before it starts");
  LaneClock& entry = lane_clock(lane, "add_span");
  if (!entry.state.placed) {
    ++entry.refused_spans;
    return;
  }
  const auto to_ms = [&](int64_t device_ns) {
    return (calibration.host_ns(device_ns) - static_cast<double>(m_start_ns)) / 1e6;
  };
  entry.state.uncertainty_ms =
      std::max(entry.state.uncertainty_ms, static_cast<double>(calibration.uncertainty_ns()) / 1e6);
  m_spans.push_back({lane, name, to_ms(start_ns), to_ms(end_ns)});
}

void TimelineBuilder::drop_span(Lane lane, const std::string& clock, const std::string& why) {
  LaneClock& entry = lane_clock(lane, "drop_span");
  const std::string line = clock + " spans not on the frame's clock: " + why;
  if (std::find(entry.dropped.begin(), entry.dropped.end(), line) == entry.dropped.end())
    entry.dropped.push_back(line);
}

FrameTimeline TimelineBuilder::build(int64_t frame_end_host_ns) const {
  FrameTimeline timeline;
  timeline.frame = m_frame;
  timeline.start_host_ns = m_start_ns;
  timeline.frame_ms = static_cast<double>(frame_end_host_ns - m_start_ns) / 1e6;
  for (const Lane lane : all_lanes()) {
    const std::optional<LaneClock>& entry = m_lanes[static_cast<size_t>(lane)];
    if (!entry) continue;
    LaneState state = entry->state;
    if (!state.placed && entry->refused_spans > 0)
      state.why_not += " (" + std::to_string(entry->refused_spans) + " spans not shown)";
    for (const std::string& line : entry->dropped)
      state.why_not += (state.why_not.empty() ? "" : "; ") + line;
    timeline.lanes.push_back(state);
  }
  timeline.spans = m_spans;
  std::stable_sort(timeline.spans.begin(), timeline.spans.end(),
                   [](const TimelineSpan& a, const TimelineSpan& b) {
                     return a.lane != b.lane ? a.lane < b.lane : a.start_ms < b.start_ms;
                   });
  for (const TimelineSpan& span : timeline.spans)
    timeline.frame_ms = std::max(timeline.frame_ms, span.end_ms);
  return timeline;
}

namespace {

// Why a clock's phases cannot be placed on the frame's axis yet: each measures a duration.
const char* why_durations_only(Clock clock) {
  switch (clock) {
    case Clock::Gl:
      return "GL timer queries measure durations (GL_TIME_ELAPSED), not GL_TIMESTAMP points calibrated to "
             "the "
             "host";
    case Clock::Vulkan:
      return "Vulkan timestamps are read as durations, not calibrated to the host "
             "(VK_EXT_calibrated_timestamps)";
    case Clock::Cuda:
      return "CUDA event pairs give durations, not times from an event of known host time";
    case Clock::Cpu:
      return "host-timed phases keep their durations only";
  }
  return "durations only";
}

}  // namespace

std::vector<PhaseDuration> last_durations(const FrameTimers& timers, int tag) {
  std::vector<PhaseDuration> durations;
  for (const Phase phase : all_phases())
    if (timers.has(tag, phase)) {
      const PhaseStats& stats = timers.stats(tag, phase);
      durations.push_back({phase, stats.clock, stats.last_ms});
    }
  return durations;
}

void refuse_duration_lanes(TimelineBuilder& builder, const std::vector<PhaseDuration>& durations) {
  for (const Lane lane : all_lanes()) {
    if (builder.declared(lane)) continue;
    std::string measured;
    std::optional<Clock> clock;
    for (const PhaseDuration& duration : durations) {
      if (lane_of(duration.phase, duration.clock) != lane) continue;
      char text[64];
      std::snprintf(text, sizeof text, "%s%s %.3f ms", measured.empty() ? "" : ", ",
                    to_string(duration.phase), duration.ms);
      measured += text;
      if (!clock) clock = duration.clock;
    }
    if (!clock) continue;
    builder.refuse_lane(
        lane, to_string(*clock),
        std::string("not on the frame's clock: ") + why_durations_only(*clock) + " (" + measured + ")");
  }
}

ClockCalibration calibration_of(const std::vector<ClockSample>& samples) {
  ClockCalibration calibration;
  for (const ClockSample& sample : samples)
    calibration.add_sample(sample.device_ns, sample.host_ns, sample.uncertainty_ns);
  return calibration;
}

FrameTimeline build_timeline(const FrameRecords& records) {
  std::vector<ClockCalibration> calibrations;
  for (const std::vector<ClockSample>& samples : records.calibrations)
    calibrations.push_back(calibration_of(samples));
  const ClockCalibration host = TimelineBuilder::host_clock();
  const auto calibration_of_span = [&](const FrameRecords::Span& span) -> const ClockCalibration* {
    if (!span.has_start) return nullptr;
    if (span.clock == Clock::Cpu) return &host;
    if (span.calibration < 0 || static_cast<size_t>(span.calibration) >= calibrations.size()) return nullptr;
    const ClockCalibration& calibration = calibrations[static_cast<size_t>(span.calibration)];
    return calibration.calibrated() ? &calibration : nullptr;
  };
  const auto why_of = [&](Clock clock) {
    const std::string& why = records.why_uncalibrated[static_cast<size_t>(clock)];
    return why.empty() ? std::string("its clock has no calibration") : why;
  };

  TimelineBuilder builder(records.frame, records.start_host_ns);
  for (const Lane lane : all_lanes()) {
    std::vector<const FrameRecords::Span*> spans;
    for (const FrameRecords::Span& span : records.spans)
      if (lane_of(span.phase, span.clock) == lane) spans.push_back(&span);
    if (spans.empty()) continue;
    // The lane's clocks by name, in Clock order: "cuda", "cpu+cuda" (a map on the host, an unmap on CUDA).
    std::string clocks;
    const ClockCalibration* first_placed = nullptr;
    for (const Clock clock : {Clock::Cpu, Clock::Cuda, Clock::Gl, Clock::Vulkan}) {
      bool used = false;
      for (const FrameRecords::Span* span : spans) {
        if (span->clock != clock) continue;
        used = true;
        if (!first_placed) first_placed = calibration_of_span(*span);
      }
      if (used) clocks += (clocks.empty() ? "" : "+") + std::string(to_string(clock));
    }
    if (!first_placed) {
      builder.refuse_lane(lane, clocks, "not on the frame's clock: " + why_of(spans.front()->clock));
      for (const FrameRecords::Span* span : spans)
        builder.add_span(lane, to_string(span->phase), span->start_ns,
                         std::max(span->start_ns, span->end_ns));
      continue;
    }
    builder.place_lane(lane, clocks, *first_placed);
    for (const FrameRecords::Span* span : spans) {
      if (const ClockCalibration* calibration = calibration_of_span(*span)) {
        builder.add_span(lane, to_string(span->phase), span->start_ns, std::max(span->start_ns, span->end_ns),
                         *calibration);
      } else {
        builder.drop_span(lane, to_string(span->clock), why_of(span->clock));
      }
    }
  }
  FrameTimeline timeline = builder.build(std::max(records.end_host_ns, records.start_host_ns));
  set_other_lane(timeline);
  return timeline;
}

void set_other_lane(FrameTimeline& timeline) {
  const auto is_other = [](const TimelineSpan& span) { return span.lane == Lane::Other; };
  timeline.spans.erase(std::remove_if(timeline.spans.begin(), timeline.spans.end(), is_other),
                       timeline.spans.end());
  timeline.lanes.erase(std::remove_if(timeline.lanes.begin(), timeline.lanes.end(),
                                      [](const LaneState& lane) { return lane.lane == Lane::Other; }),
                       timeline.lanes.end());
  std::string unplaced;
  bool placed = false;
  for (const LaneState& lane : timeline.lanes) {
    if (lane.placed) {
      placed = true;
    } else {
      unplaced += (unplaced.empty() ? "" : ", ") + std::string(to_string(lane.lane));
    }
  }
  if (timeline.frame < 0 || timeline.frame_ms <= 0 || !placed) return;
  // The covered stretches, merged in order of start; the gaps between them within the frame are the lane's.
  std::vector<std::pair<double, double>> covered;
  for (const TimelineSpan& span : timeline.spans) covered.emplace_back(span.start_ms, span.end_ms);
  std::sort(covered.begin(), covered.end());
  std::vector<TimelineSpan> gaps;
  double reached = 0;
  for (const auto& [start, end] : covered) {
    if (start > reached)
      gaps.push_back({Lane::Other, kNotTimedSpan, reached, std::min(start, timeline.frame_ms)});
    reached = std::max(reached, end);
    if (reached >= timeline.frame_ms) break;
  }
  if (reached < timeline.frame_ms) gaps.push_back({Lane::Other, kNotTimedSpan, reached, timeline.frame_ms});
  gaps.erase(std::remove_if(gaps.begin(), gaps.end(),
                            [](const TimelineSpan& gap) { return gap.end_ms <= gap.start_ms; }),
             gaps.end());
  LaneState lane{Lane::Other, to_string(Clock::Cpu), true, "", 0};
  if (!unplaced.empty())
    lane.why_not = "holds the work of the lanes not on the frame's clock too (" + unplaced + ")";
  timeline.lanes.push_back(lane);  // the last of all_lanes()
  timeline.spans.insert(timeline.spans.end(), gaps.begin(), gaps.end());
}

void add_host_span(FrameTimeline& timeline, Lane lane, const std::string& name, int64_t start_host_ns,
                   int64_t end_host_ns) {
  const auto has_lane = [&](const LaneState& state) { return state.lane == lane; };
  if (std::none_of(timeline.lanes.begin(), timeline.lanes.end(), has_lane)) {
    const auto after = std::find_if(timeline.lanes.begin(), timeline.lanes.end(),
                                    [&](const LaneState& state) { return state.lane > lane; });
    timeline.lanes.insert(after, LaneState{lane, to_string(Clock::Cpu), true, "", 0});
  }
  const auto to_ms = [&](int64_t ns) { return static_cast<double>(ns - timeline.start_host_ns) / 1e6; };
  const TimelineSpan span{lane, name, to_ms(start_host_ns), to_ms(std::max(start_host_ns, end_host_ns))};
  const auto after =
      std::find_if(timeline.spans.begin(), timeline.spans.end(), [&](const TimelineSpan& other) {
        return other.lane != span.lane ? other.lane > span.lane : other.start_ms > span.start_ms;
      });
  timeline.spans.insert(after, span);
  timeline.frame_ms = std::max(timeline.frame_ms, span.end_ms);
  if (lane != Lane::Other) set_other_lane(timeline);
}

FrameTimeline last_frame_timeline(const FrameTimers& timers, int tag) {
  if (const FrameRecords* records = timers.last_frame(tag)) return build_timeline(*records);
  const std::vector<PhaseDuration> durations = last_durations(timers, tag);
  TimelineBuilder builder(-1, 0);
  refuse_duration_lanes(builder, durations);
  double frame_ms = 0;
  for (const PhaseDuration& duration : durations)
    if (duration.phase == Phase::Frame) frame_ms = duration.ms;
  return builder.build(static_cast<int64_t>(frame_ms * 1e6));
}

}  // namespace lab
