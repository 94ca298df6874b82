// tests/gl/test_scenes_cpu.cpp — whole frames through the real GL pipeline in `cpu` mode (Mesa
// llvmpipe in CI), checked against values computed from the kernels' functions: every pixel of the
// pattern scene, the wave scene's vertex buffer, and the wave's lit pixels at projected vertices.
#include "tests/support/app_fixture.hpp"
#include "tests/support/scratch_dir.hpp"

#include "app/scene/scene_compute.hpp"
#include "kernels/pattern.hpp"

#include <glm/glm.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

namespace {

using lab::ModeId;
using lab::SceneId;

TEST(PatternScene, EveryPixelIsTheKernelsTexel) {
  lab::gl::App app(labtest::app_options(SceneId::Pattern, ModeId::Cpu, 1277, 719));
  const lab::Image frame = labtest::render(app, 42);
  const lab::ImageDifference d =
      lab::compare_images(frame, labtest::expected_pattern_frame(1277, 719, 42), 0);
  EXPECT_EQ(d.pixels_over, 0u) << lab::to_string(d, 0);
}

TEST(PatternScene, ResizeRecreatesTheTextureAtTheNewSize) {
  lab::gl::App app(labtest::app_options(SceneId::Pattern, ModeId::Cpu, 640, 360));
  labtest::render(app, 1);
  app.resize({333, 201});
  const lab::Image frame = labtest::render(app, 2);
  ASSERT_EQ(frame.width, 333);
  ASSERT_EQ(frame.height, 201);
  EXPECT_EQ(app.renderer().resources().at(0).desc.width, 333);
  const lab::ImageDifference d = lab::compare_images(frame, labtest::expected_pattern_frame(333, 201, 2), 0);
  EXPECT_EQ(d.pixels_over, 0u) << lab::to_string(d, 0);
}

TEST(PatternScene, AZeroSizedFramebufferDrawsNothingAndRecovers) {
  lab::gl::App app(labtest::app_options(SceneId::Pattern, ModeId::Cpu, 320, 180));
  if (app.platform().is_window())
    GTEST_SKIP() << "a window reaches 0x0 when its window manager minimises it, and Xvfb has none; "
                    "the headless run covers the 0x0 frame";
  app.resize({0, 0});  // what a minimised window reports
  EXPECT_FALSE(app.render_frame());
  app.resize({320, 180});
  const lab::Image frame = labtest::render(app, 5);
  EXPECT_EQ(lab::compare_images(frame, labtest::expected_pattern_frame(320, 180, 5), 0).pixels_over, 0u);
}

TEST(WaveScene, VertexBufferHoldsTheKernelsVertices) {
  lab::gl::App app(labtest::app_options(SceneId::Wave, ModeId::Cpu, 640, 360));
  labtest::render(app, 17);
  const std::vector<kernels::WaveVertex> got = labtest::read_vertex_buffer(app);
  const std::vector<kernels::WaveVertex> expected = labtest::expected_wave_vertices(17);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].position.y, expected[i].position.y) << "vertex " << i;
    ASSERT_EQ(got[i].normal.x, expected[i].normal.x) << "vertex " << i;
  }
}

// Projects vertices to pixels with the scene's camera; where the vertex is the visible surface (the
// depth buffer agrees), the pixel must have the colour kernels::wave_shade gives for that vertex.
TEST(WaveScene, LitPixelsMatchTheShadingFunctionAtProjectedVertices) {
  const int width = 1277, height = 719;
  lab::gl::App app(labtest::app_options(SceneId::Wave, ModeId::Cpu, width, height));
  const lab::Image frame = labtest::render(app, 30);
  std::vector<float> depth(static_cast<size_t>(width) * height);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, app.platform().framebuffer());
  glReadPixels(0, 0, width, height, GL_DEPTH_COMPONENT, GL_FLOAT, depth.data());

  const std::vector<kernels::WaveVertex> vertices = labtest::expected_wave_vertices(30);
  const glm::mat4 view_projection = lab::wave_view_projection({width, height});
  const int tolerance = 8;  // /255: the pixel centre is up to 0.7 px from the vertex, normals interpolate
  int checked = 0, visible = 0;
  for (int j = 8; j < lab::kWaveGrid; j += 16) {
    for (int i = 8; i < lab::kWaveGrid; i += 16) {
      const kernels::WaveVertex& v = vertices[static_cast<size_t>(j) * lab::kWaveGrid + i];
      const glm::vec4 clip = view_projection * glm::vec4(v.position.x, v.position.y, v.position.z, 1.0f);
      const glm::vec3 ndc = glm::vec3(clip) / clip.w;
      const int px = static_cast<int>(std::floor((ndc.x * 0.5f + 0.5f) * width));
      const int py_gl = static_cast<int>(std::floor((ndc.y * 0.5f + 0.5f) * height));
      if (px < 0 || px >= width || py_gl < 0 || py_gl >= height) continue;
      ++checked;
      const float window_depth = ndc.z * 0.5f + 0.5f;
      if (std::fabs(depth[static_cast<size_t>(py_gl) * width + px] - window_depth) > 2e-4f)
        continue;  // occluded
      ++visible;
      const kernels::Rgba8 expected = kernels::to_rgba8(kernels::wave_shade(v.normal, v.position.y));
      const uint8_t* got = frame.pixel(px, height - 1 - py_gl);
      EXPECT_NEAR(got[0], expected.r, tolerance)
          << "vertex " << i << "," << j << " at pixel " << px << "," << py_gl;
      EXPECT_NEAR(got[1], expected.g, tolerance) << "vertex " << i << "," << j;
      EXPECT_NEAR(got[2], expected.b, tolerance) << "vertex " << i << "," << j;
    }
  }
  EXPECT_EQ(checked, 16 * 16) << "the whole mesh is in view";
  EXPECT_GE(visible, checked * 8 / 10) << "most sampled vertices face the camera";
}

