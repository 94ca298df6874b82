// tests/loop/test_loop_traits.cpp — the optional verbs of the one frame loop's Backend contract
// (app/modes/backend.hpp) that GL's backend declares and Vulkan's and Direct3D's take as defaults: the live
// CUDA device switch (kCudaDeviceSwitch), a probe of the CUDA device that mode_availability is told
// (CudaProbe), a rule that depends on the scene (scene_availability), the profilers' scopes (profile_scope)
// and the checks around a frame (before_frame, after_frame). They are declared here by the null backend
// (app/null) with the verbs added and each call recorded, so this runs on any machine; the switch itself
// needs a CUDA device (and fails where INTEROP_LAB_REQUIRE_GPUS says one must be there).
#include "tests/loop/null_options.hpp"
#include "tests/support/image_fixture.hpp"

#include "app/cli/cli.hpp"
#include "app/loop/app.hpp"
#include "app/null/backend.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using lab::ModeAvailability;
using lab::ModeId;
using lab::SceneId;

// What the traced backend's calls saw, in order; reset by each test.
struct Trace {
  std::vector<std::string> events;
  int probes = 0;
  long long failing_frame = -1;  // after_frame throws for this frame
};
Trace g_trace;

// Records its entry and exit, as a profiler's range would be opened and closed.
class TracedScope {
 public:
  explicit TracedScope(std::string name) : m_name(std::move(name)) {
    g_trace.events.push_back("enter " + m_name);
  }
  ~TracedScope() { g_trace.events.push_back("exit " + m_name); }
  TracedScope(const TracedScope&) = delete;
  TracedScope& operator=(const TracedScope&) = delete;

 private:
  std::string m_name;
};

// The null backend with every optional verb declared.
struct TracedNull : lab::null::Backend<> {
  static constexpr bool kCudaDeviceSwitch = true;

  struct CudaProbe {
    int serial = 0;  // which probe this is: 1 at start, one more after each device switch
    int device = -1;
  };
  static CudaProbe probe_cuda(const lab::CudaContext& cuda, Device&, const std::string&) {
    return {++g_trace.probes, cuda.device};
  }
  static std::string probe_summary(const CudaProbe& probe) { return "probe " + std::to_string(probe.serial); }
  // The probe refuses staging, so that what it said is seen in availability on any machine.
  static ModeAvailability mode_availability(ModeId mode, const lab::CudaContext& cuda, const std::string& why,
                                            const CudaProbe& probe) {
    if (mode == ModeId::Staging) return {false, "probe " + std::to_string(probe.serial) + " refuses staging"};
    return lab::null::Backend<>::mode_availability(mode, cuda, why);
  }
  // A stand-in rule of a scene: none with an input resource (the postprocess scene). Without CUDA only the
  // cpu mode runs, so it is cpu that this refuses.
  static ModeAvailability scene_availability(ModeId mode, const lab::FrameSource& source,
                                             lab::Extent extent) {
    for (const lab::ResourceDesc& resource : source.resources(extent))
      if (resource.role == lab::ResourceRole::Input)
        return {false, std::string(lab::to_string(mode)) + " runs no scene with an input here"};
    return {true, ""};
  }
  template <class Name>
  static TracedScope profile_scope(const Name& name) {
    return TracedScope(name());
  }
  static void before_frame(Device&) { g_trace.events.push_back("before"); }
  static void after_frame(Device&, long long index) {
    g_trace.events.push_back("after " + std::to_string(index));
    if (index == g_trace.failing_frame)
      throw std::runtime_error("frame " + std::to_string(index) + " failed");
  }
};

using TracedApp = lab::loop::App<TracedNull>;

lab::Options traced_options(SceneId scene) {
  return labtest::null_options(scene, 40, 24);
}

class CoreLoopTraits : public ::testing::Test {
 protected:
  void SetUp() override { g_trace = Trace{}; }
};

TEST_F(CoreLoopTraits, TheProbeIsMadeOnceAtStartAndAvailabilityIsToldIt) {
  TracedApp app(traced_options(SceneId::Pattern));
  EXPECT_EQ(g_trace.probes, 1);
  EXPECT_EQ(app.cuda_probe().serial, 1);
  EXPECT_EQ(app.cuda_probe().device, app.cuda_device());
  EXPECT_EQ(app.availability(ModeId::Staging).reason, "probe 1 refuses staging");
  EXPECT_EQ(app.fallback_for(ModeId::External), ModeId::Cpu) << "staging is refused: cpu is the tier below";
}

