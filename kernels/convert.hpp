// kernels/convert.hpp — turns an array of values ((H, W) or (H, W, 1|3|4) of uint8/16/32, int8/16/32, bool,
// float16, bfloat16, float32 or float64, any byte strides) into the RGBA8 pixels that show it, and finds the
// finite values' bounds for an "auto" range. Three implementations give the same bytes: the CUDA launcher
// (convert.cu: the Python viewer's CUDA arrays, --attach's device slots), the CPU reference (convert_cpu.cpp:
// --attach's host slots in cpu mode) and NumPy's to_rgba8 in python/interop_lab/_arrays.py. The rule
// (docs/python.md's dtype table):
//   value -> t = (value - low) / range, clamped to [0, 1] -> byte = floor(t * 255 + 0.5), each operation
//   rounded on its own (no fused multiply-add), in float32, or in float64 where `wide` is set (float64,
//   int32 and uint32 arrays, whose values float32 cannot hold, and spans float32 cannot hold);
//   one channel: the byte indexes a 256-entry RGBA colormap; three: alpha 255; four: as they are;
//   a pixel with a NaN in any channel is kNanColour, else one with +inf kPosInfColour, else -inf
//   kNegInfColour.
// uint8 with low 0 and range 255 is copied as it is.
#pragma once

#include "kernels/common.hpp"

#include <cuda_runtime_api.h>

#include <cfloat>
#include <cstring>

namespace kernels {

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
  const void* source = nullptr;  // device memory for the CUDA launchers, host memory for the CPU ones
  int height = 0, width = 0, channels = 0;
  long long row_stride = 0, column_stride = 0, channel_stride = 0;  // bytes
  ElementType type = ElementType::U8;
  double low = 0.0, range = 255.0;    // float32 values unless `wide`
  bool wide = false;                  // compute in float64
  const uint8_t* colormap = nullptr;  // 256 x RGBA8, where `source` is; used for one channel
};

// The ConvertDesc's `low`, `range` and `wide` for an array of `type`, from its finite values' bounds (low,
// high; finite: how many values are finite), as range="auto" does (python/interop_lab/_arrays.py's
// bounds_range). No finite value: 0..1; one value throughout: low..low + 1. In float32 where the type's
// values and the span fit it, else float64.
struct ValueRange {
  double low = 0.0, range = 1.0;
  bool wide = false;
  double shown_low = 0.0, shown_high = 1.0;  // the bounds as said to the user
};
ValueRange range_from_bounds(ElementType type, double low, double high, long long finite);
// The range (low, high) of an array of `type` where both bounds and the span fit float32 (or float64 for
// the types computed in it): float32 numbers unless wide. Used for the fixed defaults (floats 0..1).
ValueRange fixed_range(ElementType type, double low, double high);
// Computed in float64 whatever the range: float32 cannot hold every value of these.
constexpr bool always_wide(ElementType type) {
  return type == ElementType::F64 || type == ElementType::I32 || type == ElementType::U32;
}
// "float32", as NumPy names it.
const char* to_string(ElementType type);
// Bytes of one element of `type`.
constexpr int element_bytes(ElementType type) {
  switch (type) {
    case ElementType::U8:
    case ElementType::I8:
    case ElementType::Bool:
      return 1;
    case ElementType::F16:
    case ElementType::BF16:
    case ElementType::I16:
    case ElementType::U16:
      return 2;
    case ElementType::F32:
    case ElementType::I32:
    case ElementType::U32:
      return 4;
    case ElementType::F64:
      return 8;
  }
  return 8;
}
// 256 x RGBA8: entry i is (i, i, i, 255) (the Python viewer's colormap "gray").
void gray_colormap(uint8_t table[256 * 4]);

// CUDA: writes height rows of width RGBA8 pixels, `pitch` bytes apart, at `destination` (device memory).
cudaError_t convert_to_rgba8(const ConvertDesc& desc, void* destination, size_t pitch, cudaStream_t stream);
// The CPU reference: the same bytes, from and into host memory (rows split over threads).
void convert_to_rgba8_cpu(const ConvertDesc& desc, void* destination, size_t pitch);

