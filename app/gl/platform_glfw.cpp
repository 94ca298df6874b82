// app/gl/platform_glfw.cpp — a GLFW window with a GL 4.5 core context, loaded through glad.
// On a machine without a display, run under Xvfb; on a GPU server, Xvfb plus
// __GLX_VENDOR_LIBRARY_NAME=nvidia gives an NVIDIA GLX context that CUDA can share.
#include "app/gl/platform.hpp"

#include "app/glfw/window.hpp"

#include <GLFW/glfw3.h>

#include <stdexcept>
#include <utility>

namespace lab {
namespace {

// glfwTerminate destroys every window of the process: with several GL windows open at once (the Python
// package's viewers), only the last one to close terminates GLFW.
int g_open_windows = 0;

void terminate_unless_used() {
  if (g_open_windows == 0) glfwTerminate();
}

class GlfwPlatform final : public Platform {
 public:
  explicit GlfwPlatform(const WindowDesc& desc) {
    if (!glfwInit())
      throw std::runtime_error("cannot open a window: " + glfw::error_text() +
                               ". Without a display, run under Xvfb (xvfb-run) or use --headless");
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_VISIBLE, desc.visible ? GLFW_TRUE : GLFW_FALSE);
    m_window = glfwCreateWindow(desc.extent.width, desc.extent.height, desc.title.c_str(), nullptr, nullptr);
    if (m_window == nullptr) {
      const std::string reason = glfw::error_text();
      terminate_unless_used();
      throw std::runtime_error("cannot create a GL 4.5 core window: " + reason +
                               ". The GL driver must support OpenGL 4.5 core (Mesa llvmpipe does)");
    }
    glfwMakeContextCurrent(m_window);
    if (gladLoadGL(reinterpret_cast<GLADloadfunc>(glfwGetProcAddress)) == 0) {
      glfwDestroyWindow(m_window);
      terminate_unless_used();
      throw std::runtime_error("glad could not load OpenGL 4.5 core functions from the window's context");
    }
    ++g_open_windows;
    set_vsync(desc.vsync);
    // The size is asked for once here and then kept up to date by GLFW's callback, run from
    // poll_events: glfwGetFramebufferSize is a round trip to the X server, which every frame would pay.
    glfwGetFramebufferSize(m_window, &m_extent.width, &m_extent.height);
    glfwSetWindowUserPointer(m_window, this);
    glfwSetFramebufferSizeCallback(m_window, [](GLFWwindow* window, int width, int height) {
      static_cast<GlfwPlatform*>(glfwGetWindowUserPointer(window))->m_extent = {width, height};
    });
    // Installed before the panel's: ImGui's GLFW backend chains to it, so keys reach both.
    glfwSetKeyCallback(m_window, [](GLFWwindow* window, int key, int /*scancode*/, int action, int mods) {
      if (action == GLFW_PRESS)
        static_cast<GlfwPlatform*>(glfwGetWindowUserPointer(window))->m_key_presses.push_back({key, mods});
    });
  }

  ~GlfwPlatform() override {
    glfwDestroyWindow(m_window);
    --g_open_windows;
    terminate_unless_used();
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

  void set_vsync(bool on) override {
    glfwSwapInterval(on ? 1 : 0);
    m_vsync = on;
  }
  bool vsync() const override { return m_vsync; }

  double refresh_hz() const override {
    GLFWmonitor* monitor = glfwGetWindowMonitor(m_window);
    if (monitor == nullptr) monitor = glfwGetPrimaryMonitor();
    const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr;
    return mode ? mode->refreshRate : 0.0;
  }

  float content_scale() const override {
    float x = 1.0f, y = 1.0f;
    glfwGetWindowContentScale(m_window, &x, &y);
    return x > 0.0f ? x : 1.0f;
  }

  // Fullscreen on the primary monitor at its current mode (no mode switch); back to the windowed
  // position and size it had.
  void toggle_fullscreen() override {
    if (glfwGetWindowMonitor(m_window) != nullptr) {
      glfwSetWindowMonitor(m_window, nullptr, m_windowed_x, m_windowed_y, m_windowed.width, m_windowed.height,
                           0);
    } else {
      GLFWmonitor* monitor = glfwGetPrimaryMonitor();
      const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr;
      if (mode == nullptr) return;
      glfwGetWindowPos(m_window, &m_windowed_x, &m_windowed_y);
      glfwGetWindowSize(m_window, &m_windowed.width, &m_windowed.height);
      glfwSetWindowMonitor(m_window, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
    }
    set_vsync(m_vsync);  // some drivers reset the swap interval with the mode
  }

  void request_close() override { glfwSetWindowShouldClose(m_window, GLFW_TRUE); }

  std::vector<KeyPress> take_key_presses() override { return std::exchange(m_key_presses, {}); }

 private:
  GLFWwindow* m_window = nullptr;
  bool m_vsync = true;
  std::vector<KeyPress> m_key_presses;
  int m_windowed_x = 0, m_windowed_y = 0;
  Extent m_windowed;  // the window's size before fullscreen
  Extent m_extent;    // the framebuffer's, in pixels; 0x0 while minimised
};

}  // namespace

std::unique_ptr<Platform> create_window_platform(const WindowDesc& desc) {
  return std::make_unique<GlfwPlatform>(desc);
}

}  // namespace lab
