// app/d3d11/presenter.cpp — the Direct3D 11 app's window output, app/d3d/window.hpp's Presenter for
// d3d11::Renderer: a DXGI flip-model swap chain on the window's HWND, the frame target drawn upright into its
// back buffer (assets/shaders/hlsl/present.hlsl), Dear ImGui's Direct3D 11 backend drawing the panel over
// it, and the back buffer read back for --screenshot. Windows only; needs dxgi, d3d11, d3dcompiler and Dear
// ImGui (imgui_impl_dx11).
#include "app/d3d/dxgi.hpp"
#include "app/d3d/window.hpp"
#include "app/d3d11/renderer.hpp"

#include <d3d11.h>
#include <wrl/client.h>

#include <backends/imgui_impl_dx11.h>
#include <imgui.h>

#include <cstdint>
#include <memory>
#include <stdexcept>

namespace lab::d3d {
namespace {

using Microsoft::WRL::ComPtr;

struct PresentConstants {  // present.hlsl's cbuffer, padded to a constant buffer's 16 bytes
  int32_t frame_height;
  int32_t padding[3];
};

}  // namespace

template <>
struct Presenter<d3d11::Renderer>::State {
  ComPtr<IDXGISwapChain1> swap_chain;
  ComPtr<ID3D11RenderTargetView> back_buffer_view;
  ComPtr<ID3D11VertexShader> vertex;
  ComPtr<ID3D11PixelShader> pixel;
  ComPtr<ID3D11RasterizerState> no_culling;
  ComPtr<ID3D11Buffer> constants;  // present.hlsl's: the frame's height
  // The frame target's view, and the texture it views: the renderer re-creates the target on resize.
  ComPtr<ID3D11ShaderResourceView> frame_view;
  ID3D11Texture2D* frame_view_of = nullptr;

