// app/serve/desk.hpp — the browser desk as a frame loop sees it (--serve [HOST:]PORT): one object, called in
// three places of a loop, that keeps the server (app/serve/server.hpp) and the frame-rate cap:
//
//   for (each frame) {
//     apply_commands(app, desk.begin_frame());   // waits for the cap, then the page's switches, applied
//     app.render_frame(...);                      //   as the panel's are (app/loop/commands.hpp)
//     desk.end_frame(app.read_frame(), state);    // the frame and the state after it, handed over at once
//   }
//
// The one frame loop (app/loop/app.hpp, for every API) makes these calls; what
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
#include "app/image/frame_read.hpp"
#include "app/image/image_io.hpp"
#include "app/modes/access.hpp"
#include "app/scene/scene_compute.hpp"
#include "app/serve/protocol.hpp"
#include "app/serve/server.hpp"
#include "app/timing/frame_pacer.hpp"
#include "app/timing/timing.hpp"
#include "interop/device.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace lab::serve {

// The cap a desk starts with: the page's animation runs at its designed speed (time = frame / 60).
constexpr double kDefaultFpsCap = 60.0;

class Desk;

// The page's commands of one frame, as Desk::begin_frame returns them: apply_commands tells the desk how they
// went (Desk::commands_applied), so that a command that succeeds clears the notice of one refused before.
struct FrameCommands {
  std::vector<Command> commands;
  Desk* desk = nullptr;
};

#if INTEROP_LAB_WITH_SERVE
class Desk {
 public:
  // Starts the server and says where on stderr: the URL with its token, and for an address other than
  // loopback that anyone who can reach it with the token can drive the app. Throws std::runtime_error when it
  // cannot listen (the port in use, an address not of this machine).
  explicit Desk(const ServeAddress& address, ServerOptions options = {});

  // Waits until the cap allows the next frame, then returns the page's commands since the last frame. The
  // page's cap (Command::Kind::Fps) is among them: apply_commands sets it through the loop's set_fps_cap,
  // which sets the desk's (set_fps_cap below).
  FrameCommands begin_frame();
  // How the commands of begin_frame went (apply_commands says it): "" when every one was taken, else why the
  // last refused one was refused. The next state handed over carries it as its notice ("" clears the page's).
  void commands_applied(std::string refused) { m_command_outcome = std::move(refused); }
  // Hands the frame just rendered (top row first; `read_back_ms`: what reading it back cost, just now) and
  // the state after it to the server: returns at once, encoding and sending happen on the server's threads.
  // The state's timeline gets the desk's lane here: the loop's timeline of a finished frame (a few frames
  // before this one, when the GPU's results are read late) with that frame's read-back, on the host clock;
  // without one from the loop (timing off), this frame's lanes said from its phases and its read-back.
  // `stripe_hashes`: kernels/stripe_hash.hpp's hashes of `frame` where the read-back computed them on the
  // GPU (empty: none), passed on to the server's changed-stripe sending; `way`: how the frame was read
  // ("CUDA", "PBO"; "" where there is one way), which the desk's timeline span names: "read-back (CUDA)".
  void end_frame(Image frame, AppState state, double read_back_ms, std::vector<uint64_t> stripe_hashes = {},
                 const std::string& way = "");
  // A loop that reads its frames back late (GL's, Vulkan's: LateReader) hands over a frame's state when its
  // read-back begins and the frame when it is collected (`collect_ms`: what reading back cost), so each
  // frame goes out with the state it was made with. Reads are collected in the order they began; the states
  // of reads dropped before `frame` go with them. Throws std::logic_error when no read-back of `frame` began.
  void frame_read_begun(AppState state) {
    hand_over_notice(state);
    if (m_begun.size() == kBegunKept) m_begun.pop_front();
    m_begun.push_back({std::move(state), m_frame_start_ns});
  }
  void frame_read_collected(std::shared_ptr<const Image> image, long long frame, double collect_ms,
                            std::vector<uint64_t> stripe_hashes = {}, const std::string& way = "");

  // Whether a frame read back now would be taken: Server::frame_wanted. A loop that reads its frames late
  // (LateReader) begins a read only then.
  bool wants_frame() const { return m_server.frame_wanted(); }
  double fps_cap() const { return m_pacer.fps(); }
  // A new cap (0: none), as the page's Fps command sets it: a caller that paces its own frames (the Python
  // viewer serves each frame shown) sets 0.
  void set_fps_cap(double fps);
  const Server& server() const { return m_server; }
  // Where a browser opens the desk, token included (Server::url).
  std::string url() const { return m_server.url(); }

