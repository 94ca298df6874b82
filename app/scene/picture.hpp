// app/scene/picture.hpp — a picture in memory made into the frame: what the sources that show someone
// else's pixels share (the `published` source, another process's frames; the `array` source, a caller's
// arrays). The picture may be in host or device memory, of any element type and byte strides that
// kernels/convert.hpp reads; PictureBlit makes it the frame's Output texture through CUDA (the CUDA modes) or
// through the CPU reference (cpu mode), where its view puts it (app/scene/view.hpp: stretched over the frame
// unless a fit or a zoom or pan is asked for; nearest sampled, black around it):
//   uint8, packed pixels   blitted as they are (kernels/blit.hpp: flipped to the frames' row order): gray,
//                          RGB opaque, RGBA
//   anything else          made RGBA8 first by the Python viewer's rule (kernels/convert.hpp,
//   docs/python.md's
//                          dtype table: one channel through the gray colormap, NaN magenta, +inf white,
//                          -inf black), then blitted as RGBA8
// A picture where the blit is not (host memory in the CUDA modes, device memory in cpu mode) is copied there
// first. The range: floats 0..1; other types but uint8 the smallest and largest finite value of the first
// picture blitted, kept for the pictures after it of the same element type and channels.
#pragma once

#include "app/scene/readout.hpp"
#include "app/scene/view.hpp"
#include "interop/memory.hpp"
#include "interop/stream.hpp"
#include "kernels/blit.hpp"
#include "kernels/convert.hpp"

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lab {

// How a caller maps a picture's values to colours, in place of the blit's own rule (the Python viewer's
// range= and colormap=): values from `low` over `range` (float32 numbers unless `wide`, as
// kernels/convert.hpp computes them), one channel through `colormap` (256 x RGBA8 in host memory; null:
// gray).
struct ValueMapping {
  double low = 0.0, range = 255.0;
  bool wide = false;
  const uint8_t* colormap = nullptr;
};

// The layout every description of an array here shares, named alike (PictureDesc, kernels::ConvertDesc,
// readout::Source): its size, channels, element type and byte strides, from one to the other.
template <class To, class From>
void copy_layout(To& to, const From& from) {
  to.width = from.width;
  to.height = from.height;
  to.channels = from.channels;
  to.type = from.type;
  to.row_stride = from.row_stride;
  to.column_stride = from.column_stride;
  to.channel_stride = from.channel_stride;
}

// Where a picture is and how its values lie: element (y, x, c) is at pixels + y * row_stride + x *
// column_stride + c * channel_stride (bytes).
struct PictureDesc {
  const void* pixels = nullptr;
  bool on_device = false;  // device memory of the current CUDA device; else host memory
  int width = 0, height = 0;
  int channels = 4;  // 1, 3 or 4
  kernels::ElementType type = kernels::ElementType::U8;
  long long row_stride = 0, column_stride = 0, channel_stride = 0;
  std::optional<ValueMapping> mapping;  // the caller's; none: the blit's rule (see the header)

  // Packed pixels of `channels` elements of `type` in rows `row_stride` bytes apart.
  static PictureDesc packed(const void* pixels, bool on_device, int width, int height, int channels,
                            kernels::ElementType type, long long element_bytes, long long row_stride);
  // The array `desc` describes (kernels/convert.hpp: where, its layout and type) with its range as the
  // caller's mapping, through `colormap` (host memory) for one channel.
  static PictureDesc mapped(const kernels::ConvertDesc& desc, bool on_device, const uint8_t* colormap);
  // The bytes from the first element to the end of the last row (what a copy of the picture takes).
  size_t span_bytes() const;
  // Where its values are, for the value under the cursor (app/scene/readout.hpp).
  readout::Source values() const {
    readout::Source source;
    source.data = static_cast<const unsigned char*>(pixels);
    source.on_device = on_device;
    copy_layout(source, *this);
    return source;
  }
};

class PictureBlit {
 public:
  PictureBlit();
  ~PictureBlit() { release(); }
  PictureBlit(const PictureBlit&) = delete;
  PictureBlit& operator=(const PictureBlit&) = delete;

  // Pictures of `type` with `channels` come next: a range is kept while they stay the same kind, and a
  // picture of another kind gets one of its own (floats 0..1 at once; the other types but uint8 from the
  // next picture blitted).
  void expect(kernels::ElementType type, int channels);
  // The same for `picture`, whose mapping (where it has one) the range and the colorbar say from now on.
  void expect(const PictureDesc& picture);
  // Throws std::invalid_argument where a picture's mapping cannot be computed: low and range finite (as
  // float32 numbers unless wide) and range above 0.
  static void check_mapping(const PictureDesc& picture);
  // `picture` at its own size, RGBA8, into `destination` (device memory, rows `pitch` bytes apart) on
  // `stream`: one 2D copy for packed RGBA8 it shows as it is, else kernels/convert.hpp's conversion (what the
  // Python viewer draws from). A device picture only.
  void convert_cuda(const PictureDesc& picture, void* destination, size_t pitch, cudaStream_t stream);
  // `picture` into `target` (device memory: cuda_target) on `stream`, or by the CPU reference into `target`
  // (host memory). Both queue or make any copy the picture needs first.
  void blit_cuda(const PictureDesc& picture, const kernels::ImageTarget& target, cudaStream_t stream);
  void blit_cpu(const PictureDesc& picture, const kernels::ImageTarget& target);
  // Black over the whole target: before any picture came.
  void blank_cuda(const kernels::ImageTarget& target, cudaStream_t stream);
  void blank_cpu(const kernels::ImageTarget& target);

  // Where the picture lies in the frame: the fit (stretch unless set), or the free view a zoom or pan made
  // (app/scene/view.hpp's moves, with the picture's and the frame's sizes).
  view::View& view() { return m_view; }
  const view::View& view() const { return m_view; }

  // ", range 0..1" style text for the panel and the page: "range 0..1, ", "range 3..1020 (auto: the first
  // frame's), ", "range auto (from the first frame), " before it came; "" for uint8 (its bytes are shown as
  // they are); "range 0.5..2.5 (the caller's), " for a caller's mapping.
  std::string range_text() const;
  // A one-channel picture's colorbar: the values its colours (colormap()) run over, the first colour at the
  // first (0..255 for uint8); nullopt for pictures of 3 or 4 channels, and before an "auto" range is found.
  std::optional<std::array<double, 2>> colorbar() const;
  // The 256 RGBA8 colours a one-channel picture runs through now: the caller's colormap, else gray.
  const uint8_t* colormap() const { return m_colormap.data(); }
  // The device memory blit_cuda keeps between pictures (copies, the converted picture, the colormap), freed:
  // before the CUDA device changes.
  void release();

 private:
  bool converts(const PictureDesc& picture) const;
  // The mapping of the picture converted last, for colorbar().
  void remember_mapping(const PictureDesc& picture);
  // The colormap of `picture` (its mapping's, else gray) as the conversion reads it: kept as colormap()
  // says it, and on the device (uploaded on `stream` when it changed) for the CUDA kernels.
  const uint8_t* host_colormap(const PictureDesc& picture);
  const uint8_t* device_colormap(const PictureDesc& picture, cudaStream_t stream);
  kernels::ConvertDesc convert_desc(const PictureDesc& picture, const void* pixels,
                                    const uint8_t* colormap) const;
  kernels::BlitParams converted_on_host(const PictureDesc& picture, const void* pixels);
  kernels::BlitParams converted_on_device(const PictureDesc& picture, const void* pixels, cudaStream_t stream,
                                          void* destination = nullptr, size_t pitch = 0);
  const void* device_copy(const void* pixels, size_t bytes, cudaStream_t stream);
  // `params` with the view's sampling for `target`.
  kernels::BlitParams placed(kernels::BlitParams params, const kernels::ImageTarget& target) const;

  view::View m_view{view::Fit::Stretch};
  std::optional<kernels::ElementType> m_type;  // the kind expected (expect), none before
  int m_channels = 0;
  std::optional<kernels::ValueRange> m_range;  // floats: 0..1; the others: the first picture's, kept
  std::optional<ValueMapping> m_mapping;       // the caller's, of the picture converted last
  std::vector<uint8_t> m_host_copy;            // a device picture, for the CPU reference
  std::vector<uint8_t> m_rgba;                 // the converted picture, CPU reference
  std::array<uint8_t, 256 * 4> m_colormap{};   // one channel's colours: gray, or the caller's (host)
  bool m_device_colormap_holds = false;        // whether m_device_colormap holds m_colormap
  void* m_device_copy = nullptr;               // a host picture, for the CUDA kernels
  size_t m_device_copy_bytes = 0;
  interop::DeviceBuffer m_device_rgba;      // the converted picture, CUDA
  interop::DeviceBuffer m_device_colormap;  // m_colormap on the device
  // Recorded after the last kernel that read m_device_colormap, on its stream: a new table, uploaded on
  // another stream (the Python viewer converts on each caller's), waits for it.
  std::optional<interop::Event> m_colormap_read;
  interop::DeviceBuffer m_device_bounds;  // "auto": the first picture's bounds (kernels::find_value_bounds)
};

}  // namespace lab