// CUDA: the smallest and largest finite value of every channel of desc's array, and how many values are
// finite, into `bounds` (device memory, kValueBoundsBytes): read back with read_value_bounds after the
// stream ran it.
constexpr size_t kValueBoundsBytes = 3 * sizeof(unsigned long long);
cudaError_t find_value_bounds(const ConvertDesc& desc, void* bounds, cudaStream_t stream);
void read_value_bounds(const void* bounds_on_host, double* low, double* high, long long* finite);
// The CPU reference, of host memory.
void find_value_bounds_cpu(const ConvertDesc& desc, double* low, double* high, long long* finite);

// The per-value and per-pixel math both launchers run.
namespace convert_detail {

KERNELS_HD inline float float_from_bits(uint32_t bits) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(bits);
#else
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
#endif
}

// IEEE binary16 -> float32, exact.
KERNELS_HD inline float half_to_float(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1fu;
  const uint32_t mantissa = half & 0x3ffu;
  if (exponent == 0x1fu) return float_from_bits(sign | 0x7f800000u | (mantissa << 13));  // inf, NaN
  if (exponent != 0) return float_from_bits(sign | ((exponent + 112u) << 23) | (mantissa << 13));
  const float subnormal = static_cast<float>(mantissa) * 5.9604644775390625e-8f;  // mantissa * 2^-24
  return sign ? -subnormal : subnormal;
}

// Each element type's value as Real (float or double): exact, but for float64 and 32-bit integers read as
// float, which the wide rule never does.
template <class Real, ElementType kType>
KERNELS_HD Real load(const char* at) {
  if constexpr (kType == ElementType::U8)
    return static_cast<Real>(*reinterpret_cast<const uint8_t*>(at));
  else if constexpr (kType == ElementType::F16)
    return static_cast<Real>(half_to_float(*reinterpret_cast<const uint16_t*>(at)));
  else if constexpr (kType == ElementType::F32)
    return static_cast<Real>(*reinterpret_cast<const float*>(at));
  else if constexpr (kType == ElementType::F64)
    return static_cast<Real>(*reinterpret_cast<const double*>(at));
  else if constexpr (kType == ElementType::BF16)  // its bits are a float32's upper half
    return static_cast<Real>(
        float_from_bits(static_cast<uint32_t>(*reinterpret_cast<const uint16_t*>(at)) << 16));
  else if constexpr (kType == ElementType::I8)
    return static_cast<Real>(*reinterpret_cast<const int8_t*>(at));
  else if constexpr (kType == ElementType::I16)
    return static_cast<Real>(*reinterpret_cast<const int16_t*>(at));
  else if constexpr (kType == ElementType::I32)
    return static_cast<Real>(*reinterpret_cast<const int32_t*>(at));
  else if constexpr (kType == ElementType::U16)
    return static_cast<Real>(*reinterpret_cast<const uint16_t*>(at));
  else if constexpr (kType == ElementType::U32)
    return static_cast<Real>(*reinterpret_cast<const uint32_t*>(at));
  else
    return *reinterpret_cast<const uint8_t*>(at) != 0 ? Real(1) : Real(0);  // bool
}

template <ElementType kType>
constexpr bool kHasSpecialValues = kType == ElementType::F16 || kType == ElementType::BF16 ||
                                   kType == ElementType::F32 || kType == ElementType::F64;

