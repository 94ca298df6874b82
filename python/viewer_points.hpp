// python/viewer_points.hpp — the viewer's points (Viewer.points, Viewer.points_frame): n positions (x, y, z
// float32, 12 bytes each) and n colours (RGBA8) in two GL vertex buffers, drawn as GL_POINTS squares of a
// size in frame pixels, nearest first (a depth test), seen through python/viewer_camera.hpp's orbit camera.
//
// Where the caller's kernels write, by the viewer's path (python/viewer.cpp):
//   interop  the two GL buffers themselves, registered with CUDA and mapped on the caller's stream between
//            begin() and end(): the positions the job writes are the ones GL draws (zero copy);
//   staging  device memory, copied to the host and uploaded at end();
//   cpu      host memory, uploaded at end().
#pragma once

#include "app/gl/gl_objects.hpp"
#include "interop/gl.hpp"
#include "interop/mapping.hpp"
#include "interop/memory.hpp"
#include "python/viewer_camera.hpp"

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
  // `program`: the point shader (viewer.cpp links it with the viewer's other shaders).
  Cloud(Memory memory, lab::GlProgram program);
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
  // the host waits for their 72 bytes; interop maps the buffer on `stream` for them, outside an update).
  camera::Bounds bounds(cudaStream_t stream);

  // Draws the points, nearest first, on black into a width x height target of its own (colour and depth),
  // then copies that into `framebuffer` (the viewer's window or headless frame).
  void draw(const glm::mat4& view_projection, float size, int width, int height, GLuint framebuffer);

  long long count() const { return m_count; }

 private:
  void ensure(long long n);
  camera::Bounds device_bounds(const void* xyz, cudaStream_t stream);

  Memory m_memory;
  lab::GlProgram m_program;
  lab::OffscreenTarget m_target;
  lab::GlVertexArray m_vertex_array;
  lab::GlBuffer m_xyz, m_rgba;
  std::optional<interop::GlBufferRegistration> m_xyz_registration, m_rgba_registration;
  std::optional<interop::ScopedMap> m_map;                      // interop, between begin() and end()
  interop::DeviceBuffer m_device_xyz, m_device_rgba, m_bounds;  // staging; the bounds' reductions
  std::vector<unsigned char> m_host_xyz, m_host_rgba;           // staging, cpu: what is uploaded
  cudaStream_t m_stream = nullptr;
  Targets m_targets;
  long long m_count = 0;      // points drawn
  long long m_allocated = 0;  // points the buffers hold
  bool m_open = false;        // between begin() and end() on staging and cpu
};

}  // namespace ilab::points
