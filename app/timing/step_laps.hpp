// app/timing/step_laps.hpp — where a short piece of work on the host spends its time, step by step (the
// desk's read-back: its map, its kernel launch, its copy...), on the host clock, for --bench --serve to
// print. Off by default: then start() and lap() read no clock and keep nothing, so a frame loop pays a branch
// per step.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace lab {

// One step's host time.
struct StepTime {
  std::string name;
  double ms = 0.0;
};

class StepLaps {
 public:
  // The steps' names, in the order take() lists them; lap(i) is names[i]'s.
  explicit StepLaps(std::vector<std::string> names)
      : m_names(std::move(names)), m_ms(m_names.size(), 0.0), m_ran(m_names.size(), false) {}

  void set_enabled(bool on) {
    m_enabled = on;
    take();
  }
  bool enabled() const { return m_enabled; }

  // The first step starts now.
  void start() {
    if (m_enabled) m_last = Clock::now();
  }
  // Step `step` ends now (it began at start() or the lap before); the next one starts.
  void lap(size_t step) {
    if (!m_enabled) return;
    const Clock::time_point now = Clock::now();
    m_ms[step] += std::chrono::duration<double, std::milli>(now - m_last).count();
    m_ran[step] = true;
    m_last = now;
  }

  // The steps that ran since the last take(), each summed, in the names' order; then none.
  std::vector<StepTime> take() {
    std::vector<StepTime> steps;
    for (size_t i = 0; i < m_names.size(); ++i) {
      if (m_ran[i]) steps.push_back({m_names[i], m_ms[i]});
      m_ms[i] = 0.0;
      m_ran[i] = false;
    }
    return steps;
  }

 private:
  using Clock = std::chrono::steady_clock;
  std::vector<std::string> m_names;
  std::vector<double> m_ms;
  std::vector<bool> m_ran;
  bool m_enabled = false;
  Clock::time_point m_last;
};

}  // namespace lab
