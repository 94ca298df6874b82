// app/scene/picture.cpp — a picture in memory made into the frame (app/scene/picture.hpp).
#include "app/scene/picture.hpp"

#include "interop/error.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

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

PictureDesc PictureDesc::mapped(const kernels::ConvertDesc& desc, bool on_device, const uint8_t* colormap) {
  PictureDesc picture;
  picture.pixels = desc.source;
  picture.on_device = on_device;
  copy_layout(picture, desc);
  picture.mapping = ValueMapping{desc.low, desc.range, desc.wide, colormap};
  return picture;
}

size_t PictureDesc::span_bytes() const {
  if (width <= 0 || height <= 0) return 0;
  return static_cast<size_t>(row_stride * (height - 1) + column_stride * (width - 1) +
                             channel_stride * (channels - 1) + kernels::element_bytes(type));
}

void PictureBlit::remember_mapping(const PictureDesc& picture) {
  m_mapping = picture.mapping;
  if (m_mapping) m_mapping->colormap = nullptr;  // the caller's, valid for this picture only
}

PictureBlit::PictureBlit() {
  kernels::gray_colormap(m_colormap.data());
}

void PictureBlit::check_mapping(const PictureDesc& picture) {
  if (!picture.mapping) return;
  const ValueMapping& mapping = *picture.mapping;
  const bool wide = mapping.wide || kernels::always_wide(picture.type);
  const bool holds = wide ? std::isfinite(mapping.low) && std::isfinite(mapping.range) && mapping.range > 0.0
                          : std::isfinite(static_cast<float>(mapping.low)) &&
                                std::isfinite(static_cast<float>(mapping.range)) &&
                                static_cast<float>(mapping.range) > 0.0f;
  if (!holds)
    throw std::invalid_argument("low " + std::to_string(mapping.low) + ", range " +
                                std::to_string(mapping.range) +
                                ": both finite (as float32 numbers unless wide), and range above 0");
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
  if (picture.type != kernels::ElementType::U8 || picture.channel_stride != 1 ||
      picture.column_stride != picture.channels)
    return true;
  // Packed bytes are shown as they are unless the caller maps them otherwise.
  const std::optional<ValueMapping>& mapping = picture.mapping;
  return mapping && (mapping->low != 0.0 || mapping->range != 255.0 ||
                     (picture.channels == 1 && mapping->colormap != nullptr));
}

const uint8_t* PictureBlit::host_colormap(const PictureDesc& picture) {
  static const std::array<uint8_t, 256 * 4> gray = [] {  // made once, not at every picture converted
    std::array<uint8_t, 256 * 4> table{};
    kernels::gray_colormap(table.data());
    return table;
  }();
  const uint8_t* table =
      picture.mapping && picture.mapping->colormap ? picture.mapping->colormap : gray.data();
  if (std::memcmp(m_colormap.data(), table, m_colormap.size()) != 0) {
    std::memcpy(m_colormap.data(), table, m_colormap.size());
    m_device_colormap_holds = false;
  }
  return m_colormap.data();
}

const uint8_t* PictureBlit::device_colormap(const PictureDesc& picture, cudaStream_t stream) {
  host_colormap(picture);
  if (!m_device_colormap.data()) m_device_colormap = interop::DeviceBuffer(m_colormap.size());
  if (!m_device_colormap_holds) {
    // Not over a table a conversion queued on another stream has yet to read.
    if (m_colormap_read) INTEROP_CUDA_CHECK(cudaStreamWaitEvent(stream, m_colormap_read->get(), 0));
    // From pageable memory: the call returns once the table is staged, so m_colormap may change after it.
    INTEROP_CUDA_CHECK(cudaMemcpyAsync(m_device_colormap.data(), m_colormap.data(), m_colormap.size(),
                                       cudaMemcpyHostToDevice, stream));
    m_device_colormap_holds = true;
  }
  return static_cast<const uint8_t*>(m_device_colormap.data());
}

void PictureBlit::expect(const PictureDesc& picture) {
  expect(picture.type, picture.channels);
  remember_mapping(picture);
}

std::string PictureBlit::range_text() const {
  if (m_mapping)
    return "range " + bound_text(m_mapping->low, m_mapping->wide) + ".." +
           bound_text(m_mapping->low + m_mapping->range, m_mapping->wide) + " (the caller's), ";
  if (!m_type || *m_type == kernels::ElementType::U8) return "";
  if (!m_range) return "range auto (from the first frame), ";
  return "range " + bound_text(m_range->shown_low, m_range->wide) + ".." +
         bound_text(m_range->shown_high, m_range->wide) +
         (is_float(*m_type) ? "" : " (auto: the first frame's)") + ", ";
}

