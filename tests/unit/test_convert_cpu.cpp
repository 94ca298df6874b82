// tests/unit/test_convert_cpu.cpp — the CPU reference of kernels/convert.hpp against the rule docs/python.md
// writes down: t = (v - low) / (high - low) clamped to [0, 1], byte floor(t * 255 + 0.5), each operation
// rounded on its own, in float32 (float64 for int32 and wide ranges); one channel through the colormap,
// three with alpha 255, four as they are; NaN magenta, +inf white, -inf black, in that order. The expected
// bytes are computed here from that formula (this file is compiled with -ffp-contract=off, as
// convert_cpu.cpp is), never taken from the code under test. tests/gpu/test_convert.cpp holds the CUDA
// launcher to this reference.
#include "kernels/convert.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace {

using kernels::ConvertDesc;
using kernels::ElementType;

constexpr uint8_t kMagenta[4] = {255, 0, 255, 255};
constexpr uint8_t kWhite[4] = {255, 255, 255, 255};
constexpr uint8_t kBlack[4] = {0, 0, 0, 255};

// The documented byte of v, in float32.
uint8_t byte32(float v, float low, float range) {
  const float t = (v - low) / range;
  if (!(t > 0.0f)) return 0;
  if (t >= 1.0f) return 255;
  return static_cast<uint8_t>(std::floor(t * 255.0f + 0.5f));
}

// The same in float64.
uint8_t byte64(double v, double low, double range) {
  const double t = (v - low) / range;
  if (!(t > 0.0)) return 0;
  if (t >= 1.0) return 255;
  return static_cast<uint8_t>(std::floor(t * 255.0 + 0.5));
}

template <class T>
ConvertDesc packed(const std::vector<T>& values, int height, int width, int channels, ElementType type) {
  ConvertDesc desc;
  desc.source = values.data();
  desc.height = height;
  desc.width = width;
  desc.channels = channels;
  desc.channel_stride = sizeof(T);
  desc.column_stride = static_cast<long long>(sizeof(T)) * channels;
  desc.row_stride = desc.column_stride * width;
  desc.type = type;
  return desc;
}

std::vector<uint8_t> convert(const ConvertDesc& desc) {
  std::vector<uint8_t> rgba(static_cast<size_t>(desc.width) * desc.height * 4, 0xcd);
  kernels::convert_to_rgba8_cpu(desc, rgba.data(), static_cast<size_t>(desc.width) * 4);
  return rgba;
}

std::vector<uint8_t> gray() {
  std::vector<uint8_t> table(256 * 4);
  kernels::gray_colormap(table.data());
  return table;
}

uint16_t half_bits(float value) {  // exact for the values used here: normal halves, 0, +-inf, NaN
  if (std::isnan(value)) return 0x7e00;
  if (std::isinf(value)) return value > 0 ? 0x7c00 : 0xfc00;
  if (value == 0.0f) return std::signbit(value) ? 0x8000 : 0;
  int exponent = 0;
  const float mantissa = std::frexp(std::fabs(value), &exponent);  // value = mantissa * 2^exponent
  const auto fraction = static_cast<uint16_t>((mantissa * 2.0f - 1.0f) * 1024.0f);
  return static_cast<uint16_t>((value < 0 ? 0x8000 : 0) | ((exponent - 1 + 15) << 10) | fraction);
}

void expect_pixel(const std::vector<uint8_t>& rgba, int index, const uint8_t (&expected)[4],
                  const std::string& what) {
  EXPECT_EQ(std::memcmp(&rgba[static_cast<size_t>(index) * 4], expected, 4), 0)
      << what << ": (" << +rgba[index * 4] << ", " << +rgba[index * 4 + 1] << ", " << +rgba[index * 4 + 2]
      << ", " << +rgba[index * 4 + 3] << "), expected (" << +expected[0] << ", " << +expected[1] << ", "
      << +expected[2] << ", " << +expected[3] << ")";
}

