// app/serve/desk.hpp — the browser desk as a frame loop sees it (--serve [HOST:]PORT): one object, called in
// three places of a loop, that keeps the server (app/serve/server.hpp) and the frame-rate cap:
//
//   for (each frame) {
//     apply_commands(app, desk.begin_frame());   // waits for the cap, then the page's switches, applied
//     app.render_frame(...);                      //   through the loop's request_scene / request_mode /
//     resize desk.end_frame(app.read_frame(), state);    // the frame and the state after it, handed over at
//     once
//   }
//
// Every frame loop (app/core/app.hpp's Vulkan and Direct3D, GL's app/gl/app.cpp) makes the same calls; what
// a loop says about itself goes into an AppState (phase_lines and compare_modes read its FrameTimers).
//
// INTEROP_LAB_WITH_SERVE says whether the build has the desk: labserve defines it to 1 for whatever links it;
// a build without labserve (tests/windows' Direct3D-only cross build) defines it to 0 and gets a Desk that
// cannot be made (its command line refuses --serve with Direct3D anyway).
#pragma once

#if !defined(INTEROP_LAB_WITH_SERVE)
#error "define INTEROP_LAB_WITH_SERVE to 0 or 1: link labserve (app/serve), which defines it to 1"
#endif

#include "app/core/serve_address.hpp"
#include "app/core/vocabulary.hpp"
#include "app/image/image_io.hpp"
#include "app/serve/protocol.hpp"
#include "app/serve/server.hpp"
#include "app/timing/timing.hpp"

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

namespace lab::serve {

// The cap a desk starts with: the page's animation runs at its designed speed (time = frame / 60).
constexpr double kDefaultFpsCap = 60.0;

#if INTEROP_LAB_WITH_SERVE
class Desk {
 public:
  // Starts the server and says where on stderr: the URL with its token, and for an address other than
  // loopback that anyone who can reach it with the token can drive the app. Throws std::runtime_error when it
  // cannot listen (the port in use, an address not of this machine).
  explicit Desk(const ServeAddress& address, ServerOptions options = {});

  // Waits until the cap allows the next frame, then returns the page's commands since the last frame; the
  // frame-rate cap (Command::Kind::Fps) is the desk's own and is applied here.
  std::vector<Command> begin_frame();
  // Hands the frame just rendered (top row first; `read_back_ms`: what reading it back cost) and the state
  // after it to the server: returns at once, encoding and sending happen on the server's threads.
  void end_frame(Image frame, AppState state, double read_back_ms);

  double fps_cap() const { return m_fps_cap; }
  // A new cap (0: none), as the page's Fps command sets it: a caller that paces its own frames (the Python
  // viewer serves each frame shown) sets 0.
  void set_fps_cap(double fps);
  const Server& server() const { return m_server; }

 private:
  Server m_server;
  double m_fps_cap = kDefaultFpsCap;
  std::chrono::steady_clock::time_point m_next_frame = std::chrono::steady_clock::now();
};
#else
class Desk {
 public:
  explicit Desk(const ServeAddress&) {
    throw std::runtime_error("--serve is not in this build of interop-lab");
  }
  std::vector<Command> begin_frame() { return {}; }
  void set_fps_cap(double) {}
  void end_frame(Image, AppState, double) {}
};
#endif

// The running mode's phases (`tag`: FrameTimers' tag of the mode) as the panel lists them.
inline std::vector<PhaseLine> phase_lines(const FrameTimers& timers, int tag) {
  std::vector<PhaseLine> lines;
  for (const Phase phase : all_phases()) {
    if (!timers.has(tag, phase)) continue;
    const PhaseStats& stats = timers.stats(tag, phase);
    lines.push_back({to_string(phase), to_string(stats.clock), stats.last_ms, stats.median_ms, stats.p90_ms,
                     stats.samples});
  }
  return lines;
}

// The medians of each mode of `modes` that has recorded a frame since the scene started.
inline std::vector<ModeComparison> compare_modes(const FrameTimers& timers,
                                                 const std::vector<ModeId>& modes) {
  std::vector<ModeComparison> compared;
  for (const ModeId mode : modes)
    if (timers.has(static_cast<int>(mode), Phase::Frame))
      compared.push_back({mode, phase_lines(timers, static_cast<int>(mode))});
  return compared;
}

// Applies the page's scene, mode and size commands through the loop's own calls (request_scene,
// request_mode, resize). Returns why a mode was refused ("" when none was), for the loop's notice.
template <class Loop>
std::string apply_commands(Loop& loop, const std::vector<Command>& commands) {
  std::string refused;
  for (const Command& command : commands) {
    switch (command.kind) {
      case Command::Kind::Scene:
        loop.request_scene(command.scene);
        break;
      case Command::Kind::Mode:
        if (const ModeAvailability runs = loop.request_mode(command.mode); !runs.available)
          refused = std::string("mode ") + to_string(command.mode) + " is unavailable: " + runs.reason;
        break;
      case Command::Kind::Size:
        loop.resize(command.size);
        break;
      case Command::Kind::Fps:
        break;  // the desk's own
    }
  }
  return refused;
}

}  // namespace lab::serve
