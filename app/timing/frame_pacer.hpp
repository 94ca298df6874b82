// app/timing/frame_pacer.hpp — a frame-rate cap: wait() before each frame sleeps until the frame's
// deadline, then sets the next one a period later. The frame loop paces itself with one when no desk
// serves (the panel's cap), and the desk (app/serve/desk.hpp) with its own (the page's cap).
#pragma once

#include <algorithm>
#include <chrono>
#include <thread>

namespace lab {

class FramePacer {
 public:
  using Clock = std::chrono::steady_clock;

  // `fps`: frames a second at most; 0 paces nothing.
  explicit FramePacer(double fps = 0.0) : m_fps(fps) {}

  double fps() const { return m_fps; }
  // A new cap (0: none). The next frame starts at once, not at the deadline the old cap set.
  void set_fps(double fps) {
    m_fps = fps;
    reset();
  }
  // The next frame starts at once.
  void reset() { m_next = Clock::now(); }

  // Sleeps until the frame's deadline and sets the next one; returns at once without a cap.
  void wait() {
    if (m_fps <= 0) return;
    std::this_thread::sleep_until(m_next);
    m_next = next_deadline(m_next, Clock::now(), m_fps);
  }
  // When the next frame may start (the past: at once).
  Clock::time_point deadline() const { return m_next; }

  // The deadline after a frame that was due at `due` and started at `now`: a period on from the later of
  // the two, so a slow frame does not make the next ones rush to catch up.
  static Clock::time_point next_deadline(Clock::time_point due, Clock::time_point now, double fps) {
    return std::max(due, now) +
           std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / fps));
  }

 private:
  double m_fps = 0.0;
  Clock::time_point m_next = Clock::now();
};

}  // namespace lab
