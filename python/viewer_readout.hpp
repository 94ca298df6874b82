// python/viewer_readout.hpp — the value under the cursor: where one element of the caller's array lies (a
// frame of a stack, a pixel, its channels, by byte strides) and how the panel writes it. The bytes are the
// array's own (one element, copied from host or CUDA memory by viewer.cpp), so the readout says the value
// the array holds, not the byte it became on screen. No CUDA, no GL.
#pragma once

#include "kernels/convert.hpp"

#include <cstdint>
#include <string>

namespace ilab::readout {

using kernels::ElementType;  // the element types the viewer converts (kernels/convert.hpp)

// Where the caller's array lives and how it is laid out: `frames` pictures of height x width x channels,
// strides in bytes.
struct Source {
  const unsigned char* data = nullptr;  // host or device memory; null: no array (a frame() block's pixels)
  bool on_device = false;
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

}  // namespace ilab::readout