TEST_F(CoreLoopTraits, TheSceneRuleJudgesTheModeAtStartAndAtAScenesSwitch) {
  try {
    TracedApp refused(traced_options(SceneId::Postprocess));
    FAIL() << "a mode the scene rule refuses was started";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()), "--mode cpu is unavailable: cpu runs no scene with an input here");
  }
  TracedApp app(traced_options(SceneId::Pattern));
  EXPECT_TRUE(app.availability(ModeId::Cpu).available);
  app.request_scene(SceneId::Postprocess);
  ASSERT_TRUE(app.render_frame(0));
  EXPECT_EQ(app.scene_id(), SceneId::Postprocess);
  EXPECT_EQ(app.availability(ModeId::Cpu).reason, "cpu runs no scene with an input here");
  EXPECT_EQ(app.notice(),
            "cpu cannot run the postprocess scene (cpu runs no scene with an input here); now in " +
                std::string(lab::to_string(app.fallback_for(ModeId::Cpu))) + " mode");
  EXPECT_EQ(app.mode_id(), app.fallback_for(ModeId::Cpu));
}

TEST_F(CoreLoopTraits, AFrameIsOneScopeWithTheChecksInsideAndTheSwitchesInIt) {
  TracedApp app(traced_options(SceneId::Pattern));
  const std::vector<std::string> at_start = g_trace.events;
  EXPECT_EQ(at_start, (std::vector<std::string>{"enter attach cpu", "exit attach cpu"}));
  g_trace.events.clear();
  ASSERT_TRUE(app.render_frame(3));
  EXPECT_EQ(g_trace.events, (std::vector<std::string>{"enter frame 3", "before", "after 3", "exit frame 3"}));
  g_trace.events.clear();
  app.request_scene(SceneId::Wave);
  ASSERT_TRUE(app.render_frame(4));
  EXPECT_EQ(g_trace.events,
            (std::vector<std::string>{"enter frame 4", "before", "enter switch", "enter scene wave",
                                      "exit scene wave", "enter attach cpu", "exit attach cpu", "exit switch",
                                      "after 4", "exit frame 4"}));
  g_trace.events.clear();
  app.present();
  EXPECT_EQ(g_trace.events, (std::vector<std::string>{"enter present", "exit present"}));
}

TEST_F(CoreLoopTraits, AFailedFrameCheckEndsTheFrameWithItsErrorAndTheCounterStays) {
  TracedApp app(traced_options(SceneId::Pattern));
  g_trace.failing_frame = 5;
  app.set_frame_index(5);
  try {
    app.render_frame();
    FAIL() << "the failed check was swallowed";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()), "frame 5 failed");
  }
  EXPECT_EQ(app.frame_index(), 5) << "a frame that failed is not counted";
  g_trace.failing_frame = -1;
  ASSERT_TRUE(app.render_frame());
  EXPECT_EQ(app.frame_index(), 6);
  EXPECT_TRUE(app.read_frame().rgba == labtest::expected_pattern_frame(40, 24, 5).rgba);
}

// With a CUDA device the switch re-creates the CUDA side on the device asked for (the same one here: a
// machine with one GPU can run it), probes it again and says what the probe said; the frame stays right.
TEST_F(CoreLoopTraits, TheDeviceSwitchProbesAgainAndReattaches) {
  TracedApp app(traced_options(SceneId::Pattern));
  if (app.cuda_device() < 0) {
    const std::string refusal = app.request_device(0);
    EXPECT_NE(refusal.find("no CUDA device"), std::string::npos) << refusal;
    EXPECT_EQ(g_trace.probes, 1) << "a refused switch probes nothing";
    LABTEST_NEEDS_GPUS(1, "the CUDA device switch needs a CUDA device");
    return;
  }
  const int device = app.cuda_device();
  EXPECT_EQ(app.request_device(device), "");
  EXPECT_EQ(g_trace.probes, 1) << "the switch waits for the next frame";
  ASSERT_TRUE(app.render_frame(2));
  EXPECT_EQ(g_trace.probes, 2);
  EXPECT_EQ(app.cuda_probe().serial, 2);
  EXPECT_EQ(app.cuda_device(), device);
  EXPECT_EQ(app.compute_device(), device) << "the compute device follows the device it was on";
  EXPECT_EQ(app.notice(), "CUDA device " + std::to_string(device) + ": probe 2");
  EXPECT_EQ(app.mode_id(), ModeId::Cpu);
  EXPECT_TRUE(app.read_frame().rgba == labtest::expected_pattern_frame(40, 24, 2).rgba);
}

}  // namespace
