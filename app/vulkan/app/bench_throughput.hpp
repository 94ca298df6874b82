// app/vulkan/app/bench_throughput.hpp — the Vulkan benchmark's throughput rows (app/bench/report.hpp's
// Throughput), as GL's (app/gl/app/bench_throughput.hpp) for its map/unmap frame: the external mode's frame
// (Vulkan allocates exportable memory, CUDA imports it, a timeline semaphore orders the two) written with
// raw calls, at the scene's size, in every form of bench::throughput_forms():
//   - latency (1 in flight, 1 per hand-off): CUDA waits on the semaphore -> the scene's kernels -> signals ->
//     Vulkan draws the frame -> the host waits for it;
//   - N frames in flight (2, 3): N copies of the scene's resources in turn, each with a semaphore of its own;
//     the host waits only for the frame N back, the one that last used the copy it is about to reuse;
//   - K frames per hand-off (2, 4): K copies; one semaphore wait, K kernels (frames i..i+K-1) into the K
//     copies, one signal, then Vulkan draws the K frames in turn; the host waits once per K frames.
#pragma once

#include "app/bench/report.hpp"
#include "app/cli/cli.hpp"
#include "app/image/image_io.hpp"
#include "app/scene/scene_compute.hpp"

#include <vector>

namespace lab::vulkan {

// A frame a row drew, read back once its frames are done: the tests hold it against the cpu frame of the
// same index.
struct ThroughputFrame {
  bench::ThroughputForm form;
  long long index = -1;
  Image image;  // top row first, as App::read_frame
};

// A row per form of `forms` (bench::plan_throughput's: frames in flight or frames per hand-off, not both) for
// `scene` at `extent`, path "external (timeline)"; options.bench_frames measured frames a row (default 300)
// after a warm-up, on CUDA device options.device (else 0) and the Vulkan device with its UUID. Raw calls:
// interop:: imports and the renderer's public API, one Renderer per copy of the resources on one Context,
// nothing of the app's frame loop. `frames`, when given, receives the last frame drawn into each copy of
// each row. Throws std::runtime_error with the reason where the rows cannot run (no CUDA device, a Vulkan
// driver without semaphore or memory export), std::invalid_argument for a form with both.
std::vector<bench::Throughput> measure_throughput(const Options& options, SceneId scene, Extent extent,
                                                  const std::vector<bench::ThroughputForm>& forms,
                                                  std::vector<ThroughputFrame>* frames = nullptr);

}  // namespace lab::vulkan
