// tests/vulkan/test_vulkan_loop.cpp — what the one frame loop (app/core/app.hpp) does for every API, on
// Vulkan (lavapipe in CI): a mode that fails with a CUDA error that is not sticky gives way to the next tier
// and the frame is still right, a sticky one ends the run; the tiers; a test double through use_mode; the
// frame counter; the --graph switch; the map and register flags checked against the scene; the split
// mode's settings and the CUDA device switch, refused with the reason where they cannot be. Without a
// Vulkan driver the tests skip with the reason; the CUDA halves need a GPU (and fail where
// INTEROP_LAB_REQUIRE_GPUS says one must be there).
#include "tests/support/app_fixture.hpp"

#include "app/vulkan/app.hpp"
#include "interop/error.hpp"

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace {

using lab::ModeId;
using lab::SceneId;

std::string vulkan_missing() {
  try {
    lab::vulkan::Context context(nullptr);
    return "";
  } catch (const std::runtime_error& error) {
    return error.what();
  }
}

#define NEEDS_VULKAN()                                                  \
  do {                                                                  \
    if (const std::string missing = vulkan_missing(); !missing.empty()) \
      GTEST_SKIP() << "needs a Vulkan driver: " << missing;             \
  } while (0)

lab::Options vulkan_options(SceneId scene, std::optional<ModeId> mode, int width, int height) {
  lab::Options options = labtest::app_options(scene, ModeId::Cpu, width, height);
  options.api = lab::GraphicsApi::Vulkan;
  options.mode = mode;
  options.headless = true;
  return options;
}

// Stands in for the external mode and fails every frame (or its attach) the way a lost import would.
class FailingMode final : public lab::Mode<lab::vulkan::Renderer> {
 public:
  explicit FailingMode(bool sticky) : m_sticky(sticky) {}
  ModeId id() const override { return ModeId::External; }
  void attach(lab::vulkan::Renderer&) override { ++m_attaches; }
  void detach() override {}
  void produce(lab::vulkan::Renderer&, lab::SceneCompute&, const lab::FrameInfo&,
               lab::FrameTimers&) override {
    interop::ErrorInfo info;
    info.call = "cudaWaitExternalSemaphoresAsync(&semaphore, &params, 1, stream)";
    info.file = __FILE__;
    info.line = __LINE__;
    info.code = m_sticky ? cudaErrorIllegalAddress : cudaErrorUnknown;
    info.error_name = m_sticky ? "cudaErrorIllegalAddress" : "cudaErrorUnknown";
    info.condition = m_sticky ? interop::Condition::ContextCorrupt : interop::Condition::GlNotOnCudaDevice;
    info.advice = "stand-in failure";
    info.sticky = m_sticky;
    throw interop::Error(std::move(info));
  }
  int attaches() const { return m_attaches; }

 private:
  bool m_sticky;
  int m_attaches = 0;
};

TEST(VulkanLoop, ANonStickyFrameErrorMovesOneTierDownAndTheFrameIsStillRight) {
  NEEDS_VULKAN();
  lab::vulkan::App app(vulkan_options(SceneId::Pattern, ModeId::Cpu, 72, 40));
  auto failing = std::make_unique<FailingMode>(false);
  const FailingMode* double_seen = failing.get();
  app.use_mode(std::move(failing));
  EXPECT_EQ(double_seen->attaches(), 1) << "use_mode attaches the mode it is given";
  EXPECT_EQ(app.mode_id(), ModeId::External);
  ASSERT_TRUE(app.render_frame(4));
  EXPECT_EQ(app.mode_id(), app.fallback_for(ModeId::External));
  EXPECT_NE(app.notice().find("external failed"), std::string::npos) << app.notice();
  EXPECT_NE(app.notice().find("producing frame 4"), std::string::npos) << app.notice();
  EXPECT_NE(app.notice().find("cudaErrorUnknown"), std::string::npos) << app.notice();
  EXPECT_TRUE(app.read_frame().rgba == labtest::expected_pattern_frame(72, 40, 4).rgba)
      << "the frame drawn by the next tier differs from the CPU reference";
}

TEST(VulkanLoop, AStickyErrorEndsTheRun) {
  NEEDS_VULKAN();
  lab::vulkan::App app(vulkan_options(SceneId::Pattern, ModeId::Cpu, 64, 64));
  app.use_mode(std::make_unique<FailingMode>(true));
  try {
    app.render_frame(0);
    FAIL() << "a sticky error was swallowed";
  } catch (const interop::Error& error) {
    EXPECT_TRUE(error.sticky());
  }
}

TEST(VulkanLoop, TiersGoDownToStagingThenCpu) {
  NEEDS_VULKAN();
  lab::vulkan::App app(vulkan_options(SceneId::Pattern, ModeId::Cpu, 64, 64));
  const ModeId below = app.availability(ModeId::Staging).available ? ModeId::Staging : ModeId::Cpu;
  EXPECT_EQ(below == ModeId::Staging, app.cuda_device() >= 0);
  for (const ModeId mode : {ModeId::External, ModeId::Exported}) EXPECT_EQ(app.fallback_for(mode), below);
  EXPECT_EQ(app.fallback_for(ModeId::Staging), ModeId::Cpu);
  EXPECT_EQ(app.fallback_for(ModeId::Cpu), ModeId::Cpu);
}

// render_frame() draws frame_index() and counts on; set_frame_index moves the counter, so the frame drawn
// next is the one asked for.
TEST(VulkanLoop, TheFrameCounterDrawsTheFrameItNames) {
  NEEDS_VULKAN();
  lab::vulkan::App app(vulkan_options(SceneId::Pattern, ModeId::Cpu, 50, 30));
  EXPECT_EQ(app.frame_index(), 0);
  ASSERT_TRUE(app.render_frame());
  ASSERT_TRUE(app.render_frame());
  EXPECT_EQ(app.frame_index(), 2);
  EXPECT_TRUE(app.read_frame().rgba == labtest::expected_pattern_frame(50, 30, 1).rgba);
  app.set_frame_index(9);
  ASSERT_TRUE(app.render_frame());
  EXPECT_EQ(app.frame_index(), 10);
  EXPECT_TRUE(app.read_frame().rgba == labtest::expected_pattern_frame(50, 30, 9).rgba);
  app.render_frame(20);  // an explicit index moves the counter too
  EXPECT_EQ(app.frame_index(), 21);
}

TEST(VulkanLoop, TheGraphSwitchTakesEffectAtTheNextFrame) {
  NEEDS_VULKAN();
  lab::vulkan::App app(vulkan_options(SceneId::Pattern, ModeId::Cpu, 40, 24));
  EXPECT_FALSE(app.graph());
  app.request_graph(true);
  EXPECT_FALSE(app.graph()) << "a switch waits for the next frame";
  ASSERT_TRUE(app.render_frame(2));
  EXPECT_TRUE(app.graph());
  EXPECT_EQ(app.mode_id(), ModeId::Cpu) << "cpu has no graph form: it stays as it is";
  EXPECT_TRUE(app.read_frame().rgba == labtest::expected_pattern_frame(40, 24, 2).rgba);
}

// The pattern scene's one resource is what CUDA writes: read-only cannot apply to it, write-discard can.
TEST(VulkanLoop, MapAndRegisterFlagsAreCheckedAgainstTheScene) {
  NEEDS_VULKAN();
  lab::vulkan::App app(vulkan_options(SceneId::Pattern, ModeId::Cpu, 40, 24));
  const std::string refused = app.request_map_access(interop::Access::ReadOnly);
  EXPECT_EQ(refused,
            lab::check_access(
                lab::create_scene_compute(SceneId::Pattern, kernels::Filter::Blur)->resources({40, 24}),
                interop::Access::ReadOnly));
  ASSERT_FALSE(refused.empty());
  EXPECT_EQ(app.notice(), "map flags refused: " + refused);
  EXPECT_FALSE(app.access().map_access.has_value()) << "a refused choice changes nothing";
  EXPECT_EQ(app.request_register_access(interop::Access::ReadOnly), refused);
  EXPECT_EQ(app.request_map_access(interop::Access::WriteDiscard), "");
  EXPECT_EQ(app.access().map_access, interop::Access::WriteDiscard);
  EXPECT_EQ(app.request_register_access(std::nullopt), "");
  ASSERT_TRUE(app.render_frame(1));
  EXPECT_TRUE(app.read_frame().rgba == labtest::expected_pattern_frame(40, 24, 1).rgba);
}

// Without CUDA both are refused with the device's reason; with it the compute device moves at the next
// frame, and the CUDA device stays: Vulkan's device was picked for it at start.
TEST(VulkanLoop, DeviceAndComputeDeviceRequests) {
  NEEDS_VULKAN();
  lab::vulkan::App app(vulkan_options(SceneId::Pattern, ModeId::Cpu, 40, 24));
  if (app.cuda_device() < 0) {
    const std::string refusal = app.request_device(0);
    EXPECT_NE(refusal.find("no CUDA device"), std::string::npos) << refusal;
    EXPECT_EQ(app.notice(), refusal);
    const std::string compute = app.request_compute_device(0);
    EXPECT_NE(compute.find("compute device 0: this machine has no CUDA device"), std::string::npos)
        << compute;
    EXPECT_EQ(app.compute_device(), -1);
    LABTEST_NEEDS_GPUS(1, "the device switches need a CUDA device");
    return;
  }
  const std::string refusal = app.request_device(app.cuda_device());
  EXPECT_NE(refusal.find("restart with --device"), std::string::npos) << refusal;
  EXPECT_EQ(app.request_compute_device(app.cuda_device()), "");
  app.request_split_copy(lab::SplitCopy::Host);
  ASSERT_TRUE(app.render_frame(0));
  EXPECT_EQ(app.compute_device(), app.cuda_device());
  EXPECT_EQ(app.split_copy(), lab::SplitCopy::Host);
  EXPECT_TRUE(app.read_frame().rgba == labtest::expected_pattern_frame(40, 24, 0).rgba);
}

}  // namespace
