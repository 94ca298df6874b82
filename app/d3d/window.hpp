// app/d3d/window.hpp — what a Direct3D app needs around a window, for both APIs (app/d3d/app.hpp):
// a GLFW window without a client API (Direct3D draws through a DXGI swap chain on its HWND) whose key presses
// queue up as app/core/hotkeys.hpp's hotkeys, Dear ImGui's context over it (GLFW's ImGui backend; the API's own
// ImGui backend belongs to the presenter), and the Presenter interface each API implements
// (app/d3d11/presenter.hpp). Windows only; needs GLFW and Dear ImGui.
#pragma once

#include "app/core/hotkeys.hpp"
#include "app/image/image_io.hpp"
#include "app/scene/scene_compute.hpp"

#include <windows.h>

#include <vector>

struct GLFWwindow;
struct ImDrawData;

namespace lab::d3d {

class Window {
 public:
  // Throws std::runtime_error with GLFW's reason when there is no window to be had. Its key callback is
  // installed first, so the Panel's ImGui backend (installed after) chains to it.
  Window(Extent extent, const char* title);
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  GLFWwindow* handle() const { return m_handle; }
  HWND hwnd() const;
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
  std::vector<Hotkey> m_hotkeys;
  WindowedRect m_windowed;  // where the window was before full screen
};

// Dear ImGui's context and its GLFW backend over `window`. No layout file: the Direct3D panel has nothing to
// remember yet.
class Panel {
 public:
  explicit Panel(const Window& window);
  ~Panel();
  Panel(const Panel&) = delete;
  Panel& operator=(const Panel&) = delete;

  // GLFW's half of a new ImGui frame (input, size); after the presenter's begin_ui_frame, before
  // ImGui::NewFrame.
  void begin_frame();
};

// Shows the renderer's frames in a window: one per API. Both present through a DXGI flip-model swap chain,
// whose sync interval is the vsync switch kept here.
class Presenter {
 public:
  // vsync: Present waits for the display's refresh.
  explicit Presenter(bool vsync) : m_vsync(vsync) {}
  virtual ~Presenter() = default;
  Presenter(const Presenter&) = delete;
  Presenter& operator=(const Presenter&) = delete;

  bool vsync() const { return m_vsync; }
  // From the next present() on.
  void set_vsync(bool vsync) { m_vsync = vsync; }
  // Makes the swap chain's buffers `extent` (the window's framebuffer).
  virtual void resize(Extent extent) = 0;
  // The API's ImGui backend starts a frame (before ImGui_ImplGlfw_NewFrame and ImGui::NewFrame).
  virtual void begin_ui_frame() = 0;
  // Draws the frame of `plan` (the renderer's frame target, or a ShowImage plan's image) into the back
  // buffer upright, then `ui` over it when not null. Call present() after.
  virtual void draw(const DrawPlan& plan, ImDrawData* ui) = 0;
  // The back buffer as draw() left it, top row first: what the window shows.
  virtual Image read_back_buffer() = 0;
  virtual void present() = 0;

 protected:
  // IDXGISwapChain::Present's: 1 waits for one vertical blank; 0 presents at once (the flip model then
  // replaces a queued frame with the newer one rather than tearing, which needs the tearing flag, not asked
  // for here).
  UINT sync_interval() const { return m_vsync ? 1u : 0u; }

 private:
  bool m_vsync = true;
};

}  // namespace lab::d3d
