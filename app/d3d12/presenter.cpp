// app/d3d12/presenter.cpp — the Direct3D 12 app's window output, app/d3d/window.hpp's Presenter for
// d3d12::Renderer: a DXGI flip-model swap chain on the window's HWND and the direct queue, the frame target
// copied upright into the current back buffer (Renderer::copy_frame_upright), Dear ImGui's Direct3D 12
// backend drawing the panel over it (its font through a shader-visible descriptor heap of its own, the back
// buffers' render-target views in another), and the back buffer read back for --screenshot. Under Wine's
// vkd3d the backend's font sampled through a descriptor table reads zeros (as app/d3d12/renderer.cpp's
// draw_image found), so there the panel may draw nothing visible. Windows 10 or later; needs d3d12, dxgi,
// d3dcompiler and Dear ImGui (imgui_impl_dx12).
#include "app/d3d/dxgi.hpp"
#include "app/d3d/window.hpp"
#include "app/d3d12/renderer.hpp"

#include <dxgi1_4.h>
#include <wrl/client.h>

#include <backends/imgui_impl_dx12.h>
#include <imgui.h>

#include <memory>
#include <stdexcept>

namespace lab::d3d {
namespace {

using Microsoft::WRL::ComPtr;

// The swap chain's buffers; ImGui's backend keeps as many frames' vertex buffers.
constexpr UINT kBackBuffers = 2;
// The frame target's format: the copies take its texels as they are, and the panel draws into it.
constexpr DXGI_FORMAT kBackBufferFormat = DXGI_FORMAT_R8G8B8A8_UNORM;

void transition(ID3D12GraphicsCommandList* list, ID3D12Resource* resource, D3D12_RESOURCE_STATES from,
                D3D12_RESOURCE_STATES to) {
  D3D12_RESOURCE_BARRIER barrier{
      D3D12_RESOURCE_BARRIER_TYPE_TRANSITION, D3D12_RESOURCE_BARRIER_FLAG_NONE, {}};
  barrier.Transition = {resource, D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES, from, to};
  list->ResourceBarrier(1, &barrier);
}

ComPtr<ID3D12DescriptorHeap> create_descriptor_heap(ID3D12Device* device, D3D12_DESCRIPTOR_HEAP_TYPE type,
                                                    UINT count, D3D12_DESCRIPTOR_HEAP_FLAGS flags) {
  D3D12_DESCRIPTOR_HEAP_DESC desc{};
  desc.Type = type;
  desc.NumDescriptors = count;
  desc.Flags = flags;
  ComPtr<ID3D12DescriptorHeap> heap;
  LAB_D3D_CHECK(device->CreateDescriptorHeap(&desc, IID_PPV_ARGS(&heap)));
  return heap;
}

}  // namespace

template <>
struct Presenter<d3d12::Renderer>::State {
  ComPtr<IDXGISwapChain3> swap_chain;
  ComPtr<ID3D12Resource> back_buffer;  // the current one, between draw and present
  ComPtr<ID3D12Fence> fence;
  UINT64 fence_value = 0;
  // The panel's: ImGui's font view (shader-visible), a render-target view per back buffer, and the command
  // list that draws it. Empty without the panel.
  ComPtr<ID3D12DescriptorHeap> font_heap;
  ComPtr<ID3D12DescriptorHeap> rtv_heap;
  UINT rtv_step = 0;
  ComPtr<ID3D12CommandAllocator> ui_allocator;
  ComPtr<ID3D12GraphicsCommandList> ui_list;

  // Waits until `queue` has done everything queued so far (presents included), before the buffers change.
  void wait_idle(ID3D12CommandQueue* queue) {
    LAB_D3D_CHECK(queue->Signal(fence.Get(), ++fence_value));
    if (fence->GetCompletedValue() >= fence_value) return;
    const HANDLE event = CreateEventW(nullptr, FALSE, FALSE, nullptr);
    if (event == nullptr) throw std::runtime_error("CreateEventW failed");
    const HRESULT result = fence->SetEventOnCompletion(fence_value, event);
    if (SUCCEEDED(result)) WaitForSingleObject(event, INFINITE);
    CloseHandle(event);
    LAB_D3D_CHECK(result);
  }

  ID3D12Resource* current_back_buffer() {
    if (!back_buffer)
      LAB_D3D_CHECK(
          swap_chain->GetBuffer(swap_chain->GetCurrentBackBufferIndex(), IID_PPV_ARGS(&back_buffer)));
    return back_buffer.Get();
  }

