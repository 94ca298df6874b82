// app/glfw/window.hpp — the GLFW window of every graphics API: with a GL 4.5 core context for GL
// (WindowDesc::gl; app/gl/platform_glfw.cpp loads GL's functions from it), without one (GLFW_NO_API) for
// Vulkan, which draws through its surface, and Direct3D, through a DXGI swap chain on its HWND. Its key
// presses queued as app/core/hotkeys.hpp's hotkeys, its framebuffer's size kept by GLFW's callback, full
// screen and back; Dear ImGui's context with its GLFW backend over it (the API's own ImGui backend belongs
// to the API's presenter); and GLFW's last error as text. Several windows may be open at once (the Python
// package's viewers): GLFW ends with the last. Needs GLFW and Dear ImGui; no graphics API.
#pragma once

#include "app/core/hotkeys.hpp"
#include "app/core/vocabulary.hpp"

#include <string>
#include <vector>

struct GLFWwindow;

struct ImGuiContext;

namespace lab::glfw {

// GLFW's last error, "GLFW gave no reason" when there is none.
std::string error_text();

struct WindowDesc {
  Extent extent;
  std::string title = "interop-lab";
  // What to do when GLFW cannot start (no display): said after GLFW's reason.
  std::string no_display_remedy = "; use --headless";
  // Vulkan draws into it: GLFW must find a Vulkan loader with window surfaces (glfwVulkanSupported).
  bool vulkan = false;
  // GL draws into it: a GL 4.5 core context, current on this thread once the window is made.
  bool gl = false;
  // False: a hidden window, for a GL context nobody looks at (--doctor).
  bool visible = true;
};

class Window {
 public:
  // Throws std::runtime_error with GLFW's reason when there is no window to be had. Its key callback is
  // installed first, so the Panel's ImGui backend (installed after) chains to it.
  explicit Window(const WindowDesc& desc);
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  GLFWwindow* handle() const { return m_handle; }
  // Made for Vulkan or GL (WindowDesc::vulkan, ::gl): its panel's GLFW backend is told so.
  bool vulkan() const { return m_vulkan; }
  bool gl() const { return m_gl; }
  // Handles the window's events; its framebuffer's size then (0x0 while minimised).
  Extent poll();
  // The framebuffer's size as the last event said (0x0 while minimised), without asking the window system:
  // a round trip to the X server, which every frame would pay.
  Extent framebuffer_extent() const { return m_extent; }
  // Asks for a client area of `extent` and waits briefly for the window system's answer, so that the next
  // frame is drawn at it (poll() says what the window got, where the window manager granted another size).
  // An empty extent minimises the window instead, as a user would (an X window cannot be 0x0).
  void request_size(Extent extent);
  // Sleeps until an event comes or `seconds` pass (while minimised, nothing is drawn).
  void wait(double seconds);
  bool should_close() const;
  // What Esc or Q does: should_close() is true from now on.
  void request_close();
  // The refresh rate of the monitor the window is on (the primary one while windowed); 0 when unknown.
  double refresh_hz() const;
  // glfwGetWindowContentScale's x: 2 on a 200 % high-DPI monitor.
  float content_scale() const;
  // Between the window and full screen on the monitor that holds the window's centre (at its current video
  // mode); the window's place and size come back after.
  void toggle_fullscreen();
  // The hotkeys pressed since the last call (poll() and wait() gather them), oldest first.
  std::vector<Hotkey> take_hotkeys();

 private:
  struct WindowedRect {
    int x = 0, y = 0, width = 0, height = 0;
  };

  GLFWwindow* m_handle = nullptr;
  bool m_vulkan = false;
  bool m_gl = false;
  Extent m_extent;  // the framebuffer's, in pixels, from GLFW's callback
  std::vector<Hotkey> m_hotkeys;
  WindowedRect m_windowed;  // where the window was before full screen
};

// Dear ImGui's context and its GLFW backend over `window` (ImGui_ImplGlfw_InitForVulkan or ForOpenGL as the
// window was made), its layout kept in `layout_file` (--layout-file; "" keeps it in memory only), its font
// rasterised at the window's content scale (sharp on a high-DPI monitor, unlike FontGlobalScale) and every
// padding and rounding scaled with it.
class Panel {
 public:
  Panel(const Window& window, std::string layout_file);
  ~Panel();
  Panel(const Panel&) = delete;
  Panel& operator=(const Panel&) = delete;

  // GLFW's half of a new ImGui frame (input, size); after the presenter's begin_ui_frame, before
  // ImGui::NewFrame. Makes the panel's context current first.
  void begin_frame();
  // Makes this panel's ImGui context the current one. Each panel has its own (two loops in one process, two
  // Python viewers' windows, each draw their own), and GLFW's callbacks write into the current context:
  // the loop calls this before it polls the window's events and before its ImGui backend goes.
  void make_current();

 private:
  std::string m_layout_file;  // ImGui keeps a pointer to it: it must outlive the context
  ImGuiContext* m_context = nullptr;
};

}  // namespace lab::glfw
