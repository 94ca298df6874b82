// app/scene/array_source.cpp — the `array` source of frames (app/scene/array_source.hpp).
#include "app/scene/array_source.hpp"

#include "interop/error.hpp"

#include <glm/gtc/type_ptr.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace lab {

void ArraySource::show(const PictureDesc& picture) {
  if (picture.pixels == nullptr) throw std::invalid_argument(m_name + ": a picture with no pixels");
  if (picture.width < 1 || picture.height < 1)
    throw std::invalid_argument(m_name + ": a picture of " + std::to_string(picture.width) + "x" +
                                std::to_string(picture.height) + " pixels; at least 1x1 is shown");
  if (picture.channels != 1 && picture.channels != 3 && picture.channels != 4)
    throw std::invalid_argument(m_name + ": a picture of " + std::to_string(picture.channels) +
                                " channels; 1, 3 or 4 are shown");
  if (picture.row_stride < 0 || picture.column_stride < 0 || picture.channel_stride < 0)
    throw std::invalid_argument(m_name + ": a picture with a negative stride; pass a copy of it");
  PictureBlit::check_mapping(picture);
  m_blit.expect(picture);
  m_picture = picture;
  if (m_picture->mapping && m_picture->mapping->colormap != nullptr) {
    // The caller's colormap is read at the frame, after show() returned: the source keeps a copy of it.
    std::memcpy(m_colormap.data(), m_picture->mapping->colormap, m_colormap.size());
    m_picture->mapping->colormap = m_colormap.data();
  }
  ++m_pictures;
  m_origin.reset();
  m_points.reset();  // a picture takes the frame back from the points
}

void ArraySource::show(const PictureDesc& picture, const Origin& origin) {
  show(picture);
  m_origin = origin;
}

std::optional<readout::Source> ArraySource::picture_values() const {
  if (m_points || !m_picture) return std::nullopt;
  return m_origin ? m_origin->values : m_picture->values();
}

std::optional<std::array<double, 2>> ArraySource::picture_colorbar() const {
  if (m_points) return std::nullopt;
  return m_origin ? m_origin->colorbar : m_blit.colorbar();
}

const uint8_t* ArraySource::picture_colormap() const {
  return m_origin ? m_origin->colours.data() : m_blit.colormap();
}

void ArraySource::show_points(const PointsPicture& points) {
  if (points.count < 1 || points.count > kMaxPoints)
    throw std::invalid_argument(m_name + ": " + std::to_string(points.count) + " points; from 1 to " +
                                std::to_string(kMaxPoints) + " are shown");
  if (points.xyz == nullptr || points.rgba == nullptr)
    throw std::invalid_argument(m_name + ": points with no positions or no colours");
  if (!(points.size >= kMinPointSize && points.size <= kMaxPointSize))
    throw std::invalid_argument(m_name + ": a point size of " + std::to_string(points.size) +
                                "; from 1 to 64 frame pixels");
  m_points = points;
}

glm::mat4 ArraySource::view_projection(Extent extent) const {
  return orbit::view_projection(m_camera, extent.width, extent.height);
}

bool ArraySource::move_camera(ViewMove move, double x, double y, double factor, Extent frame) {
  if (!m_points) return false;
  switch (move) {
    case ViewMove::Pan:
      m_camera = orbit::orbit(m_camera, x, y);
      break;
    case ViewMove::Zoom:
      m_camera = orbit::zoom(m_camera, factor);
      break;
    case ViewMove::Fit:
      m_frame_camera = true;
      frame_camera(frame);
      break;
    case ViewMove::ActualSize:
      break;  // points have no pixels of their own to show one to one
  }
  return true;
}

void ArraySource::frame_camera(Extent frame) {
  if (!std::exchange(m_frame_camera, false)) return;
  m_camera = orbit::framing(m_points->bounds, frame.width, frame.height, m_camera);
}

kernels::PointsDesc ArraySource::points_desc(Extent frame, const void* xyz, const void* rgba) const {
  kernels::PointsDesc desc;
  desc.xyz = static_cast<const float*>(xyz);
  desc.rgba = static_cast<const kernels::Rgba8*>(rgba);
  desc.count = m_points->count;
  std::memcpy(desc.view_projection, glm::value_ptr(view_projection(frame)), sizeof desc.view_projection);
  desc.size = m_points->size;
  desc.width = frame.width;
  desc.height = frame.height;
  return desc;
}

