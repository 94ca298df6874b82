// app/gl/bench.hpp — `interop-lab --bench`: every available mode x scene x size (or the cases --scene,
// --mode and --size pick), headless, measured against references taken in the same run: the floor
// (the kernels alone), the hand-off (map + unmap alone), the graphics (the GL work alone) and the bare
// loop (the minimal correct frame with direct CUDA calls). bench.cpp says how.
#pragma once

#include "app/cli.hpp"

#include <functional>
#include <optional>
#include <vector>

namespace lab {

int run_bench(const Options& options);

// How every benchmark of the app times a case (the GL one here, the Vulkan one in app/vulkan/bench.cpp):
// `frame(i)` runs for the warm-up (20 frames, or 1 s of a slow case), then for the measured frames:
// exactly `fixed_frames` when given (--bench-frames), else up to `default_frames`, stopping after 4 s once
// 10 are in. Returns the wall time of each measured frame in ms. `frame` must end with everything it
// queued finished (glFinish / stream sync / device idle).
std::vector<double> time_frames(std::optional<long long> fixed_frames, const std::function<void(long long)>& frame,
                                long long default_frames = 300);

}  // namespace lab
