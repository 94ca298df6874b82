// tests/gpu/test_interop_frames.cpp — the core promise: for a given scene, size and frame index,
// `interop` mode produces the frame the CPU reference produces. Needs a CUDA device that drives the
// GL context (headless EGL device platform, or a window with INTEROP_LAB_TEST_PLATFORM=window);
// elsewhere each test skips with the reason.
#include "tests/support/app_fixture.hpp"

#include "interop/gl.hpp"

#include <cmath>
#include <tuple>

namespace {

using lab::ModeId;
using lab::SceneId;

// Textures written by kernels: CUDA's sinf/sqrtf and the host's differ in the last bits, which can
// move a rounded 8-bit value by one.
constexpr int kTextureTolerance = 1;
// Vertex positions and normals: a few float ulps apart.
constexpr float kVertexTolerance = 1e-4f;
// Rasterised mesh: a vertex a few ulps away can move an edge across a pixel centre.
constexpr int kMeshPixelThreshold = 8;
constexpr double kMeshMaxFraction = 0.001;

struct Case {
  SceneId scene;
  int width, height;
};

class InteropFrames : public ::testing::TestWithParam<Case> {};

TEST_P(InteropFrames, InteropFrameEqualsCpuFrame) {
  const Case c = GetParam();
  lab::App app(labtest::app_options(c.scene, ModeId::Cpu, c.width, c.height));
  if (!app.interop_support().usable)
    GTEST_SKIP() << "needs a CUDA device whose GL interop works: " << app.interop_support().reason;
  const long long index = 97;
  const lab::Image cpu_frame = labtest::render(app, index);
  std::vector<kernels::WaveVertex> cpu_vertices;
  if (c.scene == SceneId::Wave) cpu_vertices = labtest::read_vertex_buffer(app);

  ASSERT_TRUE(app.request_mode(ModeId::Interop).available);
  const lab::Image interop_frame = labtest::render(app, index);
  ASSERT_EQ(app.mode_id(), ModeId::Interop);

  if (c.scene == SceneId::Pattern) {
    const lab::ImageDifference d = lab::compare_images(interop_frame, cpu_frame, kTextureTolerance);
    EXPECT_EQ(d.pixels_over, 0u) << lab::to_string(d, kTextureTolerance);
    // And both are the kernel's image, not merely equal to each other.
    const lab::ImageDifference e = lab::compare_images(
        interop_frame, labtest::expected_pattern_frame(c.width, c.height, index), kTextureTolerance);
    EXPECT_EQ(e.pixels_over, 0u) << lab::to_string(e, kTextureTolerance);
  } else {
    const std::vector<kernels::WaveVertex> gpu_vertices = labtest::read_vertex_buffer(app);
    ASSERT_EQ(gpu_vertices.size(), cpu_vertices.size());
    float worst = 0.0f;
    for (size_t i = 0; i < gpu_vertices.size(); ++i) {
      const float* a = &gpu_vertices[i].position.x;
      const float* b = &cpu_vertices[i].position.x;
      for (int k = 0; k < 6; ++k) worst = std::fmax(worst, std::fabs(a[k] - b[k]));
    }
    EXPECT_LE(worst, kVertexTolerance);
    const lab::ImageDifference d = lab::compare_images(interop_frame, cpu_frame, kMeshPixelThreshold);
    EXPECT_LE(d.fraction_over, kMeshMaxFraction) << lab::to_string(d, kMeshPixelThreshold);
  }
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return std::string(lab::to_string(info.param.scene)) + "_" + std::to_string(info.param.width) + "x" +
         std::to_string(info.param.height);
}

INSTANTIATE_TEST_SUITE_P(ScenesAndSizes, InteropFrames,
                         ::testing::Values(Case{SceneId::Pattern, 1277, 719}, Case{SceneId::Pattern, 3840, 2160},
                                           Case{SceneId::Wave, 1277, 719}, Case{SceneId::Wave, 3840, 2160}),
                         case_name);

TEST(InteropResize, ReRegistersTheTextureAndKeepsMatching) {
  lab::App app(labtest::app_options(SceneId::Pattern, ModeId::Cpu, 640, 360));
  if (!app.interop_support().usable)
    GTEST_SKIP() << "needs a CUDA device whose GL interop works: " << app.interop_support().reason;
  ASSERT_TRUE(app.request_mode(ModeId::Interop).available);
  labtest::render(app, 1);
  for (const lab::Extent extent : {lab::Extent{1277, 719}, lab::Extent{0, 0}, lab::Extent{301, 157}}) {
    if (extent.empty()) {
      // Headless only: a window is minimised by its window manager, which Xvfb does not have.
      if (app.platform().is_window()) continue;
      app.resize(extent);
      EXPECT_FALSE(app.render_frame());
      continue;
    }
    app.resize(extent);
    if (app.platform().is_window())
      for (int i = 0; i < 200 && app.platform().framebuffer_extent() != extent; ++i) app.platform().poll_events();
    const lab::Image frame = labtest::render(app, 7);
    const lab::ImageDifference d = lab::compare_images(
        frame, labtest::expected_pattern_frame(extent.width, extent.height, 7), kTextureTolerance);
    EXPECT_EQ(d.pixels_over, 0u) << extent.width << "x" << extent.height << ": " << lab::to_string(d, kTextureTolerance);
    EXPECT_EQ(interop::live_registrations(), 1);
  }
}

}  // namespace
