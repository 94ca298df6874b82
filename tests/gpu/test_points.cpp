// tests/gpu/test_points.cpp — kernels/points.hpp's CUDA launcher against its CPU reference on the same
// points: crowded pixels (the depth test and its draw-order tie-break under contention), clipped and NaN
// points, every edge from 1 to 64 pixels, odd frame sizes; the frames must be equal byte for byte. The CPU
// reference itself is held to a NumPy reference of GL's point rule by python/tests/test_viewer_points_cpu.py.
// Skips without a CUDA device.
#include "tests/support/cuda_device.hpp"

#include "interop/memory.hpp"
#include "kernels/points.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <glm/glm.hpp>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/type_ptr.hpp>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace {

class PointsGpu : public labtest::CudaDeviceTest {
 protected:
  PointsGpu() : CudaDeviceTest("run the points kernels") {}
};

struct Set {
  std::vector<float> xyz;
  std::vector<kernels::Rgba8> rgba;
};

// n points in a box a little wider than what the camera sees (some clipped), half of them on a few hundred
// spots (many points a pixel, equal depths among them), with a NaN and an inf here and there.
Set points(long long n, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> wide(-1.3f, 1.3f);
  std::uniform_int_distribution<int> spot(0, 299), byte(0, 255);
  std::vector<float> spots(300 * 3);
  for (float& v : spots) v = wide(random);
  Set set;
  for (long long i = 0; i < n; ++i) {
    for (int axis = 0; axis < 3; ++axis)
      set.xyz.push_back(i % 2 == 0 ? spots[static_cast<size_t>(spot(random)) * 3 + axis] : wide(random));
    if (i % 997 == 0) set.xyz[static_cast<size_t>(i) * 3] = std::numeric_limits<float>::quiet_NaN();
    if (i % 991 == 0) set.xyz[static_cast<size_t>(i) * 3 + 1] = std::numeric_limits<float>::infinity();
    set.rgba.push_back({static_cast<uint8_t>(byte(random)), static_cast<uint8_t>(byte(random)),
                        static_cast<uint8_t>(byte(random)), static_cast<uint8_t>(byte(random))});
  }
  return set;
}

// A perspective camera at (0.3, 0.4, 3) looking down -z (column-major, as glm keeps it), near 1.5, far 4.5:
// the box crosses both planes.
void camera(float* m, int width, int height) {
  const glm::mat4 view_projection =
      glm::perspective(0.8f, static_cast<float>(width) / static_cast<float>(height), 1.5f, 4.5f) *
      glm::translate(glm::mat4(1.0f), glm::vec3(-0.3f, -0.4f, -3.0f));
  std::memcpy(m, glm::value_ptr(view_projection), 16 * sizeof(float));
}

void expect_equal_frames(long long n, float size, int width, int height, unsigned seed) {
  const Set set = points(n, seed);
  kernels::PointsDesc desc;
  desc.count = n;
  desc.size = size;
  desc.width = width;
  desc.height = height;
  camera(desc.view_projection, width, height);
  const size_t pitch = static_cast<size_t>(width) * 4 + 12;  // padded rows
  std::vector<uint8_t> expected(pitch * height, 7), drawn(pitch * height, 7);
  desc.xyz = set.xyz.data();
  desc.rgba = set.rgba.data();
  kernels::draw_points_cpu(
      desc, kernels::linear_target(reinterpret_cast<kernels::Rgba8*>(expected.data()), pitch, width, height));

  const interop::DeviceBuffer xyz(set.xyz.size() * 4), rgba(set.rgba.size() * 4),
      keys(kernels::points_keys_bytes(width, height)), frame(pitch * height);
  ASSERT_EQ(cudaMemcpy(xyz.data(), set.xyz.data(), set.xyz.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(rgba.data(), set.rgba.data(), set.rgba.size() * 4, cudaMemcpyHostToDevice),
            cudaSuccess);
  ASSERT_EQ(cudaMemcpy(frame.data(), drawn.data(), drawn.size(), cudaMemcpyHostToDevice), cudaSuccess);
  desc.xyz = static_cast<const float*>(xyz.data());
  desc.rgba = static_cast<const kernels::Rgba8*>(rgba.data());
  const kernels::ImageTarget target =
      kernels::linear_target(static_cast<kernels::Rgba8*>(frame.data()), pitch, width, height);
  ASSERT_EQ(kernels::draw_points(desc, static_cast<unsigned long long*>(keys.data()), target, nullptr),
            cudaSuccess);
  ASSERT_EQ(cudaMemcpy(drawn.data(), frame.data(), drawn.size(), cudaMemcpyDeviceToHost), cudaSuccess);

  long long lit = 0, differing = 0;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width * 4; x += 4) {
      const uint8_t* e = expected.data() + static_cast<size_t>(y) * pitch + x;
      const uint8_t* d = drawn.data() + static_cast<size_t>(y) * pitch + x;
      lit += (e[0] | e[1] | e[2]) != 0;
      differing += e[0] != d[0] || e[1] != d[1] || e[2] != d[2] || e[3] != d[3];
    }
  EXPECT_GT(lit, 0) << "nothing was drawn: the test says nothing";
  EXPECT_EQ(differing, 0) << n << " points of edge " << size << " at " << width << "x" << height;
  // The padding between rows is left as it was.
  for (int y = 0; y < height; ++y)
    for (size_t x = static_cast<size_t>(width) * 4; x < pitch; ++x)
      ASSERT_EQ(drawn[static_cast<size_t>(y) * pitch + x], 7);
}

TEST_F(PointsGpu, CrowdedClippedAndNanPointsDrawAsTheCpuReferenceAtEveryEdge) {
  for (const float size : {1.0f, 1.5f, 2.0f, 3.0f, 7.25f, 64.0f})
    expect_equal_frames(size > 8.0f ? 2000 : 60000, size, 203, 151, 5u + static_cast<unsigned>(size * 4));
}

TEST_F(PointsGpu, AMillionPointsOnA1080pFrameDrawAsTheCpuReference) {
  expect_equal_frames(1000000, 1.0f, 1920, 1080, 3u);
}

TEST_F(PointsGpu, NoPointsGiveOpaqueBlack) {
  kernels::PointsDesc desc;
  desc.width = 17;
  desc.height = 9;
  const interop::DeviceBuffer keys(kernels::points_keys_bytes(17, 9)), frame(17 * 9 * 4);
  const kernels::ImageTarget target =
      kernels::linear_target(static_cast<kernels::Rgba8*>(frame.data()), 17 * 4, 17, 9);
  ASSERT_EQ(kernels::draw_points(desc, static_cast<unsigned long long*>(keys.data()), target, nullptr),
            cudaSuccess);
  std::vector<uint32_t> drawn(17 * 9, 1);
  ASSERT_EQ(cudaMemcpy(drawn.data(), frame.data(), drawn.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  for (const uint32_t pixel : drawn) EXPECT_EQ(pixel, 0xff000000u);
}

}  // namespace