TEST(WaveScene, BackgroundIsTheClearColour) {
  lab::gl::App app(labtest::app_options(SceneId::Wave, ModeId::Cpu, 640, 360));
  const lab::Image frame = labtest::render(app, 0);
  for (const auto& [x, y] : {std::pair{0, 0}, std::pair{639, 0}, std::pair{320, 2}}) {
    const uint8_t* p = frame.pixel(x, y);
    EXPECT_EQ(p[0], kernels::to_unorm8(lab::kClearColor[0])) << x << "," << y;
    EXPECT_EQ(p[1], kernels::to_unorm8(lab::kClearColor[1])) << x << "," << y;
    EXPECT_EQ(p[2], kernels::to_unorm8(lab::kClearColor[2])) << x << "," << y;
  }
}

TEST(App, SwitchesSceneLiveOnTheNextFrame) {
  lab::gl::App app(labtest::app_options(SceneId::Wave, ModeId::Cpu, 400, 300));
  labtest::render(app, 3);
  app.request_scene(SceneId::Pattern);
  EXPECT_EQ(app.scene_id(), SceneId::Wave) << "a switch waits for the next frame";
  const lab::Image frame = labtest::render(app, 4);
  EXPECT_EQ(app.scene_id(), SceneId::Pattern);
  EXPECT_EQ(lab::compare_images(frame, labtest::expected_pattern_frame(400, 300, 4), 0).pixels_over, 0u);
}

TEST(App, StartsInTheBestTierThatWorksWhenInteropIsUnavailable) {
  lab::Options options = labtest::app_options(SceneId::Pattern, ModeId::Cpu, 64, 64);
  options.mode.reset();
  lab::gl::App app(options);
  if (app.interop_support().usable)
    GTEST_SKIP() << "CUDA-GL interop works here, so there is no fallback to see";
  // interop -> staging (a CUDA device that does not drive GL) -> cpu (no CUDA device at all)
  EXPECT_EQ(app.mode_id(), app.cuda_device() >= 0 ? ModeId::Staging : ModeId::Cpu);
  EXPECT_FALSE(app.interop_support().reason.empty());
  EXPECT_NE(app.notice().find("interop unavailable"), std::string::npos) << app.notice();
  const lab::ModeAvailability refused = app.request_mode(ModeId::Interop);
  EXPECT_FALSE(refused.available);
  EXPECT_EQ(refused.reason, app.interop_support().reason);
}

TEST(App, ExplicitInteropModeWithoutInteropFailsWithTheReason) {
  lab::Options probe_options = labtest::app_options(SceneId::Pattern, ModeId::Cpu, 64, 64);
  std::string reason;
  {
    lab::gl::App probe(probe_options);
    if (probe.interop_support().usable) GTEST_SKIP() << "CUDA-GL interop works here";
    reason = probe.interop_support().reason;
  }
  try {
    lab::gl::App app(labtest::app_options(SceneId::Pattern, ModeId::Interop, 64, 64));
    FAIL() << "--mode interop started without interop";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("--mode interop is unavailable"), std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find(reason), std::string::npos) << error.what();
  }
}

TEST(App, RunWritesTheLastFrameAsAScreenshot) {
  const labtest::ScratchDir scratch("shot");
  const std::filesystem::path path = scratch.path() / "shot.png";
  lab::Options options = labtest::app_options(SceneId::Pattern, ModeId::Cpu, 300, 200);
  options.frames = 3;
  options.screenshot = path.string();
  {
    lab::gl::App app(options);
    EXPECT_EQ(app.run(), 0);
  }
  const lab::Image written = lab::read_png(path.string());
  EXPECT_EQ(lab::compare_images(written, labtest::expected_pattern_frame(300, 200, 2), 0).pixels_over, 0u);
}

class PostprocessScene : public ::testing::TestWithParam<kernels::Filter> {};