 private:
  Server m_server;
  FramePacer m_pacer{kDefaultFpsCap};
  // frame_read_begun's states, oldest first, each with its frame's start, until that frame is collected (or
  // a later one: the reads between were dropped).
  struct Begun {
    AppState state;
    int64_t start_ns = 0;
  };
  static constexpr size_t kBegunKept = 8;  // more than any loop has on its way
  std::deque<Begun> m_begun;
  // Host time (steady_clock ns) of the frame's start (begin_frame).
  int64_t m_frame_start_ns = 0;
  // Hands `frame` over with `state`, its timeline given its desk lane: the read-back that ended now.
  void offer(std::shared_ptr<const Image> frame, AppState state, double read_back_ms, int64_t frame_start_ns,
             std::vector<uint64_t> stripe_hashes, const std::string& way);
  // The last frames' read-backs on the host clock, by frame, for the loop's timelines of frames gone by.
  struct ReadBack {
    long long frame = -1;
    int64_t start_ns = 0;
    int64_t end_ns = 0;
    std::string span;  // "read-back (CUDA)": read_back_span's
  };
  static constexpr size_t kReadBacksKept = 16;  // more frames than any loop's timings are late
  std::vector<ReadBack> m_read_backs;
  // The notice a state carries: the outcome of the page's last commands (commands_applied), else the loop's
  // own notice where it changed (a mode that failed and fell back); counted, so that each viewer is sent it
  // once (AppState::notice_serial). The flags greyed, with why, in a mode that registers nothing.
  std::optional<std::string> m_command_outcome;
  std::string m_loop_notice;  // the loop's notice at the last hand-over
  std::string m_notice;
  unsigned long long m_notice_serial = 0;
  void hand_over_notice(AppState& state);
};
#else
class Desk {
 public:
  explicit Desk(const ServeAddress&) {
    throw std::runtime_error("--serve is not in this build of interop-lab");
  }
  FrameCommands begin_frame() { return {}; }
  void commands_applied(std::string) {}
  bool wants_frame() const { return false; }
  double fps_cap() const { return 0.0; }
  void set_fps_cap(double) {}
  std::string url() const { return {}; }
  void end_frame(Image, AppState, double, std::vector<uint64_t> = {}, const std::string& = "") {}
  void frame_read_begun(AppState) {}
  void frame_read_collected(std::shared_ptr<const Image>, long long, double, std::vector<uint64_t> = {},
                            const std::string& = "") {}
};
#endif

// Whether a renderer reads its frames late, never waiting for the GPU (GL's and Vulkan's): it begins a
// frame's read (begin_read_frame(plan, frame), when can_begin_read), counts the reads under way
// (reads_under_way), says whether the oldest is done (read_frame_done: end_read_frame would not wait),
// collects the oldest (end_read_frame), and keeps the GPU at most N frames behind the loop
// (limit_frames_ahead(N)). app/loop/app.hpp's loop then reads through a LateReader and hands frames over
// with frame_read_begun / _collected.
template <class Renderer, class = void>
struct ReadsFramesLate : std::false_type {};
template <class Renderer>
struct ReadsFramesLate<Renderer, std::void_t<decltype(std::declval<Renderer&>().end_read_frame()),
                                             decltype(std::declval<Renderer&>().begin_read_frame(
                                                 std::declval<const DrawPlan&>(), 0LL)),
                                             decltype(int(std::declval<const Renderer&>().reads_under_way())),
                                             decltype(bool(std::declval<const Renderer&>().can_begin_read())),
                                             decltype(bool(std::declval<Renderer&>().read_frame_done())),
                                             decltype(std::declval<Renderer&>().limit_frames_ahead(0))>>
    : std::true_type {};

// Milliseconds on the host clock since `start`.
inline double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// What one frame's LateReader::step did.
struct LateRead {
  // A frame read back, to hand over now (an earlier frame than this one).
  std::optional<FrameRead> collected;
  // With `collected`: what the loop's thread spent on reading back since the frame handed over before, on
  // the host clock: the reads' begins, every look at whether one was done, and the collects.
  double read_back_ms = 0;
  bool begun = false;  // this frame's read began
};

// A frame loop's read-back of its frames for the desk, that never waits for a copy and reads back only the
// frames the desk will send. Each frame, step():
//   - first keeps the GPU at most kFramesAhead frames behind the loop (Renderer::limit_frames_ahead: a
//     window's swap chain does so, a headless loop has nothing else that does). Otherwise a loop faster than
//     the GPU queues frame after frame, and a read begun now is done only once the GPU has worked through
//     them all. That wait is the GPU's own frame time: it is not counted as read-back. One frame: the GPU
//     has then done every pass submitted before the frame before this one, so a read begun two frames ago
//     is done now, and two read slots (GL's CUDA read-back, Vulkan's) let a read begin every frame;
//   - collects every read under way that is done, oldest first (one not done stays under way) into a
//     queue of at most kHeld frames (full: a read is not begun, so none is dropped);
//   - hands the oldest collected frame over when the desk wants one (Desk::wants_frame: a viewer took the
//     frame before), else holds it until the desk does;
//   - begins this frame's read when the renderer can, and fewer than kDepth frames are on their way to a
//     viewer: reads under way, frames held, and a frame handed over that no viewer has taken yet.
// So the GPU copies only frames an encoder will send, up to kDepth ahead of it: where a read takes longer
// than an encode, several are under way; where the encoder is the slower side, the next frames wait read
// back. `wait` (the benchmark's link rows, which only gather frames): collect the oldest read even when not
// done, waiting for it, hand it over, and begin a read whenever the renderer can.
class LateReader {
 public:
  static constexpr int kFramesAhead = 1;
  static constexpr size_t kHeld = 2;
  static constexpr int kDepth = static_cast<int>(kHeld) + 1;

