// tests/gpu/test_frame_read.cpp — the desk's read-back a frame late (gl::Renderer::begin_read_frame /
// end_read_frame; up to two CUDA reads under way, collected in order) in every CUDA mode: the frame
// collected after the next frame was made (its kernels writing the same resources) is exactly read_frame's of
// the frame it says it is, so no mode lets CUDA overwrite a frame that is still being copied. A ShowImage
// scene's frame in a mode that holds it registered (interop, pbo, split, buffer) or in CUDA's memory
// (external, exported) is copied by CUDA (app/gl/cuda_frame_read.hpp) with its stripe hashes, which equal the
// CPU reference's of the same picture, and so is a frame GL draws in those modes and in reregister; any other
// frame goes through GL's pixel-pack buffer. Needs a CUDA device that drives the GL context; elsewhere it
// skips with the reason (and fails where INTEROP_LAB_REQUIRE_GPUS says a GPU must be there).
#include "kernels/stripe_hash.hpp"
#include "tests/support/app_fixture.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using lab::ModeId;
using lab::SceneId;

// The modes whose registrations (or, external and exported, whose CUDA memory) the desk reads a ShowImage
// frame through; a frame GL draws (the wave scene's) is read through the read-back's own registration
// wherever one of them or reregister runs.
bool read_by_cuda(ModeId mode, SceneId scene) {
  // In a window the frame is the window's framebuffer, which GL reads: the desk (--serve, headless) is where
  // CUDA reads frames.
  if (labtest::use_window()) return false;
  const bool cuda_sees = mode == ModeId::Interop || mode == ModeId::Pbo || mode == ModeId::Split ||
                         mode == ModeId::Buffer || mode == ModeId::External || mode == ModeId::Exported;
  return cuda_sees || (scene == SceneId::Wave && mode == ModeId::Reregister);
}

std::vector<uint64_t> cpu_hashes(const lab::Image& image) {
  std::vector<uint64_t> hashes(static_cast<size_t>(kernels::stripe_count(image.height)));
  kernels::stripe_hashes_cpu(image.rgba.data(), image.width, image.height,
                             static_cast<size_t>(image.width) * 4, hashes.data());
  return hashes;
}

// The pattern scene in the interop mode at width x height; null, with why in `refused`, where it cannot run
// (no CUDA device, or no interop with GL).
std::unique_ptr<lab::gl::App> interop_app(int width, int height, std::string& refused) {
  std::unique_ptr<lab::gl::App> app;
  try {
    app = std::make_unique<lab::gl::App>(
        labtest::app_options(SceneId::Pattern, ModeId::Interop, width, height));
  } catch (const std::exception& refusal) {  // --mode interop refused
    refused = refusal.what();
    return nullptr;
  }
  if (!app->interop_support().usable) {
    refused = app->interop_support().reason;
    return nullptr;
  }
  return app;
}

class EveryCudaMode : public ::testing::TestWithParam<SceneId> {};

TEST_P(EveryCudaMode, ACollectedFrameIsReadFramesFrame) {
  // An odd size: rows that end inside a block of the hashing kernel, a last stripe of 5 rows.
  lab::gl::App app(labtest::app_options(GetParam(), ModeId::Cpu, 643, 325));
  if (!app.interop_support().usable)
    LABTEST_NEEDS_GPUS(1, "needs a CUDA device whose GL interop works: " << app.interop_support().reason);
  for (const ModeId mode : lab::modes_of(lab::GraphicsApi::Gl)) {
    if (mode == ModeId::Cpu || !app.availability(mode).available) continue;
    SCOPED_TRACE(lab::to_string(mode));
    ASSERT_TRUE(app.request_mode(mode).available);
    const lab::Image frame_10 = labtest::render(app, 10);
    ASSERT_EQ(app.mode_id(), mode);
    const bool by_cuda = read_by_cuda(mode, GetParam());
    EXPECT_STREQ(app.renderer().read_way(app.plan(), app.platform().framebuffer_extent()),
                 by_cuda ? "CUDA" : "PBO");
    app.renderer().begin_read_frame(app.plan(), app.platform().framebuffer_extent(), 10);
    labtest::render(app, 11);
    const std::optional<lab::FrameRead> read = app.renderer().end_read_frame();
    ASSERT_TRUE(read.has_value());
    EXPECT_EQ(read->frame, 10);
    EXPECT_EQ(read->way, by_cuda ? "CUDA" : "PBO");
    EXPECT_EQ(read->image->rgba, frame_10.rgba) << "the collected frame differs from read_frame's";
    if (by_cuda)
      EXPECT_EQ(read->stripe_hashes, cpu_hashes(frame_10)) << "the GPU's stripe hashes differ from the CPU's";
    else
      EXPECT_TRUE(read->stripe_hashes.empty());
  }
}

