// python/convert.hpp — turns a CUDA array the viewer was handed ((H, W) or (H, W, 1|3|4) of uint8/16/32,
// int8/16/32, bool, float16, bfloat16, float32 or float64, any strides) into the RGBA8 pixels it shows, on
// the caller's stream, and finds the finite values' bounds for range="auto". The NumPy twin for host
// arrays is to_rgba8 in python/interop_lab/_arrays.py; both follow the same rule, byte for byte:
//   value -> t = (value - low) / range, clamped to [0, 1] -> byte = floor(t * 255 + 0.5), each operation
//   rounded on its own (no fused multiply-add), in float32, or in float64 where `wide` is set (float64,
//   int32 and uint32 arrays, whose values float32 cannot hold, and spans float32 cannot hold);
//   one channel: the byte indexes a 256-entry RGBA colormap; three: alpha 255; four: as they are;
//   a pixel with a NaN in any channel is kNanColour, else one with +inf kPosInfColour, else -inf
//   kNegInfColour.
// uint8 with low 0 and range 255 is copied as it is.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace ilab {

// Codes shared with python/interop_lab/_arrays.py (_TYPES); 0..2 are the first three, kept as they were.
enum class ElementType : int {
  U8 = 0,
  F16 = 1,
  F32 = 2,
  F64 = 3,
  BF16 = 4,
  I8 = 5,
  I16 = 6,
  I32 = 7,
  U16 = 8,
  U32 = 9,
  Bool = 10,
};
constexpr int kElementTypeCount = 11;

// RGBA8 of the values that have no place on a range (docs/python.md).
constexpr uint32_t kNanColour = 0xffff00ffu;     // magenta (R 255, G 0, B 255, A 255; little-endian RGBA)
constexpr uint32_t kPosInfColour = 0xffffffffu;  // white
constexpr uint32_t kNegInfColour = 0xff000000u;  // black

struct ConvertDesc {
  const void* source = nullptr;
  int height = 0, width = 0, channels = 0;
  long long row_stride = 0, column_stride = 0, channel_stride = 0;  // bytes
  ElementType type = ElementType::U8;
  double low = 0.0, range = 255.0;    // float32 values unless `wide`
  bool wide = false;                  // compute in float64
  const uint8_t* colormap = nullptr;  // device memory, 256 x RGBA8; used for one channel
};

// Writes height rows of width RGBA8 pixels, `pitch` bytes apart, at `destination` (device memory).
cudaError_t convert_to_rgba8(const ConvertDesc& desc, void* destination, size_t pitch, cudaStream_t stream);

// The smallest and largest finite value of every channel of desc's array, and how many values are finite,
// into `bounds` (device memory, kValueBoundsBytes): read back with read_value_bounds after the stream ran it.
constexpr size_t kValueBoundsBytes = 3 * sizeof(unsigned long long);
cudaError_t find_value_bounds(const ConvertDesc& desc, void* bounds, cudaStream_t stream);
void read_value_bounds(const void* bounds_on_host, double* low, double* high, long long* finite);

}  // namespace ilab
