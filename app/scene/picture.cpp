// app/scene/picture.cpp — a picture in memory made into the frame (app/scene/picture.hpp).
#include "app/scene/picture.hpp"

#include "interop/error.hpp"

#include <cstdio>

namespace lab {

namespace {

bool is_float(kernels::ElementType type) {
  return type == kernels::ElementType::F16 || type == kernels::ElementType::F32 ||
         type == kernels::ElementType::F64 || type == kernels::ElementType::BF16;
}

// A bound as the status says it: up to 7 significant digits (10 where the range is computed in float64).
std::string bound_text(double value, bool wide) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*g", wide ? 10 : 7, value);
  return text;
}

// Pixels of `channels` bytes each (gray, RGB or RGBA) in rows `pitch` bytes apart, as the blit reads them.
kernels::BlitParams blit_params(const void* pixels, int width, int height, int channels, size_t pitch) {
  kernels::BlitParams params;
  params.pixels = static_cast<const uint8_t*>(pixels);
  params.pitch = pitch;
  params.width = width;
  params.height = height;
  params.channels = channels;
  return params;
}

kernels::BlitParams rgba_params(const PictureDesc& picture, const void* rgba) {
  return blit_params(rgba, picture.width, picture.height, 4, static_cast<size_t>(picture.width) * 4);
}

// A packed uint8 picture at `pixels` as the blit reads it.
kernels::BlitParams packed_params(const PictureDesc& picture, const void* pixels) {
  return blit_params(pixels, picture.width, picture.height, picture.channels,
                     static_cast<size_t>(picture.row_stride));
}

// One black RGBA pixel, stretched over the frame.
constexpr uint8_t kBlack[4] = {0, 0, 0, 255};
const PictureDesc kBlackPicture = PictureDesc::packed(kBlack, false, 1, 1, 4, kernels::ElementType::U8, 1, 4);

}  // namespace

PictureDesc PictureDesc::packed(const void* pixels, bool on_device, int width, int height, int channels,
                                kernels::ElementType type, long long element_bytes, long long row_stride) {
  PictureDesc picture;
  picture.pixels = pixels;
  picture.on_device = on_device;
  picture.width = width;
  picture.height = height;
  picture.channels = channels;
  picture.type = type;
  picture.channel_stride = element_bytes;
  picture.column_stride = element_bytes * channels;
  picture.row_stride = row_stride;
  return picture;
}

size_t PictureDesc::span_bytes() const {
  if (width <= 0 || height <= 0) return 0;
  return static_cast<size_t>(row_stride * (height - 1) + column_stride * (width - 1) +
                             channel_stride * (channels - 1) + kernels::element_bytes(type));
}

void PictureBlit::expect(kernels::ElementType type, int channels) {
  // The range holds while the values are the same kind: pictures of another type or channel count get a
  // range of their own.
  if (m_type != type || m_channels != channels) m_range.reset();
  m_type = type;
  m_channels = channels;
  if (!m_range && is_float(type)) m_range = kernels::fixed_range(type, 0.0, 1.0);
}

bool PictureBlit::converts(const PictureDesc& picture) const {
  return picture.type != kernels::ElementType::U8 || picture.channel_stride != 1 ||
         picture.column_stride != picture.channels;
}

std::string PictureBlit::range_text() const {
  if (!m_type || *m_type == kernels::ElementType::U8) return "";
  if (!m_range) return "range auto (from the first frame), ";
  return "range " + bound_text(m_range->shown_low, m_range->wide) + ".." +
         bound_text(m_range->shown_high, m_range->wide) +
         (is_float(*m_type) ? "" : " (auto: the first frame's)") + ", ";
}

std::optional<std::array<double, 2>> PictureBlit::colorbar() const {
  if (!m_type || m_channels != 1) return std::nullopt;
  if (*m_type == kernels::ElementType::U8) return std::array<double, 2>{0.0, 255.0};
  if (!m_range) return std::nullopt;
  return std::array<double, 2>{m_range->shown_low, m_range->shown_high};
}

kernels::ConvertDesc PictureBlit::convert_desc(const PictureDesc& picture, const void* pixels,
                                               const uint8_t* colormap) const {
  kernels::ConvertDesc desc;
  desc.source = pixels;
  desc.width = picture.width;
  desc.height = picture.height;
  desc.channels = picture.channels;
  desc.channel_stride = picture.channel_stride;
  desc.column_stride = picture.column_stride;
  desc.row_stride = picture.row_stride;
  desc.type = picture.type;
  desc.colormap = colormap;
  if (m_range) {
    desc.low = m_range->low;
    desc.range = m_range->range;
    desc.wide = m_range->wide || kernels::always_wide(picture.type);
  }
  return desc;
}

// The picture at `pixels` (host memory) made RGBA8 by the CPU reference; the range found on the first
// picture that comes here when it is "auto".
kernels::BlitParams PictureBlit::converted_on_host(const PictureDesc& picture, const void* pixels) {
  if (m_colormap.empty()) {
    m_colormap.resize(256 * 4);
    kernels::gray_colormap(m_colormap.data());
  }
  kernels::ConvertDesc desc = convert_desc(picture, pixels, m_colormap.data());
  if (!m_range && picture.type != kernels::ElementType::U8) {
    double low = 0.0, high = 0.0;
    long long finite = 0;
    kernels::find_value_bounds_cpu(desc, &low, &high, &finite);
    m_range = kernels::range_from_bounds(picture.type, low, high, finite);
    desc = convert_desc(picture, pixels, m_colormap.data());
  }
  m_rgba.resize(static_cast<size_t>(desc.width) * desc.height * 4);
  kernels::convert_to_rgba8_cpu(desc, m_rgba.data(), static_cast<size_t>(desc.width) * 4);
  return rgba_params(picture, m_rgba.data());
}

