// kernels/convert.cu — the CUDA launchers of kernels/convert.hpp: one thread per pixel converting, reading
// the source through its strides, so a transposed or sliced array needs no copy first; one kernel over every
// element for the finite values' bounds. Both are one template over the element type; the per-pixel math is
// convert.hpp's, which the CPU reference (convert_cpu.cpp) runs too.
#include "kernels/convert.hpp"

#include <cstring>

namespace kernels {
namespace {

using convert_detail::for_element_type;

template <ElementType kType>
__global__ void convert_kernel(ConvertDesc desc, unsigned char* destination, size_t pitch) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= desc.width || y >= desc.height) return;
  const Rgba8 rgba = convert_detail::convert_at<kType>(desc, x, y);
  *reinterpret_cast<uchar4*>(destination + y * pitch + x * 4) = make_uchar4(rgba.r, rgba.g, rgba.b, rgba.a);
}

// Doubles ordered as unsigned integers, so that atomicMin / atomicMax find the bounds.
__device__ unsigned long long order_key(double value) {
  const auto bits = static_cast<unsigned long long>(__double_as_longlong(value));
  return (bits >> 63) ? ~bits : bits | (1ull << 63);
}

template <ElementType kType>
__global__ void bounds_kernel(ConvertDesc desc, unsigned long long* bounds) {
  const long long per_row = static_cast<long long>(desc.width) * desc.channels;
  const long long count = per_row * desc.height;
  unsigned long long low = ~0ull, high = 0, finite = 0;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long y = i / per_row, x = (i % per_row) / desc.channels, c = i % desc.channels;
    const double value =
        convert_detail::load<double, kType>(static_cast<const char*>(desc.source) + y * desc.row_stride +
                                            x * desc.column_stride + c * desc.channel_stride);
    if (!isfinite(value)) continue;
    const unsigned long long key = order_key(value);
    low = key < low ? key : low;
    high = key > high ? key : high;
    ++finite;
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    const unsigned long long other_low = __shfl_down_sync(0xffffffffu, low, offset);
    const unsigned long long other_high = __shfl_down_sync(0xffffffffu, high, offset);
    low = other_low < low ? other_low : low;
    high = other_high > high ? other_high : high;
    finite += __shfl_down_sync(0xffffffffu, finite, offset);
  }
  if (threadIdx.x % 32 == 0 && finite > 0) {
    atomicMin(&bounds[0], low);
    atomicMax(&bounds[1], high);
    atomicAdd(&bounds[2], finite);
  }
}

}  // namespace

cudaError_t convert_to_rgba8(const ConvertDesc& desc, void* destination, size_t pitch, cudaStream_t stream) {
  if (desc.width <= 0 || desc.height <= 0) return cudaSuccess;
  const dim3 block(32, 8);
  const dim3 grid((desc.width + block.x - 1) / block.x, (desc.height + block.y - 1) / block.y);
  return for_element_type(
      desc.type,
      [&](auto tag) {
        convert_kernel<decltype(tag)::value>
            <<<grid, block, 0, stream>>>(desc, static_cast<unsigned char*>(destination), pitch);
        return cudaGetLastError();
      },
      cudaErrorInvalidValue);
}

cudaError_t find_value_bounds(const ConvertDesc& desc, void* bounds, cudaStream_t stream) {
  auto* keys = static_cast<unsigned long long*>(bounds);
  cudaError_t status =
      cudaMemsetAsync(keys, 0xff, sizeof(unsigned long long), stream);  // low: the largest key
  if (status == cudaSuccess) status = cudaMemsetAsync(keys + 1, 0, 2 * sizeof(unsigned long long), stream);
  if (status != cudaSuccess) return status;
  const long long count = static_cast<long long>(desc.width) * desc.height * desc.channels;
  const int block = 256;
  const int grid = static_cast<int>(count / block + 1 < 2048 ? count / block + 1 : 2048);
  return for_element_type(
      desc.type,
      [&](auto tag) {
        bounds_kernel<decltype(tag)::value><<<grid, block, 0, stream>>>(desc, keys);
        return cudaGetLastError();
      },
      cudaErrorInvalidValue);
}

void read_value_bounds(const void* bounds_on_host, double* low, double* high, long long* finite) {
  const auto* keys = static_cast<const unsigned long long*>(bounds_on_host);
  const auto value = [](unsigned long long key) {
    const unsigned long long bits = (key >> 63) ? key & ~(1ull << 63) : ~key;
    double result;
    static_assert(sizeof result == sizeof bits, "a double is 64 bits");
    std::memcpy(&result, &bits, sizeof result);
    return result;
  };
  *finite = static_cast<long long>(keys[2]);
  *low = *finite > 0 ? value(keys[0]) : 0.0;
  *high = *finite > 0 ? value(keys[1]) : 0.0;
}

}  // namespace kernels
