// tests/support/timeline_spans.hpp — finding spans in a frame's timeline (app/timing/timeline.hpp) by lane
// and name, and listing them for a failure message.
#pragma once

#include "app/timing/timeline.hpp"

#include <optional>
#include <string>
#include <vector>

namespace labtest {

inline std::vector<lab::TimelineSpan> spans_named(const lab::FrameTimeline& timeline, lab::Lane lane,
                                                  const std::string& name = "") {
  std::vector<lab::TimelineSpan> spans;
  for (const lab::TimelineSpan& span : timeline.spans)
    if (span.lane == lane && (name.empty() || span.name == name)) spans.push_back(span);
  return spans;
}

inline std::optional<lab::LaneState> lane_state(const lab::FrameTimeline& timeline, lab::Lane lane) {
  for (const lab::LaneState& state : timeline.lanes)
    if (state.lane == lane) return state;
  return std::nullopt;
}

inline std::string describe(const lab::FrameTimeline& timeline) {
  std::string text =
      "frame " + std::to_string(timeline.frame) + " (" + std::to_string(timeline.frame_ms) + " ms):";
  for (const lab::LaneState& lane : timeline.lanes)
    text += std::string(" [") + lab::to_string(lane.lane) + " " + lane.clock +
            (lane.placed ? "" : " not placed: ") + lane.why_not + "]";
  for (const lab::TimelineSpan& span : timeline.spans)
    text += std::string(" ") + lab::to_string(span.lane) + "/" + span.name + " " +
            std::to_string(span.start_ms) + ".." + std::to_string(span.end_ms);
  return text;
}

}  // namespace labtest
