// tests/gl/test_platform_egl.cpp — several headless platforms in one process (as the Python package's
// labs and viewers are): they share one EGLDisplay, and destroying one must leave the others' contexts
// working (eglTerminate only when the last one goes).
#include "app/gl/gl_objects.hpp"
#include "app/gl/platform.hpp"

#include <glad/egl.h>
#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <stdexcept>

namespace {

struct Current {
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLContext context = EGL_NO_CONTEXT;
};

Current current() {
  return {eglGetCurrentDisplay(), eglGetCurrentContext()};
}

std::unique_ptr<lab::gl::Platform> headless(lab::Extent extent) {
  lab::gl::HeadlessDesc desc;
  desc.extent = extent;
  return lab::gl::create_headless_platform(desc);
}

// Clears the platform's framebuffer to `red` and reads one pixel back.
std::array<unsigned char, 4> clear_and_read(const lab::gl::Platform& platform, float red) {
  glBindFramebuffer(GL_FRAMEBUFFER, platform.framebuffer());
  glViewport(0, 0, platform.framebuffer_extent().width, platform.framebuffer_extent().height);
  glClearColor(red, 0.0f, 0.0f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  std::array<unsigned char, 4> pixel{};
  glReadPixels(0, 0, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, pixel.data());
  return pixel;
}

TEST(HeadlessPlatforms, DestroyingOneLeavesTheOthersContextWorking) {
  std::unique_ptr<lab::gl::Platform> first, second;
  try {
    first = headless({16, 16});
  } catch (const std::runtime_error& error) {
    GTEST_SKIP() << "needs headless GL (EGL): " << error.what();
  }
  const Current first_context = current();
  second = headless({8, 8});
  const Current second_context = current();
  ASSERT_NE(second_context.context, EGL_NO_CONTEXT);
  ASSERT_NE(second_context.context, first_context.context);
  EXPECT_EQ(clear_and_read(*second, 1.0f)[0], 255);

  ASSERT_TRUE(eglMakeCurrent(first_context.display, EGL_NO_SURFACE, EGL_NO_SURFACE, first_context.context));
  first.reset();  // with its own context current, as its owner destroys it
  EXPECT_EQ(eglGetCurrentContext(), EGL_NO_CONTEXT);

  // The display is still initialised for the second platform: its context becomes current and draws.
  ASSERT_TRUE(eglMakeCurrent(second_context.display, EGL_NO_SURFACE, EGL_NO_SURFACE, second_context.context))
      << "EGL error 0x" << std::hex << eglGetError();
  const std::array<unsigned char, 4> pixel = clear_and_read(*second, 0.0f);
  EXPECT_EQ(pixel[0], 0);
  EXPECT_EQ(pixel[3], 255);
  EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
}

}  // namespace