INSTANTIATE_TEST_SUITE_P(FrameRead, EveryCudaMode,
                         ::testing::Values(SceneId::Wave, SceneId::Pattern, SceneId::Postprocess),
                         [](const ::testing::TestParamInfo<SceneId>& scene) {
                           return lab::to_string(scene.param);
                         });

// Frame after frame in the interop mode, with a resize between: each read is its own frame's, its hashes
// change only where the picture did, and a mode switch away (cpu) goes back to GL's read.
TEST(CudaFrameRead, FollowsFramesAResizeAndAModeSwitch) {
  if (labtest::use_window())
    GTEST_SKIP() << "CUDA reads the desk's frames headless only (--serve runs headless); in a window GL "
                    "reads the window's framebuffer, which EveryCudaMode checks";
  std::string refused;
  const std::unique_ptr<lab::gl::App> made = interop_app(1920, 1080, refused);
  if (!made) LABTEST_NEEDS_GPUS(1, "needs a CUDA device whose GL interop works: " << refused);
  lab::gl::App& app = *made;
  ASSERT_EQ(app.mode_id(), ModeId::Interop);
  // Frames the desk still holds (encoding, sending) keep their pixels while the read-back goes on: its
  // pool hands out only frames nobody holds.
  std::vector<std::pair<std::shared_ptr<const lab::Image>, lab::Image>> held;
  for (const lab::Extent size : {lab::Extent{1920, 1080}, lab::Extent{1280, 720}}) {
    app.resize(size);
    std::vector<uint64_t> hashes_before;
    for (long long index = 20; index < 24; ++index) {
      const lab::Image screenshot = labtest::render(app, index);
      app.renderer().begin_read_frame(app.plan(), app.platform().framebuffer_extent(), index);
      const std::optional<lab::FrameRead> read = app.renderer().end_read_frame();
      ASSERT_TRUE(read.has_value());
      EXPECT_EQ(read->way, "CUDA");
      EXPECT_EQ(read->image->width, size.width);
      EXPECT_EQ(read->image->rgba, screenshot.rgba) << "frame " << index;
      EXPECT_EQ(read->stripe_hashes, cpu_hashes(screenshot)) << "frame " << index;
      EXPECT_NE(read->stripe_hashes, hashes_before) << "the pattern animates: frame " << index;
      hashes_before = read->stripe_hashes;
      if (index % 2 == 0) held.emplace_back(read->image, screenshot);
    }
  }
  for (const auto& [image, screenshot] : held)
    EXPECT_EQ(image->rgba, screenshot.rgba) << "a held frame changed";
  // A CUDA read still under way when the mode switches to one CUDA does not see: GL's read of the next
  // frame drops it, and end_read_frame hands over GL's.
  labtest::render(app, 29);
  app.renderer().begin_read_frame(app.plan(), app.platform().framebuffer_extent(), 29);
  ASSERT_TRUE(app.request_mode(ModeId::Cpu).available);
  const lab::Image cpu_frame = labtest::render(app, 30);
  app.renderer().begin_read_frame(app.plan(), app.platform().framebuffer_extent(), 30);
  const std::optional<lab::FrameRead> read = app.renderer().end_read_frame();
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->frame, 30) << "the CUDA read of frame 29 was not dropped";
  EXPECT_EQ(read->way, "PBO") << "the interop mode's registration outlived its detach";
  EXPECT_EQ(read->image->rgba, cpu_frame.rgba);
  EXPECT_EQ(app.renderer().reads_under_way(), 0) << "a read left behind";
}