TEST(ConvertCpu, HalvesReadAsTheirExactValues) {
  using kernels::convert_detail::half_to_float;
  EXPECT_EQ(half_to_float(0x3c00), 1.0f);
  EXPECT_EQ(half_to_float(0x3800), 0.5f);
  EXPECT_EQ(half_to_float(0xc000), -2.0f);
  EXPECT_EQ(half_to_float(0x7bff), 65504.0f);                   // the largest half
  EXPECT_EQ(half_to_float(0x0400), std::ldexp(1.0f, -14));      // the smallest normal one
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));      // the smallest subnormal one
  EXPECT_EQ(half_to_float(0x83ff), -std::ldexp(1023.0f, -24));  // the largest subnormal, negative
  EXPECT_EQ(half_to_float(0x3555), 0x555 * std::ldexp(1.0f, -10 - 2));
  EXPECT_TRUE(std::signbit(half_to_float(0x8000)));
  EXPECT_EQ(half_to_float(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(half_to_float(0xfc00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(half_to_float(0x7e00)));
  EXPECT_TRUE(std::isnan(half_to_float(0xfc01)));
}

// uint16's default range is "auto": the first frame's smallest and largest value, in float32 (which holds
// every uint16). One channel indexes the colormap: gray gives (b, b, b, 255).
TEST(ConvertCpu, AUint16RampThroughTheAutoRangeAndTheGrayColormap) {
  constexpr int kWidth = 300;
  std::vector<uint16_t> values(kWidth);
  for (int i = 0; i < kWidth; ++i) values[i] = static_cast<uint16_t>(1000 + i * 211);  // 1000..64089
  const std::vector<uint8_t> colormap = gray();
  ConvertDesc desc = packed(values, 1, kWidth, 1, ElementType::U16);
  desc.colormap = colormap.data();

  double low = 0, high = 0;
  long long finite = 0;
  kernels::find_value_bounds_cpu(desc, &low, &high, &finite);
  EXPECT_EQ(low, 1000.0);
  EXPECT_EQ(high, 1000.0 + 299 * 211);
  EXPECT_EQ(finite, kWidth);
  const kernels::ValueRange range = kernels::range_from_bounds(ElementType::U16, low, high, finite);
  EXPECT_FALSE(range.wide) << "float32 holds every uint16 and their span";
  EXPECT_EQ(range.low, 1000.0);
  EXPECT_EQ(range.range, 299.0 * 211);
  desc.low = range.low;
  desc.range = range.range;

  const std::vector<uint8_t> rgba = convert(desc);
  for (int i = 0; i < kWidth; ++i) {
    const uint8_t b = byte32(static_cast<float>(values[i]), 1000.0f, 299.0f * 211);
    const uint8_t expected[4] = {b, b, b, 255};
    expect_pixel(rgba, i, expected, "uint16 " + std::to_string(values[i]));
  }
  EXPECT_EQ(rgba[0], 0) << "the smallest value is the range's bottom";
  EXPECT_EQ(rgba[(kWidth - 1) * 4], 255) << "the largest its top";

  // Another colormap: the byte is only its index.
  std::vector<uint8_t> table(256 * 4);
  for (int i = 0; i < 256; ++i) {
    table[i * 4 + 0] = static_cast<uint8_t>(255 - i);
    table[i * 4 + 1] = static_cast<uint8_t>(i / 2);
    table[i * 4 + 2] = 7;
    table[i * 4 + 3] = 200;
  }
  desc.colormap = table.data();
  const std::vector<uint8_t> mapped = convert(desc);
  for (int i = 0; i < kWidth; ++i) {
    const uint8_t b = byte32(static_cast<float>(values[i]), 1000.0f, 299.0f * 211);
    const uint8_t expected[4] = {static_cast<uint8_t>(255 - b), static_cast<uint8_t>(b / 2), 7, 200};
    expect_pixel(mapped, i, expected, "colormap entry of uint16 " + std::to_string(values[i]));
  }
}

// int32 is computed in float64 whatever its range: float32 cannot hold every int32.
TEST(ConvertCpu, Int32WithNegativeValuesIsComputedInFloat64) {
  constexpr int kHeight = 4, kWidth = 64;
  std::vector<int32_t> values(kHeight * kWidth * 3);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<int32_t>(-2000000007LL + static_cast<long long>(i) * 5000003LL);
  ConvertDesc desc = packed(values, kHeight, kWidth, 3, ElementType::I32);
  double low = 0, high = 0;
  long long finite = 0;
  kernels::find_value_bounds_cpu(desc, &low, &high, &finite);
  EXPECT_EQ(low, -2000000007.0);
  EXPECT_EQ(high, static_cast<double>(values.back()));
  const kernels::ValueRange range = kernels::range_from_bounds(ElementType::I32, low, high, finite);
  EXPECT_TRUE(range.wide);
  EXPECT_EQ(range.low, low);
  EXPECT_EQ(range.range, high - low);
  desc.low = range.low;
  desc.range = range.range;
  desc.wide = range.wide;

  const std::vector<uint8_t> rgba = convert(desc);
  for (int p = 0; p < kHeight * kWidth; ++p) {
    uint8_t expected[4] = {0, 0, 0, 255};
    for (int c = 0; c < 3; ++c) expected[c] = byte64(values[p * 3 + c], range.low, range.range);
    expect_pixel(rgba, p, expected, "int32 pixel " + std::to_string(p));
  }
  // A fixed range that puts negative values below its bottom and large ones above its top.
  const std::vector<int32_t> few = {-1000, -100, -99, 0, 1, 99, 100, 1000, -50};
  ConvertDesc fixed = packed(few, 3, 1, 3, ElementType::I32);
  fixed.low = -100.0;
  fixed.range = 200.0;
  fixed.wide = true;
  const std::vector<uint8_t> fixed_rgba = convert(fixed);
  for (int p = 0; p < 3; ++p) {
    uint8_t expected[4] = {0, 0, 0, 255};
    for (int c = 0; c < 3; ++c) expected[c] = byte64(few[p * 3 + c], -100.0, 200.0);
    expect_pixel(fixed_rgba, p, expected, "int32 with range -100..100, pixel " + std::to_string(p));
  }
  EXPECT_EQ(fixed_rgba[0], 0) << "-1000 is below -100..100";
  EXPECT_EQ(fixed_rgba[2 * 4], 255) << "100 is the top of -100..100";
  EXPECT_EQ(fixed_rgba[1 * 4], 128) << "0 is its middle: floor(0.5 * 255 + 0.5)";
}

// float32 at its default range 0..1, three channels: alpha 255, values past the ends clamped, a pixel with
// NaN, +inf or -inf in any channel that colour whole (NaN first, then +inf, then -inf).
TEST(ConvertCpu, Float32RampAndNanAndInfinitiesInThreeChannels) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  constexpr int kRamp = 256;
  std::vector<float> values;
  for (int i = 0; i < kRamp; ++i) {
    const float t = (static_cast<float>(i) - 8.0f) / 239.0f;  // -0.033..1.038: both ends clamp
    values.insert(values.end(), {t, 1.0f - t, t * 0.5f});
  }
  const float specials[][3] = {{nan, 0.5f, 0.5f}, {0.5f, inf, 0.5f}, {0.5f, 0.5f, -inf},
                               {inf, nan, 0.0f},  {-inf, inf, 0.2f}, {-inf, 0.0f, 1.0f}};
  for (const auto& pixel : specials) values.insert(values.end(), pixel, pixel + 3);
  const int count = static_cast<int>(values.size() / 3);
  ConvertDesc desc = packed(values, 1, count, 3, ElementType::F32);
  const kernels::ValueRange range = kernels::fixed_range(ElementType::F32, 0.0, 1.0);
  EXPECT_FALSE(range.wide);
  desc.low = range.low;
  desc.range = range.range;

  const std::vector<uint8_t> rgba = convert(desc);
  for (int p = 0; p < kRamp; ++p) {
    uint8_t expected[4] = {0, 0, 0, 255};
    for (int c = 0; c < 3; ++c) expected[c] = byte32(values[p * 3 + c], 0.0f, 1.0f);
    expect_pixel(rgba, p, expected, "float32 pixel " + std::to_string(p));
  }
  EXPECT_EQ(rgba[0], 0) << "below 0 clamps to 0";
  EXPECT_EQ(rgba[(kRamp - 1) * 4], 255) << "above 1 clamps to 255";
  expect_pixel(rgba, kRamp + 0, kMagenta, "NaN");
  expect_pixel(rgba, kRamp + 1, kWhite, "+inf");
  expect_pixel(rgba, kRamp + 2, kBlack, "-inf");
  expect_pixel(rgba, kRamp + 3, kMagenta, "NaN before +inf");
  expect_pixel(rgba, kRamp + 4, kWhite, "+inf before -inf");
  expect_pixel(rgba, kRamp + 5, kBlack, "-inf in the first channel");

  // The bounds leave NaN and the infinities out.
  double low = 0, high = 0;
  long long finite = 0;
  kernels::find_value_bounds_cpu(desc, &low, &high, &finite);
  float expected_low = values[0], expected_high = values[0];
  for (const float value : values)
    if (std::isfinite(value))
      expected_low = std::fmin(expected_low, value), expected_high = std::fmax(expected_high, value);
  EXPECT_EQ(finite, kRamp * 3 + 10) << "the ramp and the specials' 10 finite values";
  EXPECT_EQ(low, static_cast<double>(expected_low));
  EXPECT_EQ(high, static_cast<double>(expected_high));
  EXPECT_LT(low, 0.0);
  EXPECT_GT(high, 1.0);
}

// float16, four channels: alpha is converted like the others; one channel goes through the colormap, NaN
// and the infinities as in float32.
TEST(ConvertCpu, Float16InFourChannelsAndOneChannel) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> pixels = {0.0f,   0.25f, 0.5f, 1.0f,   // exact halves
                                     0.125f, 0.75f, 2.0f, -1.0f,  // clamped
                                     0.3f,   0.6f,  0.9f, 0.1f,   // rounded to halves first
                                     0.5f,   nan,   0.5f, 0.5f,   // NaN
                                     0.5f,   0.5f,  inf,  0.5f,   // +inf
                                     -inf,   0.5f,  0.5f, 0.5f};  // -inf
  std::vector<uint16_t> bits;
  std::vector<float> as_halves;  // what the halves hold
  for (const float value : pixels) {
    bits.push_back(half_bits(value));
    as_halves.push_back(kernels::convert_detail::half_to_float(bits.back()));
  }
  EXPECT_NE(as_halves[8], 0.3f) << "0.3 is no half: the half nearest below it";
  EXPECT_NEAR(as_halves[8], 0.3f, 0.001f);
  ConvertDesc desc = packed(bits, 2, 3, 4, ElementType::F16);
  desc.low = 0.0;
  desc.range = 1.0;
  const std::vector<uint8_t> rgba = convert(desc);
  for (int p = 0; p < 3; ++p) {
    uint8_t expected[4];
    for (int c = 0; c < 4; ++c) expected[c] = byte32(as_halves[p * 4 + c], 0.0f, 1.0f);
    expect_pixel(rgba, p, expected, "float16 pixel " + std::to_string(p));
  }
  const uint8_t quarter[4] = {0, 64, 128, 255};  // floor(0.25 * 255 + 0.5) = 64, floor(0.5 * 255 + 0.5) = 128
  expect_pixel(rgba, 0, quarter, "exact halves");
  expect_pixel(rgba, 3, kMagenta, "NaN");
  expect_pixel(rgba, 4, kWhite, "+inf");
  expect_pixel(rgba, 5, kBlack, "-inf");

  // One channel: the first of each pixel, through gray.
  const std::vector<uint8_t> colormap = gray();
  ConvertDesc one = desc;
  one.channels = 1;
  one.colormap = colormap.data();
  const std::vector<uint8_t> gray_rgba = convert(one);
  const uint8_t zero[4] = {0, 0, 0, 255}, eighth[4] = {32, 32, 32, 255};  // floor(0.125 * 255 + 0.5) = 32
  expect_pixel(gray_rgba, 0, zero, "0 through gray");
  expect_pixel(gray_rgba, 1, eighth, "0.125 through gray");
  const uint8_t b = byte32(as_halves[8], 0.0f, 1.0f);
  const uint8_t third[4] = {b, b, b, 255};
  expect_pixel(gray_rgba, 2, third, "the half of 0.3 through gray");
  const uint8_t half_gray[4] = {128, 128, 128, 255};
  expect_pixel(gray_rgba, 3, half_gray, "one channel reads only the first: NaN in the second is not seen");
  expect_pixel(gray_rgba, 5, kBlack, "-inf through one channel");
}

