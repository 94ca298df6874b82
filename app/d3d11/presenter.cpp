// app/d3d11/presenter.cpp — the Direct3D 11 swap chain, the present pass and the panel's draw
// (app/d3d11/presenter.hpp).
#include "app/d3d11/presenter.hpp"

#include "app/d3d/dxgi.hpp"

#include <backends/imgui_impl_dx11.h>
#include <imgui.h>

#include <cstdint>

namespace lab::d3d11 {
namespace {

struct PresentConstants {  // present.hlsl's cbuffer, padded to a constant buffer's 16 bytes
  int32_t frame_height;
  int32_t padding[3];
};

}  // namespace

Presenter::Presenter(Renderer& renderer, Device& device, HWND window, Extent extent, bool with_ui, bool vsync)
    : d3d::Presenter(vsync), m_renderer(renderer), m_device(device), m_extent(extent) {
  ID3D11Device* d3d = m_device.device.Get();
  // The swap chain comes from the factory of the device's own adapter (a flip-model swap chain must).
  ComPtr<IDXGIDevice> dxgi_device;
  LAB_D3D_CHECK(m_device.device.As(&dxgi_device));
  ComPtr<IDXGIAdapter> adapter;
  LAB_D3D_CHECK(dxgi_device->GetAdapter(&adapter));
  ComPtr<IDXGIFactory2> factory;
  LAB_D3D_CHECK(adapter->GetParent(IID_PPV_ARGS(&factory)));
  // Two buffers in the frame target's format: the present pass copies its texels.
  m_swap_chain = d3d::create_swap_chain(factory.Get(), d3d, window, extent, DXGI_FORMAT_R8G8B8A8_UNORM, 2);
  create_back_buffer_view();

  const ComPtr<ID3DBlob> vertex = d3d::compile("present.hlsl", "vertex_main", "vs_5_0");
  const ComPtr<ID3DBlob> pixel = d3d::compile("present.hlsl", "pixel_main", "ps_5_0");
  LAB_D3D_CHECK(
      d3d->CreateVertexShader(vertex->GetBufferPointer(), vertex->GetBufferSize(), nullptr, &m_vertex));
  LAB_D3D_CHECK(d3d->CreatePixelShader(pixel->GetBufferPointer(), pixel->GetBufferSize(), nullptr, &m_pixel));
  D3D11_RASTERIZER_DESC rasterizer{};
  rasterizer.FillMode = D3D11_FILL_SOLID;
  rasterizer.CullMode = D3D11_CULL_NONE;  // the covering triangle's winding is no concern
  rasterizer.DepthClipEnable = TRUE;
  LAB_D3D_CHECK(d3d->CreateRasterizerState(&rasterizer, &m_no_culling));
  D3D11_BUFFER_DESC constants{};
  constants.ByteWidth = sizeof(PresentConstants);
  constants.Usage = D3D11_USAGE_DEFAULT;
  constants.BindFlags = D3D11_BIND_CONSTANT_BUFFER;
  LAB_D3D_CHECK(d3d->CreateBuffer(&constants, nullptr, &m_constants));

  if (with_ui) {
    if (!ImGui_ImplDX11_Init(d3d, m_device.context.Get()))
      throw std::runtime_error(
          "ImGui_ImplDX11_Init failed: the panel cannot draw on this device; use --no-ui");
    m_with_ui = true;
  }
}

Presenter::~Presenter() {
  if (m_with_ui) ImGui_ImplDX11_Shutdown();
  m_device.context->OMSetRenderTargets(0, nullptr, nullptr);
}

void Presenter::create_back_buffer_view() {
  ComPtr<ID3D11Texture2D> back_buffer;
  LAB_D3D_CHECK(m_swap_chain->GetBuffer(0, IID_PPV_ARGS(&back_buffer)));
  LAB_D3D_CHECK(m_device.device->CreateRenderTargetView(back_buffer.Get(), nullptr, &m_back_buffer_view));
}

void Presenter::resize(Extent extent) {
  if (extent == m_extent) return;
  // ResizeBuffers needs every reference to the old buffers gone, the bound view included.
  m_device.context->OMSetRenderTargets(0, nullptr, nullptr);
  m_back_buffer_view.Reset();
  LAB_D3D_CHECK(m_swap_chain->ResizeBuffers(0, static_cast<UINT>(extent.width),
                                            static_cast<UINT>(extent.height), DXGI_FORMAT_UNKNOWN, 0));
  create_back_buffer_view();
  m_extent = extent;
}

void Presenter::begin_ui_frame() {
  ImGui_ImplDX11_NewFrame();
}

void Presenter::draw(const DrawPlan& plan, ImDrawData* ui) {
  // A ShowImage scene draws nothing headless; in a window its image goes into the frame target first.
  if (plan.draw == SceneDraw::ShowImage) m_renderer.draw_image(plan.image_resource);
  ID3D11Texture2D* frame = m_renderer.frame_texture();
  if (frame != m_frame_view_of) {
    m_frame_view.Reset();
    LAB_D3D_CHECK(m_device.device->CreateShaderResourceView(frame, nullptr, &m_frame_view));
    m_frame_view_of = frame;
  }
  ID3D11DeviceContext* context = m_device.context.Get();
  const PresentConstants constants{m_renderer.extent().height, {}};
  context->UpdateSubresource(m_constants.Get(), 0, nullptr, &constants, 0, 0);
  context->OMSetRenderTargets(1, m_back_buffer_view.GetAddressOf(), nullptr);
  const D3D11_VIEWPORT viewport{
      0.0f, 0.0f, static_cast<float>(m_extent.width), static_cast<float>(m_extent.height), 0.0f, 1.0f};
  context->RSSetViewports(1, &viewport);
  context->RSSetState(m_no_culling.Get());
  context->OMSetDepthStencilState(nullptr, 0);
  context->OMSetBlendState(nullptr, nullptr, 0xffffffffu);
  context->IASetPrimitiveTopology(D3D11_PRIMITIVE_TOPOLOGY_TRIANGLELIST);
  context->IASetInputLayout(nullptr);
  context->VSSetShader(m_vertex.Get(), nullptr, 0);
  context->PSSetShader(m_pixel.Get(), nullptr, 0);
  context->PSSetShaderResources(0, 1, m_frame_view.GetAddressOf());
  context->PSSetConstantBuffers(0, 1, m_constants.GetAddressOf());
  context->Draw(3, 0);
  ID3D11ShaderResourceView* none = nullptr;
  context->PSSetShaderResources(0, 1, &none);  // the renderer draws into the frame target next frame
  if (ui != nullptr) ImGui_ImplDX11_RenderDrawData(ui);
}

Image Presenter::read_back_buffer() {
  ComPtr<ID3D11Texture2D> back_buffer;
  LAB_D3D_CHECK(m_swap_chain->GetBuffer(0, IID_PPV_ARGS(&back_buffer)));
  return read_texture(m_device, back_buffer.Get(), MemoryRows::TopFirst);
}

void Presenter::present() {
  LAB_D3D_CHECK(m_swap_chain->Present(sync_interval(), 0));
}

}  // namespace lab::d3d11
