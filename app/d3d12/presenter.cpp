// app/d3d12/presenter.cpp — the Direct3D 12 swap chain, its copies and the panel's draw
// (app/d3d12/presenter.hpp).
#include "app/d3d12/presenter.hpp"

#include "app/d3d/dxgi.hpp"

#include <backends/imgui_impl_dx12.h>
#include <imgui.h>

#include <stdexcept>

namespace lab::d3d12 {
namespace {

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

Presenter::Presenter(Renderer& renderer, Device& device, HWND window, Extent extent, bool with_ui, bool vsync)
    : d3d::Presenter(vsync), m_renderer(renderer), m_device(device), m_extent(extent) {
  ComPtr<IDXGIFactory2> factory;
  LAB_D3D_CHECK(CreateDXGIFactory1(IID_PPV_ARGS(&factory)));
  // Direct3D 12 presents through the queue, not the device.
  const ComPtr<IDXGISwapChain1> swap_chain = d3d::create_swap_chain(
      factory.Get(), m_device.queue.Get(), window, extent, kBackBufferFormat, kBackBuffers);
  LAB_D3D_CHECK(swap_chain.As(&m_swap_chain));
  ID3D12Device* d3d = m_device.device.Get();
  LAB_D3D_CHECK(d3d->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&m_fence)));
  if (!with_ui) return;

  // ImGui's backend samples its font through a descriptor table: a shader-visible heap, bound when it draws.
  m_font_heap = create_descriptor_heap(d3d, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 1,
                                       D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE);
  m_rtv_heap = create_descriptor_heap(d3d, D3D12_DESCRIPTOR_HEAP_TYPE_RTV, kBackBuffers,
                                      D3D12_DESCRIPTOR_HEAP_FLAG_NONE);
  m_rtv_step = d3d->GetDescriptorHandleIncrementSize(D3D12_DESCRIPTOR_HEAP_TYPE_RTV);
  LAB_D3D_CHECK(d3d->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT, IID_PPV_ARGS(&m_ui_allocator)));
  LAB_D3D_CHECK(d3d->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, m_ui_allocator.Get(), nullptr,
                                       IID_PPV_ARGS(&m_ui_list)));
  LAB_D3D_CHECK(m_ui_list->Close());
  if (!ImGui_ImplDX12_Init(d3d, static_cast<int>(kBackBuffers), kBackBufferFormat, m_font_heap.Get(),
                           m_font_heap->GetCPUDescriptorHandleForHeapStart(),
                           m_font_heap->GetGPUDescriptorHandleForHeapStart()))
    throw std::runtime_error("ImGui_ImplDX12_Init failed: the panel cannot draw on this device; use --no-ui");
  m_with_ui = true;
}

Presenter::~Presenter() {
  m_back_buffer.Reset();
  try {
    wait_idle();  // the swap chain and ImGui's buffers go with work in flight otherwise
  } catch (const std::exception&) {
    // A lost device: nothing left to wait for.
  }
  if (m_with_ui) ImGui_ImplDX12_Shutdown();
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

void Presenter::begin_ui_frame() {
  if (!m_with_ui)
    throw std::logic_error("d3d12::Presenter::begin_ui_frame: made without the panel (with_ui)");
  ImGui_ImplDX12_NewFrame();
}

void Presenter::draw(const DrawPlan& plan, ImDrawData* ui) {
  if (ui != nullptr && !m_with_ui)
    throw std::logic_error("d3d12::Presenter::draw: a panel to draw, but made without it (with_ui)");
  // A ShowImage scene draws nothing headless; in a window its image goes into the frame target first.
  if (plan.draw == SceneDraw::ShowImage) m_renderer.draw_image(plan.image_resource);
  m_renderer.copy_frame_upright(back_buffer(), D3D12_RESOURCE_STATE_PRESENT);
  if (ui != nullptr) draw_ui(ui);
}

void Presenter::draw_ui(ImDrawData* ui) {
  ID3D12Resource* target = back_buffer();
  // The buffer's view is made anew each frame: after a resize the swap chain's buffers are new resources.
  D3D12_CPU_DESCRIPTOR_HANDLE view = m_rtv_heap->GetCPUDescriptorHandleForHeapStart();
  view.ptr += static_cast<SIZE_T>(m_swap_chain->GetCurrentBackBufferIndex()) * m_rtv_step;
  m_device.device->CreateRenderTargetView(target, nullptr, view);
  LAB_D3D_CHECK(m_ui_allocator->Reset());
  LAB_D3D_CHECK(m_ui_list->Reset(m_ui_allocator.Get(), nullptr));
  ID3D12GraphicsCommandList* list = m_ui_list.Get();
  transition(list, target, D3D12_RESOURCE_STATE_PRESENT, D3D12_RESOURCE_STATE_RENDER_TARGET);
  list->OMSetRenderTargets(1, &view, FALSE, nullptr);
  ID3D12DescriptorHeap* heaps[] = {m_font_heap.Get()};
  list->SetDescriptorHeaps(1, heaps);
  ImGui_ImplDX12_RenderDrawData(ui, list);
  transition(list, target, D3D12_RESOURCE_STATE_RENDER_TARGET, D3D12_RESOURCE_STATE_PRESENT);
  LAB_D3D_CHECK(list->Close());
  ID3D12CommandList* lists[] = {list};
  m_device.queue->ExecuteCommandLists(1, lists);
  wait_idle();
}

Image Presenter::read_back_buffer() {
  return m_renderer.read_window_buffer(back_buffer(), D3D12_RESOURCE_STATE_PRESENT);
}

void Presenter::present() {
  m_back_buffer.Reset();  // the next frame draws into the next buffer
  LAB_D3D_CHECK(m_swap_chain->Present(sync_interval(), 0));
}

}  // namespace lab::d3d12
