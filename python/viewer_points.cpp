// python/viewer_points.cpp — the viewer's points (python/viewer_points.hpp): two GL vertex buffers, filled
// where the viewer's path says, drawn as squares with a depth test.
#include "python/viewer_points.hpp"

#include "interop/error.hpp"
#include "kernels/convert.hpp"

#include <glm/gtc/type_ptr.hpp>

#include <array>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

namespace ilab::points {

namespace {

constexpr size_t kXyzBytes = 12;  // three float32 a point
constexpr size_t kRgbaBytes = 4;

// Axis `axis` of n packed points at `xyz` as one column of float32 values, for the bounds' reductions.
kernels::ConvertDesc axis_of(const void* xyz, long long n, int axis) {
  kernels::ConvertDesc desc;
  desc.source = static_cast<const unsigned char*>(xyz) + axis * 4;
  desc.height = 1;
  desc.width = static_cast<int>(n);
  desc.channels = 1;
  desc.row_stride = static_cast<long long>(n) * kXyzBytes;
  desc.column_stride = kXyzBytes;
  desc.channel_stride = 4;
  desc.type = kernels::ElementType::F32;
  return desc;
}

// Bounds from the three axes' (low, high, finite); a point with a NaN or an inf in one axis still counts in
// the others, which is what a user framing "the finite points" expects of a stray value.
camera::Bounds bounds_of(const std::array<double, 3>& low, const std::array<double, 3>& high,
                         const std::array<long long, 3>& finite) {
  camera::Bounds bounds;
  bounds.empty = finite[0] == 0 || finite[1] == 0 || finite[2] == 0;
  if (bounds.empty) return bounds;
  for (int axis = 0; axis < 3; ++axis) {
    bounds.low[axis] = static_cast<float>(low[axis]);
    bounds.high[axis] = static_cast<float>(high[axis]);
  }
  return bounds;
}

}  // namespace

Cloud::Cloud(Memory memory, lab::GlProgram program)
    : m_memory(memory),
      m_program(std::move(program)),
      m_vertex_array(lab::create_vertex_array("viewer points")) {
  const GLuint array = m_vertex_array.get();
  glEnableVertexArrayAttrib(array, 0);
  glVertexArrayAttribFormat(array, 0, 3, GL_FLOAT, GL_FALSE, 0);
  glVertexArrayAttribBinding(array, 0, 0);
  glEnableVertexArrayAttrib(array, 1);
  glVertexArrayAttribFormat(array, 1, 4, GL_UNSIGNED_BYTE, GL_TRUE, 0);
  glVertexArrayAttribBinding(array, 1, 1);
  INTEROP_GL_CHECK("setting up the points' vertex array");
}

Cloud::~Cloud() {
  try {
    m_map.reset();  // unmapped before the registrations and buffers go
  } catch (...) {
  }
}

void Cloud::ensure(long long n) {
  if (n == m_allocated) return;
  m_xyz_registration.reset();  // before the buffers they register
  m_rgba_registration.reset();
  m_allocated = 0;
  m_count = 0;
  const auto xyz_bytes = static_cast<size_t>(n) * kXyzBytes, rgba_bytes = static_cast<size_t>(n) * kRgbaBytes;
  m_xyz = lab::create_buffer(xyz_bytes, nullptr, GL_DYNAMIC_STORAGE_BIT, "viewer points xyz");
  m_rgba = lab::create_buffer(rgba_bytes, nullptr, GL_DYNAMIC_STORAGE_BIT, "viewer points rgba");
  INTEROP_GL_CHECK("creating the points' buffers");
  glVertexArrayVertexBuffer(m_vertex_array.get(), 0, m_xyz.get(), 0, kXyzBytes);
  glVertexArrayVertexBuffer(m_vertex_array.get(), 1, m_rgba.get(), 0, kRgbaBytes);
  if (m_memory == Memory::Interop) {
    // Not WriteDiscard: a points_frame() block may move some points and keep the rest.
    m_xyz_registration.emplace(interop::BufferRegistrationDesc{m_xyz.get(), interop::Access::ReadWrite});
    m_rgba_registration.emplace(interop::BufferRegistrationDesc{m_rgba.get(), interop::Access::ReadWrite});
  } else {
    if (m_memory == Memory::Staging) {
      m_device_xyz = interop::DeviceBuffer(xyz_bytes);
      m_device_rgba = interop::DeviceBuffer(rgba_bytes);
    }
    m_host_xyz.assign(xyz_bytes, 0);
    m_host_rgba.assign(rgba_bytes, 0);
  }
  m_allocated = n;
}

Targets Cloud::begin(long long n, cudaStream_t stream) {
  if (in_update()) throw std::logic_error("points: an update is open already: finish it first");
  if (n < 1 || n > kMaxPoints)
    throw std::invalid_argument("points: " + std::to_string(n) + " points: pass from 1 to " +
                                std::to_string(kMaxPoints));
  ensure(n);
  m_stream = stream;
  Targets targets;
  if (m_memory == Memory::Interop) {
    m_map.emplace(
        std::vector<cudaGraphicsResource_t>{m_xyz_registration->resource(), m_rgba_registration->resource()},
        stream);
    targets.xyz = m_map->pointer(0).data;
    targets.rgba = m_map->pointer(1).data;
    targets.on_device = true;
  } else if (m_memory == Memory::Staging) {
    targets.xyz = m_device_xyz.data();
    targets.rgba = m_device_rgba.data();
    targets.on_device = true;
  } else {
    targets.xyz = m_host_xyz.data();
    targets.rgba = m_host_rgba.data();
  }
  m_open = true;
  m_count = n;
  m_targets = targets;
  return targets;
}

void Cloud::end() {
  if (!in_update()) throw std::logic_error("points: end without begin");
  m_open = false;
  if (m_memory == Memory::Interop) {
    interop::ScopedMap map = std::move(*m_map);
    m_map.reset();
    map.unmap();  // on the update's stream, after what the caller queued there: GL draws once it ran
    return;
  }
  if (m_memory == Memory::Staging) {
    // Without interop GL takes host memory only: the host waits for the copy back.
    INTEROP_CUDA_CHECK(cudaMemcpyAsync(m_host_xyz.data(), m_device_xyz.data(), m_host_xyz.size(),
                                       cudaMemcpyDeviceToHost, m_stream));
    INTEROP_CUDA_CHECK(cudaMemcpyAsync(m_host_rgba.data(), m_device_rgba.data(), m_host_rgba.size(),
                                       cudaMemcpyDeviceToHost, m_stream));
    INTEROP_CUDA_CHECK(cudaStreamSynchronize(m_stream));
  }
  glNamedBufferSubData(m_xyz.get(), 0, static_cast<GLsizeiptr>(m_host_xyz.size()), m_host_xyz.data());
  glNamedBufferSubData(m_rgba.get(), 0, static_cast<GLsizeiptr>(m_host_rgba.size()), m_host_rgba.data());
  INTEROP_GL_CHECK("uploading the points");
}

void Cloud::abandon() {
  m_open = false;
  m_count = 0;  // what the block wrote is half a set: nothing is drawn until the next one
  if (m_map) {
    interop::ScopedMap map = std::move(*m_map);
    m_map.reset();
    map.unmap();
  }
}

camera::Bounds Cloud::device_bounds(const void* xyz, cudaStream_t stream) {
  if (m_bounds.size() == 0) m_bounds = interop::DeviceBuffer(3 * kernels::kValueBoundsBytes);
  auto* keys = static_cast<unsigned char*>(m_bounds.data());
  for (int axis = 0; axis < 3; ++axis)
    INTEROP_CUDA_CHECK(kernels::find_value_bounds(axis_of(xyz, m_count, axis),
                                                  keys + axis * kernels::kValueBoundsBytes, stream));
  std::array<unsigned char, 3 * kernels::kValueBoundsBytes> host{};
  INTEROP_CUDA_CHECK(cudaMemcpyAsync(host.data(), keys, host.size(), cudaMemcpyDeviceToHost, stream));
  INTEROP_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::array<double, 3> low{}, high{};
  std::array<long long, 3> finite{};
  for (size_t axis = 0; axis < 3; ++axis)
    kernels::read_value_bounds(host.data() + axis * kernels::kValueBoundsBytes, &low[axis], &high[axis],
                               &finite[axis]);
  return bounds_of(low, high, finite);
}

camera::Bounds Cloud::bounds(cudaStream_t stream) {
  if (m_count == 0) return {};
  if (m_memory == Memory::Interop) {
    if (m_map) return device_bounds(m_map->pointer(0).data, stream);
    interop::ScopedMap map({m_xyz_registration->resource()}, stream);
    const camera::Bounds bounds = device_bounds(map.pointer(0).data, stream);
    map.unmap();
    return bounds;
  }
  if (m_memory == Memory::Staging) return device_bounds(m_device_xyz.data(), stream);
  std::array<double, 3> low{}, high{};
  std::array<long long, 3> finite{};
  for (size_t axis = 0; axis < 3; ++axis)
    kernels::find_value_bounds_cpu(axis_of(m_host_xyz.data(), m_count, static_cast<int>(axis)), &low[axis],
                                   &high[axis], &finite[axis]);
  return bounds_of(low, high, finite);
}

void Cloud::draw(const glm::mat4& view_projection, float size, int width, int height, GLuint framebuffer) {
  if (m_target.width != width || m_target.height != height)
    m_target = lab::create_offscreen_target(width, height, "viewer points target");
  glBindFramebuffer(GL_FRAMEBUFFER, m_target.framebuffer.get());
  glViewport(0, 0, width, height);
  glDisable(GL_BLEND);
  glDisable(GL_SCISSOR_TEST);
  glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
  glClearDepth(1.0);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  if (m_count > 0) {
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);  // of two points at one depth, the first drawn stays
    glEnable(GL_PROGRAM_POINT_SIZE);
    glUseProgram(m_program.get());
    glUniformMatrix4fv(0, 1, GL_FALSE, glm::value_ptr(view_projection));
    glUniform1f(1, size);
    glBindVertexArray(m_vertex_array.get());
    glDrawArrays(GL_POINTS, 0, static_cast<GLsizei>(m_count));
    glBindVertexArray(0);
    glUseProgram(0);
    glDisable(GL_PROGRAM_POINT_SIZE);
    glDisable(GL_DEPTH_TEST);
  }
  glBlitNamedFramebuffer(m_target.framebuffer.get(), framebuffer, 0, 0, width, height, 0, 0, width, height,
                         GL_COLOR_BUFFER_BIT, GL_NEAREST);
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
  INTEROP_GL_CHECK("drawing the points");
}

}  // namespace ilab::points
