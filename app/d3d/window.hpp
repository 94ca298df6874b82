// app/d3d/window.hpp — what a Direct3D app needs around its window (app/glfw/window.hpp), for both APIs
// (app/d3d/backend.hpp): the window's HWND, and the Presenter interface each API implements
// (app/d3d11/presenter.hpp). Windows only; needs GLFW.
#pragma once

#include "app/glfw/window.hpp"
#include "app/image/image_io.hpp"
#include "app/scene/scene_compute.hpp"

#include <windows.h>

#include <vector>

struct GLFWwindow;
struct ImDrawData;

namespace lab::d3d {

// The HWND of `window`: what a DXGI swap chain presents to.
HWND hwnd(const glfw::Window& window);

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
