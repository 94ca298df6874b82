// app/scene/array_source.cpp — the `array` source of frames (app/scene/array_source.hpp).
#include "app/scene/array_source.hpp"

#include <cstring>
#include <stdexcept>

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
}

std::string ArraySource::status() const {
  if (!m_picture) return "waiting for the first picture";
  return std::string(kernels::to_string(m_picture->type)) + "x" + std::to_string(m_picture->channels) + " " +
         std::to_string(m_picture->width) + "x" + std::to_string(m_picture->height) + ", " +
         m_blit.range_text() + "picture " + std::to_string(m_pictures);
}

std::optional<Extent> ArraySource::natural_extent() const {
  if (!m_picture) return std::nullopt;
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
  if (m_picture)
    m_blit.blit_cuda(*m_picture, target, stream);
  else
    m_blit.blank_cuda(target, stream);
}

void ArraySource::compute_cpu(const FrameInfo& frame, const std::vector<HostResourceView>& views) {
  const kernels::ImageTarget target = linear_image(views[0].pointer, views[0].pitch, frame.extent);
  if (m_picture)
    m_blit.blit_cpu(*m_picture, target);
  else
    m_blit.blank_cpu(target);
}

}  // namespace lab
