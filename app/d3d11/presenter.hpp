// app/d3d11/presenter.hpp — the Direct3D 11 app's window output: a DXGI flip-model swap chain on the window's
// HWND, the frame target drawn upright into its back buffer (assets/shaders/hlsl/present.hlsl), Dear ImGui's
// Direct3D 11 backend drawing the panel over it, and the back buffer read back for --screenshot. Windows
// only; needs dxgi, d3d11, d3dcompiler and Dear ImGui (imgui_impl_dx11).
#pragma once

#include "app/d3d/window.hpp"
#include "app/d3d11/renderer.hpp"

#include <d3d11.h>
#include <dxgi1_2.h>
#include <wrl/client.h>

namespace lab::d3d11 {

class Presenter final : public d3d::Presenter {
 public:
  // A swap chain of `extent` on `window` for `renderer` and its device (which outlive it). with_ui: ImGui's
  // Direct3D 11 backend too (the ImGui context must exist, app/d3d/window.hpp's Panel). vsync: Present
  // waits for the display's refresh.
  Presenter(Renderer& renderer, Device& device, HWND window, Extent extent, bool with_ui, bool vsync);
  ~Presenter() override;
  void resize(Extent extent) override;
  void begin_ui_frame() override;
  void draw(const DrawPlan& plan, ImDrawData* ui) override;
  Image read_back_buffer() override;
  void present() override;

 private:
  void create_back_buffer_view();

  Renderer& m_renderer;
  Device& m_device;
  Extent m_extent;
  bool m_with_ui = false;
  ComPtr<IDXGISwapChain1> m_swap_chain;
  ComPtr<ID3D11RenderTargetView> m_back_buffer_view;
  ComPtr<ID3D11VertexShader> m_vertex;
  ComPtr<ID3D11PixelShader> m_pixel;
  ComPtr<ID3D11RasterizerState> m_no_culling;
  ComPtr<ID3D11Buffer> m_constants;  // present.hlsl's: the frame's height
  // The frame target's view, and the texture it views: the renderer re-creates the target on resize.
  ComPtr<ID3D11ShaderResourceView> m_frame_view;
  ID3D11Texture2D* m_frame_view_of = nullptr;
};

}  // namespace lab::d3d11
