// tests/gl/test_gl_errors.cpp — a GL error made during a frame ends that frame with an exception that names
// it, in GL's loop (lab::gl::App) and in the core loop on GL's backend (loop::App<gl::Backend>, whose
// after_frame checks it), and the frame is not counted. A mode double makes the error (binding a vertex
// array name GL never made: GL_INVALID_OPERATION) on the headless test platform (Mesa in CI).
#include "tests/support/app_fixture.hpp"

#include "app/gl/backend.hpp"
#include "app/loop/app.hpp"
#include "interop/error.hpp"

#include <glad/gl.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <type_traits>

namespace {

using GlCoreApp = lab::loop::App<lab::gl::Backend>;

// Stands in for the cpu mode and makes one GL error in the frame it produces.
class GlErrorMode final : public lab::gl::Mode {
 public:
  lab::ModeId id() const override { return lab::ModeId::Cpu; }
  void attach(lab::gl::Renderer&) override {}
  void detach() override {}
  void produce(lab::gl::Renderer&, lab::FrameSource&, const lab::FrameInfo&, lab::FrameTimers&) override {
    glBindVertexArray(0x7fffff);  // a name glCreateVertexArrays never returned
  }
};

template <class App>
class GlErrors : public ::testing::Test {};

using Loops = ::testing::Types<lab::gl::App, GlCoreApp>;
struct LoopName {
  template <class App>
  static std::string GetName(int) {
    return std::is_same_v<App, GlCoreApp> ? "gl_core" : "gl";
  }
};
TYPED_TEST_SUITE(GlErrors, Loops, LoopName);

TYPED_TEST(GlErrors, AGlErrorInAFrameEndsItNamingTheError) {
  lab::Options options = labtest::app_options(lab::SceneId::Pattern, lab::ModeId::Cpu, 32, 16);
  options.headless = true;  // the core loop on GL's backend runs headless
  TypeParam app(options);
  app.set_frame_index(7);
  app.use_mode(std::make_unique<GlErrorMode>());
  try {
    app.render_frame();
    FAIL() << "the GL error was not reported";
  } catch (const interop::Error& error) {
    EXPECT_EQ(error.source(), interop::ErrorSource::Gl);
    EXPECT_EQ(error.call(), "render_frame");
    EXPECT_NE(error.error_name().find("GL_INVALID_OPERATION"), std::string::npos) << error.error_name();
  }
  EXPECT_EQ(app.frame_index(), 7) << "a frame that failed is not counted";
}

}  // namespace
