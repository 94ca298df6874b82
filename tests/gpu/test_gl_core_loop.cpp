// tests/gpu/test_gl_core_loop.cpp — GL's backend on the one frame loop (loop::App<gl::Backend>,
// app/gl/backend.hpp) against GL's own loop (lab::gl::App), headless: each says the same of every mode (what
// runs here and why not), picks the same mode without --mode with the same notice, and where a mode runs
// draws the same frames of each scene, before and after a switch of the CUDA device. Without a GPU only the
// cpu frames are compared and the CUDA modes' refusals; the rest needs a CUDA device with GL interop (and
// fails where INTEROP_LAB_REQUIRE_GPUS says one must be there). The two loops run one after the other: each
// makes its own GL context current.
#include "tests/support/app_fixture.hpp"

#include "app/cli/cli.hpp"
#include "app/gl/app/app.hpp"
#include "app/gl/backend.hpp"
#include "app/loop/app.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace {

using lab::ModeId;
using lab::SceneId;
using GlCoreApp = lab::loop::App<lab::gl::Backend>;

lab::Options headless_options(SceneId scene, std::optional<ModeId> mode) {
  lab::Options options = labtest::app_options(scene, ModeId::Cpu, 96, 64);
  options.mode = mode;
  options.headless = true;
  return options;
}

// What a loop says of every mode of GL, and which mode it starts in without --mode, with its notice.
struct Verdicts {
  std::vector<lab::ModeAvailability> modes;
  ModeId started = ModeId::Cpu;
  std::string notice;
};

template <class App>
Verdicts verdicts_of(SceneId scene) {
  App app(headless_options(scene, std::nullopt));
  Verdicts verdicts;
  for (const ModeId mode : lab::modes_of(lab::GraphicsApi::Gl))
    verdicts.modes.push_back(app.availability(mode));
  verdicts.started = app.mode_id();
  verdicts.notice = app.notice();
  return verdicts;
}

// Frames 0..2 of `scene` in `mode`, then (with `switch_device`) frame 3 after the CUDA device was switched
// to itself; the notice after the last.
struct Frames {
  std::vector<lab::Image> images;
  ModeId mode = ModeId::Cpu;
  std::string notice;
};

template <class App>
Frames frames_of(SceneId scene, ModeId mode, bool switch_device) {
  App app(headless_options(scene, mode));
  Frames frames;
  for (long long index = 0; index < 3; ++index) {
    EXPECT_TRUE(app.render_frame(index));
    frames.images.push_back(app.read_frame());
  }
  if (switch_device) {
    EXPECT_EQ(app.request_device(app.cuda_device()), "");
    EXPECT_TRUE(app.render_frame(3));
    frames.images.push_back(app.read_frame());
  }
  frames.mode = app.mode_id();
  frames.notice = app.notice();
  return frames;
}

class GlCoreLoop : public ::testing::TestWithParam<SceneId> {};

TEST_P(GlCoreLoop, SaysWhatGlsLoopSaysOfEveryModeAndStartsInTheSameOne) {
  const Verdicts own = verdicts_of<lab::gl::App>(GetParam());
  const Verdicts core = verdicts_of<GlCoreApp>(GetParam());
  const std::vector<ModeId> modes = lab::modes_of(lab::GraphicsApi::Gl);
  ASSERT_EQ(core.modes.size(), own.modes.size());
  for (size_t i = 0; i < modes.size(); ++i) {
    EXPECT_EQ(core.modes[i].available, own.modes[i].available) << lab::to_string(modes[i]);
    EXPECT_EQ(core.modes[i].reason, own.modes[i].reason) << lab::to_string(modes[i]);
  }
  EXPECT_EQ(core.started, own.started);
  EXPECT_EQ(core.notice, own.notice);
}

TEST_P(GlCoreLoop, DrawsWhatGlsLoopDrawsInEveryModeThatRuns) {
  const Verdicts own = verdicts_of<lab::gl::App>(GetParam());
  const std::vector<ModeId> modes = lab::modes_of(lab::GraphicsApi::Gl);
  int cuda_modes = 0;
  for (size_t i = 0; i < modes.size(); ++i) {
    if (!own.modes[i].available) continue;
    const bool cuda = modes[i] != ModeId::Cpu;
    cuda_modes += cuda ? 1 : 0;
    const Frames expected = frames_of<lab::gl::App>(GetParam(), modes[i], cuda);
    const Frames seen = frames_of<GlCoreApp>(GetParam(), modes[i], cuda);
    EXPECT_EQ(seen.mode, expected.mode) << lab::to_string(modes[i]);
    EXPECT_EQ(seen.notice, expected.notice) << lab::to_string(modes[i]);
    ASSERT_EQ(seen.images.size(), expected.images.size());
    for (size_t frame = 0; frame < expected.images.size(); ++frame) {
      EXPECT_EQ(seen.images[frame].width, expected.images[frame].width);
      EXPECT_TRUE(seen.images[frame].rgba == expected.images[frame].rgba)
          << lab::to_string(modes[i]) << ": frame " << frame << " differs from GL's loop";
    }
  }
  if (cuda_modes == 0) LABTEST_NEEDS_GPUS(1, "the CUDA modes' frames need a CUDA device with GL interop");
}

INSTANTIATE_TEST_SUITE_P(Scenes, GlCoreLoop,
                         ::testing::Values(SceneId::Pattern, SceneId::Wave, SceneId::Postprocess),
                         [](const ::testing::TestParamInfo<SceneId>& param) {
                           return std::string(lab::to_string(param.param));
                         });

}  // namespace
