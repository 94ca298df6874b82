// kernels/parallel.hpp — internal to the kernels library (the CPU launchers): splits image rows over
// hardware threads so the CPU reference keeps 4K frames interactive.
#pragma once

#include <algorithm>
#include <thread>
#include <vector>

namespace kernels {

// Calls body(begin, end) on disjoint row ranges covering [0, rows), one range per hardware thread,
// and returns when all have run.
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

}  // namespace kernels
