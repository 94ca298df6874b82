// tests/gpu/test_bench_loops.cpp — the GL benchmark's own loops of the external and exported modes (raw
// Vulkan, cuMem*, CUDA and GL calls, app/gl/app/bench_external.cpp) draw correct frames: the frame each drew
// last equals the cpu frame of its index, with a timeline semaphore and with binary semaphores, in the
// image scenes each mode runs (exported refuses postprocess), at a size that is no multiple of anything.
// Needs a CUDA device on the GPU that runs GL, with GL's external memory and semaphore extensions; skips
// with the reason elsewhere, and fails under INTEROP_LAB_REQUIRE_GPUS. And the loops that run beside their
// mode, frame by frame (reregister, pbo, staging, cpu), draw the mode's frame while it is attached: cpu's
// everywhere, the others where CUDA drives GL.
#include "tests/support/app_fixture.hpp"

#include "app/gl/app/bench_loops.hpp"
#include "app/gl/app/bench_rows.hpp"
#include "kernels/common.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>

namespace {

using lab::ModeId;
using lab::SceneId;

TEST(BenchLoops, GlExternalAndExportedOwnLoopsDrawTheCpuFrame) {
  struct Case {
    ModeId mode;
    SceneId scene;
  };
  for (const interop::SemaphoreKind kind :
       {interop::SemaphoreKind::Timeline, interop::SemaphoreKind::Binary}) {
    for (const Case c :
         {Case{ModeId::External, SceneId::Pattern}, Case{ModeId::External, SceneId::Postprocess},
          Case{ModeId::Exported, SceneId::Pattern}}) {
      const std::string name = std::string(lab::to_string(c.mode)) + "-ref-" + lab::to_string(c.scene) +
                               (kind == interop::SemaphoreKind::Timeline ? "-timeline" : "-binary");
      SCOPED_TRACE(name);
      lab::Options options = labtest::app_options(c.scene, ModeId::Cpu, 97, 61);
      options.semaphores = kind;
      lab::gl::App app(options);
      if (const lab::ModeAvailability runs = app.availability(c.mode); !runs.available)
        LABTEST_NEEDS_GPUS(1, "needs GL's " << lab::to_string(c.mode) << " mode: " << runs.reason);
      lab::gl::LoopFrame last;
      const std::optional<lab::bench::Result> measured = c.mode == ModeId::External
                                                             ? lab::gl::external_loop(app, 3, &last)
                                                             : lab::gl::exported_loop(app, 3, &last);
      ASSERT_TRUE(measured.has_value());
      EXPECT_EQ(measured->frames, 3);
      EXPECT_EQ(measured->path, std::string(lab::to_string(c.mode)) + " ref");
      ASSERT_GE(last.index, 3);  // the warm-up's frames, then the measured ones
      const lab::Image cpu_frame = labtest::render(app, last.index);  // the cpu mode is still the app's
      const std::string difference =
          labtest::check_against(last.image, cpu_frame, {1, 0.0}, "gl-" + name, "the cpu frame");
      EXPECT_TRUE(difference.empty()) << difference;
    }
  }
}

// A paired loop's frame, run while its mode is attached (as the benchmark runs it), equals the mode's frame
// of the same index, in every scene, and the mode's next frame is still its own: neither disturbs the other.
TEST(BenchLoops, PairedLoopsDrawTheModesFrameBesideIt) {
  std::map<std::string, std::set<std::string>> not_here;  // why -> the loops that cannot run here
  for (const lab::gl::BenchRow& row : lab::gl::bench_rows()) {
    if (row.paired_loop == nullptr) continue;
    for (const SceneId scene : lab::all_scenes()) {
      const std::string name = std::string(row.own_path) + "-" + lab::to_string(scene);
      SCOPED_TRACE(name);
      lab::gl::App app(labtest::app_options(scene, ModeId::Cpu, 97, 61));
      if (const lab::ModeAvailability runs = app.availability(row.mode); !runs.available) {
        if (labtest::required_gpus() >= 1) ADD_FAILURE() << name << " needs its mode: " << runs.reason;
        not_here[runs.reason].insert(row.own_path);
        continue;
      }
      ASSERT_TRUE(app.request_mode(row.mode).available);
      const lab::Image before = labtest::render(app, 5);
      const lab::gl::LoopWork work = row.paired_loop(app);
      lab::gl::own_frame(app, work, {7, kernels::time_of_frame(7), app.platform().framebuffer_extent()});
      const lab::Image loop_frame = app.read_frame();
      const lab::Image mode_frame = labtest::render(app, 7);
      ASSERT_EQ(app.mode_id(), row.mode);
      std::string difference =
          labtest::check_against(loop_frame, mode_frame, {1, 0.0}, "gl-" + name, "the mode's frame 7");
      EXPECT_TRUE(difference.empty()) << difference;
      lab::gl::own_frame(app, work, {5, kernels::time_of_frame(5), app.platform().framebuffer_extent()});
      difference = labtest::check_against(labtest::render(app, 5), before, {0, 0.0}, "gl-" + name + "-after",
                                          "the mode's frame 5 before the loop ran");
      EXPECT_TRUE(difference.empty()) << difference;
    }
  }
  if (!not_here.empty()) {
    std::string text;
    for (const auto& [reason, loops] : not_here) {
      std::string names;
      for (const std::string& loop : loops) names += (names.empty() ? "" : ", ") + loop;
      text += (text.empty() ? "" : "; ") + names + ": " + reason;
    }
    GTEST_SKIP() << "the cpu loop checked; not here: " << text;
  }
}

}  // namespace
