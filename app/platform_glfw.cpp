// app/platform_glfw.cpp — a GLFW window with a GL 4.5 core context, loaded through glad.
// On a machine without a display, run under Xvfb; on a GPU server, Xvfb plus
// __GLX_VENDOR_LIBRARY_NAME=nvidia gives an NVIDIA GLX context that CUDA can share.
#include "app/platform.hpp"

#include <GLFW/glfw3.h>

#include <stdexcept>

namespace lab {
namespace {

std::string glfw_error_text() {
  const char* description = nullptr;
  const int code = glfwGetError(&description);
  if (code == GLFW_NO_ERROR) return "GLFW gave no reason";
  return description ? description : "GLFW error " + std::to_string(code);
}

class GlfwPlatform final : public Platform {
 public:
  explicit GlfwPlatform(const WindowDesc& desc) {
    if (!glfwInit())
      throw std::runtime_error("cannot open a window: " + glfw_error_text() +
                               ". Without a display, run under Xvfb (xvfb-run) or use --headless");
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_VISIBLE, desc.visible ? GLFW_TRUE : GLFW_FALSE);
    m_window = glfwCreateWindow(desc.extent.width, desc.extent.height, desc.title.c_str(), nullptr, nullptr);
    if (m_window == nullptr) {
      const std::string reason = glfw_error_text();
      glfwTerminate();
      throw std::runtime_error("cannot create a GL 4.5 core window: " + reason +
                               ". The GL driver must support OpenGL 4.5 core (Mesa llvmpipe does)");
    }
    glfwMakeContextCurrent(m_window);
    if (gladLoadGL(reinterpret_cast<GLADloadfunc>(glfwGetProcAddress)) == 0) {
      glfwDestroyWindow(m_window);
      glfwTerminate();
      throw std::runtime_error("glad could not load OpenGL 4.5 core functions from the window's context");
    }
    glfwSwapInterval(desc.vsync ? 1 : 0);
    // The size is asked for once here and then kept up to date by GLFW's callback, run from
    // poll_events: glfwGetFramebufferSize is a round trip to the X server, which every frame would pay.
    glfwGetFramebufferSize(m_window, &m_extent.width, &m_extent.height);
    glfwSetWindowUserPointer(m_window, this);
    glfwSetFramebufferSizeCallback(m_window, [](GLFWwindow* window, int width, int height) {
      static_cast<GlfwPlatform*>(glfwGetWindowUserPointer(window))->m_extent = {width, height};
    });
  }

  ~GlfwPlatform() override {
    glfwDestroyWindow(m_window);
    glfwTerminate();
  }

  GlfwPlatform(const GlfwPlatform&) = delete;
  GlfwPlatform& operator=(const GlfwPlatform&) = delete;

  std::string description() const override { return "window (GLFW)"; }
  bool is_window() const override { return true; }
  GLFWwindow* glfw_window() const override { return m_window; }
  bool keep_running() const override { return !glfwWindowShouldClose(m_window); }

  void poll_events() override {
    glfwPollEvents();
    // Minimised: wait for the next event instead of spinning on 0x0 frames.
    while (framebuffer_extent().empty() && !glfwWindowShouldClose(m_window)) glfwWaitEventsTimeout(0.1);
  }

  Extent framebuffer_extent() const override { return m_extent; }

  GLuint framebuffer() const override { return 0; }
  // An X window cannot be 0x0: an empty extent minimises it instead, as a user would.
  void resize(Extent extent) override {
    if (extent.empty()) {
      glfwIconifyWindow(m_window);
      return;
    }
    if (glfwGetWindowAttrib(m_window, GLFW_ICONIFIED)) glfwRestoreWindow(m_window);
    glfwSetWindowSize(m_window, extent.width, extent.height);
    // The new size comes back as an event: wait for it briefly so that the next frame is drawn at it,
    // then ask the server once, which settles it when the window manager granted another size.
    const double deadline = glfwGetTime() + 0.5;
    while (m_extent != extent && glfwGetTime() < deadline) glfwWaitEventsTimeout(0.01);
    glfwGetFramebufferSize(m_window, &m_extent.width, &m_extent.height);
  }
  void present() override { glfwSwapBuffers(m_window); }

 private:
  GLFWwindow* m_window = nullptr;
  Extent m_extent;  // the framebuffer's, in pixels; 0x0 while minimised
};

}  // namespace

std::unique_ptr<Platform> create_window_platform(const WindowDesc& desc) {
  return std::make_unique<GlfwPlatform>(desc);
}

}  // namespace lab
