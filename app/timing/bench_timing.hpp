// app/timing/bench_timing.hpp — how every benchmark of the app times a case (the GL one in
// app/gl/app/bench.cpp, the Vulkan one in app/vulkan/app/bench.cpp): a warm-up, then the measured frames,
// each one's wall time. No graphics API and no GPU: the caller's frame does the work and waits for it.
#pragma once

#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace lab {

// Without --bench-frames, a slow case stops measuring after this many seconds once kMinBenchFrames are in.
constexpr double kBenchCaseSeconds = 4.0;
constexpr long long kMinBenchFrames = 10;

// `frame(i)` runs for the warm-up (20 frames, or 1 s of a slow case), then for the measured frames:
// exactly `fixed_frames` when given (--bench-frames), else up to `default_frames`, stopping after
// kBenchCaseSeconds once kMinBenchFrames are in. Returns the wall time of each measured frame in ms.
// `frame` must end with everything it queued finished (glFinish / stream sync / device idle).
std::vector<double> time_frames(std::optional<long long> fixed_frames,
                                const std::function<void(long long)>& frame, long long default_frames = 300);

// Two frames that do the same work two ways, timed side by side: time_frames' warm-up and count of pairs,
// each pair running `first(i)` and `second(i)` with the same index, each timed alone, and the order swapped
// from one pair to the next (first second, second first, ...), so each goes first as often as second and what
// drifts on the host reaches both alike. Returns the measured pairs' wall times in ms: first's, then
// second's.
std::pair<std::vector<double>, std::vector<double>> time_frame_pairs(
    std::optional<long long> fixed_frames, const std::function<void(long long)>& first,
    const std::function<void(long long)>& second, long long default_frames = 300);

// How the throughput rows are timed (GL's app/gl/app/bench_throughput.cpp, Vulkan's app/vulkan/
// bench_throughput.cpp), where no single frame's time says anything: `issue(index)` queues the `step` frames
// from `index` on (one frame in flight, or one hand-off of `step` frames) without waiting for them unless it
// must; `finish()` waits for everything queued. A warm-up of 20 frames (whole steps) and finish, then
// `frames` rounded up to whole steps and finish once at the end: returns their wall time over their count,
// in ms per frame.
double ms_per_frame_issued(long long frames, long long step, const std::function<void(long long)>& issue,
                           const std::function<void()>& finish);

}  // namespace lab