// uint8 at 0..255 is copied as it is; through strides (a transposed view) each pixel is the one it names.
TEST(ConvertCpu, Uint8IsCopiedAndStridesAreFollowed) {
  constexpr int kHeight = 5, kWidth = 7;
  std::vector<uint8_t> values(kHeight * kWidth * 3);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<uint8_t>(i * 37 + 11);
  ConvertDesc desc = packed(values, kHeight, kWidth, 3, ElementType::U8);
  desc.low = 0.0;
  desc.range = 255.0;
  const std::vector<uint8_t> rgba = convert(desc);
  for (int p = 0; p < kHeight * kWidth; ++p) {
    const uint8_t expected[4] = {values[p * 3], values[p * 3 + 1], values[p * 3 + 2], 255};
    expect_pixel(rgba, p, expected, "uint8 pixel " + std::to_string(p));
  }
  // The transpose: kWidth rows of kHeight pixels, reading the same memory.
  ConvertDesc transposed = desc;
  transposed.height = kWidth;
  transposed.width = kHeight;
  transposed.row_stride = desc.column_stride;
  transposed.column_stride = desc.row_stride;
  const std::vector<uint8_t> turned = convert(transposed);
  for (int y = 0; y < kWidth; ++y)
    for (int x = 0; x < kHeight; ++x)
      EXPECT_EQ(std::memcmp(&turned[(y * kHeight + x) * 4], &rgba[(x * kWidth + y) * 4], 4), 0)
          << x << ", " << y;
  // Another range: uint8 maps as floats do.
  desc.low = 100.0;
  desc.range = 50.0;
  const std::vector<uint8_t> ranged = convert(desc);
  for (int p = 0; p < kHeight * kWidth; ++p) {
    uint8_t expected[4] = {0, 0, 0, 255};
    for (int c = 0; c < 3; ++c) expected[c] = byte32(values[p * 3 + c], 100.0f, 50.0f);
    expect_pixel(ranged, p, expected, "uint8 at 100..150, pixel " + std::to_string(p));
  }
}