// Each operation rounded on its own as NumPy's are: the device's intrinsics say so (nvcc would contract
// t * 255 + 0.5 into one fused multiply-add, which rounds once); the host's compiler does not contract
// them (convert_cpu.cpp is compiled with -ffp-contract=off).
KERNELS_HD inline float sub_rn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
KERNELS_HD inline double sub_rn(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
KERNELS_HD inline float div_rn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
KERNELS_HD inline double div_rn(double a, double b) {
#ifdef __CUDA_ARCH__
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}
KERNELS_HD inline float mul_rn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
KERNELS_HD inline double mul_rn(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
KERNELS_HD inline float add_rn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
KERNELS_HD inline double add_rn(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

KERNELS_HD inline bool is_nan(float v) {
  return !(v == v);
}
KERNELS_HD inline bool is_nan(double v) {
  return !(v == v);
}
KERNELS_HD inline bool is_positive_inf(float v) {
  return v > FLT_MAX;
}
KERNELS_HD inline bool is_positive_inf(double v) {
  return v > DBL_MAX;
}
KERNELS_HD inline bool is_negative_inf(float v) {
  return v < -FLT_MAX;
}
KERNELS_HD inline bool is_negative_inf(double v) {
  return v < -DBL_MAX;
}

template <class Real>
KERNELS_HD uint8_t to_byte(Real value, Real low, Real range) {
  const Real t = div_rn(sub_rn(value, low), range);
  if (!(t > Real(0))) return 0;  // also NaN (inf - inf)
  if (t >= Real(1)) return 255;
  return static_cast<uint8_t>(floor(add_rn(mul_rn(t, Real(255)), Real(0.5))));
}

KERNELS_HD inline Rgba8 unpack(uint32_t rgba) {
  return Rgba8{static_cast<uint8_t>(rgba & 0xffu), static_cast<uint8_t>((rgba >> 8) & 0xffu),
               static_cast<uint8_t>((rgba >> 16) & 0xffu), static_cast<uint8_t>(rgba >> 24)};
}

// The pixel at `pixel` (its first channel's byte).
template <class Real, ElementType kType>
KERNELS_HD Rgba8 convert_pixel(const ConvertDesc& desc, const char* pixel) {
  Real values[4] = {};
  bool nan = false, positive_inf = false, negative_inf = false;
  for (int c = 0; c < desc.channels; ++c) {
    values[c] = load<Real, kType>(pixel + c * desc.channel_stride);
    if constexpr (kHasSpecialValues<kType>) {
      nan = nan || is_nan(values[c]);
      positive_inf = positive_inf || is_positive_inf(values[c]);
      negative_inf = negative_inf || is_negative_inf(values[c]);
    }
  }
  if (nan) return unpack(kNanColour);
  if (positive_inf) return unpack(kPosInfColour);
  if (negative_inf) return unpack(kNegInfColour);
  const bool copy_bytes = kType == ElementType::U8 && desc.low == 0.0 && desc.range == 255.0;
  const Real low = static_cast<Real>(desc.low), range = static_cast<Real>(desc.range);
  uint8_t rgba[4] = {0, 0, 0, 255};
  for (int c = 0; c < desc.channels; ++c)
    rgba[c] = copy_bytes ? static_cast<uint8_t>(values[c]) : to_byte(values[c], low, range);
  if (desc.channels == 1) {
    const uint8_t* entry = desc.colormap + rgba[0] * 4;
    return Rgba8{entry[0], entry[1], entry[2], entry[3]};
  }
  return Rgba8{rgba[0], rgba[1], rgba[2], rgba[3]};
}

template <ElementType kType>
KERNELS_HD Rgba8 convert_at(const ConvertDesc& desc, int x, int y) {
  const char* pixel = static_cast<const char*>(desc.source) + y * desc.row_stride + x * desc.column_stride;
  return desc.wide ? convert_pixel<double, kType>(desc, pixel) : convert_pixel<float, kType>(desc, pixel);
}

// The element type as a type, so that each launcher runs one instantiation per element type.
template <ElementType kType>
struct TypeTag {
  static constexpr ElementType value = kType;
};

// body(TypeTag<type>{}) for the runtime `type`; `unknown` for a code no ElementType has.
template <class Result, class Body>
Result for_element_type(ElementType type, Body&& body, Result unknown) {
  switch (type) {
    case ElementType::U8:
      return body(TypeTag<ElementType::U8>{});
    case ElementType::F16:
      return body(TypeTag<ElementType::F16>{});
    case ElementType::F32:
      return body(TypeTag<ElementType::F32>{});
    case ElementType::F64:
      return body(TypeTag<ElementType::F64>{});
    case ElementType::BF16:
      return body(TypeTag<ElementType::BF16>{});
    case ElementType::I8:
      return body(TypeTag<ElementType::I8>{});
    case ElementType::I16:
      return body(TypeTag<ElementType::I16>{});
    case ElementType::I32:
      return body(TypeTag<ElementType::I32>{});
    case ElementType::U16:
      return body(TypeTag<ElementType::U16>{});
    case ElementType::U32:
      return body(TypeTag<ElementType::U32>{});
    case ElementType::Bool:
      return body(TypeTag<ElementType::Bool>{});
  }
  return unknown;
}

}  // namespace convert_detail
}  // namespace kernels
