// app/glfw/window.hpp — the GLFW window of every graphics API that draws without a GL context (Vulkan
// through its surface, Direct3D through a DXGI swap chain on its HWND): GLFW_NO_API, its key presses queued
// as app/core/hotkeys.hpp's hotkeys, full screen and back; Dear ImGui's context with its GLFW backend over
// it (the API's own ImGui backend belongs to the API's presenter); and GLFW's last error as text, which the
// GL window (app/gl/platform_glfw.cpp) says too. Needs GLFW and Dear ImGui; no graphics API.
#pragma once

#include "app/core/hotkeys.hpp"
#include "app/core/vocabulary.hpp"

#include <string>
#include <vector>

struct GLFWwindow;

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
  // Made for Vulkan (WindowDesc::vulkan): its panel's GLFW backend is told so.
  bool vulkan() const { return m_vulkan; }
  // Handles the window's events; its framebuffer's size then (0x0 while minimised).
  Extent poll();
  // Asks for a client area of `extent`; poll() then says what the window got.
  void request_size(Extent extent);
  // Sleeps until an event comes or `seconds` pass (while minimised, nothing is drawn).
  void wait(double seconds);
  bool should_close() const;
  // What Esc or Q does: should_close() is true from now on.
  void request_close();
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
  std::vector<Hotkey> m_hotkeys;
  WindowedRect m_windowed;  // where the window was before full screen
};

// Dear ImGui's context and its GLFW backend over `window` (a Vulkan window's: ImGui_ImplGlfw_InitForVulkan),
// its layout kept in `layout_file` as the GL window's is (--layout-file; "" keeps it in memory only).
class Panel {
 public:
  Panel(const Window& window, std::string layout_file);
  ~Panel();
  Panel(const Panel&) = delete;
  Panel& operator=(const Panel&) = delete;

  // GLFW's half of a new ImGui frame (input, size); after the presenter's begin_ui_frame, before
  // ImGui::NewFrame.
  void begin_frame();

 private:
  std::string m_layout_file;  // ImGui keeps a pointer to it: it must outlive the context
};

}  // namespace lab::glfw
