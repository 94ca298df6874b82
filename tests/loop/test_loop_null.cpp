// tests/loop/test_loop_null.cpp — the one frame loop (app/loop/app.hpp) on the null backend (app/null): no
// graphics driver, so these run on any machine. What they hold the loop to is its own work, the same on
// every API: the frames of the cpu mode, the switches (scene, mode, size) at the start of the next frame, a
// refused switch that changes nothing and says why, the fallback of a failing mode one tier down, the
// per-phase timing, and the animation clock's pause and step, through the commands the panel and the page
// send (app/loop/commands.hpp).
#include "tests/loop/null_options.hpp"
#include "tests/support/image_fixture.hpp"
#include "tests/support/stand_in_error.hpp"

#include "app/cli/cli.hpp"
#include "app/controls/controls.hpp"
#include "app/loop/app.hpp"
#include "app/loop/commands.hpp"
#include "app/null/backend.hpp"
#include "interop/error.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace {

using lab::ModeId;
using lab::SceneId;
using NullApp = lab::loop::App<lab::null::Backend<>>;
using NullRenderer = lab::null::Renderer;

lab::Options null_options(SceneId scene) {
  return labtest::null_options(scene, 48, 32);
}

lab::Command command(lab::Command::Kind kind, bool on = false) {
  lab::Command made;
  made.kind = kind;
  made.on = on;
  return made;
}

// The frame the loop shows now, against the pattern scene's frame `index` from the CPU reference.
bool shows_pattern_frame(NullApp& app, long long index) {
  const lab::Extent extent = app.extent();
  return app.read_frame().rgba == labtest::expected_pattern_frame(extent.width, extent.height, index).rgba;
}

TEST(NullLoop, RunsWithNoDriverAndItsFramesAreTheCpuReferences) {
  NullApp app(null_options(SceneId::Pattern));
  EXPECT_EQ(app.adapter(), "null device (no graphics driver)");
  EXPECT_EQ(app.mode_id(), ModeId::Cpu);
  for (long long index = 0; index < 3; ++index) ASSERT_TRUE(app.render_frame(index));
  EXPECT_TRUE(shows_pattern_frame(app, 2));
  EXPECT_FALSE(shows_pattern_frame(app, 1)) << "the pattern moves: frame 1 is another picture";
  EXPECT_EQ(app.renderer().frame_passes(), 3);
  EXPECT_EQ(app.renderer().cubes_passes(), 0) << "the pattern scene has no cubes pass";
  EXPECT_EQ(app.frame_index(), 3);
}

TEST(NullLoop, ARefusedModeChangesNothingAndSaysWhy) {
  NullApp app(null_options(SceneId::Pattern));
  const lab::ModeAvailability refused = app.request_mode(ModeId::External);
  EXPECT_FALSE(refused.available);
  EXPECT_EQ(refused.reason, lab::null::kNoSharedResources);
  EXPECT_EQ(app.notice(), std::string("external is unavailable: ") + lab::null::kNoSharedResources);
  ASSERT_TRUE(app.render_frame(0));
  EXPECT_EQ(app.mode_id(), ModeId::Cpu);
  EXPECT_TRUE(shows_pattern_frame(app, 0));
  // The page's path says the same, as the refusal the desk shows.
  lab::Command mode = command(lab::Command::Kind::Mode);
  mode.mode = ModeId::Exported;
  EXPECT_EQ(lab::loop::apply_command(app, mode),
            std::string("mode exported is unavailable: ") + lab::null::kNoSharedResources);
}

TEST(NullLoop, SwitchesApplyAtTheStartOfTheNextFrame) {
  NullApp app(null_options(SceneId::Pattern));
  ASSERT_TRUE(app.render_frame(0));
  app.request_scene(SceneId::Postprocess);
  EXPECT_EQ(app.scene_id(), SceneId::Pattern) << "a switch waits for the next frame";
  ASSERT_TRUE(app.render_frame(1));
  EXPECT_EQ(app.scene_id(), SceneId::Postprocess);
  EXPECT_EQ(app.renderer().cubes_passes(), 1) << "the postprocess scene renders its cubes first";
  app.resize({20, 12});
  EXPECT_EQ(app.extent(), (lab::Extent{20, 12})) << "headless, a resize is the frame's size at once";
  app.request_scene(SceneId::Pattern);
  ASSERT_TRUE(app.render_frame(2));
  EXPECT_EQ(app.read_frame().width, 20);
  EXPECT_TRUE(shows_pattern_frame(app, 2));
}