  template <class Renderer, class Begin>
  LateRead step(Renderer& renderer, bool wanted, Begin&& begin, bool wait = false) {
    renderer.limit_frames_ahead(kFramesAhead);
    const auto started = std::chrono::steady_clock::now();
    LateRead read;
    while (renderer.reads_under_way() > 0 && m_held.size() < kHeld && (wait || renderer.read_frame_done())) {
      std::optional<FrameRead> collected = renderer.end_read_frame();
      if (collected) m_held.push_back(std::move(*collected));
      if (wait) break;
    }
    if (!m_held.empty() && (wanted || wait)) {
      read.collected = std::move(m_held.front());
      m_held.pop_front();
    }
    const bool offer_waiting = read.collected || !wanted;  // handed over, not yet taken by a viewer
    const int on_their_way =
        renderer.reads_under_way() + static_cast<int>(m_held.size()) + (offer_waiting ? 1 : 0);
    if (renderer.can_begin_read() && (wait || on_their_way < kDepth)) {
      begin();
      read.begun = true;
    }
    m_spent_ms += ms_since(started);
    if (read.collected) {
      read.read_back_ms = m_spent_ms;
      m_spent_ms = 0;
    }
    return read;
  }

  // Every read under way collected (waiting for each) and every frame held handed to `hand(read, ms)`, oldest
  // first: for a loop that makes its frames on demand (the Python viewer), whose last frame would otherwise
  // reach the desk only with the next one.
  template <class Renderer, class Hand>
  void drain(Renderer& renderer, Hand&& hand) {
    const auto started = std::chrono::steady_clock::now();
    while (renderer.reads_under_way() > 0)
      if (std::optional<FrameRead> collected = renderer.end_read_frame())
        m_held.push_back(std::move(*collected));
    m_spent_ms += ms_since(started);
    for (; !m_held.empty(); m_held.pop_front()) {
      hand(m_held.front(), m_spent_ms);
      m_spent_ms = 0;
    }
  }

 private:
  std::deque<FrameRead> m_held;  // collected, oldest first, for when the desk wants a frame
  double m_spent_ms = 0;         // on reading back since the frame handed over last
};

// The desk lane's span of a read-back done `way` ("CUDA", "PBO"): "read-back (CUDA)"; "read-back" for "".
inline std::string read_back_span(const std::string& way) {
  return way.empty() ? std::string("read-back") : "read-back (" + way + ")";
}

// The running mode's phases (`tag`: FrameTimers' tag of the mode) as the panel lists them.
inline std::vector<PhaseLine> phase_lines(const FrameTimers& timers, int tag) {
  std::vector<PhaseLine> lines;
  for (const Phase phase : all_phases()) {
    if (!timers.has(tag, phase)) continue;
    const PhaseStats& stats = timers.stats(tag, phase);
    lines.push_back({to_string(phase), to_string(stats.clock), stats.last_ms, stats.median_ms, stats.p90_ms,
                     stats.samples, stats.measured});
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

// The page's names for the CUDA devices ("0: NVIDIA H200", "(drives the graphics)" after those of
// `drives_graphics`), one per ordinal.
inline std::vector<std::string> device_names(const interop::CudaDevices& devices,
                                             const std::vector<int>& drives_graphics = {}) {
  std::vector<std::string> names;
  for (const interop::CudaDeviceInfo& info : devices.devices) {
    const bool drives =
        std::find(drives_graphics.begin(), drives_graphics.end(), info.ordinal) != drives_graphics.end();
    names.push_back(std::to_string(info.ordinal) + ": " + info.name +
                    (drives ? " (drives the graphics)" : ""));
  }
  return names;
}

// The scene's filter as the state names it: "" in a scene without one.
inline std::string filter_name(const FrameSource& scene) {
  const std::optional<kernels::Filter> filter = scene.filter();
  return filter ? kernels::to_string(*filter) : "";
}

// The flags as the state shows them: settable with `access` (GL), or not, saying why (`why_not`).
inline FlagsState flags_state(const AccessSettings& access) {
  FlagsState flags;
  flags.settable = true;
  if (access.map_access) flags.map_flags = interop::to_string(*access.map_access);
  if (access.register_access) flags.register_flags = interop::to_string(*access.register_access);
  return flags;
}
constexpr const char* kNoFlags =
    "this graphics API registers nothing with CUDA: map and register flags are OpenGL's (its interop, "
    "reregister, pbo and split modes; run with --api gl)";
inline FlagsState no_flags() {
  FlagsState flags;
  flags.why_not = kNoFlags;
  return flags;
}
// Why a loop without request_device keeps its CUDA device.
constexpr const char* kNoDeviceSwitch =
    "this app's CUDA device is chosen at start (--device N); OpenGL's app (--api gl) moves to another live";

}  // namespace lab::serve
