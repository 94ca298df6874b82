// app/scene/readout.hpp — the value under the cursor: where one element of a picture lies (a frame of a
// stack, a pixel, its channels, by byte strides), its bytes read where they are, and how the panel and the
// page write it. The bytes are the picture's own (one pixel's elements, copied from host or CUDA memory), so
// the readout says the value the array holds, not the byte it became on screen. The Python viewer's arrays
// and the loop's picture sources (a publisher's frames, a caller's arrays) read theirs here. No GL.
#pragma once

#include "kernels/convert.hpp"

#include <array>
#include <cstdint>
#include <string>

namespace lab::readout {

using kernels::ElementType;  // the element types a picture may have (kernels/convert.hpp)

// Where the caller's array lives and how it is laid out: `frames` pictures of height x width x channels,
// strides in bytes.
struct Source {
  const unsigned char* data = nullptr;  // host or device memory; null: no array (a frame() block's pixels)
  bool on_device = false;               // device memory of the current CUDA device
  ElementType type = ElementType::U8;
  int frames = 1, height = 0, width = 0, channels = 1;
  long long frame_stride = 0, row_stride = 0, column_stride = 0, channel_stride = 0;
};

// Bytes of one element of `type`.
using kernels::element_bytes;

// Byte offset of channel `channel` of pixel (x, y) of frame `frame` from Source::data.
long long element_offset(const Source& source, int frame, int x, int y, int channel);

// One element's bytes (element_bytes(type) of them, little-endian) as a double: exact for every type shown.
double element_value(ElementType type, const unsigned char* bytes);

// The panel's line: "x 12  y 40  0.25" or "x 12  y 40  (0.25, 1, 0)"; integers as integers, bool as
// True/False, floats with up to 7 significant digits (float64: 10), NaN and inf by name.
std::string format_readout(int x, int y, ElementType type, const double* values, int channels);

// The values of pixel (x, y) of frame `frame`, as doubles (exact for every type): one copy of the pixel's
// elements from host memory or, with cudaMemcpy, from CUDA memory, never the picture's. Throws
// std::runtime_error for a pixel outside the picture, no array or a failed copy.
std::array<double, 4> read_values(const Source& source, int frame, int x, int y);

// The line for pixel (x, y) of frame `frame`: its values, or just where it is when there is no array to
// read or the pixel is outside it, or why the read failed ("x 3  y 4  (unreadable: ...)").
std::string read_out(const Source& source, int frame, int x, int y);

// The readout's line off the picture, in the panels and on the page.
constexpr const char* kOffPicture = "(cursor off the picture)";

}  // namespace lab::readout
