// tests/vulkan/test_vulkan_frame_read.cpp — Vulkan's read-back a frame late (vulkan::Renderer::
// begin_read_frame / end_read_frame, the desk's) against the synchronous read_frame, in cpu mode (lavapipe in
// CI): for every scene two reads go under way at once, a third is refused, and each frame collected (oldest
// first, after later frames were rendered) has exactly read_frame's pixels of the frame it says it is, read
// straight into the frame where the device imports host memory, at the frame's size and after a resize.
// Without a Vulkan driver the tests skip with the reason.
#include "tests/support/app_fixture.hpp"
#include "tests/support/vulkan_device.hpp"

#include "app/vulkan/app/app.hpp"

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

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
  lab::vulkan::Renderer& renderer = app.renderer();
  app.render_frame(3);
  const lab::Image frame_3 = app.read_frame();
  renderer.begin_read_frame(app.plan(), 3);
  EXPECT_EQ(renderer.reads_under_way(), 1);
  EXPECT_TRUE(renderer.can_begin_read()) << "a second read waits for the first";
  app.render_frame(4);  // drawn while frame 3's read is in flight
  const lab::Image frame_4 = app.read_frame();
  renderer.begin_read_frame(app.plan(), 4);
  EXPECT_EQ(renderer.reads_under_way(), 2);
  EXPECT_FALSE(renderer.can_begin_read());
  EXPECT_THROW(renderer.begin_read_frame(app.plan(), 4), std::logic_error) << "a third read with two slots";
  app.render_frame(5);
  for (const auto& [number, expected] :
       {std::pair<long long, const lab::Image*>{3, &frame_3}, {4, &frame_4}}) {
    const std::optional<lab::FrameRead> read = renderer.end_read_frame();
    ASSERT_TRUE(read.has_value()) << "frame " << number;
    EXPECT_EQ(read->frame, number) << "reads are collected in the order they began";
    // Where the device imports host memory (lavapipe and NVIDIA's driver do), the GPU copies straight into
    // the frame handed over; elsewhere the rows are copied out of the read's own buffer.
    EXPECT_EQ(read->way,
              app.device().host_import_alignment() > 0 ? lab::vulkan::Renderer::kReadIntoFrame : "")
        << "host import alignment " << app.device().host_import_alignment();
    ASSERT_EQ(read->image->width, expected->width);
    ASSERT_EQ(read->image->height, expected->height);
    EXPECT_EQ(read->image->rgba, expected->rgba) << "frame " << number << " differs from read_frame's";
  }
  EXPECT_NE(frame_3.rgba, frame_4.rgba);  // so each equality above is its own frame's, not the last one's
  EXPECT_EQ(renderer.reads_under_way(), 0);
  EXPECT_FALSE(renderer.end_read_frame().has_value()) << "a frame collected twice";

  // A larger size: the image the read turns the picture over in is made again at it.
  app.resize({401, 253});
  app.render_frame(6);
  const lab::Image frame_6 = app.read_frame();
  renderer.begin_read_frame(app.plan(), 6);
  const std::optional<lab::FrameRead> resized = renderer.end_read_frame();
  ASSERT_TRUE(resized.has_value());
  ASSERT_EQ(resized->image->width, 401);
  ASSERT_EQ(resized->image->height, 253);
  EXPECT_EQ(resized->image->rgba, frame_6.rgba) << "the frame read after a resize differs from read_frame's";
}

INSTANTIATE_TEST_SUITE_P(Scenes, VulkanFrameRead,
                         ::testing::Values(SceneId::Wave, SceneId::Pattern, SceneId::Postprocess),
                         [](const ::testing::TestParamInfo<SceneId>& scene) {
                           return std::string(lab::to_string(scene.param));
                         });

}  // namespace