// The same on the device, by the CUDA launchers on `stream`; an "auto" range waits for the bounds once.
kernels::BlitParams PictureBlit::converted_on_device(const PictureDesc& picture, const void* pixels,
                                                     cudaStream_t stream) {
  if (!m_device_colormap.data()) {
    uint8_t gray[256 * 4];
    kernels::gray_colormap(gray);
    m_device_colormap = interop::DeviceBuffer(sizeof gray);
    INTEROP_CUDA_CHECK(cudaMemcpy(m_device_colormap.data(), gray, sizeof gray, cudaMemcpyHostToDevice));
  }
  const auto* colormap = static_cast<const uint8_t*>(m_device_colormap.data());
  kernels::ConvertDesc desc = convert_desc(picture, pixels, colormap);
  if (!m_range && picture.type != kernels::ElementType::U8) {
    if (!m_device_bounds.data()) m_device_bounds = interop::DeviceBuffer(kernels::kValueBoundsBytes);
    INTEROP_CUDA_CHECK(kernels::find_value_bounds(desc, m_device_bounds.data(), stream));
    unsigned char bounds[kernels::kValueBoundsBytes];
    INTEROP_CUDA_CHECK(
        cudaMemcpyAsync(bounds, m_device_bounds.data(), sizeof bounds, cudaMemcpyDeviceToHost, stream));
    INTEROP_CUDA_CHECK(cudaStreamSynchronize(stream));
    double low = 0.0, high = 0.0;
    long long finite = 0;
    kernels::read_value_bounds(bounds, &low, &high, &finite);
    m_range = kernels::range_from_bounds(picture.type, low, high, finite);
    desc = convert_desc(picture, pixels, colormap);
  }
  const size_t bytes = static_cast<size_t>(desc.width) * desc.height * 4;
  if (m_device_rgba.size() < bytes) m_device_rgba = interop::DeviceBuffer(bytes);
  INTEROP_CUDA_CHECK(
      kernels::convert_to_rgba8(desc, m_device_rgba.data(), static_cast<size_t>(desc.width) * 4, stream));
  return rgba_params(picture, m_device_rgba.data());
}

// `bytes` of host memory at `pixels` in device memory, for the kernels.
const void* PictureBlit::device_copy(const void* pixels, size_t bytes, cudaStream_t stream) {
  if (bytes > m_device_copy_bytes) {
    if (m_device_copy) INTEROP_CUDA_CHECK(cudaFree(m_device_copy));
    m_device_copy = nullptr;
    INTEROP_CUDA_CHECK(cudaMalloc(&m_device_copy, bytes));
    m_device_copy_bytes = bytes;
  }
  INTEROP_CUDA_CHECK(cudaMemcpyAsync(m_device_copy, pixels, bytes, cudaMemcpyHostToDevice, stream));
  return m_device_copy;
}

kernels::BlitParams PictureBlit::placed(kernels::BlitParams params,
                                        const kernels::ImageTarget& target) const {
  params.view = view::sampling_of(m_view, {params.width, params.height}, {target.width, target.height});
  return params;
}

void PictureBlit::blit_cuda(const PictureDesc& picture, const kernels::ImageTarget& target,
                            cudaStream_t stream) {
  const void* pixels =
      picture.on_device ? picture.pixels : device_copy(picture.pixels, picture.span_bytes(), stream);
  const kernels::BlitParams params =
      converts(picture) ? converted_on_device(picture, pixels, stream) : packed_params(picture, pixels);
  kernels::blit_cuda(target, placed(params, target), stream);
  INTEROP_CUDA_CHECK(cudaGetLastError());
}

void PictureBlit::blit_cpu(const PictureDesc& picture, const kernels::ImageTarget& target) {
  const void* pixels = picture.pixels;
  if (picture.on_device) {
    // A device picture in cpu mode: copied to host memory first (this needs CUDA here).
    m_host_copy.resize(picture.span_bytes());
    INTEROP_CUDA_CHECK(
        cudaMemcpy(m_host_copy.data(), picture.pixels, m_host_copy.size(), cudaMemcpyDeviceToHost));
    pixels = m_host_copy.data();
  }
  kernels::blit_cpu(
      target, placed(converts(picture) ? converted_on_host(picture, pixels) : packed_params(picture, pixels),
                     target));
}

void PictureBlit::blank_cuda(const kernels::ImageTarget& target, cudaStream_t stream) {
  blit_cuda(kBlackPicture, target, stream);
}

void PictureBlit::blank_cpu(const kernels::ImageTarget& target) {
  blit_cpu(kBlackPicture, target);
}

void PictureBlit::release() {
  if (m_device_copy) cudaFree(m_device_copy);
  m_device_copy = nullptr;
  m_device_copy_bytes = 0;
  m_device_rgba = {};
  m_device_colormap = {};
  m_device_bounds = {};
}

}  // namespace lab