  // The panel over the current back buffer: its own command list, submitted and waited for (ImGui's vertex
  // buffers are rewritten next frame).
  void draw_ui(d3d12::Device& device, ImDrawData* ui) {
    ID3D12Resource* target = current_back_buffer();
    // The buffer's view is made anew each frame: after a resize the swap chain's buffers are new resources.
    D3D12_CPU_DESCRIPTOR_HANDLE view = rtv_heap->GetCPUDescriptorHandleForHeapStart();
    view.ptr += static_cast<SIZE_T>(swap_chain->GetCurrentBackBufferIndex()) * rtv_step;
    device.device->CreateRenderTargetView(target, nullptr, view);
    LAB_D3D_CHECK(ui_allocator->Reset());
    LAB_D3D_CHECK(ui_list->Reset(ui_allocator.Get(), nullptr));
    ID3D12GraphicsCommandList* list = ui_list.Get();
    transition(list, target, D3D12_RESOURCE_STATE_PRESENT, D3D12_RESOURCE_STATE_RENDER_TARGET);
    list->OMSetRenderTargets(1, &view, FALSE, nullptr);
    ID3D12DescriptorHeap* heaps[] = {font_heap.Get()};
    list->SetDescriptorHeaps(1, heaps);
    ImGui_ImplDX12_RenderDrawData(ui, list);
    transition(list, target, D3D12_RESOURCE_STATE_RENDER_TARGET, D3D12_RESOURCE_STATE_PRESENT);
    LAB_D3D_CHECK(list->Close());
    ID3D12CommandList* lists[] = {list};
    device.queue->ExecuteCommandLists(1, lists);
    wait_idle(device.queue.Get());
  }
};

template <>
Presenter<d3d12::Renderer>::Presenter(d3d12::Renderer& renderer, Device& device, HWND window, Extent extent,
                                      bool with_ui, bool vsync)
    : m_renderer(renderer), m_device(device), m_extent(extent), m_vsync(vsync) {
  State& s = *m_state;
  ComPtr<IDXGIFactory2> factory;
  LAB_D3D_CHECK(CreateDXGIFactory1(IID_PPV_ARGS(&factory)));
  // Direct3D 12 presents through the queue, not the device.
  const ComPtr<IDXGISwapChain1> swap_chain =
      create_swap_chain(factory.Get(), m_device.queue.Get(), window, extent, kBackBufferFormat, kBackBuffers);
  LAB_D3D_CHECK(swap_chain.As(&s.swap_chain));
  ID3D12Device* d3d = m_device.device.Get();
  LAB_D3D_CHECK(d3d->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&s.fence)));
  if (!with_ui) return;

  // ImGui's backend samples its font through a descriptor table: a shader-visible heap, bound when it draws.
  s.font_heap = create_descriptor_heap(d3d, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 1,
                                       D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE);
  s.rtv_heap = create_descriptor_heap(d3d, D3D12_DESCRIPTOR_HEAP_TYPE_RTV, kBackBuffers,
                                      D3D12_DESCRIPTOR_HEAP_FLAG_NONE);
  s.rtv_step = d3d->GetDescriptorHandleIncrementSize(D3D12_DESCRIPTOR_HEAP_TYPE_RTV);
  LAB_D3D_CHECK(d3d->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT, IID_PPV_ARGS(&s.ui_allocator)));
  LAB_D3D_CHECK(d3d->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, s.ui_allocator.Get(), nullptr,
                                       IID_PPV_ARGS(&s.ui_list)));
  LAB_D3D_CHECK(s.ui_list->Close());
  if (!ImGui_ImplDX12_Init(d3d, static_cast<int>(kBackBuffers), kBackBufferFormat, s.font_heap.Get(),
                           s.font_heap->GetCPUDescriptorHandleForHeapStart(),
                           s.font_heap->GetGPUDescriptorHandleForHeapStart()))
    throw std::runtime_error("ImGui_ImplDX12_Init failed: the panel cannot draw on this device; use --no-ui");
  m_with_ui = true;
}

template <>
Presenter<d3d12::Renderer>::~Presenter() {
  m_state->back_buffer.Reset();
  try {
    m_state->wait_idle(
        m_device.queue.Get());  // the swap chain and ImGui's buffers go with work in flight otherwise
  } catch (const std::exception&) {
    // A lost device: nothing left to wait for.
  }
  if (m_with_ui) ImGui_ImplDX12_Shutdown();
}

template <>
void Presenter<d3d12::Renderer>::resize(Extent extent) {
  if (extent == m_extent) return;
  State& s = *m_state;
  // ResizeBuffers needs the queue idle and no reference to the old buffers.
  s.back_buffer.Reset();
  s.wait_idle(m_device.queue.Get());
  LAB_D3D_CHECK(s.swap_chain->ResizeBuffers(0, static_cast<UINT>(extent.width),
                                            static_cast<UINT>(extent.height), DXGI_FORMAT_UNKNOWN, 0));
  m_extent = extent;
}

template <>
void Presenter<d3d12::Renderer>::begin_ui_frame() {
  if (!m_with_ui)
    throw std::logic_error("d3d12::Presenter::begin_ui_frame: made without the panel (with_ui)");
  ImGui_ImplDX12_NewFrame();
}

template <>
void Presenter<d3d12::Renderer>::draw(const DrawPlan& plan, ImDrawData* ui) {
  if (ui != nullptr && !m_with_ui)
    throw std::logic_error("d3d12::Presenter::draw: a panel to draw, but made without it (with_ui)");
  // A ShowImage scene draws nothing headless; in a window its image goes into the frame target first.
  if (plan.draw == SceneDraw::ShowImage) m_renderer.draw_image(plan.image_resource);
  m_renderer.copy_frame_upright(m_state->current_back_buffer(), D3D12_RESOURCE_STATE_PRESENT);
  if (ui != nullptr) m_state->draw_ui(m_device, ui);
}

template <>
Image Presenter<d3d12::Renderer>::read_back_buffer() {
  return m_renderer.read_window_buffer(m_state->current_back_buffer(), D3D12_RESOURCE_STATE_PRESENT);
}

template <>
void Presenter<d3d12::Renderer>::present() {
  m_state->back_buffer.Reset();  // the next frame draws into the next buffer
  LAB_D3D_CHECK(m_state->swap_chain->Present(sync_interval(), 0));
}

}  // namespace lab::d3d
