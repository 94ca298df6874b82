// tests/vulkan/test_frame_loops.cpp — what the one frame loop (app/loop/app.hpp) must do on every backend, as
// one test body: GL's app (lab::gl::App, app/gl/app/app.hpp), the loop on Vulkan (lavapipe in CI), and the
// loop on GL's backend itself (loop::App<gl::Backend>, headless). A mode that fails with a CUDA error that is
// not sticky gives way to the next tier and the frame is still right, a sticky one ends the run; the tiers; a
// test double through use_mode; the frame counter; the --graph switch; a refused mode; the map and register
// flags checked against the scene; the split mode's settings and the CUDA device switch, refused with the
// reason where they cannot be. Without a Vulkan driver the Vulkan half skips with the reason; the CUDA halves
// need a GPU (and fail where INTEROP_LAB_REQUIRE_GPUS says one must be there).
#include "tests/support/app_fixture.hpp"
#include "tests/support/stand_in_error.hpp"
#include "tests/support/vulkan_device.hpp"

#include "app/cli/cli.hpp"
#include "app/gl/backend.hpp"
#include "app/loop/app.hpp"
#include "app/vulkan/app/app.hpp"
#include "interop/error.hpp"

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace {

using lab::ModeId;
using lab::SceneId;
using labtest::vulkan_missing;

lab::Options vulkan_options(SceneId scene, std::optional<ModeId> mode, int width, int height) {
  lab::Options options = labtest::app_options(scene, ModeId::Cpu, width, height);
  options.api = lab::GraphicsApi::Vulkan;
  options.mode = mode;
  options.headless = true;
  return options;
}

// What differs between the loops under test: how to make one, the CUDA mode a test double stands in for,
// and whether the CUDA work may move to another device live.
template <class App>
struct Loop;

template <>
struct Loop<lab::gl::App> {
  static constexpr ModeId kCudaMode = ModeId::Interop;
  static constexpr bool kDeviceSwitch = true;
  static std::string missing() { return ""; }  // GL's test platform is wherever these tests run
  static lab::Options options(SceneId scene, int width, int height) {
    return labtest::app_options(scene, ModeId::Cpu, width, height);
  }
};

// GL's backend on the core loop (app/gl/backend.hpp), headless: what lab::gl::App becomes.
using GlCoreApp = lab::loop::App<lab::gl::Backend>;

template <>
struct Loop<GlCoreApp> {
  static constexpr ModeId kCudaMode = ModeId::Interop;
  static constexpr bool kDeviceSwitch = true;
  static std::string missing() { return ""; }  // GL's headless platform is wherever these tests run
  static lab::Options options(SceneId scene, int width, int height) {
    lab::Options options = labtest::app_options(scene, ModeId::Cpu, width, height);
    options.headless = true;
    return options;
  }
};

template <>
struct Loop<lab::vulkan::App> {
  static constexpr ModeId kCudaMode = ModeId::External;
  static constexpr bool kDeviceSwitch = false;
  static std::string missing() { return vulkan_missing(); }
  static lab::Options options(SceneId scene, int width, int height) {
    return vulkan_options(scene, ModeId::Cpu, width, height);
  }
};

// Stands in for a CUDA mode and fails every frame the way a lost registration or import would.
template <class App>
class FailingMode final : public lab::Mode<typename App::Renderer> {
 public:
  using Renderer = typename App::Renderer;
  explicit FailingMode(bool sticky) : m_sticky(sticky) {}
  ModeId id() const override { return Loop<App>::kCudaMode; }
  void attach(Renderer&) override { ++m_attaches; }
  void detach() override {}
  void produce(Renderer&, lab::FrameSource&, const lab::FrameInfo&, lab::FrameTimers&) override {
    throw labtest::stand_in_cuda_error(m_sticky, "cudaGraphicsMapResources(1, &resource, stream)", __FILE__,
                                       __LINE__);
  }
  int attaches() const { return m_attaches; }

 private:
  bool m_sticky;
  int m_attaches = 0;
};

template <class App>
class FrameLoop : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string missing = Loop<App>::missing(); !missing.empty())
      GTEST_SKIP() << "needs a Vulkan driver: " << missing;
  }
  static std::unique_ptr<App> make(SceneId scene, int width, int height) {
    return std::make_unique<App>(Loop<App>::options(scene, width, height));
  }
};

using Loops = ::testing::Types<lab::gl::App, lab::vulkan::App, GlCoreApp>;

// The loops' names in the tests' names: FrameLoop/gl.…, FrameLoop/vulkan.…, FrameLoop/gl_core.…
struct LoopName {
  template <class App>
  static std::string GetName(int) {
    if (std::is_same_v<App, GlCoreApp>) return "gl_core";
    return std::is_same_v<App, lab::gl::App> ? "gl" : "vulkan";
  }
};

TYPED_TEST_SUITE(FrameLoop, Loops, LoopName);

TYPED_TEST(FrameLoop, ANonStickyFrameErrorMovesOneTierDownAndTheFrameIsStillRight) {
  const auto loop = TestFixture::make(SceneId::Pattern, 72, 40);
  TypeParam& app = *loop;
  auto failing = std::make_unique<FailingMode<TypeParam>>(false);
  const FailingMode<TypeParam>* double_seen = failing.get();
  app.use_mode(std::move(failing));
  EXPECT_EQ(double_seen->attaches(), 1) << "use_mode attaches the mode it is given";
  const ModeId cuda_mode = Loop<TypeParam>::kCudaMode;
  EXPECT_EQ(app.mode_id(), cuda_mode);
  ASSERT_TRUE(app.render_frame(4));
  EXPECT_EQ(app.mode_id(), app.fallback_for(cuda_mode));
  EXPECT_NE(app.notice().find(std::string(lab::to_string(cuda_mode)) + " failed"), std::string::npos)
      << app.notice();
  EXPECT_NE(app.notice().find("producing frame 4"), std::string::npos) << app.notice();
  EXPECT_NE(app.notice().find("cudaErrorUnknown"), std::string::npos) << app.notice();
  EXPECT_TRUE(app.read_frame().rgba == labtest::expected_pattern_frame(72, 40, 4).rgba)
      << "the frame drawn by the next tier differs from the CPU reference";
}

