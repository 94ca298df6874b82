// python/viewer_points.hpp — the viewer's points (Viewer.points, Viewer.points_frame): n positions (x, y, z
// float32, 12 bytes each) and n colours (RGBA8), drawn as squares of a size in frame pixels, nearest first,
// seen through app/scene/orbit.hpp's orbit camera. kernels/points.hpp draws them, by GL's point rule: in
// CUDA on the interop and staging paths (GL's own point pipeline drew 10 million points at 24 frames a second
// on an H100, on its few graphics units), in its CPU reference on the cpu path.
//
// Where the caller's kernels write, by the viewer's path (python/viewer.cpp):
//   interop  two GL buffers, registered with CUDA and mapped on the caller's stream between begin() and
//            end(): the positions the job writes are the ones drawn (zero copy); CUDA writes the frame's
//            texture itself, registered too;
//   staging  device memory; the frame goes to GL through the host;
//   cpu      host memory, drawn on the host.
#pragma once

#include "app/gl/gl_objects.hpp"
#include "app/scene/orbit.hpp"
#include "interop/gl.hpp"
#include "interop/mapping.hpp"
#include "interop/memory.hpp"
#include "interop/stream.hpp"
#include "kernels/points.hpp"

#include <cuda_runtime_api.h>
#include <glm/glm.hpp>

#include <cstdint>
#include <optional>
#include <vector>

namespace ilab::points {

enum class Memory { Interop, Staging, Host };

// The most points one set holds: 12 + 4 bytes each, 4 GiB in all.
constexpr long long kMaxPoints = 1ll << 28;
constexpr double kMinSize = 1.0, kMaxSize = 64.0;  // a point's edge, frame pixels

struct Targets {
  void* xyz = nullptr;   // n x 3 float32, 12 bytes a point
  void* rgba = nullptr;  // n x RGBA8
  bool on_device = false;
};

class Cloud {
 public:
  // Makes its draw stream on the current CUDA device (interop, staging).
  explicit Cloud(Memory memory);
  Cloud(const Cloud&) = delete;
  Cloud& operator=(const Cloud&) = delete;
  ~Cloud();

  // Where the next n points go (the buffers are remade when n changes): mapped on `stream` (interop).
  // Throws std::invalid_argument for n outside 1..kMaxPoints, std::logic_error inside a begin/end.
  Targets begin(long long n, cudaStream_t stream);
  // Unmaps on the same stream, after what the caller queued there (interop), or uploads.
  void end();
  // Gives up a begin() whose writes are not to be shown (an exception in the caller's block): unmaps.
  void abandon();
  bool in_update() const { return m_map.has_value() || m_open; }
  // Inside an update: where its points go (what begin() handed out).
  Targets targets() const { return m_targets; }

  // The finite points' bounds, per axis, of the positions held now (on the device: three reductions, and
  // the host waits for their 72 bytes): on `stream` inside an update, else on the draw stream.
  lab::orbit::Bounds bounds(cudaStream_t stream);

  // Draws the points, nearest first, on black into a width x height texture of its own, then copies that
  // into `framebuffer` (the viewer's window or headless frame). The host waits on the staging path only.
  void draw(const glm::mat4& view_projection, float size, int width, int height, GLuint framebuffer);

  long long count() const { return m_count; }

 private:
  void ensure(long long n);
  void ensure_frame(int width, int height);
  lab::orbit::Bounds device_bounds(const void* xyz, cudaStream_t stream);
  void upload(const void* pixels, int width, int height);  // host pixels into the frame texture
  kernels::PointsDesc describe(const glm::mat4& view_projection, float size, int width, int height) const;

  Memory m_memory;
  std::optional<interop::Stream> m_draw_stream;  // interop, staging: the draws and the bounds outside updates
  std::optional<interop::Event> m_updated;       // orders the draw stream after an update's stream
  lab::gl::OffscreenTarget m_target;             // the drawn frame, copied into the viewer's
  lab::gl::GlBuffer m_xyz, m_rgba;               // interop
  std::optional<interop::GlBufferRegistration> m_xyz_registration, m_rgba_registration;
  std::optional<interop::GlTextureRegistration> m_frame_registration;  // interop: m_target's colour
  std::optional<interop::ScopedMap> m_map;                             // interop, between begin() and end()
  interop::DeviceBuffer m_device_xyz, m_device_rgba, m_bounds;         // staging; the bounds' reductions
  interop::DeviceBuffer m_keys, m_device_frame;                        // the depth keys; staging's frame
  interop::PinnedHostBuffer m_staged_frame;                            // staging: the frame on its way to GL
  std::vector<unsigned char> m_host_xyz, m_host_rgba;                  // cpu
  std::vector<unsigned char> m_host_frame;                             // cpu: the frame drawn on the host
  cudaStream_t m_stream = nullptr;                                     // the open update's
  Targets m_targets;
  long long m_count = 0;      // points drawn
  long long m_allocated = 0;  // points the buffers hold
  bool m_open = false;        // between begin() and end() on staging and cpu
};

}  // namespace ilab::points
