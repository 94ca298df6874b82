// app/timing/bench_timing.cpp — time_frames: warm-up, then the measured frames, stoppable by a signal; and
// ms_per_frame_issued, the throughput rows' clock: the same without a wait per frame.
#include "app/timing/bench_timing.hpp"

#include "app/os/signals.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <utility>

namespace lab {
namespace {

constexpr int kWarmUpFrames = 20;
constexpr double kWarmUpSeconds = 1.0;  // a slow case (the CPU path at 8K) warms up for this long at most

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

std::vector<double> time_frames(std::optional<long long> fixed_frames,
                                const std::function<void(long long)>& frame, long long default_frames) {
  const auto warm_up_start = std::chrono::steady_clock::now();
  long long index = 0;
  while (index < kWarmUpFrames && (index < 2 || seconds_since(warm_up_start) < kWarmUpSeconds)) {
    stop_if_requested();  // SIGINT/SIGTERM/SIGHUP: out through main(), tearing down in order
    frame(index++);
  }
  const long long most = fixed_frames.value_or(default_frames);
  std::vector<double> wall_ms;
  const auto started = std::chrono::steady_clock::now();
  for (long long i = 0; i < most; ++i) {
    stop_if_requested();
    const auto begin = std::chrono::steady_clock::now();
    frame(index++);
    wall_ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count());
    if (!fixed_frames && seconds_since(started) > kBenchCaseSeconds &&
        static_cast<long long>(wall_ms.size()) >= kMinBenchFrames)
      break;
  }
  return wall_ms;
}

std::pair<std::vector<double>, std::vector<double>> time_frame_pairs(
    std::optional<long long> fixed_frames, const std::function<void(long long)>& first,
    const std::function<void(long long)>& second, long long default_frames) {
  std::vector<double> first_ms, second_ms;
  const auto timed = [](const std::function<void(long long)>& frame, long long index,
                        std::vector<double>& into) {
    const auto begin = std::chrono::steady_clock::now();
    frame(index);
    into.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count());
  };
  const size_t pairs = time_frames(
                           fixed_frames,
                           [&](long long index) {
                             if (index % 2 == 0) {
                               timed(first, index, first_ms);
                               timed(second, index, second_ms);
                             } else {
                               timed(second, index, second_ms);
                               timed(first, index, first_ms);
                             }
                           },
                           default_frames)
                           .size();
  // The warm-up's pairs came first: keep the measured ones.
  first_ms.erase(first_ms.begin(), first_ms.end() - static_cast<std::ptrdiff_t>(pairs));
  second_ms.erase(second_ms.begin(), second_ms.end() - static_cast<std::ptrdiff_t>(pairs));
  return {std::move(first_ms), std::move(second_ms)};
}

double ms_per_frame_issued(long long frames, long long step, const std::function<void(long long)>& issue,
                           const std::function<void()>& finish) {
  step = std::max(step, 1LL);
  long long index = 0;
  for (; index < kWarmUpFrames; index += step) {
    stop_if_requested();
    issue(index);
  }
  finish();
  const long long measured = std::max((frames + step - 1) / step, 1LL) * step;
  const auto started = std::chrono::steady_clock::now();
  for (long long done = 0; done < measured; done += step, index += step) {
    stop_if_requested();
    issue(index);
  }
  finish();
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return ms / static_cast<double>(measured);
}

}  // namespace lab