TYPED_TEST(FrameLoop, AStickyErrorEndsTheRun) {
  const auto loop = TestFixture::make(SceneId::Pattern, 64, 64);
  TypeParam& app = *loop;
  app.use_mode(std::make_unique<FailingMode<TypeParam>>(true));
  try {
    app.render_frame(0);
    FAIL() << "a sticky error was swallowed";
  } catch (const interop::Error& error) {
    EXPECT_TRUE(error.sticky());
  }
}

TYPED_TEST(FrameLoop, TiersGoDownToStagingThenCpu) {
  const auto loop = TestFixture::make(SceneId::Pattern, 64, 64);
  TypeParam& app = *loop;
  const ModeId below = app.availability(ModeId::Staging).available ? ModeId::Staging : ModeId::Cpu;
  EXPECT_EQ(below == ModeId::Staging, app.cuda_device() >= 0);
  for (const ModeId mode : lab::modes_of(Loop<TypeParam>::options(SceneId::Pattern, 1, 1).api))
    if (mode != ModeId::Staging && mode != ModeId::Cpu) {
      EXPECT_EQ(app.fallback_for(mode), below) << lab::to_string(mode);
    }
  EXPECT_EQ(app.fallback_for(ModeId::Staging), ModeId::Cpu);
  EXPECT_EQ(app.fallback_for(ModeId::Cpu), ModeId::Cpu);
}

// render_frame() draws frame_index() and counts on; set_frame_index moves the counter, so the frame drawn
// next is the one asked for.
TYPED_TEST(FrameLoop, TheFrameCounterDrawsTheFrameItNames) {
  const auto loop = TestFixture::make(SceneId::Pattern, 50, 30);
  TypeParam& app = *loop;
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

TYPED_TEST(FrameLoop, TheGraphSwitchTakesEffectAtTheNextFrame) {
  const auto loop = TestFixture::make(SceneId::Pattern, 40, 24);
  TypeParam& app = *loop;
  EXPECT_FALSE(app.graph());
  app.request_graph(true);
  EXPECT_FALSE(app.graph()) << "a switch waits for the next frame";
  ASSERT_TRUE(app.render_frame(2));
  EXPECT_TRUE(app.graph());
  EXPECT_EQ(app.mode_id(), ModeId::Cpu) << "cpu has no graph form: it stays as it is";
  EXPECT_TRUE(app.read_frame().rgba == labtest::expected_pattern_frame(40, 24, 2).rgba);
}

// The pattern scene's one resource is what CUDA writes: read-only cannot apply to it, write-discard can.
TYPED_TEST(FrameLoop, MapAndRegisterFlagsAreCheckedAgainstTheScene) {
  const auto loop = TestFixture::make(SceneId::Pattern, 40, 24);
  TypeParam& app = *loop;
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

// A mode that cannot run here is refused with its reason, which the notice says too, and the running mode
// stays. The postprocess scene has one on every machine: without CUDA the CUDA modes, on a GPU GL's exported
// mode (it refuses a scene with an input) and Vulkan's the modes of other APIs.
TYPED_TEST(FrameLoop, ARefusedModeSaysWhyAndChangesNothing) {
  const auto loop = TestFixture::make(SceneId::Postprocess, 40, 24);
  TypeParam& app = *loop;
  std::optional<ModeId> refused;
  for (const ModeId mode : lab::all_modes())
    if (!app.availability(mode).available) refused = mode;
  ASSERT_TRUE(refused.has_value()) << "every mode runs the postprocess scene here";
  const lab::ModeAvailability verdict = app.request_mode(*refused);
  EXPECT_FALSE(verdict.available);
  EXPECT_EQ(verdict.reason, app.availability(*refused).reason);
  EXPECT_EQ(app.notice(), std::string(lab::to_string(*refused)) + " is unavailable: " + verdict.reason);
  ASSERT_TRUE(app.render_frame(3));
  EXPECT_EQ(app.mode_id(), ModeId::Cpu);
}

// Without CUDA both are refused with the device's reason; with it the compute device moves at the next
// frame, and the CUDA device moves where the loop can (GL's) and is refused naming --device where the
// graphics device was picked for it at start (Vulkan's).
TYPED_TEST(FrameLoop, DeviceAndComputeDeviceRequests) {
  const auto loop = TestFixture::make(SceneId::Pattern, 40, 24);
  TypeParam& app = *loop;
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
  if (Loop<TypeParam>::kDeviceSwitch) {
    EXPECT_EQ(refusal, "");
  } else {
    EXPECT_NE(refusal.find("restart with --device"), std::string::npos) << refusal;
  }
  EXPECT_EQ(app.request_compute_device(app.cuda_device()), "");
  app.request_split_copy(lab::SplitCopy::Host);
  ASSERT_TRUE(app.render_frame(0));
  EXPECT_EQ(app.compute_device(), app.cuda_device());
  EXPECT_EQ(app.split_copy(), lab::SplitCopy::Host);
  EXPECT_TRUE(app.read_frame().rgba == labtest::expected_pattern_frame(40, 24, 0).rgba);
}

}  // namespace
