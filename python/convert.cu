// python/convert.cu — the conversion kernel of python/convert.hpp: one thread per pixel, reading the
// source through its strides, so a transposed or sliced array needs no copy first.
#include "python/convert.hpp"

#include <cuda_fp16.h>

namespace ilab {
namespace {

__device__ float load(const char* at, ElementType type) {
  switch (type) {
    case ElementType::U8:
      return static_cast<float>(*reinterpret_cast<const unsigned char*>(at));
    case ElementType::F16:
      return __half2float(*reinterpret_cast<const __half*>(at));
    default:
      return *reinterpret_cast<const float*>(at);
  }
}

__device__ unsigned char to_byte(float value, float low, float range) {
  const float t = (value - low) / range;
  if (!(t > 0.0f)) return 0;  // also NaN
  if (t >= 1.0f) return 255;
  return static_cast<unsigned char>(floorf(t * 255.0f + 0.5f));
}

__global__ void convert_kernel(ConvertDesc desc, unsigned char* destination, size_t pitch) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= desc.width || y >= desc.height) return;
  const char* pixel = static_cast<const char*>(desc.source) + y * desc.row_stride + x * desc.column_stride;
  const bool copy_bytes = desc.type == ElementType::U8 && desc.low == 0.0f && desc.range == 255.0f;
  unsigned char rgba[4] = {0, 0, 0, 255};
  if (desc.channels == 1) {
    const unsigned char index = copy_bytes ? static_cast<unsigned char>(*pixel)
                                           : to_byte(load(pixel, desc.type), desc.low, desc.range);
    for (int c = 0; c < 4; ++c) rgba[c] = desc.colormap[index * 4 + c];
  } else {
    for (int c = 0; c < desc.channels; ++c) {
      const char* at = pixel + c * desc.channel_stride;
      rgba[c] =
          copy_bytes ? static_cast<unsigned char>(*at) : to_byte(load(at, desc.type), desc.low, desc.range);
    }
  }
  unsigned char* out = destination + y * pitch + x * 4;
  *reinterpret_cast<uchar4*>(out) = make_uchar4(rgba[0], rgba[1], rgba[2], rgba[3]);
}

}  // namespace

cudaError_t convert_to_rgba8(const ConvertDesc& desc, void* destination, size_t pitch, cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid((desc.width + block.x - 1) / block.x, (desc.height + block.y - 1) / block.y);
  convert_kernel<<<grid, block, 0, stream>>>(desc, static_cast<unsigned char*>(destination), pitch);
  return cudaGetLastError();
}

}  // namespace ilab
