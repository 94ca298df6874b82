// tests/gpu/test_convert.cpp — kernels/convert.hpp's CUDA launchers against its CPU reference on the same
// data: every element type, 1, 3 and 4 channels, padded rows, random bit patterns (so NaN, the infinities,
// subnormals and the extremes of each type come up), under the auto range, a fixed range and the float64
// rule; the bytes must be equal, as must the bounds. The CPU reference itself is held to the documented
// formula by tests/unit/test_convert_cpu.cpp. Skips without a CUDA device.
#include "tests/support/cuda_device.hpp"

#include "kernels/convert.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using kernels::ConvertDesc;
using kernels::ElementType;

#define EXPECT_CUDA(call) ASSERT_EQ((call), cudaSuccess) << #call

class ConvertGpu : public labtest::CudaDeviceTest {
 protected:
  ConvertGpu() : CudaDeviceTest("run the conversion kernel") {}
};

// Device memory for one test, freed at its end.
struct DeviceBytes {
  void* data = nullptr;
  explicit DeviceBytes(size_t bytes) { cudaMalloc(&data, bytes); }
  ~DeviceBytes() { cudaFree(data); }
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;
};

int element_size(ElementType type) {
  switch (type) {
    case ElementType::F64:
      return 8;
    case ElementType::F32:
    case ElementType::I32:
    case ElementType::U32:
      return 4;
    case ElementType::F16:
    case ElementType::BF16:
    case ElementType::I16:
    case ElementType::U16:
      return 2;
    default:
      return 1;
  }
}

// Each type's values: random bits, but for uint8 / bool a few values each (bool: 0 and 1) and float32 /
// float64 mostly values near 0..1 with NaN and the infinities among them.
std::vector<uint8_t> random_values(ElementType type, size_t elements, std::mt19937& random) {
  const int size = element_size(type);
  std::vector<uint8_t> bytes(elements * size);
  std::uniform_real_distribution<double> near_range(-0.25, 1.25);
  for (size_t i = 0; i < elements; ++i) {
    uint8_t* at = &bytes[i * size];
    const uint32_t bits = random();
    if (type == ElementType::Bool) {
      *at = bits & 1;
    } else if (type == ElementType::F32 || type == ElementType::F64) {
      double value = near_range(random);
      if (bits % 97 == 0) value = std::numeric_limits<double>::quiet_NaN();
      if (bits % 89 == 0) value = std::numeric_limits<double>::infinity();
      if (bits % 83 == 0) value = -std::numeric_limits<double>::infinity();
      if (type == ElementType::F32) {
        const float narrow = static_cast<float>(value);
        std::memcpy(at, &narrow, 4);
      } else {
        std::memcpy(at, &value, 8);
      }
    } else {
      const uint64_t wide_bits = (static_cast<uint64_t>(random()) << 32) | bits;
      std::memcpy(at, &wide_bits, static_cast<size_t>(size));
    }
  }
  return bytes;
}

TEST_F(ConvertGpu, TheKernelGivesTheCpuReferencesBytesForEveryTypeChannelCountAndRange) {
  constexpr int kWidth = 77, kHeight = 31;
  std::mt19937 random(1234);
  std::vector<uint8_t> colormap(256 * 4);
  for (int i = 0; i < 256; ++i) {
    colormap[i * 4 + 0] = static_cast<uint8_t>(i);
    colormap[i * 4 + 1] = static_cast<uint8_t>(255 - i);
    colormap[i * 4 + 2] = static_cast<uint8_t>(i * 7);
    colormap[i * 4 + 3] = static_cast<uint8_t>(128 + i / 2);
  }
  DeviceBytes device_colormap(colormap.size());
  EXPECT_CUDA(cudaMemcpy(device_colormap.data, colormap.data(), colormap.size(), cudaMemcpyHostToDevice));
  DeviceBytes bounds(kernels::kValueBoundsBytes);

  for (int code = 0; code < kernels::kElementTypeCount; ++code) {
    const auto type = static_cast<ElementType>(code);
    for (const int channels : {1, 3, 4}) {
      SCOPED_TRACE(std::string(kernels::to_string(type)) + "x" + std::to_string(channels));
      const long long element = element_size(type);
      const long long row_stride = kWidth * channels * element + 3 * element;  // padded rows
      const std::vector<uint8_t> host =
          random_values(type, static_cast<size_t>(row_stride / element) * kHeight, random);
      DeviceBytes device(host.size());
      EXPECT_CUDA(cudaMemcpy(device.data, host.data(), host.size(), cudaMemcpyHostToDevice));

      ConvertDesc desc;
      desc.height = kHeight;
      desc.width = kWidth;
      desc.channels = channels;
      desc.channel_stride = element;
      desc.column_stride = element * channels;
      desc.row_stride = row_stride;
      desc.type = type;

      // The bounds: the kernel's and the CPU's.
      desc.source = host.data();
      double low = 0, high = 0;
      long long finite = 0;
      kernels::find_value_bounds_cpu(desc, &low, &high, &finite);
      desc.source = device.data;
      EXPECT_CUDA(kernels::find_value_bounds(desc, bounds.data, nullptr));
      unsigned char keys[kernels::kValueBoundsBytes];
      EXPECT_CUDA(cudaMemcpy(keys, bounds.data, sizeof keys, cudaMemcpyDeviceToHost));
      double gpu_low = 0, gpu_high = 0;
      long long gpu_finite = 0;
      kernels::read_value_bounds(keys, &gpu_low, &gpu_high, &gpu_finite);
      EXPECT_EQ(gpu_finite, finite);
      EXPECT_EQ(gpu_low + 0.0, low + 0.0);
      EXPECT_EQ(gpu_high + 0.0, high + 0.0);

      const kernels::ValueRange ranges[] = {
          kernels::range_from_bounds(type, low, high, finite),
          kernels::fixed_range(type, 0.0, type == ElementType::U8 ? 255.0 : 1.0),
          kernels::fixed_range(type, -100.0, 300.0),
          {0.1, 0.7, true, 0.1, 0.8},  // the float64 rule on any type
      };
      for (const kernels::ValueRange& range : ranges) {
        SCOPED_TRACE("range " + std::to_string(range.low) + " + " + std::to_string(range.range) +
                     (range.wide ? " (float64)" : ""));
        desc.low = range.low;
        desc.range = range.range;
        desc.wide = range.wide || kernels::always_wide(type);
        const size_t pitch = kWidth * 4 + 12;
        std::vector<uint8_t> expected(pitch * kHeight, 0), actual(pitch * kHeight, 0);
        desc.source = host.data();
        desc.colormap = colormap.data();
        kernels::convert_to_rgba8_cpu(desc, expected.data(), pitch);
        DeviceBytes out(actual.size());
        EXPECT_CUDA(cudaMemset(out.data, 0, actual.size()));
        desc.source = device.data;
        desc.colormap = static_cast<const uint8_t*>(device_colormap.data);
        EXPECT_CUDA(kernels::convert_to_rgba8(desc, out.data, pitch, nullptr));
        EXPECT_CUDA(cudaMemcpy(actual.data(), out.data, actual.size(), cudaMemcpyDeviceToHost));
        size_t off = 0;
        int first = -1;
        for (size_t i = 0; i < actual.size(); ++i)
          if (actual[i] != expected[i]) {
            ++off;
            if (first < 0) first = static_cast<int>(i);
          }
        EXPECT_EQ(off, 0u) << "bytes differ, the first at byte " << first << " (row "
                           << first / static_cast<int>(pitch) << ", pixel "
                           << (first % static_cast<int>(pitch)) / 4 << ")";
      }
    }
  }
}

}  // namespace