void ArraySource::release_scratch() {
  m_blit.release();
  m_point_keys = {};
  m_device_xyz = {};
  m_device_rgba = {};
}

std::string ArraySource::status() const {
  if (m_points) {
    constexpr double kDegrees = 57.29577951308232;
    char line[160];
    std::snprintf(line, sizeof line, "%lld points, yaw %.0f, pitch %.0f, distance %.4g", m_points->count,
                  m_camera.yaw * kDegrees, m_camera.pitch * kDegrees, m_camera.distance);
    return line;
  }
  if (!m_picture) return "waiting for the first picture";
  return std::string(kernels::to_string(m_picture->type)) + "x" + std::to_string(m_picture->channels) + " " +
         std::to_string(m_picture->width) + "x" + std::to_string(m_picture->height) + ", " +
         (!m_origin                 ? m_blit.range_text()
          : m_origin->range.empty() ? std::string()
                                    : "range " + m_origin->range + ", ") +
         "picture " + std::to_string(m_pictures);
}

std::optional<Extent> ArraySource::natural_extent() const {
  if (!m_picture || m_points) return std::nullopt;  // points are drawn at the frame's size
  return Extent{m_picture->width, m_picture->height};
}

std::vector<ResourceDesc> ArraySource::resources(Extent extent) const {
  return {frame_sized_texture("array picture", ResourceRole::Output, extent)};
}

DrawPlan ArraySource::draw_plan() const {
  return show_image_plan(0);
}

void ArraySource::compute_cuda(const FrameInfo& frame, const std::vector<CudaResourceView>& views,
                               cudaStream_t stream) {
  const kernels::ImageTarget target = cuda_target(views[0], frame.extent);
  if (m_points) {
    frame_camera(frame.extent);
    const void* xyz = m_points->xyz;
    const void* rgba = m_points->rgba;
    if (!m_points->on_device) {  // host points: to the device first, as a host picture goes
      const auto count = static_cast<size_t>(m_points->count);
      if (m_device_xyz.size() < count * 12) m_device_xyz = interop::DeviceBuffer(count * 12);
      if (m_device_rgba.size() < count * 4) m_device_rgba = interop::DeviceBuffer(count * 4);
      INTEROP_CUDA_CHECK(
          cudaMemcpyAsync(m_device_xyz.data(), xyz, count * 12, cudaMemcpyHostToDevice, stream));
      INTEROP_CUDA_CHECK(
          cudaMemcpyAsync(m_device_rgba.data(), rgba, count * 4, cudaMemcpyHostToDevice, stream));
      xyz = m_device_xyz.data();
      rgba = m_device_rgba.data();
    }
    const size_t keys = kernels::points_keys_bytes(frame.extent.width, frame.extent.height);
    if (m_point_keys.size() != keys) m_point_keys = interop::DeviceBuffer(keys);
    INTEROP_CUDA_CHECK(kernels::draw_points(points_desc(frame.extent, xyz, rgba),
                                            static_cast<unsigned long long*>(m_point_keys.data()), target,
                                            stream));
  } else if (m_picture)
    m_blit.blit_cuda(*m_picture, target, stream);
  else
    m_blit.blank_cuda(target, stream);
}

void ArraySource::compute_cpu(const FrameInfo& frame, const std::vector<HostResourceView>& views) {
  const kernels::ImageTarget target = linear_image(views[0].pointer, views[0].pitch, frame.extent);
  if (m_points) {
    frame_camera(frame.extent);
    const void* xyz = m_points->xyz;
    const void* rgba = m_points->rgba;
    if (m_points->on_device) {  // device points: to the host first, as a device picture goes
      const auto count = static_cast<size_t>(m_points->count);
      m_host_xyz.resize(count * 12);
      m_host_rgba.resize(count * 4);
      INTEROP_CUDA_CHECK(cudaMemcpy(m_host_xyz.data(), xyz, count * 12, cudaMemcpyDeviceToHost));
      INTEROP_CUDA_CHECK(cudaMemcpy(m_host_rgba.data(), rgba, count * 4, cudaMemcpyDeviceToHost));
      xyz = m_host_xyz.data();
      rgba = m_host_rgba.data();
    }
    kernels::draw_points_cpu(points_desc(frame.extent, xyz, rgba), target);
  } else if (m_picture)
    m_blit.blit_cpu(*m_picture, target);
  else
    m_blit.blank_cpu(target);
}

}  // namespace lab
