// app/d3d/window.hpp — what a Direct3D app needs around its window (app/glfw/window.hpp), for both APIs
// (app/d3d/backend.hpp): the window's HWND, and the Presenter both APIs define (app/d3d11/presenter.cpp,
// app/d3d12/presenter.cpp). Windows only; needs GLFW.
#pragma once

#include "app/glfw/window.hpp"
#include "app/image/image_io.hpp"
#include "app/scene/scene_compute.hpp"

#include <windows.h>

#include <memory>
#include <vector>

struct GLFWwindow;
struct ImDrawData;

namespace lab::d3d {

// The HWND of `window`: what a DXGI swap chain presents to.
HWND hwnd(const glfw::Window& window);

// Shows the renderer's frames in a window through a DXGI flip-model swap chain, whose sync interval is the
// vsync switch kept here. One class for both APIs, declared once: each API's presenter.cpp defines its
// members for its Renderer, and what it holds besides in State (app/d3d11/presenter.cpp,
// app/d3d12/presenter.cpp). A template, not an interface: the frame loop reaches it through its Backend.
template <class Renderer>
class Presenter {
 public:
  using Device = typename Renderer::Device;

  // A swap chain of `extent` on `window` for `renderer` and its device (which outlive it). with_ui: the
  // API's ImGui backend too (the ImGui context must exist, app/d3d/window.hpp's Panel). vsync: Present waits
  // for the display's refresh.
  Presenter(Renderer& renderer, Device& device, HWND window, Extent extent, bool with_ui, bool vsync);
  ~Presenter();
  Presenter(const Presenter&) = delete;
  Presenter& operator=(const Presenter&) = delete;

  bool vsync() const { return m_vsync; }
  // From the next present() on.
  void set_vsync(bool vsync) { m_vsync = vsync; }
  // Makes the swap chain's buffers `extent` (the window's framebuffer).
  void resize(Extent extent);
  // The API's ImGui backend starts a frame (before ImGui_ImplGlfw_NewFrame and ImGui::NewFrame).
  void begin_ui_frame();
  // Draws the frame of `plan` (the renderer's frame target, or a ShowImage plan's image) into the back
  // buffer upright, then `ui` over it when not null. Call present() after.
  void draw(const DrawPlan& plan, ImDrawData* ui);
  // The back buffer as draw() left it, top row first: what the window shows.
  Image read_back_buffer();
  void present();

 private:
  // IDXGISwapChain::Present's: 1 waits for one vertical blank; 0 presents at once (the flip model then
  // replaces a queued frame with the newer one rather than tearing, which needs the tearing flag, not asked
  // for here).
  UINT sync_interval() const { return m_vsync ? 1u : 0u; }

  struct State;  // the API's swap chain and what its present and panel draw with
  Renderer& m_renderer;
  Device& m_device;
  Extent m_extent;
  bool m_with_ui = false;
  bool m_vsync = true;
  // Made by the API's constructor, where State is complete.
  std::unique_ptr<State> m_state = std::make_unique<State>();
};

}  // namespace lab::d3d
