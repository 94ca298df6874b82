// python/convert.cu — the kernels of python/convert.hpp: one thread per pixel converting, reading the source
// through its strides, so a transposed or sliced array needs no copy first; one kernel over every element
// for the finite values' bounds. Both are one template over the element type.
#include "python/convert.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstring>
#include <type_traits>

namespace ilab {
namespace {

// Each element type's value as Real (float or double): exact, but for float64 and 32-bit integers read as
// float, which the wide rule never does.
template <class Real, class T>
__device__ Real load(const char* at) {
  const T value = *reinterpret_cast<const T*>(at);
  if constexpr (std::is_same_v<T, __half>)
    return static_cast<Real>(__half2float(value));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return static_cast<Real>(__bfloat162float(value));
  else if constexpr (std::is_same_v<T, bool>)
    return value ? Real(1) : Real(0);
  else
    return static_cast<Real>(value);
}

template <class T>
constexpr bool kHasSpecialValues = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                   std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

// The rule of python/convert.hpp, each operation rounded on its own as NumPy's are (no contraction into
// a fused multiply-add, which would round once and differ from the NumPy twin in the last bit).
__device__ unsigned char to_byte(float value, float low, float range) {
  const float t = __fdiv_rn(__fsub_rn(value, low), range);
  if (!(t > 0.0f)) return 0;
  if (t >= 1.0f) return 255;
  return static_cast<unsigned char>(floorf(__fadd_rn(__fmul_rn(t, 255.0f), 0.5f)));
}

__device__ unsigned char to_byte(double value, double low, double range) {
  const double t = __ddiv_rn(__dsub_rn(value, low), range);
  if (!(t > 0.0)) return 0;
  if (t >= 1.0) return 255;
  return static_cast<unsigned char>(floor(__dadd_rn(__dmul_rn(t, 255.0), 0.5)));
}

__device__ uchar4 unpack(uint32_t rgba) {
  return make_uchar4(rgba & 0xff, (rgba >> 8) & 0xff, (rgba >> 16) & 0xff, rgba >> 24);
}

template <class Real, class T>
__device__ uchar4 convert_pixel(const ConvertDesc& desc, const char* pixel) {
  Real values[4];
  bool nan = false, positive_inf = false, negative_inf = false;
  for (int c = 0; c < desc.channels; ++c) {
    values[c] = load<Real, T>(pixel + c * desc.channel_stride);
    if constexpr (kHasSpecialValues<T>) {
      nan = nan || isnan(values[c]);
      positive_inf = positive_inf || (isinf(values[c]) && values[c] > 0);
      negative_inf = negative_inf || (isinf(values[c]) && values[c] < 0);
    }
  }
  if (nan) return unpack(kNanColour);
  if (positive_inf) return unpack(kPosInfColour);
  if (negative_inf) return unpack(kNegInfColour);
  const bool copy_bytes = std::is_same_v<T, unsigned char> && desc.low == 0.0 && desc.range == 255.0;
  const Real low = static_cast<Real>(desc.low), range = static_cast<Real>(desc.range);
  unsigned char rgba[4] = {0, 0, 0, 255};
  for (int c = 0; c < desc.channels; ++c)
    rgba[c] = copy_bytes ? static_cast<unsigned char>(values[c]) : to_byte(values[c], low, range);
  if (desc.channels == 1) return *reinterpret_cast<const uchar4*>(desc.colormap + rgba[0] * 4);
  return make_uchar4(rgba[0], rgba[1], rgba[2], rgba[3]);
}

template <class T>
__global__ void convert_kernel(ConvertDesc desc, unsigned char* destination, size_t pitch) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= desc.width || y >= desc.height) return;
  const char* pixel = static_cast<const char*>(desc.source) + y * desc.row_stride + x * desc.column_stride;
  const uchar4 rgba =
      desc.wide ? convert_pixel<double, T>(desc, pixel) : convert_pixel<float, T>(desc, pixel);
  *reinterpret_cast<uchar4*>(destination + y * pitch + x * 4) = rgba;
}

// Doubles ordered as unsigned integers, so that atomicMin / atomicMax find the bounds.
__device__ unsigned long long order_key(double value) {
  const auto bits = static_cast<unsigned long long>(__double_as_longlong(value));
  return (bits >> 63) ? ~bits : bits | (1ull << 63);
}

template <class T>
__global__ void bounds_kernel(ConvertDesc desc, unsigned long long* bounds) {
  const long long per_row = static_cast<long long>(desc.width) * desc.channels;
  const long long count = per_row * desc.height;
  unsigned long long low = ~0ull, high = 0, finite = 0;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long y = i / per_row, x = (i % per_row) / desc.channels, c = i % desc.channels;
    const double value = load<double, T>(static_cast<const char*>(desc.source) + y * desc.row_stride +
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

// Calls body with a value of the element type's storage type (only its type is used).
template <class Body>
cudaError_t for_element_type(ElementType type, Body&& body) {
  switch (type) {
    case ElementType::U8:
      return body(static_cast<unsigned char*>(nullptr));
    case ElementType::F16:
      return body(static_cast<__half*>(nullptr));
    case ElementType::F32:
      return body(static_cast<float*>(nullptr));
    case ElementType::F64:
      return body(static_cast<double*>(nullptr));
    case ElementType::BF16:
      return body(static_cast<__nv_bfloat16*>(nullptr));
    case ElementType::I8:
      return body(static_cast<signed char*>(nullptr));
    case ElementType::I16:
      return body(static_cast<short*>(nullptr));
    case ElementType::I32:
      return body(static_cast<int*>(nullptr));
    case ElementType::U16:
      return body(static_cast<unsigned short*>(nullptr));
    case ElementType::U32:
      return body(static_cast<unsigned int*>(nullptr));
    case ElementType::Bool:
      return body(static_cast<bool*>(nullptr));
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t convert_to_rgba8(const ConvertDesc& desc, void* destination, size_t pitch, cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid((desc.width + block.x - 1) / block.x, (desc.height + block.y - 1) / block.y);
  return for_element_type(desc.type, [&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    convert_kernel<T><<<grid, block, 0, stream>>>(desc, static_cast<unsigned char*>(destination), pitch);
    return cudaGetLastError();
  });
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
  return for_element_type(desc.type, [&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    bounds_kernel<T><<<grid, block, 0, stream>>>(desc, keys);
    return cudaGetLastError();
  });
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

}  // namespace ilab