// Two CUDA reads under way, as the desk's loop keeps them when the GPU is behind: a third is refused until
// one is collected; read_frame_done turns true for the oldest without waiting; each frame collected, in
// order, is its own, although the next frames were made while both were being copied.
TEST(CudaFrameRead, KeepsTwoReadsUnderWayInOrder) {
  if (labtest::use_window())
    GTEST_SKIP() << "CUDA reads the desk's frames headless only (--serve runs headless); in a window GL "
                    "reads the window's framebuffer, which EveryCudaMode checks";
  std::string refused;
  const std::unique_ptr<lab::gl::App> made = interop_app(1280, 720, refused);
  if (!made) LABTEST_NEEDS_GPUS(1, "needs a CUDA device whose GL interop works: " << refused);
  lab::gl::App& app = *made;
  lab::gl::Renderer& renderer = app.renderer();
  const lab::Extent extent = app.platform().framebuffer_extent();
  std::vector<lab::Image> screenshots;
  for (long long index = 50; index < 56; ++index) {
    screenshots.push_back(labtest::render(app, index));
    ASSERT_TRUE(renderer.can_begin_read()) << "frame " << index;
    renderer.begin_read_frame(app.plan(), extent, index);
    if (index == 50) continue;
    // Two under way (index - 1 and index): no third before one is collected.
    EXPECT_EQ(renderer.reads_under_way(), 2);
    EXPECT_FALSE(renderer.can_begin_read());
    labtest::render(app, 100 + index);
    EXPECT_THROW(renderer.begin_read_frame(app.plan(), extent, 100 + index), std::logic_error);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!renderer.read_frame_done())
      ASSERT_LT(std::chrono::steady_clock::now(), give_up)
          << "the copy of frame " << index - 1 << " never ends";
    const std::optional<lab::FrameRead> read = renderer.end_read_frame();
    ASSERT_TRUE(read.has_value());
    EXPECT_EQ(read->frame, index - 1);
    EXPECT_EQ(read->image->rgba, screenshots[static_cast<size_t>(index - 51)].rgba) << "frame " << index - 1;
    EXPECT_EQ(read->stripe_hashes, cpu_hashes(screenshots[static_cast<size_t>(index - 51)]));
  }
  const std::optional<lab::FrameRead> last = renderer.end_read_frame();
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->frame, 55);
  EXPECT_EQ(last->image->rgba, screenshots.back().rgba);
  EXPECT_FALSE(renderer.end_read_frame().has_value());
}

// The read-back's steps in the interop mode (--bench --serve's breakdown) and its map flags: the mode's
// write-discard registration (its default) is set read-only for the read and back after it; with none, which
// lets CUDA read, nothing is set per frame. The frames are the same either way.
TEST(CudaFrameRead, SetsMapFlagsOnlyWhereTheModesForbidReading) {
  if (labtest::use_window())
    GTEST_SKIP() << "CUDA reads the desk's frames headless only (--serve runs headless); in a window GL "
                    "reads the window's framebuffer, which EveryCudaMode checks";
  std::string refused;
  const std::unique_ptr<lab::gl::App> made = interop_app(640, 360, refused);
  if (!made) LABTEST_NEEDS_GPUS(1, "needs a CUDA device whose GL interop works: " << refused);
  lab::gl::App& app = *made;
  app.renderer().set_read_back_steps(true);
  long long index = 40;
  for (const bool write_discard : {true, false}) {
    SCOPED_TRACE(write_discard ? "write-discard" : "none");
    ASSERT_EQ(
        app.request_map_access(write_discard ? std::optional<interop::Access>()
                                             : std::optional<interop::Access>(interop::Access::ReadWrite)),
        "");
    const lab::Image screenshot = labtest::render(app, index);
    app.renderer().take_read_back_steps();
    app.renderer().begin_read_frame(app.plan(), app.platform().framebuffer_extent(), index);
    std::vector<std::string> names;
    for (const lab::StepTime& step : app.renderer().take_read_back_steps()) names.push_back(step.name);
    const std::vector<std::string> mapped = {"begin: MapResources + array/pointer",
                                             "begin: flip + hash kernel launch", "begin: UnmapResources"};
    for (const std::string& step : mapped)
      EXPECT_NE(std::find(names.begin(), names.end(), step), names.end()) << step;
    const bool set = std::find(names.begin(), names.end(), "begin: SetMapFlags read-only") != names.end();
    const bool set_back = std::find(names.begin(), names.end(), "begin: SetMapFlags back") != names.end();
    EXPECT_EQ(set, write_discard);
    EXPECT_EQ(set_back, write_discard);
    const std::optional<lab::FrameRead> read = app.renderer().end_read_frame();
    ASSERT_TRUE(read.has_value());
    EXPECT_EQ(read->way, "CUDA");
    EXPECT_EQ(read->image->rgba, screenshot.rgba);
    EXPECT_EQ(read->stripe_hashes, cpu_hashes(screenshot));
    ++index;
  }
}

}  // namespace