std::optional<std::array<double, 2>> PictureBlit::colorbar() const {
  if (!m_type || m_channels != 1) return std::nullopt;
  if (m_mapping) return std::array<double, 2>{m_mapping->low, m_mapping->low + m_mapping->range};
  if (*m_type == kernels::ElementType::U8) return std::array<double, 2>{0.0, 255.0};
  if (!m_range) return std::nullopt;
  return std::array<double, 2>{m_range->shown_low, m_range->shown_high};
}

kernels::ConvertDesc PictureBlit::convert_desc(const PictureDesc& picture, const void* pixels,
                                               const uint8_t* colormap) const {
  kernels::ConvertDesc desc;
  desc.source = pixels;
  copy_layout(desc, picture);
  desc.colormap = colormap;
  if (picture.mapping) {
    desc.low = picture.mapping->low;
    desc.range = picture.mapping->range;
    desc.wide = picture.mapping->wide || kernels::always_wide(picture.type);
  } else if (m_range) {
    desc.low = m_range->low;
    desc.range = m_range->range;
    desc.wide = m_range->wide || kernels::always_wide(picture.type);
  }
  return desc;
}

// The picture at `pixels` (host memory) made RGBA8 by the CPU reference; the range found on the first
// picture that comes here when it is "auto".
kernels::BlitParams PictureBlit::converted_on_host(const PictureDesc& picture, const void* pixels) {
  const uint8_t* colormap = host_colormap(picture);
  kernels::ConvertDesc desc = convert_desc(picture, pixels, colormap);
  if (!picture.mapping && !m_range && picture.type != kernels::ElementType::U8) {
    double low = 0.0, high = 0.0;
    long long finite = 0;
    kernels::find_value_bounds_cpu(desc, &low, &high, &finite);
    m_range = kernels::range_from_bounds(picture.type, low, high, finite);
    desc = convert_desc(picture, pixels, colormap);
  }
  m_rgba.resize(static_cast<size_t>(desc.width) * desc.height * 4);
  kernels::convert_to_rgba8_cpu(desc, m_rgba.data(), static_cast<size_t>(desc.width) * 4);
  return rgba_params(picture, m_rgba.data());
}

// The same on the device, by the CUDA launchers on `stream`, into `destination` (rows `pitch` bytes apart;
// null: the blit's own picture); an "auto" range waits for the bounds once.
kernels::BlitParams PictureBlit::converted_on_device(const PictureDesc& picture, const void* pixels,
                                                     cudaStream_t stream, void* destination, size_t pitch) {
  const uint8_t* colormap = device_colormap(picture, stream);
  kernels::ConvertDesc desc = convert_desc(picture, pixels, colormap);
  if (!picture.mapping && !m_range && picture.type != kernels::ElementType::U8) {
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
  if (destination == nullptr) {
    const size_t bytes = static_cast<size_t>(desc.width) * desc.height * 4;
    if (m_device_rgba.size() < bytes) m_device_rgba = interop::DeviceBuffer(bytes);
    destination = m_device_rgba.data();
    pitch = static_cast<size_t>(desc.width) * 4;
  }
  INTEROP_CUDA_CHECK(kernels::convert_to_rgba8(desc, destination, pitch, stream));
  if (!m_colormap_read) m_colormap_read.emplace();
  INTEROP_CUDA_CHECK(cudaEventRecord(m_colormap_read->get(), stream));  // the table is read by then
  return rgba_params(picture, destination);
}

void PictureBlit::convert_cuda(const PictureDesc& picture, void* destination, size_t pitch,
                               cudaStream_t stream) {
  remember_mapping(picture);
  if (!converts(picture) && picture.channels == 4) {  // RGBA8 rows with packed pixels: one 2D copy
    const size_t row = static_cast<size_t>(picture.width) * 4;
    INTEROP_CUDA_CHECK(
        cudaMemcpy2DAsync(destination, pitch, picture.pixels, static_cast<size_t>(picture.row_stride), row,
                          static_cast<size_t>(picture.height), cudaMemcpyDeviceToDevice, stream));
    return;
  }
  converted_on_device(picture, picture.pixels, stream, destination, pitch);
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
  remember_mapping(picture);
  const void* pixels =
      picture.on_device ? picture.pixels : device_copy(picture.pixels, picture.span_bytes(), stream);
  const kernels::BlitParams params =
      converts(picture) ? converted_on_device(picture, pixels, stream) : packed_params(picture, pixels);
  kernels::blit_cuda(target, placed(params, target), stream);
  INTEROP_CUDA_CHECK(cudaGetLastError());
}

void PictureBlit::blit_cpu(const PictureDesc& picture, const kernels::ImageTarget& target) {
  remember_mapping(picture);
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
  m_device_colormap_holds = false;
  m_colormap_read.reset();
  m_device_bounds = {};
}

}  // namespace lab
