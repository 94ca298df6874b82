// app/d3d12/presenter.cpp — the Direct3D 12 swap chain and its copies (app/d3d12/presenter.hpp).
#include "app/d3d12/presenter.hpp"

#include "app/d3d11/dxgi.hpp"

#include <stdexcept>

namespace lab::d3d12 {

Presenter::Presenter(Renderer& renderer, Device& device, HWND window, Extent extent, bool vsync)
    : m_renderer(renderer), m_device(device), m_extent(extent), m_vsync(vsync) {
  ComPtr<IDXGIFactory2> factory;
  LAB_D3D_CHECK(CreateDXGIFactory1(IID_PPV_ARGS(&factory)));
  DXGI_SWAP_CHAIN_DESC1 desc{};
  desc.Width = static_cast<UINT>(extent.width);
  desc.Height = static_cast<UINT>(extent.height);
  // The frame target's format: the copies take its texels as they are.
  desc.Format = DXGI_FORMAT_R8G8B8A8_UNORM;
  desc.SampleDesc.Count = 1;
  desc.BufferUsage = DXGI_USAGE_RENDER_TARGET_OUTPUT;
  desc.BufferCount = 2;
  desc.SwapEffect = DXGI_SWAP_EFFECT_FLIP_DISCARD;  // Direct3D 12 swap chains are flip-model only
  ComPtr<IDXGISwapChain1> swap_chain;
  // Direct3D 12 presents through the queue, not the device.
  LAB_D3D_CHECK(
      factory->CreateSwapChainForHwnd(m_device.queue.Get(), window, &desc, nullptr, nullptr, &swap_chain));
  LAB_D3D_CHECK(swap_chain.As(&m_swap_chain));
  // GLFW owns the window's keys (no Alt+Enter fullscreen behind its back).
  LAB_D3D_CHECK(factory->MakeWindowAssociation(window, DXGI_MWA_NO_ALT_ENTER));
  LAB_D3D_CHECK(m_device.device->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&m_fence)));
}

Presenter::~Presenter() {
  m_back_buffer.Reset();
  try {
    wait_idle();  // the swap chain goes with presents in flight otherwise
  } catch (const std::exception&) {
    // A lost device: nothing left to wait for.
  }
}

void Presenter::wait_idle() {
  LAB_D3D_CHECK(m_device.queue->Signal(m_fence.Get(), ++m_fence_value));
  if (m_fence->GetCompletedValue() >= m_fence_value) return;
  const HANDLE event = CreateEventW(nullptr, FALSE, FALSE, nullptr);
  if (event == nullptr) throw std::runtime_error("CreateEventW failed");
  const HRESULT result = m_fence->SetEventOnCompletion(m_fence_value, event);
  if (SUCCEEDED(result)) WaitForSingleObject(event, INFINITE);
  CloseHandle(event);
  LAB_D3D_CHECK(result);
}

ID3D12Resource* Presenter::back_buffer() {
  if (!m_back_buffer)
    LAB_D3D_CHECK(
        m_swap_chain->GetBuffer(m_swap_chain->GetCurrentBackBufferIndex(), IID_PPV_ARGS(&m_back_buffer)));
  return m_back_buffer.Get();
}

void Presenter::resize(Extent extent) {
  if (extent == m_extent) return;
  // ResizeBuffers needs the queue idle and no reference to the old buffers.
  m_back_buffer.Reset();
  wait_idle();
  LAB_D3D_CHECK(m_swap_chain->ResizeBuffers(0, static_cast<UINT>(extent.width),
                                            static_cast<UINT>(extent.height), DXGI_FORMAT_UNKNOWN, 0));
  m_extent = extent;
}

void Presenter::draw(const DrawPlan& plan, ImDrawData* ui) {
  if (ui != nullptr) throw std::logic_error("d3d12::Presenter::draw: there is no Direct3D 12 panel to draw");
  // A ShowImage scene draws nothing headless; in a window its image goes into the frame target first.
  if (plan.draw == SceneDraw::ShowImage) m_renderer.draw_image(plan.image_resource);
  m_renderer.copy_frame_upright(back_buffer(), D3D12_RESOURCE_STATE_PRESENT);
}

Image Presenter::read_back_buffer() {
  return m_renderer.read_window_buffer(back_buffer(), D3D12_RESOURCE_STATE_PRESENT);
}

void Presenter::present() {
  m_back_buffer.Reset();  // the next frame draws into the next buffer
  LAB_D3D_CHECK(m_swap_chain->Present(m_vsync ? 1 : 0, 0));
}

}  // namespace lab::d3d12