// Stands in for a CUDA mode whose frames fail the way a lost registration would.
class FailingMode final : public lab::Mode<NullRenderer> {
 public:
  explicit FailingMode(bool sticky) : m_sticky(sticky) {}
  ModeId id() const override { return ModeId::External; }
  void attach(NullRenderer&) override {}
  void detach() override {}
  void produce(NullRenderer&, lab::FrameSource&, const lab::FrameInfo&, lab::FrameTimers&) override {
    throw labtest::stand_in_cuda_error(
        m_sticky, "cudaWaitExternalSemaphoresAsync(&semaphore, &params, 1, stream)", __FILE__, __LINE__);
  }

 private:
  bool m_sticky;
};

TEST(NullLoop, AFailingModeGivesWayOneTierDownAndTheFrameIsStillRight) {
  NullApp app(null_options(SceneId::Pattern));
  app.use_mode(std::make_unique<FailingMode>(false));
  ASSERT_TRUE(app.render_frame(4));
  EXPECT_EQ(app.mode_id(), app.fallback_for(ModeId::External));
  EXPECT_EQ(app.mode_id(), app.cuda_device() >= 0 ? ModeId::Staging : ModeId::Cpu);
  EXPECT_NE(app.notice().find("external failed"), std::string::npos) << app.notice();
  EXPECT_NE(app.notice().find("cudaErrorUnknown"), std::string::npos) << app.notice();
  EXPECT_TRUE(shows_pattern_frame(app, 4)) << "the next tier drew the frame the failed one could not";
}

TEST(NullLoop, AStickyErrorEndsTheRun) {
  NullApp app(null_options(SceneId::Pattern));
  app.use_mode(std::make_unique<FailingMode>(true));
  try {
    app.render_frame(0);
    FAIL() << "a sticky error was swallowed";
  } catch (const interop::Error& error) {
    EXPECT_TRUE(error.sticky());
  }
}

TEST(NullLoop, EveryFrameIsTimedUntilTimingIsTurnedOff) {
  NullApp app(null_options(SceneId::Pattern));
  const int cpu = static_cast<int>(ModeId::Cpu);
  for (long long index = 0; index < 4; ++index) ASSERT_TRUE(app.render_frame(index));
  app.timers().flush();
  EXPECT_EQ(app.timers().stats(cpu, lab::Phase::Kernel).samples, 4) << "the CPU reference, on the host clock";
  EXPECT_EQ(app.timers().stats(cpu, lab::Phase::Frame).samples, 3) << "start to start: one fewer than frames";
  EXPECT_EQ(lab::loop::apply_command(app, command(lab::Command::Kind::Timing, false)), "");
  for (long long index = 4; index < 7; ++index) ASSERT_TRUE(app.render_frame(index));
  app.timers().flush();
  EXPECT_EQ(app.timers().stats(cpu, lab::Phase::Kernel).samples, 4) << "no frame is timed while it is off";
  EXPECT_EQ(lab::loop::apply_command(app, command(lab::Command::Kind::Timing, true)), "");
  ASSERT_TRUE(app.render_frame(7));
  app.timers().flush();
  EXPECT_EQ(app.timers().stats(cpu, lab::Phase::Kernel).samples, 1) << "timing starts afresh";
}

TEST(NullLoop, PauseStopsTheAnimationClockAndStepMovesItOneFrame) {
  NullApp app(null_options(SceneId::Pattern));
  for (long long index = 0; index < 3; ++index) ASSERT_TRUE(app.render_frame(index));
  EXPECT_EQ(lab::loop::apply_command(app, command(lab::Command::Kind::Pause, true)), "");
  EXPECT_TRUE(app.paused());
  ASSERT_TRUE(app.render_frame(3));
  ASSERT_TRUE(app.render_frame(4));
  EXPECT_TRUE(shows_pattern_frame(app, 3)) << "paused where the next frame would have been";
  EXPECT_EQ(lab::loop::apply_command(app, command(lab::Command::Kind::Step)), "");
  ASSERT_TRUE(app.render_frame(5));
  EXPECT_TRUE(shows_pattern_frame(app, 4)) << "a step is one frame of the clock";
  EXPECT_TRUE(app.paused()) << "and leaves it paused";
  EXPECT_EQ(lab::loop::apply_command(app, command(lab::Command::Kind::Pause, false)), "");
  ASSERT_TRUE(app.render_frame(6));
  EXPECT_TRUE(shows_pattern_frame(app, 4)) << "on from where it stopped";
  ASSERT_TRUE(app.render_frame(7));
  EXPECT_TRUE(shows_pattern_frame(app, 5));
  EXPECT_EQ(app.frame_index(), 8) << "the frames went on all along";
}

}  // namespace
