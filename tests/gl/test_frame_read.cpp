// tests/gl/test_frame_read.cpp — the read-back a frame late (gl::Renderer::begin_read_frame /
// end_read_frame, app/gl/frame_read.hpp) against the synchronous read_frame, in `cpu` mode (Mesa llvmpipe
// in CI): for every scene, the frame begun and collected after the next frame was rendered has exactly
// read_frame's pixels of the frame it says it is, not the next one's, read through GL's pixel-pack buffer;
// a size change re-makes the buffer; only a frame CUDA sees would go to CUDA's read-back.
#include "tests/support/app_fixture.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using lab::ModeId;
using lab::SceneId;

class EveryScene : public ::testing::TestWithParam<SceneId> {};

TEST_P(EveryScene, ACollectedFrameIsReadFramesFrameAndNotTheNext) {
  lab::gl::App app(labtest::app_options(GetParam(), ModeId::Cpu, 331, 197));
  const lab::Image frame_3 = labtest::render(app, 3);
  app.renderer().begin_read_frame(app.plan(), app.platform().framebuffer_extent(), 3);
  const lab::Image frame_4 = labtest::render(app, 4);  // drawn while frame 3's read is in flight
  const std::optional<lab::FrameRead> read = app.renderer().end_read_frame();
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->frame, 3);
  ASSERT_EQ(read->image->width, frame_3.width);
  ASSERT_EQ(read->image->height, frame_3.height);
  EXPECT_EQ(read->image->rgba, frame_3.rgba) << "the collected frame differs from read_frame's";
  // Frames 3 and 4 differ (the scenes animate), so the equality above is frame 3's, not the framebuffer's.
  EXPECT_NE(frame_3.rgba, frame_4.rgba);
  EXPECT_FALSE(app.renderer().end_read_frame().has_value()) << "a frame collected twice";
  // The cpu mode gives CUDA nothing to read: GL's pixel-pack buffer read it, and no GPU hashed it.
  EXPECT_EQ(read->way, "PBO");
  EXPECT_TRUE(read->stripe_hashes.empty());
}

INSTANTIATE_TEST_SUITE_P(FrameRead, EveryScene,
                         ::testing::Values(SceneId::Wave, SceneId::Pattern, SceneId::Postprocess),
                         [](const ::testing::TestParamInfo<SceneId>& scene) {
                           return lab::to_string(scene.param);
                         });

// Which frames the renderer hands to CUDA's read-back (app/gl/cuda_frame_read.hpp): a ShowImage image
// headless whose mode set a CUDA source, at the frame's size (never in a window); a frame GL draws (the wave
// scene) and a source of resources re-created since (a resize) go through GL. The source here is never mapped
// (read_way only asks), so a stand-in registration serves without a GPU.
TEST(FrameRead, OnlyAnImageWhoseModeSetACudaSourceIsReadByCuda) {
  lab::gl::CudaFrameSource stand_in;
  stand_in.registered = reinterpret_cast<cudaGraphicsResource_t>(uintptr_t{0x1000});

  lab::gl::App pattern(labtest::app_options(SceneId::Pattern, ModeId::Cpu, 96, 64));
  labtest::render(pattern, 1);
  const lab::Extent extent = pattern.platform().framebuffer_extent();
  EXPECT_STREQ(pattern.renderer().read_way(pattern.plan(), extent), "PBO");
  pattern.renderer().set_cuda_source(pattern.plan().image_resource, stand_in);
  // In a window the frame is the window's framebuffer, which GL reads, whatever CUDA sees.
  EXPECT_STREQ(pattern.renderer().read_way(pattern.plan(), extent), labtest::use_window() ? "PBO" : "CUDA");
  EXPECT_STREQ(pattern.renderer().read_way(pattern.plan(), {48, 32}), "PBO") << "a source of another size";
  pattern.resize({120, 80});
  labtest::render(pattern, 2);
  EXPECT_STREQ(pattern.renderer().read_way(pattern.plan(), pattern.platform().framebuffer_extent()), "PBO")
      << "a source kept past the resources it named";
  pattern.renderer().set_cuda_source(pattern.plan().image_resource, stand_in);
  pattern.renderer().clear_cuda_sources();  // a mode's detach
  EXPECT_STREQ(pattern.renderer().read_way(pattern.plan(), pattern.platform().framebuffer_extent()), "PBO");

  lab::gl::App wave(labtest::app_options(SceneId::Wave, ModeId::Cpu, 96, 64));
  labtest::render(wave, 1);
  wave.renderer().set_cuda_source(0, stand_in);  // its vertex buffer: GL draws the frame from it
  EXPECT_STREQ(wave.renderer().read_way(wave.plan(), wave.platform().framebuffer_extent()), "PBO");
}

