// tests/unit/test_kernels_cpu.cpp — the kernels' per-element math and CPU launchers, no GPU needed.
#include "kernels/pattern.hpp"
#include "kernels/wave.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace {

TEST(KernelMath, Unorm8RoundsToNearestAndClamps) {
  EXPECT_EQ(kernels::to_unorm8(0.0f), 0);
  EXPECT_EQ(kernels::to_unorm8(1.0f), 255);
  EXPECT_EQ(kernels::to_unorm8(0.5f), 128);
  EXPECT_EQ(kernels::to_unorm8(-3.0f), 0);
  EXPECT_EQ(kernels::to_unorm8(7.0f), 255);
  EXPECT_EQ(kernels::to_unorm8(1.0f / 255.0f), 1);
}

TEST(KernelMath, AnimationTimeComesFromTheFrameIndex) {
  EXPECT_FLOAT_EQ(kernels::time_of_frame(0), 0.0f);
  EXPECT_FLOAT_EQ(kernels::time_of_frame(60), 1.0f);
  EXPECT_FLOAT_EQ(kernels::time_of_frame(90), 1.5f);
}

TEST(WaveKernel, NormalsAreUnitLengthAndMatchTheNumericGradient) {
  const float t = 1.7f;
  const float h = 1e-3f;
  for (float x = -0.95f; x < 1.0f; x += 0.173f) {
    for (float z = -0.95f; z < 1.0f; z += 0.191f) {
      const kernels::WaveSample s = kernels::wave_sample(x, z, t);
      const float numeric_dx =
          (kernels::wave_sample(x + h, z, t).height - kernels::wave_sample(x - h, z, t).height) / (2 * h);
      const float numeric_dz =
          (kernels::wave_sample(x, z + h, t).height - kernels::wave_sample(x, z - h, t).height) / (2 * h);
      EXPECT_NEAR(s.d_dx, numeric_dx, 2e-3f) << "at x=" << x << " z=" << z;
      EXPECT_NEAR(s.d_dz, numeric_dz, 2e-3f) << "at x=" << x << " z=" << z;
    }
  }
  kernels::WaveParams params;
  params.time = t;
  for (int j = 0; j < params.grid_z; j += 17) {
    for (int i = 0; i < params.grid_x; i += 13) {
      const kernels::Vec3 n = kernels::wave_vertex(i, j, params).normal;
      EXPECT_NEAR(kernels::dot(n, n), 1.0f, 1e-5f);
      EXPECT_GT(n.y, 0.0f) << "normals point up out of the surface";
    }
  }
}

TEST(WaveKernel, GridSpansTheSquareCornerToCorner) {
  kernels::WaveParams params;
  params.grid_x = 5;
  params.grid_z = 3;
  const kernels::WaveVertex first = kernels::wave_vertex(0, 0, params);
  const kernels::WaveVertex last = kernels::wave_vertex(4, 2, params);
  EXPECT_FLOAT_EQ(first.position.x, -1.0f);
  EXPECT_FLOAT_EQ(first.position.z, -1.0f);
  EXPECT_FLOAT_EQ(last.position.x, 1.0f);
  EXPECT_FLOAT_EQ(last.position.z, 1.0f);
  EXPECT_FLOAT_EQ(first.position.y, kernels::wave_sample(-1.0f, -1.0f, 0.0f).height);
}

TEST(WaveKernel, CpuLauncherWritesEveryVertexAtItsIndex) {
  kernels::WaveParams params;
  params.grid_x = 301;  // not square, not a multiple of any block or thread split
  params.grid_z = 77;
  params.time = 0.25f;
  std::vector<kernels::WaveVertex> vertices(static_cast<size_t>(kernels::wave_vertex_count(params)),
                                            kernels::WaveVertex{{NAN, NAN, NAN}, {NAN, NAN, NAN}});
  kernels::wave_cpu(vertices.data(), params);
  for (int j = 0; j < params.grid_z; ++j) {
    for (int i = 0; i < params.grid_x; ++i) {
      const kernels::WaveVertex expected = kernels::wave_vertex(i, j, params);
      const kernels::WaveVertex& got = vertices[static_cast<size_t>(j) * params.grid_x + i];
      ASSERT_EQ(got.position.x, expected.position.x) << i << "," << j;
      ASSERT_EQ(got.position.y, expected.position.y) << i << "," << j;
      ASSERT_EQ(got.normal.z, expected.normal.z) << i << "," << j;
    }
  }
}

TEST(WaveKernel, ShadingIsBrighterFacingTheLight) {
  const kernels::Vec3 toward = kernels::normalize(kernels::Vec3{0.4f, 1.0f, 0.3f});
  const kernels::Vec3 away = kernels::normalize(kernels::Vec3{-0.9f, 0.1f, -0.9f});
  const kernels::Vec3 lit = kernels::wave_shade(toward, 0.0f);
  const kernels::Vec3 dim = kernels::wave_shade(away, 0.0f);
  EXPECT_GT(lit.x + lit.y + lit.z, 2.5f * (dim.x + dim.y + dim.z));
}

TEST(PatternKernel, CpuLauncherHonoursPitchAndLeavesPaddingAlone) {
  const int width = 37, height = 19;
  const size_t pitch = (width + 3) * sizeof(kernels::Rgba8);  // 3 texels of padding per row
  std::vector<kernels::Rgba8> storage(pitch / sizeof(kernels::Rgba8) * height, kernels::Rgba8{1, 2, 3, 4});
  const kernels::PatternParams params{width, height, 2.5f};
  kernels::pattern_cpu(kernels::linear_target(storage.data(), pitch, width, height), params);
  for (int y = 0; y < height; ++y) {
    const kernels::Rgba8* row = storage.data() + y * (pitch / sizeof(kernels::Rgba8));
    for (int x = 0; x < width; ++x) {
      const kernels::Rgba8 expected = kernels::pattern_texel(x, y, params);
      ASSERT_EQ(row[x].r, expected.r);
      ASSERT_EQ(row[x].g, expected.g);
      ASSERT_EQ(row[x].b, expected.b);
      ASSERT_EQ(row[x].a, 255);
    }
    for (int x = width; x < width + 3; ++x)
      ASSERT_EQ(row[x].a, 4) << "padding at row " << y << " was written";
  }
}

TEST(PatternKernel, IsAnimated) {
  const kernels::PatternParams a{64, 64, kernels::time_of_frame(0)};
  const kernels::PatternParams b{64, 64, kernels::time_of_frame(30)};
  int differing = 0;
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x)
      differing += kernels::pattern_texel(x, y, a).r != kernels::pattern_texel(x, y, b).r;
  EXPECT_GT(differing, 64 * 64 / 2);
}

}  // namespace