TEST(ConvertCpu, TheAutoRangeOfEdgeCases) {
  // No finite value: 0..1.
  kernels::ValueRange range = kernels::range_from_bounds(ElementType::F32, 0.0, 0.0, 0);
  EXPECT_EQ(range.low, 0.0);
  EXPECT_EQ(range.range, 1.0);
  EXPECT_EQ(range.shown_high, 1.0);
  // One value throughout: low..low + 1, so it shows as the bottom.
  range = kernels::range_from_bounds(ElementType::U16, 7.0, 7.0, 12);
  EXPECT_EQ(range.low, 7.0);
  EXPECT_EQ(range.range, 1.0);
  EXPECT_EQ(range.shown_high, 8.0);
  EXPECT_FALSE(range.wide);
  // A float32 span that float32 cannot hold: computed in float64.
  range = kernels::range_from_bounds(ElementType::F32, -3e38, 3e38, 2);
  EXPECT_TRUE(range.wide);
  EXPECT_EQ(range.range, 6e38);
  // -0.0 is 0.0.
  range = kernels::range_from_bounds(ElementType::F32, -0.0, 2.0, 2);
  EXPECT_FALSE(std::signbit(range.low));
  // A float32 range's bounds are float32 numbers.
  range = kernels::fixed_range(ElementType::F32, 0.1, 0.7);
  EXPECT_EQ(range.low, static_cast<double>(0.1f));
  EXPECT_EQ(range.range, static_cast<double>(0.7f - 0.1f));
}

}  // namespace
