// kernels/cpu.cpp — the CPU reference launchers: the same per-element functions as the CUDA
// kernels, in plain loops. Rows are split across hardware threads so 4K frames stay interactive.
#include "kernels/pattern.hpp"
#include "kernels/wave.hpp"

#include <algorithm>
#include <thread>
#include <vector>

namespace kernels {
namespace {

// Calls body(begin, end) on disjoint row ranges covering [0, rows), one range per hardware thread.
template <class Body>
void parallel_rows(int rows, const Body& body) {
  const int threads = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, 16);
  if (threads == 1 || rows < 64) {
    body(0, rows);
    return;
  }
  std::vector<std::thread> workers;
  const int chunk = (rows + threads - 1) / threads;
  for (int begin = 0; begin < rows; begin += chunk)
    workers.emplace_back([&body, begin, end = std::min(rows, begin + chunk)] { body(begin, end); });
  for (std::thread& worker : workers) worker.join();
}

}  // namespace

void wave_cpu(WaveVertex* vertices, const WaveParams& params) {
  parallel_rows(params.grid_z, [&](int begin, int end) {
    for (int j = begin; j < end; ++j)
      for (int i = 0; i < params.grid_x; ++i) vertices[j * params.grid_x + i] = wave_vertex(i, j, params);
  });
}

void pattern_cpu(PitchedImage image, const PatternParams& params) {
  parallel_rows(params.height, [&](int begin, int end) {
    for (int y = begin; y < end; ++y) {
      Rgba8* out = row(image, y);
      for (int x = 0; x < params.width; ++x) out[x] = pattern_texel(x, y, params);
    }
  });
}

}  // namespace kernels
