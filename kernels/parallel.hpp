// kernels/parallel.hpp — internal to the kernels library (the CPU launchers): splits image rows over
// hardware threads so the CPU reference keeps 4K frames interactive.
#pragma once

#include <algorithm>
#include <system_error>
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
  workers.reserve(static_cast<size_t>(threads));
  const int chunk = (rows + threads - 1) / threads;
  int begin = 0;
  // A thread that cannot start (no memory for its stack under `ulimit -v`, a process limit) leaves its
  // rows and the rest to this thread: slower, the same frame, and no started worker left unjoined
  // (which would end the process in std::terminate).
  try {
    for (; begin < rows; begin += chunk)
      workers.emplace_back([&body, begin, end = std::min(rows, begin + chunk)] { body(begin, end); });
  } catch (const std::system_error&) {
  }
  if (begin < rows) body(begin, rows);
  for (std::thread& worker : workers) worker.join();
}

}  // namespace kernels
