// app/d3d12/presenter.hpp — the Direct3D 12 app's window output: a DXGI flip-model swap chain on the window's
// HWND and the direct queue, the frame target copied upright into the current back buffer
// (Renderer::copy_frame_upright), Dear ImGui's Direct3D 12 backend drawing the panel over it (its font
// through a shader-visible descriptor heap of its own, the back buffers' render-target views in another), and
// the back buffer read back for --screenshot. Under Wine's vkd3d the backend's font sampled through a
// descriptor table reads zeros (as app/d3d12/renderer.cpp's draw_image found), so there the panel may draw
// nothing visible. Windows 10 or later; needs d3d12, dxgi, d3dcompiler and Dear ImGui (imgui_impl_dx12).
#pragma once

#include "app/d3d/window.hpp"
#include "app/d3d12/renderer.hpp"

#include <dxgi1_4.h>
#include <wrl/client.h>

namespace lab::d3d12 {

class Presenter final : public d3d::Presenter {
 public:
  // A swap chain of `extent` on `window` for `renderer`'s device and queue (which outlive it). with_ui:
  // ImGui's Direct3D 12 backend too (the ImGui context must exist, app/d3d/window.hpp's Panel). vsync:
  // Present waits for the display's refresh.
  Presenter(Renderer& renderer, Device& device, HWND window, Extent extent, bool with_ui, bool vsync);
  ~Presenter() override;

  void resize(Extent extent) override;
  void begin_ui_frame() override;
  void draw(const DrawPlan& plan, ImDrawData* ui) override;
  Image read_back_buffer() override;
  void present() override;

 private:
  // Waits until the queue has done everything queued so far (presents included), before the buffers change.
  void wait_idle();
  ID3D12Resource* back_buffer();
  // The panel over the current back buffer: its own command list, submitted and waited for (ImGui's vertex
  // buffers are rewritten next frame).
  void draw_ui(ImDrawData* ui);

  Renderer& m_renderer;
  Device& m_device;
  Extent m_extent;
  ComPtr<IDXGISwapChain3> m_swap_chain;
  ComPtr<ID3D12Resource> m_back_buffer;  // the current one, between draw and present
  ComPtr<ID3D12Fence> m_fence;
  UINT64 m_fence_value = 0;
  // The panel's: ImGui's font view (shader-visible), a render-target view per back buffer, and the command
  // list that draws it. Empty without the panel.
  bool m_with_ui = false;
  ComPtr<ID3D12DescriptorHeap> m_font_heap;
  ComPtr<ID3D12DescriptorHeap> m_rtv_heap;
  UINT m_rtv_step = 0;
  ComPtr<ID3D12CommandAllocator> m_ui_allocator;
  ComPtr<ID3D12GraphicsCommandList> m_ui_list;
};

}  // namespace lab::d3d12
