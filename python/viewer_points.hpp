// python/viewer_points.hpp — the memory of the viewer's points (Viewer.points, Viewer.points_frame): n
// positions (x, y, z float32, 12 bytes each) and n colours (RGBA8), which the caller's kernels write and the
// one loop draws with no copy (app/scene/array_source.hpp's show_points: kernels/points.hpp in CUDA, or its
// CPU reference in cpu mode), and their bounds, which the orbit camera frames.
//
// Where the caller's writes go: device memory of the viewer's CUDA device where the loop runs a CUDA mode,
// else host memory.
#pragma once

#include "app/scene/orbit.hpp"
#include "interop/memory.hpp"

#include <cuda_runtime_api.h>

#include <vector>

namespace ilab::points {

struct Targets {
  void* xyz = nullptr;   // n x 3 float32, 12 bytes a point
  void* rgba = nullptr;  // n x RGBA8
  bool on_device = false;
};

class Cloud {
 public:
  // on_device: the points live in device memory of the current CUDA device, else in host memory.
  explicit Cloud(bool on_device) : m_on_device(on_device) {}

  // Where the next n points go (the memory is remade when n changes; what it held stays where it does not):
  // written on `stream` until end(). Throws std::invalid_argument for n outside 1..lab::kMaxPoints,
  // std::logic_error inside a begin/end.
  Targets begin(long long n, cudaStream_t stream);
  void end();
  // Gives up a begin() whose writes are not to be shown (an exception in the caller's block).
  void abandon();
  bool in_update() const { return m_open; }
  bool on_device() const { return m_on_device; }
  // Inside an update: where its points go (what begin() handed out); after end(), where they are.
  Targets targets() const { return m_targets; }
  // The stream the last update wrote on.
  cudaStream_t stream() const { return m_stream; }

  // The finite points' bounds, per axis, of the positions held now (on the device: three reductions on
  // `stream`, and the host waits for their 72 bytes).
  lab::orbit::Bounds bounds(cudaStream_t stream);

  long long count() const { return m_count; }

 private:
  void ensure(long long n);
  lab::orbit::Bounds device_bounds(const void* xyz, cudaStream_t stream);

  bool m_on_device;
  interop::DeviceBuffer m_device_xyz, m_device_rgba, m_bounds;  // device; the bounds' reductions
  std::vector<unsigned char> m_host_xyz, m_host_rgba;           // host
  cudaStream_t m_stream = nullptr;                              // the open update's
  Targets m_targets;
  long long m_count = 0;      // points shown
  long long m_allocated = 0;  // points the memory holds
  bool m_open = false;        // between begin() and end()
};

}  // namespace ilab::points
