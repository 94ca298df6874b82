// python/viewer_points.cpp — the viewer's points (python/viewer_points.hpp): positions and colours where the
// viewer's path says, drawn by kernels/points.hpp into a texture that is copied into the viewer's frame.
#include "python/viewer_points.hpp"

#include "interop/error.hpp"
#include "interop/surface.hpp"
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
lab::orbit::Bounds bounds_of(const std::array<double, 3>& low, const std::array<double, 3>& high,
                             const std::array<long long, 3>& finite) {
  lab::orbit::Bounds bounds;
  bounds.empty = finite[0] == 0 || finite[1] == 0 || finite[2] == 0;
  if (bounds.empty) return bounds;
  for (int axis = 0; axis < 3; ++axis) {
    bounds.low[axis] = static_cast<float>(low[axis]);
    bounds.high[axis] = static_cast<float>(high[axis]);
  }
  return bounds;
}

}  // namespace

Cloud::Cloud(Memory memory) : m_memory(memory) {
  if (m_memory != Memory::Host) {
    m_draw_stream.emplace();
    m_updated.emplace();
  }
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
  if (m_memory == Memory::Interop) {
    m_xyz = lab::gl::create_buffer(xyz_bytes, nullptr, GL_DYNAMIC_STORAGE_BIT, "viewer points xyz");
    m_rgba = lab::gl::create_buffer(rgba_bytes, nullptr, GL_DYNAMIC_STORAGE_BIT, "viewer points rgba");
    INTEROP_GL_CHECK("creating the points' buffers");
    // Not WriteDiscard: a points_frame() block may move some points and keep the rest.
    m_xyz_registration.emplace(interop::BufferRegistrationDesc{m_xyz.get(), interop::Access::ReadWrite});
    m_rgba_registration.emplace(interop::BufferRegistrationDesc{m_rgba.get(), interop::Access::ReadWrite});
  } else if (m_memory == Memory::Staging) {
    m_device_xyz = interop::DeviceBuffer(xyz_bytes);
    m_device_rgba = interop::DeviceBuffer(rgba_bytes);
  } else {
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
    map.unmap();  // on the update's stream, after what the caller queued there
  }
  // The draws wait for what the caller queued; the caller's stream waits for nothing of the viewer's.
  if (m_updated) m_updated->order(m_stream, m_draw_stream->get());
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

lab::orbit::Bounds Cloud::device_bounds(const void* xyz, cudaStream_t stream) {
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

lab::orbit::Bounds Cloud::bounds(cudaStream_t stream) {
  if (m_count == 0) return {};
  if (!in_update() && m_draw_stream) stream = m_draw_stream->get();
  if (m_memory == Memory::Interop) {
    if (m_map) return device_bounds(m_map->pointer(0).data, stream);
    interop::ScopedMap map({m_xyz_registration->resource()}, stream);
    const lab::orbit::Bounds bounds = device_bounds(map.pointer(0).data, stream);
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

void Cloud::ensure_frame(int width, int height) {
  if (m_target.width == width && m_target.height == height) return;
  m_frame_registration.reset();  // before the texture it registers
  m_target = lab::gl::create_colour_target(width, height, "viewer points target");
  const size_t frame_bytes = static_cast<size_t>(width) * height * kRgbaBytes;
  if (m_memory == Memory::Host) {
    m_host_frame.assign(frame_bytes, 0);
    return;
  }
  m_keys = interop::DeviceBuffer(kernels::points_keys_bytes(width, height));
  if (m_memory == Memory::Interop) {
    interop::TextureRegistrationDesc desc;
    desc.texture = m_target.color.get();
    desc.internal_format = GL_RGBA8;
    desc.access = interop::Access::WriteDiscard;
    desc.surface_load_store = true;
    m_frame_registration.emplace(desc);
  } else {
    m_device_frame = interop::DeviceBuffer(frame_bytes);
    m_staged_frame = interop::PinnedHostBuffer(frame_bytes);
  }
}

kernels::PointsDesc Cloud::describe(const glm::mat4& view_projection, float size, int width,
                                    int height) const {
  kernels::PointsDesc desc;
  desc.count = m_count;
  std::memcpy(desc.view_projection, glm::value_ptr(view_projection), sizeof desc.view_projection);
  desc.size = size;
  desc.width = width;
  desc.height = height;
  return desc;
}

void Cloud::upload(const void* pixels, int width, int height) {
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  glTextureSubImage2D(m_target.color.get(), 0, 0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
}

void Cloud::draw(const glm::mat4& view_projection, float size, int width, int height, GLuint framebuffer) {
  ensure_frame(width, height);
  kernels::PointsDesc desc = describe(view_projection, size, width, height);
  const size_t pitch = static_cast<size_t>(width) * kRgbaBytes;
  if (m_memory == Memory::Interop) {
    // CUDA writes the texture itself through a surface; GL copies it once the unmap has ordered it after.
    const cudaStream_t stream = m_draw_stream->get();
    std::vector<cudaGraphicsResource_t> resources{m_frame_registration->resource()};
    if (m_count > 0) {
      resources.push_back(m_xyz_registration->resource());
      resources.push_back(m_rgba_registration->resource());
    }
    interop::ScopedMap map(std::move(resources), stream);
    if (m_count > 0) {
      desc.xyz = static_cast<const float*>(map.pointer(1).data);
      desc.rgba = static_cast<const kernels::Rgba8*>(map.pointer(2).data);
    }
    const interop::SurfaceObject surface(map.array(0));
    INTEROP_CUDA_CHECK(kernels::draw_points(desc, static_cast<unsigned long long*>(m_keys.data()),
                                            kernels::surface_target(surface.get(), width, height), stream));
    map.unmap();
  } else if (m_memory == Memory::Staging) {
    // Without interop GL takes host memory only: the host waits for the frame.
    const cudaStream_t stream = m_draw_stream->get();
    desc.xyz = static_cast<const float*>(m_device_xyz.data());
    desc.rgba = static_cast<const kernels::Rgba8*>(m_device_rgba.data());
    INTEROP_CUDA_CHECK(kernels::draw_points(
        desc, static_cast<unsigned long long*>(m_keys.data()),
        kernels::linear_target(static_cast<kernels::Rgba8*>(m_device_frame.data()), pitch, width, height),
        stream));
    INTEROP_CUDA_CHECK(cudaMemcpyAsync(m_staged_frame.data(), m_device_frame.data(), m_device_frame.size(),
                                       cudaMemcpyDeviceToHost, stream));
    INTEROP_CUDA_CHECK(cudaStreamSynchronize(stream));
    upload(m_staged_frame.data(), width, height);
  } else {
    desc.xyz = reinterpret_cast<const float*>(m_host_xyz.data());
    desc.rgba = reinterpret_cast<const kernels::Rgba8*>(m_host_rgba.data());
    kernels::draw_points_cpu(
        desc,
        kernels::linear_target(reinterpret_cast<kernels::Rgba8*>(m_host_frame.data()), pitch, width, height));
    upload(m_host_frame.data(), width, height);
  }
  glBlitNamedFramebuffer(m_target.framebuffer.get(), framebuffer, 0, 0, width, height, 0, 0, width, height,
                         GL_COLOR_BUFFER_BIT, GL_NEAREST);
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
  INTEROP_GL_CHECK("drawing the points");
}

}  // namespace ilab::points