TEST(FrameRead, FollowsAResizeAndRefusesASecondReadInFlight) {
  lab::gl::App app(labtest::app_options(SceneId::Pattern, ModeId::Cpu, 128, 64));
  labtest::render(app, 1);
  app.renderer().begin_read_frame(app.plan(), app.platform().framebuffer_extent(), 1);
  EXPECT_THROW(app.renderer().begin_read_frame(app.plan(), app.platform().framebuffer_extent(), 1),
               std::logic_error);
  ASSERT_TRUE(app.renderer().end_read_frame().has_value());

  app.resize({200, 90});
  const lab::Image resized = labtest::render(app, 2);
  app.renderer().begin_read_frame(app.plan(), app.platform().framebuffer_extent(), 2);
  const std::optional<lab::FrameRead> read = app.renderer().end_read_frame();
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->image->width, 200);
  EXPECT_EQ(read->image->height, 90);
  EXPECT_EQ(read->image->rgba, resized.rgba);
  EXPECT_EQ(lab::compare_images(*read->image, labtest::expected_pattern_frame(200, 90, 2), 0).pixels_over,
            0u);
}

// --bench --serve's breakdown of the read-back: off (the desk's loop), nothing is timed; on, the collect's
// steps and the next read's, in the order they ran, each read's own. The frames read are the same.
TEST(FrameRead, TheStepsAreTimedOnlyWhenAskedAndSayWhatRan) {
  lab::gl::App app(labtest::app_options(SceneId::Pattern, ModeId::Cpu, 128, 64));
  const lab::Extent extent = app.platform().framebuffer_extent();
  labtest::render(app, 1);
  app.renderer().begin_read_frame(app.plan(), extent, 1);
  ASSERT_TRUE(app.renderer().end_read_frame().has_value());
  EXPECT_TRUE(app.renderer().take_read_back_steps().empty()) << "timed without being asked";

  app.renderer().set_read_back_steps(true);
  const lab::Image frame_2 = labtest::render(app, 2);
  app.renderer().begin_read_frame(app.plan(), extent, 2);
  const auto names = [](const std::vector<lab::StepTime>& steps) {
    std::vector<std::string> listed;
    for (const lab::StepTime& step : steps) {
      EXPECT_GE(step.ms, 0.0) << step.name;
      listed.push_back(step.name);
    }
    return listed;
  };
  EXPECT_EQ(names(app.renderer().take_read_back_steps()),
            (std::vector<std::string>{"begin: GL copy queued", "begin: barrier, fence, glFlush"}))
      << "the buffer of this size was made before steps were asked for";
  labtest::render(app, 3);
  const std::optional<lab::FrameRead> read = app.renderer().end_read_frame();
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->image->rgba, frame_2.rgba);
  EXPECT_EQ(names(app.renderer().take_read_back_steps()),
            (std::vector<std::string>{"end: glClientWaitSync (copy done)", "end: frame from the pool",
                                      "end: rows out of mapped memory"}));
  app.resize({64, 32});  // a new size makes a new pack buffer
  labtest::render(app, 4);
  app.renderer().begin_read_frame(app.plan(), app.platform().framebuffer_extent(), 4);
  EXPECT_EQ(names(app.renderer().take_read_back_steps()).front(), "begin: pack buffer made");
  ASSERT_TRUE(app.renderer().end_read_frame().has_value());
  app.renderer().set_read_back_steps(false);
  labtest::render(app, 5);
  app.renderer().begin_read_frame(app.plan(), app.platform().framebuffer_extent(), 5);
  ASSERT_TRUE(app.renderer().end_read_frame().has_value());
  EXPECT_TRUE(app.renderer().take_read_back_steps().empty());
}

// The map flags CUDA's read-back maps a mode's registration with (app/gl/cuda_frame_read.hpp): the mode's
// own where they let CUDA read, so that nothing is set per frame; read-only for write-discard only.
TEST(FrameRead, CudasReadBackSetsMapFlagsOnlyWhereTheModesForbidReading) {
  EXPECT_EQ(lab::gl::read_back_map_flags(cudaGraphicsMapFlagsWriteDiscard), cudaGraphicsMapFlagsReadOnly);
  EXPECT_EQ(lab::gl::read_back_map_flags(cudaGraphicsMapFlagsReadOnly), cudaGraphicsMapFlagsReadOnly);
  EXPECT_EQ(lab::gl::read_back_map_flags(cudaGraphicsMapFlagsNone), cudaGraphicsMapFlagsNone);
}

}  // namespace
