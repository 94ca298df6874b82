// app/gl/platform_glfw.cpp — GL's platform in a window: the GLFW window's GL 4.5 core context
// (app/glfw/window.hpp), loaded through glad, swapped with vsync as asked. On a machine without a display,
// run under Xvfb; on a GPU server, Xvfb plus __GLX_VENDOR_LIBRARY_NAME=nvidia gives an NVIDIA GLX context
// that CUDA can share.
#include "app/gl/platform.hpp"

#include "app/glfw/window.hpp"

#include <GLFW/glfw3.h>

#include <memory>
#include <stdexcept>
#include <utility>

namespace lab::gl {
namespace {

class GlfwPlatform final : public Platform {
 public:
  // Over `window`, made with a GL context (glfw::WindowDesc::gl); `owned` holds it where the platform made
  // it.
  GlfwPlatform(glfw::Window& window, std::unique_ptr<glfw::Window> owned, bool vsync)
      : m_owned(std::move(owned)), m_window(window) {
    if (!window.gl()) throw std::logic_error("GL's window platform needs a window made with a GL context");
    glfwMakeContextCurrent(window.handle());
    if (gladLoadGL(reinterpret_cast<GLADloadfunc>(glfwGetProcAddress)) == 0)
      throw std::runtime_error("glad could not load OpenGL 4.5 core functions from the window's context");
    set_vsync(vsync);
  }

  std::string description() const override { return "window (GLFW)"; }
  bool is_window() const override { return true; }
  GLFWwindow* glfw_window() const override { return m_window.handle(); }
  glfw::Window* window() const override { return &m_window; }
  bool keep_running() const override { return !m_window.should_close(); }

  void poll_events() override {
    m_window.poll();
    // Minimised: wait for the next event instead of spinning on 0x0 frames.
    while (framebuffer_extent().empty() && !m_window.should_close()) m_window.wait(0.1);
  }

  Extent framebuffer_extent() const override { return m_window.framebuffer_extent(); }
  GLuint framebuffer() const override { return 0; }
  void resize(Extent extent) override { m_window.request_size(extent); }
  void present() override { glfwSwapBuffers(m_window.handle()); }

  void set_vsync(bool on) override {
    glfwSwapInterval(on ? 1 : 0);
    m_vsync = on;
  }
  bool vsync() const override { return m_vsync; }
  double refresh_hz() const override { return m_window.refresh_hz(); }
  float content_scale() const override { return m_window.content_scale(); }
  void toggle_fullscreen() override {
    m_window.toggle_fullscreen();
    set_vsync(m_vsync);  // some drivers reset the swap interval with the mode
  }
  void request_close() override { m_window.request_close(); }
  std::vector<Hotkey> take_hotkeys() override { return m_window.take_hotkeys(); }

 private:
  std::unique_ptr<glfw::Window> m_owned;  // null where the window is borrowed
  glfw::Window& m_window;
  bool m_vsync = true;
};

glfw::WindowDesc gl_window_desc(const WindowDesc& desc) {
  glfw::WindowDesc window;
  window.extent = desc.extent;
  window.title = desc.title;
  window.no_display_remedy = ". Without a display, run under Xvfb (xvfb-run) or use --headless";
  window.gl = true;
  window.visible = desc.visible;
  return window;
}

}  // namespace

std::unique_ptr<Platform> create_window_platform(const WindowDesc& desc) {
  auto window = std::make_unique<glfw::Window>(gl_window_desc(desc));
  glfw::Window& borrowed = *window;
  return std::make_unique<GlfwPlatform>(borrowed, std::move(window), desc.vsync);
}

std::unique_ptr<Platform> create_window_platform(glfw::Window& window, bool vsync) {
  return std::make_unique<GlfwPlatform>(window, nullptr, vsync);
}

glfw::WindowDesc window_desc_for_gl(const WindowDesc& desc) {
  return gl_window_desc(desc);
}

}  // namespace lab::gl
