// app/serve/desk.cpp — the frame loop's side of the browser desk (app/serve/desk.hpp).
#include "app/serve/desk.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

namespace lab::serve {

Desk::Desk(const ServeAddress& address, ServerOptions options)
    : m_server([&] {
        options.address = address;
        return std::move(options);
      }()) {
  m_server.set_fps_cap(m_pacer.fps());
  // The port the bind took (any free one for port 0); for a wildcard bind, every URL of this machine.
  const std::vector<std::string> urls = m_server.urls();
  std::fprintf(stderr, "interop-lab: serving the desk at %s (open it in a browser; Ctrl+C stops)\n",
               urls.front().c_str());
  for (size_t i = 1; i < urls.size(); ++i) std::fprintf(stderr, "interop-lab: or at %s\n", urls[i].c_str());
  if (!address.loopback())
    std::fprintf(stderr,
                 "interop-lab: warning: %s is not a loopback address: anyone who can reach port %d with the "
                 "token can drive this app and see its frames; prefer 127.0.0.1 and ssh -L %d:127.0.0.1:%d\n",
                 address.host.c_str(), m_server.port(), m_server.port(), m_server.port());
  std::fflush(stderr);
}

namespace {

// The state's phase lines back as durations on their clocks (the names are timing.hpp's to_string's).
std::vector<PhaseDuration> durations_of(const std::vector<PhaseLine>& lines) {
  std::vector<PhaseDuration> durations;
  for (const PhaseLine& line : lines)
    for (const Phase phase : all_phases())
      if (line.phase == to_string(phase)) {
        Clock clock = Clock::Cpu;
        for (const Clock each : {Clock::Cuda, Clock::Gl, Clock::Vulkan, Clock::Cpu})
          if (line.clock == to_string(each)) clock = each;
        durations.push_back({phase, clock, line.last_ms});
      }
  return durations;
}

}  // namespace

FrameCommands Desk::begin_frame() {
  m_pacer.wait();
  m_frame_start_ns = host_clock_ns();  // after the cap's wait: where the frame's work starts
  return {m_server.take_commands(), this};
}

void Desk::set_fps_cap(double fps) {
  m_pacer.set_fps(fps);
  m_server.set_fps_cap(fps);
}

namespace {

// Why the flags do not apply in `mode`: it registers nothing (only the modes that map what the graphics API
// registered use them).
std::string flags_not_used(GraphicsApi api, ModeId mode) {
  std::string registering;
  for (const ModeId each : modes_of(api))
    if (mode_family(each) == ModeFamily::MapUnmap)
      registering += (registering.empty() ? "" : ", ") + std::string(to_string(each));
  return std::string("the ") + to_string(mode) +
         " mode registers nothing with CUDA: map and register flags apply to " + registering +
         " (a flag set there stays for them)";
}

}  // namespace

void Desk::hand_over_notice(AppState& state) {
  const bool loop_notice_changed = state.notice != m_loop_notice;
  m_loop_notice = state.notice;
  if (m_command_outcome) {
    // A refusal says why; a success clears the notice, unless the loop has news of its own from it.
    m_notice = !m_command_outcome->empty() ? *m_command_outcome : loop_notice_changed ? state.notice : "";
    m_command_outcome.reset();
    ++m_notice_serial;
  } else if (loop_notice_changed) {
    m_notice = state.notice;
    ++m_notice_serial;
  }
  state.notice = m_notice;
  state.notice_serial = m_notice_serial;
  if (state.flags.settable && state.flags.why_not.empty() && mode_family(state.mode) != ModeFamily::MapUnmap)
    state.flags.why_not = flags_not_used(state.api, state.mode);
}

void Desk::end_frame(Image frame, AppState state, double read_back_ms, std::vector<uint64_t> stripe_hashes,
                     const std::string& way) {
  hand_over_notice(state);
  offer(std::make_shared<const Image>(std::move(frame)), std::move(state), read_back_ms, m_frame_start_ns,
        std::move(stripe_hashes), way);
}

void Desk::offer(std::shared_ptr<const Image> frame, AppState state, double read_back_ms,
                 int64_t frame_start_ns, std::vector<uint64_t> stripe_hashes, const std::string& way) {
  const int64_t now = host_clock_ns();
  if (m_read_backs.size() == kReadBacksKept) m_read_backs.erase(m_read_backs.begin());
  m_read_backs.push_back(
      {state.frame, now - static_cast<int64_t>(read_back_ms * 1e6), now, read_back_span(way)});
  if (state.timeline.frame >= 0) {
    // The loop's timeline of a frame gone by: that frame's read-back, if it was read back here.
    const long long shown = state.timeline.frame;
    const auto read = std::find_if(m_read_backs.begin(), m_read_backs.end(),
                                   [&](const ReadBack& back) { return back.frame == shown; });
    if (read != m_read_backs.end())
      add_host_span(state.timeline, Lane::Desk, read->span, read->start_ns, read->end_ns);
  } else {
    TimelineBuilder builder(state.frame, frame_start_ns);
    builder.place_lane(Lane::Desk, to_string(Clock::Cpu), TimelineBuilder::host_clock());
    builder.add_span(Lane::Desk, m_read_backs.back().span, m_read_backs.back().start_ns, now);
    const std::vector<PhaseDuration> durations = durations_of(state.phases);
    refuse_duration_lanes(builder, durations);
    double frame_ms = 0;
    for (const PhaseDuration& duration : durations)
      if (duration.phase == Phase::Frame) frame_ms = duration.ms;
    state.timeline = builder.build(frame_start_ns + static_cast<int64_t>(frame_ms * 1e6));
  }
  m_server.add_read_back_ms(read_back_ms);
  m_server.offer_frame(std::move(frame), std::move(state), std::move(stripe_hashes));
}

void Desk::frame_read_collected(std::shared_ptr<const Image> image, long long frame, double collect_ms,
                                std::vector<uint64_t> stripe_hashes, const std::string& way) {
  // The states of reads dropped before this one go with them.
  while (!m_begun.empty() && m_begun.front().state.frame < frame) m_begun.pop_front();
  if (m_begun.empty() || m_begun.front().state.frame != frame)
    throw std::logic_error(
        "serve::Desk::frame_read_collected: no read-back of frame " + std::to_string(frame) + " began" +
        (m_begun.empty() ? std::string()
                         : " (the oldest begun: frame " + std::to_string(m_begun.front().state.frame) + ")"));
  Begun begun = std::move(m_begun.front());
  m_begun.pop_front();
  offer(std::move(image), std::move(begun.state), collect_ms, begun.start_ns, std::move(stripe_hashes), way);
}

}  // namespace lab::serve
