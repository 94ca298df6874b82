// tests/vulkan/test_vulkan_frame_read.cpp — Vulkan's read-back a frame late (vulkan::Renderer::
// begin_read_frame / end_read_frame, the desk's) against the synchronous read_frame, in cpu mode (lavapipe in
// CI): for every scene the frame begun, collected after the next frame was rendered, has exactly read_frame's
// pixels of the frame it says it is. Without a Vulkan driver the tests skip with the reason.
#include "tests/support/app_fixture.hpp"
#include "tests/support/vulkan_device.hpp"

#include "app/vulkan/app/app.hpp"

#include <optional>
#include <stdexcept>
#include <string>

namespace {

using lab::ModeId;
using lab::SceneId;
using labtest::vulkan_missing;

class VulkanFrameRead : public ::testing::TestWithParam<SceneId> {};

TEST_P(VulkanFrameRead, ACollectedFrameIsReadFramesFrameAndNotTheNext) {
  if (const std::string missing = vulkan_missing(); !missing.empty())
    GTEST_SKIP() << "needs a Vulkan driver: " << missing;
  lab::Options options = labtest::app_options(GetParam(), ModeId::Cpu, 331, 197);
  options.api = lab::GraphicsApi::Vulkan;
  options.headless = true;
  lab::vulkan::App app(options);
  app.render_frame(3);
  const lab::Image frame_3 = app.read_frame();
  app.renderer().begin_read_frame(app.plan(), 3);
  EXPECT_THROW(app.renderer().begin_read_frame(app.plan(), 3), std::logic_error);
  app.render_frame(4);  // drawn while frame 3's read is in flight
  const lab::Image frame_4 = app.read_frame();
  const std::optional<lab::FrameRead> read = app.renderer().end_read_frame();
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->frame, 3);
  ASSERT_EQ(read->image->width, frame_3.width);
  ASSERT_EQ(read->image->height, frame_3.height);
  EXPECT_EQ(read->image->rgba, frame_3.rgba) << "the collected frame differs from read_frame's";
  EXPECT_NE(frame_3.rgba, frame_4.rgba);  // so the equality above is frame 3's, not the last frame's
  EXPECT_FALSE(app.renderer().end_read_frame().has_value()) << "a frame collected twice";
}

INSTANTIATE_TEST_SUITE_P(Scenes, VulkanFrameRead,
                         ::testing::Values(SceneId::Wave, SceneId::Pattern, SceneId::Postprocess),
                         [](const ::testing::TestParamInfo<SceneId>& scene) {
                           return std::string(lab::to_string(scene.param));
                         });

}  // namespace