  void create_back_buffer_view(ID3D11Device* device) {
    ComPtr<ID3D11Texture2D> back_buffer;
    LAB_D3D_CHECK(swap_chain->GetBuffer(0, IID_PPV_ARGS(&back_buffer)));
    LAB_D3D_CHECK(device->CreateRenderTargetView(back_buffer.Get(), nullptr, &back_buffer_view));
  }
};

template <>
Presenter<d3d11::Renderer>::Presenter(d3d11::Renderer& renderer, Device& device, HWND window, Extent extent,
                                      bool with_ui, bool vsync)
    : m_renderer(renderer), m_device(device), m_extent(extent), m_vsync(vsync) {
  State& s = *m_state;
  ID3D11Device* d3d = m_device.device.Get();
  // The swap chain comes from the factory of the device's own adapter (a flip-model swap chain must).
  ComPtr<IDXGIDevice> dxgi_device;
  LAB_D3D_CHECK(m_device.device.As(&dxgi_device));
  ComPtr<IDXGIAdapter> adapter;
  LAB_D3D_CHECK(dxgi_device->GetAdapter(&adapter));
  ComPtr<IDXGIFactory2> factory;
  LAB_D3D_CHECK(adapter->GetParent(IID_PPV_ARGS(&factory)));
  // Two buffers in the frame target's format: the present pass copies its texels.
  s.swap_chain = create_swap_chain(factory.Get(), d3d, window, extent, DXGI_FORMAT_R8G8B8A8_UNORM, 2);
  s.create_back_buffer_view(d3d);

  const ComPtr<ID3DBlob> vertex = compile("present.hlsl", "vertex_main", "vs_5_0");
  const ComPtr<ID3DBlob> pixel = compile("present.hlsl", "pixel_main", "ps_5_0");
  LAB_D3D_CHECK(
      d3d->CreateVertexShader(vertex->GetBufferPointer(), vertex->GetBufferSize(), nullptr, &s.vertex));
  LAB_D3D_CHECK(d3d->CreatePixelShader(pixel->GetBufferPointer(), pixel->GetBufferSize(), nullptr, &s.pixel));
  D3D11_RASTERIZER_DESC rasterizer{};
  rasterizer.FillMode = D3D11_FILL_SOLID;
  rasterizer.CullMode = D3D11_CULL_NONE;  // the covering triangle's winding is no concern
  rasterizer.DepthClipEnable = TRUE;
  LAB_D3D_CHECK(d3d->CreateRasterizerState(&rasterizer, &s.no_culling));
  D3D11_BUFFER_DESC constants{};
  constants.ByteWidth = sizeof(PresentConstants);
  constants.Usage = D3D11_USAGE_DEFAULT;
  constants.BindFlags = D3D11_BIND_CONSTANT_BUFFER;
  LAB_D3D_CHECK(d3d->CreateBuffer(&constants, nullptr, &s.constants));

  if (with_ui) {
    if (!ImGui_ImplDX11_Init(d3d, m_device.context.Get()))
      throw std::runtime_error(
          "ImGui_ImplDX11_Init failed: the panel cannot draw on this device; use --no-ui");
    m_with_ui = true;
  }
}

template <>
Presenter<d3d11::Renderer>::~Presenter() {
  if (m_with_ui) ImGui_ImplDX11_Shutdown();
  m_device.context->OMSetRenderTargets(0, nullptr, nullptr);
}

template <>
void Presenter<d3d11::Renderer>::resize(Extent extent) {
  if (extent == m_extent) return;
  State& s = *m_state;
  // ResizeBuffers needs every reference to the old buffers gone, the bound view included.
  m_device.context->OMSetRenderTargets(0, nullptr, nullptr);
  s.back_buffer_view.Reset();
  LAB_D3D_CHECK(s.swap_chain->ResizeBuffers(0, static_cast<UINT>(extent.width),
                                            static_cast<UINT>(extent.height), DXGI_FORMAT_UNKNOWN, 0));
  s.create_back_buffer_view(m_device.device.Get());
  m_extent = extent;
}

template <>
void Presenter<d3d11::Renderer>::begin_ui_frame() {
  ImGui_ImplDX11_NewFrame();
}

template <>
void Presenter<d3d11::Renderer>::draw(const DrawPlan& plan, ImDrawData* ui) {
  State& s = *m_state;
  // A ShowImage scene draws nothing headless; in a window its image goes into the frame target first.
  if (plan.draw == SceneDraw::ShowImage) m_renderer.draw_image(plan.image_resource);
  ID3D11Texture2D* frame = m_renderer.frame_texture();
  if (frame != s.frame_view_of) {
    s.frame_view.Reset();
    LAB_D3D_CHECK(m_device.device->CreateShaderResourceView(frame, nullptr, &s.frame_view));
    s.frame_view_of = frame;
  }
  ID3D11DeviceContext* context = m_device.context.Get();
  const PresentConstants constants{m_renderer.extent().height, {}};
  context->UpdateSubresource(s.constants.Get(), 0, nullptr, &constants, 0, 0);
  context->OMSetRenderTargets(1, s.back_buffer_view.GetAddressOf(), nullptr);
  const D3D11_VIEWPORT viewport{
      0.0f, 0.0f, static_cast<float>(m_extent.width), static_cast<float>(m_extent.height), 0.0f, 1.0f};
  context->RSSetViewports(1, &viewport);
  context->RSSetState(s.no_culling.Get());
  context->OMSetDepthStencilState(nullptr, 0);
  context->OMSetBlendState(nullptr, nullptr, 0xffffffffu);
  context->IASetPrimitiveTopology(D3D11_PRIMITIVE_TOPOLOGY_TRIANGLELIST);
  context->IASetInputLayout(nullptr);
  context->VSSetShader(s.vertex.Get(), nullptr, 0);
  context->PSSetShader(s.pixel.Get(), nullptr, 0);
  context->PSSetShaderResources(0, 1, s.frame_view.GetAddressOf());
  context->PSSetConstantBuffers(0, 1, s.constants.GetAddressOf());
  context->Draw(3, 0);
  ID3D11ShaderResourceView* none = nullptr;
  context->PSSetShaderResources(0, 1, &none);  // the renderer draws into the frame target next frame
  if (ui != nullptr) ImGui_ImplDX11_RenderDrawData(ui);
}

template <>
Image Presenter<d3d11::Renderer>::read_back_buffer() {
  ComPtr<ID3D11Texture2D> back_buffer;
  LAB_D3D_CHECK(m_state->swap_chain->GetBuffer(0, IID_PPV_ARGS(&back_buffer)));
  return d3d11::read_texture(m_device, back_buffer.Get(), d3d11::MemoryRows::TopFirst);
}

template <>
void Presenter<d3d11::Renderer>::present() {
  LAB_D3D_CHECK(m_state->swap_chain->Present(sync_interval(), 0));
}

}  // namespace lab::d3d
