// tests/gpu/test_eglstream.cpp — GL's eglstream mode (CUDA produces into an EGLStream, GL consumes it as an
// external texture) shows the CPU reference's frame: the pattern, the one scene whose resources are all
// CUDA's output images, at sizes that are no multiple of anything (1277x719), small (64x48), one past a
// power of two wide and three rows high (4097x3) and 4K, over several frames (the stream's frame is
// presented, acquired, released and returned every frame), after a live switch away and back and after a
// resize (new streams of the new size). The other scenes are refused naming the resource that cannot
// travel. Needs NVIDIA's EGL (the headless EGL device platform) and a CUDA device; in a window (GLX) the
// mode is refused, saying it needs an EGL context; elsewhere the tests skip with the reason, and fail
// under INTEROP_LAB_REQUIRE_GPUS.
#include "tests/support/app_fixture.hpp"

#include "app/gl/app/bench_loops.hpp"

#include <optional>
#include <string>

namespace {

using lab::ModeId;
using lab::SceneId;

constexpr int kImageTolerance = 1;  // CUDA's sinf and the host's may round an 8-bit value apart by one

// "" when `app` can run eglstream, else why not (a test in a window checks the GLX refusal and skips).
std::string eglstream_missing(const lab::gl::App& app) {
  const lab::ModeAvailability verdict = app.availability(ModeId::Eglstream);
  return verdict.available ? "" : verdict.reason;
}

#define NEEDS_EGLSTREAM(app)                                                                                 \
  do {                                                                                                       \
    const std::string missing = eglstream_missing(app);                                                      \
    if (missing.empty()) break;                                                                              \
    if ((app).platform().is_window()) {                                                                      \
      EXPECT_NE(missing.find("not an EGL context"), std::string::npos) << missing;                           \
      GTEST_SKIP() << "eglstream needs an EGL context; a window's is GLX's: " << missing;                    \
    }                                                                                                        \
    LABTEST_NEEDS_GPUS(1,                                                                                    \
                       "needs NVIDIA's EGL device platform with EGLStreams and a CUDA device: " << missing); \
  } while (0)

class EglstreamFrames : public ::testing::TestWithParam<lab::Extent> {};

TEST_P(EglstreamFrames, ThePatternIsTheCpuFrame) {
  const lab::Extent size = GetParam();
  lab::gl::App app(labtest::app_options(SceneId::Pattern, ModeId::Cpu, size.width, size.height));
  NEEDS_EGLSTREAM(app);
  const lab::Image cpu_frame = labtest::render(app, 12);
  const lab::ImageDifference exact =
      lab::compare_images(cpu_frame, labtest::expected_pattern_frame(size.width, size.height, 12), 0);
  ASSERT_EQ(exact.pixels_over, 0u) << "cpu frame: " << lab::to_string(exact, 0);

  ASSERT_TRUE(app.request_mode(ModeId::Eglstream).available);
  for (long long index = 10; index < 12; ++index) labtest::render(app, index);
  const lab::Image frame = labtest::render(app, 12);
  ASSERT_EQ(app.mode_id(), ModeId::Eglstream);
  const std::string name = "eglstream-" + std::to_string(size.width) + "x" + std::to_string(size.height);
  std::string difference =
      labtest::check_against(frame, cpu_frame, {kImageTolerance, 0.0}, name, "the cpu frame");
  EXPECT_TRUE(difference.empty()) << difference;

  // Away and back: the streams go with the mode, and new ones carry the frames again.
  ASSERT_TRUE(app.request_mode(ModeId::Cpu).available);
  labtest::render(app, 12);
  ASSERT_TRUE(app.request_mode(ModeId::Eglstream).available);
  difference = labtest::check_against(labtest::render(app, 12), cpu_frame, {kImageTolerance, 0.0},
                                      name + "-again", "the cpu frame");
  EXPECT_TRUE(difference.empty()) << difference;
}

INSTANTIATE_TEST_SUITE_P(Sizes, EglstreamFrames,
                         ::testing::Values(lab::Extent{1277, 719}, lab::Extent{64, 48}, lab::Extent{4097, 3},
                                           lab::Extent{3840, 2160}),
                         [](const ::testing::TestParamInfo<lab::Extent>& size_info) {
                           return std::to_string(size_info.param.width) + "x" +
                                  std::to_string(size_info.param.height);
                         });

TEST(Eglstream, AResizeMakesStreamsOfTheNewSize) {
  lab::gl::App app(labtest::app_options(SceneId::Pattern, ModeId::Cpu, 640, 360));
  NEEDS_EGLSTREAM(app);
  ASSERT_TRUE(app.request_mode(ModeId::Eglstream).available);
  labtest::render(app, 1);
  app.resize({301, 157});
  const lab::Image frame = labtest::render(app, 7);
  EXPECT_EQ(app.mode_id(), ModeId::Eglstream);
  const lab::ImageDifference d =
      lab::compare_images(frame, labtest::expected_pattern_frame(301, 157, 7), kImageTolerance);
  EXPECT_EQ(d.pixels_over, 0u) << lab::to_string(d, kImageTolerance);
}

// Where the mode runs, the scenes it cannot carry are refused by availability (never attached), naming
// their resource; the panel greys the mode there and M skips it.
TEST(Eglstream, TheSceneWithABufferAndTheSceneWithAnInputAreRefused) {
  lab::gl::App app(labtest::app_options(SceneId::Pattern, ModeId::Cpu, 64, 48));
  NEEDS_EGLSTREAM(app);
  app.request_scene(SceneId::Wave);
  labtest::render(app, 0);
  lab::ModeAvailability refused = app.availability(ModeId::Eglstream);
  EXPECT_FALSE(refused.available);
  EXPECT_NE(refused.reason.find("vertex buffer"), std::string::npos) << refused.reason;
  app.request_scene(SceneId::Postprocess);
  labtest::render(app, 0);
  refused = app.availability(ModeId::Eglstream);
  EXPECT_FALSE(refused.available);
  EXPECT_NE(refused.reason.find("rendered scene"), std::string::npos) << refused.reason;
}

// The stream's steps on their clocks: the kernels on CUDA events, present and acquire on the host, the
// draw of the acquired frame as GL's copy (its timer queries).
TEST(Eglstream, ItsPhasesAreTimedOnTheirClocks) {
  lab::gl::App app(labtest::app_options(SceneId::Pattern, ModeId::Cpu, 96, 64));
  NEEDS_EGLSTREAM(app);
  ASSERT_TRUE(app.request_mode(ModeId::Eglstream).available);
  constexpr int kFrames = 6;
  for (int index = 0; index < kFrames; ++index) labtest::render(app, index);
  app.timers().flush();
  const int tag = static_cast<int>(ModeId::Eglstream);
  for (const auto& [phase, clock] :
       {std::pair{lab::Phase::Kernel, lab::Clock::Cuda}, std::pair{lab::Phase::Signal, lab::Clock::Cpu},
        std::pair{lab::Phase::Wait, lab::Clock::Cpu}, std::pair{lab::Phase::GlCopy, lab::Clock::Gl}}) {
    SCOPED_TRACE(lab::to_string(phase));
    const lab::PhaseStats& stats = app.timers().stats(tag, phase);
    EXPECT_EQ(stats.samples, kFrames);
    EXPECT_EQ(stats.clock, clock);
  }
  EXPECT_FALSE(app.timers().has(tag, lab::Phase::Map));
}

// The benchmark's own loop of the mode ("eglstream ref", raw EGL, CUDA and GL calls and nothing of the
// mode) carries correct frames: after its frames, the scene's texture it drew into holds the cpu frame of
// the index it drew last, at a size that is no multiple of anything.
TEST(Eglstream, TheBenchmarksOwnLoopDrawsTheCpuFrame) {
  lab::gl::App app(labtest::app_options(SceneId::Pattern, ModeId::Cpu, 97, 61));
  NEEDS_EGLSTREAM(app);
  long long last = -1;
  const std::optional<lab::bench::Result> measured = lab::gl::eglstream_loop(app, 3, &last);
  ASSERT_TRUE(measured.has_value());
  EXPECT_EQ(measured->frames, 3);
  EXPECT_EQ(measured->path, "eglstream ref");
  ASSERT_GE(last, 3);  // the warm-up's frames, then the measured ones
  const lab::Image frame = app.read_frame();
  const lab::Image cpu_frame = labtest::render(app, last);  // the cpu mode is still the app's
  const std::string difference = labtest::check_against(frame, cpu_frame, {kImageTolerance, 0.0},
                                                        "eglstream-ref-97x61", "the cpu frame");
  EXPECT_TRUE(difference.empty()) << difference;
}

}  // namespace
