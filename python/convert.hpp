// python/convert.hpp — turns a CUDA array the viewer was handed ((H, W) or (H, W, 1|3|4) of uint8,
// float16 or float32, any strides) into the RGBA8 pixels it shows, on the caller's stream. The NumPy
// twin for host arrays is python/interop_lab/_convert.py; both follow the same rule:
//   value -> t = (value - low) / range, clamped to [0, 1] (NaN: 0) -> byte = floor(t * 255 + 0.5);
//   one channel: the byte indexes a 256-entry RGBA colormap; three: alpha 255; four: as they are.
// uint8 with low 0 and range 255 is copied as it is.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace ilab {

enum class ElementType : int { U8 = 0, F16 = 1, F32 = 2 };

struct ConvertDesc {
  const void* source = nullptr;
  int height = 0, width = 0, channels = 0;
  long long row_stride = 0, column_stride = 0, channel_stride = 0;  // bytes
  ElementType type = ElementType::U8;
  float low = 0.0f, range = 255.0f;
  const uint8_t* colormap = nullptr;  // device memory, 256 x RGBA8; used for one channel
};

// Writes height rows of width RGBA8 pixels, `pitch` bytes apart, at `destination` (device memory).
cudaError_t convert_to_rgba8(const ConvertDesc& desc, void* destination, size_t pitch, cudaStream_t stream);

}  // namespace ilab
