// app/d3d12/presenter.hpp — the Direct3D 12 app's window output: a DXGI flip-model swap chain on the window's
// HWND and the direct queue, the frame target copied upright into the current back buffer
// (Renderer::copy_frame_upright), and that buffer read back for --screenshot. No panel: Dear ImGui's
// Direct3D 12 backend samples its font through a shader-resource table, which reads zeros under Wine's vkd3d
// (app/d3d12/renderer.cpp, draw_image), so it could not be checked here. Windows 10 or later; needs d3d12 and
// dxgi.
#pragma once

#include "app/d3d11/window.hpp"
#include "app/d3d12/renderer.hpp"

#include <dxgi1_4.h>
#include <wrl/client.h>

namespace lab::d3d12 {

class Presenter final : public d3d::Presenter {
 public:
  // A swap chain of `extent` on `window` for `renderer`'s device and queue (which outlive it). vsync: Present
  // waits for the display's refresh.
  Presenter(Renderer& renderer, Device& device, HWND window, Extent extent, bool vsync);
  ~Presenter() override;
  Presenter(const Presenter&) = delete;
  Presenter& operator=(const Presenter&) = delete;

  void resize(Extent extent) override;
  void begin_ui_frame() override {}
  void draw(const DrawPlan& plan, ImDrawData* ui) override;  // `ui` must be null: there is no panel
  Image read_back_buffer() override;
  void present() override;

 private:
  // Waits until the queue has done everything queued so far (presents included), before the buffers change.
  void wait_idle();
  ID3D12Resource* back_buffer();

  Renderer& m_renderer;
  Device& m_device;
  Extent m_extent;
  bool m_vsync = true;
  ComPtr<IDXGISwapChain3> m_swap_chain;
  ComPtr<ID3D12Resource> m_back_buffer;  // the current one, between draw and present
  ComPtr<ID3D12Fence> m_fence;
  UINT64 m_fence_value = 0;
};

}  // namespace lab::d3d12
