// tests/gl/test_fallback.cpp — fallback tiers during a run: a non-sticky CUDA error in a frame moves
// the app one tier down (interop -> staging -> cpu) and the frame is still drawn right; a sticky one
// (the context is corrupt) propagates so the process ends. A stand-in mode throws the errors, so this
// runs everywhere, CI included.
#include "tests/support/app_fixture.hpp"
#include "tests/support/stand_in_error.hpp"

#include "interop/error.hpp"

namespace {

using lab::ModeId;

// Stands in for the interop mode and fails every frame the way a lost registration would.
class FailingMode final : public lab::gl::Mode {
 public:
  explicit FailingMode(bool sticky) : m_sticky(sticky) {}
  ModeId id() const override { return ModeId::Interop; }
  void attach(lab::gl::Renderer&) override {}
  void detach() override {}
  void produce(lab::gl::Renderer&, lab::FrameSource&, const lab::FrameInfo&, lab::FrameTimers&) override {
    throw labtest::stand_in_cuda_error(m_sticky, "cudaGraphicsMapResources(1, &resource, stream)", __FILE__,
                                       __LINE__);
  }

 private:
  bool m_sticky;
};

TEST(Fallback, ANonStickyFrameErrorMovesOneTierDownAndTheFrameIsStillRight) {
  lab::gl::App app(labtest::app_options(lab::SceneId::Pattern, ModeId::Cpu, 320, 200));
  app.use_mode(std::make_unique<FailingMode>(false));
  const lab::Image frame = labtest::render(app, 4);
  EXPECT_EQ(app.mode_id(), app.fallback_for(ModeId::Interop));
  EXPECT_NE(app.notice().find("interop failed"), std::string::npos) << app.notice();
  EXPECT_NE(app.notice().find("cudaErrorUnknown"), std::string::npos) << app.notice();
  const lab::ImageDifference d = lab::compare_images(frame, labtest::expected_pattern_frame(320, 200, 4), 1);
  EXPECT_EQ(d.pixels_over, 0u) << lab::to_string(d, 1);
}

TEST(Fallback, AStickyErrorEndsTheRun) {
  lab::gl::App app(labtest::app_options(lab::SceneId::Pattern, ModeId::Cpu, 64, 64));
  app.use_mode(std::make_unique<FailingMode>(true));
  try {
    app.render_frame();
    FAIL() << "a sticky error was swallowed";
  } catch (const interop::Error& error) {
    EXPECT_TRUE(error.sticky());
  }
}

TEST(Fallback, TiersGoInteropThenStagingThenCpu) {
  lab::gl::App app(labtest::app_options(lab::SceneId::Pattern, ModeId::Cpu, 64, 64));
  const ModeId below_interop = app.cuda_device() >= 0 ? ModeId::Staging : ModeId::Cpu;
  for (const ModeId mode :
       {ModeId::Interop, ModeId::Reregister, ModeId::Pbo, ModeId::Split, ModeId::External})
    EXPECT_EQ(app.fallback_for(mode), below_interop) << lab::to_string(mode);
  EXPECT_EQ(app.fallback_for(ModeId::Staging), ModeId::Cpu);
  EXPECT_EQ(app.fallback_for(ModeId::Cpu), ModeId::Cpu);
}

TEST(DeviceSelection, IsRefusedWithTheReasonWithoutCuda) {
  lab::gl::App app(labtest::app_options(lab::SceneId::Pattern, ModeId::Cpu, 64, 64));
  if (app.cuda_device() >= 0) GTEST_SKIP() << "a CUDA device exists here (the GPU tests switch devices)";
  const std::string refusal = app.request_device(0);
  EXPECT_NE(refusal.find("no CUDA device"), std::string::npos) << refusal;
  EXPECT_EQ(app.notice(), refusal);
  const std::string compute = app.request_compute_device(0);
  EXPECT_NE(compute.find("compute device 0: this machine has no CUDA device"), std::string::npos) << compute;
  EXPECT_EQ(app.compute_device(), -1);
}

}  // namespace
