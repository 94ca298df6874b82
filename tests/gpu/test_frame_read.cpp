// tests/gpu/test_frame_read.cpp — the desk's read-back a frame late (gl::Renderer::begin_read_frame /
// end_read_frame) in every CUDA mode: the frame collected after the next frame was made (its kernels
// writing the same resources) is exactly read_frame's of the frame it says it is, so no mode lets CUDA
// overwrite a frame GL is still copying. Needs a CUDA device that drives the GL context; elsewhere it skips
// with the reason (and fails where INTEROP_LAB_REQUIRE_GPUS says a GPU must be there).
#include "tests/support/app_fixture.hpp"

namespace {

using lab::ModeId;
using lab::SceneId;

class EveryCudaMode : public ::testing::TestWithParam<SceneId> {};

TEST_P(EveryCudaMode, ACollectedFrameIsReadFramesFrame) {
  lab::App app(labtest::app_options(GetParam(), ModeId::Cpu, 640, 360));
  if (!app.interop_support().usable)
    LABTEST_NEEDS_GPUS(1, "needs a CUDA device whose GL interop works: " << app.interop_support().reason);
  for (const ModeId mode : lab::modes_of(lab::GraphicsApi::Gl)) {
    if (mode == ModeId::Cpu || !app.availability(mode).available) continue;
    SCOPED_TRACE(lab::to_string(mode));
    ASSERT_TRUE(app.request_mode(mode).available);
    const lab::Image frame_10 = labtest::render(app, 10);
    ASSERT_EQ(app.mode_id(), mode);
    app.renderer().begin_read_frame(app.plan(), app.platform().framebuffer_extent(), 10);
    labtest::render(app, 11);
    const std::optional<lab::FrameRead> read = app.renderer().end_read_frame();
    ASSERT_TRUE(read.has_value());
    EXPECT_EQ(read->frame, 10);
    EXPECT_EQ(read->image.rgba, frame_10.rgba) << "the collected frame differs from read_frame's";
  }
}

INSTANTIATE_TEST_SUITE_P(FrameRead, EveryCudaMode,
                         ::testing::Values(SceneId::Wave, SceneId::Pattern, SceneId::Postprocess),
                         [](const ::testing::TestParamInfo<SceneId>& scene) {
                           return lab::to_string(scene.param);
                         });

}  // namespace
