// python/viewer_points.cpp — the memory of the viewer's points and their bounds (python/viewer_points.hpp).
#include "python/viewer_points.hpp"

#include "app/scene/array_source.hpp"
#include "interop/error.hpp"
#include "kernels/convert.hpp"

#include <array>
#include <stdexcept>
#include <string>

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

void Cloud::ensure(long long n) {
  if (n == m_allocated) return;
  m_allocated = 0;
  m_count = 0;
  const auto xyz_bytes = static_cast<size_t>(n) * kXyzBytes, rgba_bytes = static_cast<size_t>(n) * kRgbaBytes;
  if (m_on_device) {
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
  if (n < 1 || n > lab::kMaxPoints)
    throw std::invalid_argument("points: " + std::to_string(n) + " points: pass from 1 to " +
                                std::to_string(lab::kMaxPoints));
  ensure(n);
  m_stream = stream;
  Targets targets;
  if (m_on_device) {
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
}

void Cloud::abandon() {
  m_open = false;
  m_count = 0;  // what the block wrote is half a set: nothing is shown of it
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
  if (m_on_device) return device_bounds(m_device_xyz.data(), stream);
  std::array<double, 3> low{}, high{};
  std::array<long long, 3> finite{};
  for (size_t axis = 0; axis < 3; ++axis)
    kernels::find_value_bounds_cpu(axis_of(m_host_xyz.data(), m_count, static_cast<int>(axis)), &low[axis],
                                   &high[axis], &finite[axis]);
  return bounds_of(low, high, finite);
}

}  // namespace ilab::points
