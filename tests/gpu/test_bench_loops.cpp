// tests/gpu/test_bench_loops.cpp — the GL benchmark's own loops of the external and exported modes (raw
// Vulkan, cuMem*, CUDA and GL calls, app/gl/bench_external.cpp) draw correct frames: the frame each drew
// last equals the cpu frame of its index, with a timeline semaphore and with binary semaphores, in the
// image scenes each mode runs (exported refuses postprocess), at a size that is no multiple of anything.
// Needs a CUDA device on the GPU that runs GL, with GL's external memory and semaphore extensions; skips
// with the reason elsewhere, and fails under INTEROP_LAB_REQUIRE_GPUS.
#include "tests/support/app_fixture.hpp"

#include "app/gl/bench_loops.hpp"

#include <optional>
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
      lab::App app(options);
      if (const lab::ModeAvailability runs = app.availability(c.mode); !runs.available)
        LABTEST_NEEDS_GPUS(1, "needs GL's " << lab::to_string(c.mode) << " mode: " << runs.reason);
      lab::gl_bench::LoopFrame last;
      const std::optional<lab::bench::Result> measured = c.mode == ModeId::External
                                                             ? lab::gl_bench::external_loop(app, 3, &last)
                                                             : lab::gl_bench::exported_loop(app, 3, &last);
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

}  // namespace