// The whole pipeline: GL renders the 3D scene, the CPU reference filters what GL rendered, GL shows it.
TEST_P(PostprocessScene, ShowsTheFilterOfWhatGlRendered) {
  lab::Options options = labtest::app_options(SceneId::Postprocess, ModeId::Cpu, 641, 359);
  options.filter = GetParam();
  lab::gl::App app(options);
  const lab::Image frame = labtest::render(app, 20);
  const lab::Image expected = labtest::expected_postprocess_frame(app, GetParam());
  const lab::ImageDifference d = lab::compare_images(frame, expected, 0);
  EXPECT_EQ(d.pixels_over, 0u) << lab::to_string(d, 0);

  // Not vacuous: the rendered scene has shading, and the filter changed it.
  const lab::gl::Resource& input = app.renderer().resources().at(0);
  std::vector<uint8_t> rendered(static_cast<size_t>(input.desc.width) * input.desc.height * 4);
  glGetTextureImage(input.gl_name, 0, GL_RGBA, GL_UNSIGNED_BYTE, static_cast<GLsizei>(rendered.size()),
                    rendered.data());
  std::vector<uint32_t> colours(rendered.size() / 4);
  std::memcpy(colours.data(), rendered.data(), rendered.size());
  std::sort(colours.begin(), colours.end());
  EXPECT_GT(std::unique(colours.begin(), colours.end()) - colours.begin(), 200) << "the 3D scene is shaded";
  lab::Image unfiltered{input.desc.width, input.desc.height, rendered};
  lab::flip_rows(unfiltered);
  // Sobel darkens everything but edges; a blur changes only what lies near an edge.
  const double changed = GetParam() == kernels::Filter::Sobel ? 0.25 : 0.01;
  EXPECT_GT(lab::compare_images(unfiltered, frame, 2).fraction_over, changed)
      << "the filter changed the picture";
}

INSTANTIATE_TEST_SUITE_P(Filters, PostprocessScene,
                         ::testing::Values(kernels::Filter::Sobel, kernels::Filter::Blur),
                         [](const ::testing::TestParamInfo<kernels::Filter>& filter) {
                           return std::string(kernels::to_string(filter.param));
                         });

TEST(App, RefusesEveryCudaModeWithTheReasonWhereThereIsNoCuda) {
  lab::gl::App app(labtest::app_options(SceneId::Pattern, ModeId::Cpu, 64, 64));
  if (app.cuda_device() >= 0) GTEST_SKIP() << "a CUDA device exists here";
  for (const ModeId mode :
       {ModeId::Interop, ModeId::Reregister, ModeId::Pbo, ModeId::Split, ModeId::Staging}) {
    const lab::ModeAvailability availability = app.request_mode(mode);
    EXPECT_FALSE(availability.available) << lab::to_string(mode);
    EXPECT_NE(availability.reason.find("no CUDA device"), std::string::npos) << availability.reason;
  }
  EXPECT_TRUE(app.request_mode(ModeId::Cpu).available);
}

TEST(App, RefusesFlagsThatContradictAResourcesRole) {
  lab::gl::App app(labtest::app_options(SceneId::Postprocess, ModeId::Cpu, 64, 64));
  const std::string read_only = app.request_map_access(interop::Access::ReadOnly);
  EXPECT_NE(read_only.find("read-only cannot apply to the filtered image: CUDA writes it"), std::string::npos)
      << read_only;
  const std::string write_discard = app.request_register_access(interop::Access::WriteDiscard);
  EXPECT_NE(write_discard.find("write-discard cannot apply to the rendered scene: CUDA reads it"),
            std::string::npos)
      << write_discard;
  EXPECT_FALSE(app.access().map_access.has_value()) << "a refused choice changes nothing";
  EXPECT_EQ(app.request_map_access(interop::Access::ReadWrite), "");
  EXPECT_EQ(app.access().map_access, interop::Access::ReadWrite);
}

TEST(App, TimesEveryPhaseOfACpuFrame) {
  lab::gl::App app(labtest::app_options(SceneId::Postprocess, ModeId::Cpu, 320, 240));
  for (long long i = 0; i < 12; ++i) labtest::render(app, i);
  app.timers().flush();
  const int tag = static_cast<int>(ModeId::Cpu);
  for (const lab::Phase phase :
       {lab::Phase::Kernel, lab::Phase::GlCopy, lab::Phase::Draw, lab::Phase::Frame}) {
    ASSERT_TRUE(app.timers().has(tag, phase)) << lab::to_string(phase);
    EXPECT_GE(app.timers().stats(tag, phase).samples, 10) << lab::to_string(phase);
    EXPECT_GT(app.timers().stats(tag, phase).average_ms, 0.0f) << lab::to_string(phase);
  }
  EXPECT_FALSE(app.timers().has(tag, lab::Phase::Map)) << "the cpu mode maps nothing";
}

}  // namespace
