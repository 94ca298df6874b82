// app/gl/app/bench_throughput.hpp — the GL benchmark's throughput rows (app/bench/report.hpp's Throughput):
// the interop mode's map/unmap frame written with raw calls at the scene's size, each frame finished before
// the next (the latency row), with frames in flight (no wait each frame; textures N-buffered, fences N frames
// back) and with K frames per hand-off (K textures mapped in one call, written by K kernels, shown in turn).
#pragma once

#include "app/bench/report.hpp"

#include <optional>
#include <vector>

namespace lab::gl {

class App;

// The rows for App's current size (the caller sets their scene); `frames` measured frames a row
// (--bench-frames; default 300) after a warm-up. Needs CUDA-GL interop (App::interop_support()).
std::vector<bench::Throughput> measure_throughput(App& app, std::optional<long long> frames);

}  // namespace lab::gl
