// kernels/convert_cpu.cpp — the CPU reference of kernels/convert.hpp (the same per-pixel functions as
// convert.cu, rows split over threads), plus what every implementation shares: the ranges, names and the
// gray colormap. Compiled with -ffp-contract=off (kernels/CMakeLists.txt): t * 255 + 0.5 must round twice,
// as NumPy and the CUDA launcher round it.
#include "kernels/convert.hpp"
#include "kernels/parallel.hpp"

#include <cmath>

namespace kernels {
namespace {

using convert_detail::for_element_type;

}  // namespace

void convert_to_rgba8_cpu(const ConvertDesc& desc, void* destination, size_t pitch) {
  if (desc.width <= 0 || desc.height <= 0) return;
  for_element_type(
      desc.type,
      [&](auto tag) {
        parallel_rows(desc.height, [&](int begin, int end) {
          for (int y = begin; y < end; ++y) {
            auto* row = reinterpret_cast<Rgba8*>(static_cast<unsigned char*>(destination) + y * pitch);
            for (int x = 0; x < desc.width; ++x)
              row[x] = convert_detail::convert_at<decltype(tag)::value>(desc, x, y);
          }
        });
        return 0;
      },
      0);
}

void find_value_bounds_cpu(const ConvertDesc& desc, double* low, double* high, long long* finite) {
  *low = *high = 0.0;
  *finite = 0;
  for_element_type(
      desc.type,
      [&](auto tag) {
        for (int y = 0; y < desc.height; ++y)
          for (int x = 0; x < desc.width; ++x)
            for (int c = 0; c < desc.channels; ++c) {
              const double value = convert_detail::load<double, decltype(tag)::value>(
                  static_cast<const char*>(desc.source) + y * desc.row_stride + x * desc.column_stride +
                  c * desc.channel_stride);
              if (!std::isfinite(value)) continue;
              if (*finite == 0 || value < *low) *low = value;
              if (*finite == 0 || value > *high) *high = value;
              ++*finite;
            }
        return 0;
      },
      0);
}

ValueRange range_from_bounds(ElementType type, double low, double high, long long finite) {
  if (finite == 0) low = 0.0, high = 1.0;
  low += 0.0;  // -0.0 is 0.0: either reduction may meet one first
  high += 0.0;
  const bool constant = !(high > low);
  if (constant) high = low + 1.0;
  ValueRange range;
  range.shown_low = low;
  range.shown_high = high;
  if (!always_wide(type)) {
    // Exact: the values of every type computed in float32 are float32 numbers.
    const float low32 = static_cast<float>(low);
    const float span32 = constant ? 1.0f : static_cast<float>(high) - low32;  // inf past float32: wide below
    if (span32 >= FLT_MIN && span32 <= FLT_MAX) {
      range.low = low32;
      range.range = span32;
      return range;
    }
  }
  range.low = low;
  range.range = constant ? 1.0 : high - low;
  range.wide = true;
  return range;
}

ValueRange fixed_range(ElementType type, double low, double high) {
  ValueRange range;
  if (always_wide(type)) {
    range.low = range.shown_low = low;
    range.shown_high = high;
    range.range = high - low;
    range.wide = true;
    return range;
  }
  const float low32 = static_cast<float>(low), high32 = static_cast<float>(high);
  range.low = range.shown_low = low32;
  range.shown_high = high32;
  range.range = high32 - low32;
  return range;
}

const char* to_string(ElementType type) {
  switch (type) {
    case ElementType::U8:
      return "uint8";
    case ElementType::F16:
      return "float16";
    case ElementType::F32:
      return "float32";
    case ElementType::F64:
      return "float64";
    case ElementType::BF16:
      return "bfloat16";
    case ElementType::I8:
      return "int8";
    case ElementType::I16:
      return "int16";
    case ElementType::I32:
      return "int32";
    case ElementType::U16:
      return "uint16";
    case ElementType::U32:
      return "uint32";
    case ElementType::Bool:
      return "bool";
  }
  return "unknown";
}

void gray_colormap(uint8_t table[256 * 4]) {
  for (int i = 0; i < 256; ++i) {
    table[i * 4 + 0] = table[i * 4 + 1] = table[i * 4 + 2] = static_cast<uint8_t>(i);
    table[i * 4 + 3] = 255;
  }
}

}  // namespace kernels
