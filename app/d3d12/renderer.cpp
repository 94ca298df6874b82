// app/d3d12/renderer.cpp — the Direct3D 12 backend's device, resources, draws and copies
// (app/d3d12/renderer.hpp). Every HRESULT is checked; a failure throws std::runtime_error with the call
// and the code, and what was created so far is released by its ComPtr.
#include "app/d3d12/renderer.hpp"

#include "app/d3d/dxgi.hpp"
#include "app/d3d/hlsl_constants.hpp"

#include <d3dcompiler.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace lab::d3d12 {
namespace {

using d3d::adapter_name;
using d3d::compile;
using d3d::copy_matrix;
using d3d::CubeConstants;
using d3d::hresult_text;
using d3d::luid_text;

}  // namespace

Device create_device(const DeviceDesc& desc) {
  ComPtr<IDXGIFactory4> factory;
  LAB_D3D_CHECK(CreateDXGIFactory1(IID_PPV_ARGS(&factory)));
  Device created;
  ComPtr<IDXGIAdapter1> adapter;
  if (desc.adapter_luid) {
    LUID luid{};
    std::memcpy(&luid, desc.adapter_luid->data(), sizeof luid);
    if (FAILED(factory->EnumAdapterByLuid(luid, IID_PPV_ARGS(&adapter)))) {
      std::string seen;
      ComPtr<IDXGIAdapter1> other;
      DXGI_ADAPTER_DESC1 other_desc{};
      for (UINT i = 0; factory->EnumAdapters1(i, &other) != DXGI_ERROR_NOT_FOUND; ++i)
        if (SUCCEEDED(other->GetDesc1(&other_desc)))
          seen += (seen.empty() ? "" : ", ") + adapter_name(other_desc.Description, other_desc.AdapterLuid);
      throw std::runtime_error("no DXGI adapter has the CUDA device's LUID " + luid_text(luid) +
                               " (adapters: " + (seen.empty() ? "none" : seen) +
                               "); a GPU in TCC mode has no graphics: switch it to WDDM (nvidia-smi -dm 0)");
    }
    LAB_D3D_CHECK(D3D12CreateDevice(adapter.Get(), D3D_FEATURE_LEVEL_11_0, IID_PPV_ARGS(&created.device)));
  } else if (FAILED(D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_11_0, IID_PPV_ARGS(&created.device)))) {
    LAB_D3D_CHECK(factory->EnumWarpAdapter(IID_PPV_ARGS(&adapter)));
    LAB_D3D_CHECK(D3D12CreateDevice(adapter.Get(), D3D_FEATURE_LEVEL_11_0, IID_PPV_ARGS(&created.device)));
  }
  DXGI_ADAPTER_DESC1 adapter_desc{};
  if (!adapter) factory->EnumAdapterByLuid(created.device->GetAdapterLuid(), IID_PPV_ARGS(&adapter));
  created.adapter = adapter && SUCCEEDED(adapter->GetDesc1(&adapter_desc))
                        ? adapter_name(adapter_desc.Description, adapter_desc.AdapterLuid)
                        : "unknown adapter";
  D3D12_COMMAND_QUEUE_DESC queue{};
  queue.Type = D3D12_COMMAND_LIST_TYPE_DIRECT;
  LAB_D3D_CHECK(created.device->CreateCommandQueue(&queue, IID_PPV_ARGS(&created.queue)));
  return created;
}

namespace {

// The heap slots of render-target and depth views: 0 is the frame target's, 1 + i resource i's.
constexpr UINT kViewSlots = 32;
constexpr DXGI_FORMAT kColourFormat = DXGI_FORMAT_R8G8B8A8_UNORM;
constexpr DXGI_FORMAT kDepthFormat = DXGI_FORMAT_D24_UNORM_S8_UINT;

// The root constants: the largest constant block of the shaders (lit.hlsl's CubeConstants), 40 floats.
constexpr UINT kRootConstants = sizeof(CubeConstants) / 4;

// Closes the fence's event handle.
struct EventHandle {
  HANDLE handle = nullptr;
  EventHandle() : handle(CreateEventW(nullptr, FALSE, FALSE, nullptr)) {
    if (handle == nullptr) throw std::runtime_error("CreateEventW failed");
  }
  ~EventHandle() { CloseHandle(handle); }
  EventHandle(const EventHandle&) = delete;
  EventHandle& operator=(const EventHandle&) = delete;
};

D3D12_HEAP_PROPERTIES heap(D3D12_HEAP_TYPE type) {
  D3D12_HEAP_PROPERTIES properties{};
  properties.Type = type;
  return properties;
}

D3D12_RESOURCE_DESC buffer_desc(UINT64 bytes) {
  D3D12_RESOURCE_DESC desc{};
  desc.Dimension = D3D12_RESOURCE_DIMENSION_BUFFER;
  desc.Width = bytes;
  desc.Height = 1;
  desc.DepthOrArraySize = 1;
  desc.MipLevels = 1;
  desc.SampleDesc.Count = 1;
  desc.Layout = D3D12_TEXTURE_LAYOUT_ROW_MAJOR;
  return desc;
}

D3D12_RESOURCE_DESC texture_desc(Extent extent, DXGI_FORMAT format, D3D12_RESOURCE_FLAGS flags) {
  D3D12_RESOURCE_DESC desc{};
  desc.Dimension = D3D12_RESOURCE_DIMENSION_TEXTURE2D;
  d3d::describe_texture(desc, extent, format);
  desc.DepthOrArraySize = 1;
  desc.Flags = flags;
  return desc;
}

ComPtr<ID3D12Resource> committed(ID3D12Device* device, D3D12_HEAP_TYPE type, const D3D12_RESOURCE_DESC& desc,
                                 D3D12_RESOURCE_STATES state, const D3D12_CLEAR_VALUE* clear = nullptr,
                                 D3D12_HEAP_FLAGS heap_flags = D3D12_HEAP_FLAG_NONE) {
  const D3D12_HEAP_PROPERTIES properties = heap(type);
  ComPtr<ID3D12Resource> resource;
  LAB_D3D_CHECK(
      device->CreateCommittedResource(&properties, heap_flags, &desc, state, clear, IID_PPV_ARGS(&resource)));
  return resource;
}

// An upload-heap buffer holding `bytes` of `data` (the static meshes live there: read once a frame).
ComPtr<ID3D12Resource> upload_buffer(ID3D12Device* device, const void* data, size_t bytes) {
  ComPtr<ID3D12Resource> buffer =
      committed(device, D3D12_HEAP_TYPE_UPLOAD, buffer_desc(bytes), D3D12_RESOURCE_STATE_GENERIC_READ);
  void* mapped = nullptr;
  const D3D12_RANGE nothing_read{0, 0};
  LAB_D3D_CHECK(buffer->Map(0, &nothing_read, &mapped));
  std::memcpy(mapped, data, bytes);
  buffer->Unmap(0, nullptr);
  return buffer;
}

ComPtr<ID3D12DescriptorHeap> descriptor_heap(ID3D12Device* device, D3D12_DESCRIPTOR_HEAP_TYPE type) {
  D3D12_DESCRIPTOR_HEAP_DESC desc{};
  desc.Type = type;
  desc.NumDescriptors = kViewSlots;
  ComPtr<ID3D12DescriptorHeap> created;
  LAB_D3D_CHECK(device->CreateDescriptorHeap(&desc, IID_PPV_ARGS(&created)));
  return created;
}

constexpr D3D12_INPUT_ELEMENT_DESC kMeshVertex[] = {
    {"POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0},
    {"NORMAL", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 12, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0},
};

template <size_t N>
ComPtr<ID3D12PipelineState> make_pipeline(ID3D12Device* device, ID3D12RootSignature* root, const char* file,
                                          const D3D12_INPUT_ELEMENT_DESC (&elements)[N],
                                          D3D12_CULL_MODE cull) {
  const ComPtr<ID3DBlob> vertex = compile(file, "vertex_main", "vs_5_0");
  const ComPtr<ID3DBlob> pixel = compile(file, "pixel_main", "ps_5_0");
  D3D12_GRAPHICS_PIPELINE_STATE_DESC desc{};
  desc.pRootSignature = root;
  desc.VS = {vertex->GetBufferPointer(), vertex->GetBufferSize()};
  desc.PS = {pixel->GetBufferPointer(), pixel->GetBufferSize()};
  desc.BlendState.RenderTarget[0].RenderTargetWriteMask = D3D12_COLOR_WRITE_ENABLE_ALL;
  desc.SampleMask = UINT_MAX;
  desc.RasterizerState.FillMode = D3D12_FILL_MODE_SOLID;
  desc.RasterizerState.CullMode = cull;
  desc.RasterizerState.FrontCounterClockwise = FALSE;  // GL's counter-clockwise after the y flip
  desc.RasterizerState.DepthClipEnable = TRUE;
  desc.DepthStencilState.DepthEnable = TRUE;
  desc.DepthStencilState.DepthWriteMask = D3D12_DEPTH_WRITE_MASK_ALL;
  desc.DepthStencilState.DepthFunc = D3D12_COMPARISON_FUNC_LESS;
  desc.InputLayout = {elements, static_cast<UINT>(N)};
  desc.PrimitiveTopologyType = D3D12_PRIMITIVE_TOPOLOGY_TYPE_TRIANGLE;
  desc.NumRenderTargets = 1;
  desc.RTVFormats[0] = kColourFormat;
  desc.DSVFormat = kDepthFormat;
  desc.SampleDesc.Count = 1;
  ComPtr<ID3D12PipelineState> pipeline;
  LAB_D3D_CHECK(device->CreateGraphicsPipelineState(&desc, IID_PPV_ARGS(&pipeline)));
  return pipeline;
}

// One root parameter: the shaders' b0 constants.
ComPtr<ID3D12RootSignature> make_root_signature(ID3D12Device* device) {
  D3D12_ROOT_PARAMETER parameters[1]{};
  parameters[0].ParameterType = D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS;
  parameters[0].Constants.Num32BitValues = kRootConstants;
  parameters[0].ShaderVisibility = D3D12_SHADER_VISIBILITY_ALL;
  D3D12_ROOT_SIGNATURE_DESC desc{};
  desc.NumParameters = 1;
  desc.pParameters = parameters;
  desc.Flags = D3D12_ROOT_SIGNATURE_FLAG_ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT;
  ComPtr<ID3DBlob> serialized, errors;
  const HRESULT result =
      D3D12SerializeRootSignature(&desc, D3D_ROOT_SIGNATURE_VERSION_1, &serialized, &errors);
  if (FAILED(result))
    throw std::runtime_error(
        "D3D12SerializeRootSignature: " +
        (errors ? std::string(static_cast<const char*>(errors->GetBufferPointer()), errors->GetBufferSize())
                : hresult_text(result)));
  ComPtr<ID3D12RootSignature> root;
  LAB_D3D_CHECK(device->CreateRootSignature(0, serialized->GetBufferPointer(), serialized->GetBufferSize(),
                                            IID_PPV_ARGS(&root)));
  return root;
}

void transition(ID3D12GraphicsCommandList* list, ID3D12Resource* resource, D3D12_RESOURCE_STATES& state,
                D3D12_RESOURCE_STATES wanted) {
  if (state == wanted) return;
  D3D12_RESOURCE_BARRIER barrier{};
  barrier.Type = D3D12_RESOURCE_BARRIER_TYPE_TRANSITION;
  barrier.Transition.pResource = resource;
  barrier.Transition.Subresource = D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES;
  barrier.Transition.StateBefore = state;
  barrier.Transition.StateAfter = wanted;
  list->ResourceBarrier(1, &barrier);
  state = wanted;
}

// Opens the command list for one call's work.
ID3D12GraphicsCommandList* begin(ID3D12CommandAllocator* allocator, ID3D12GraphicsCommandList* list) {
  LAB_D3D_CHECK(allocator->Reset());
  LAB_D3D_CHECK(list->Reset(allocator, nullptr));
  return list;
}

// Closes, submits and waits for the call's work.
void submit_and_wait(Device& device, ID3D12GraphicsCommandList* list, ID3D12Fence* fence, UINT64& value,
                     HANDLE event) {
  LAB_D3D_CHECK(list->Close());
  ID3D12CommandList* lists[] = {list};
  device.queue->ExecuteCommandLists(1, lists);
  LAB_D3D_CHECK(device.queue->Signal(fence, ++value));
  if (fence->GetCompletedValue() < value) {
    LAB_D3D_CHECK(fence->SetEventOnCompletion(value, event));
    WaitForSingleObject(event, INFINITE);
  }
}

// Starts a pass of `pipeline` (with the shaders' root signature `root`) over the whole `extent`: the colour
// target `rtv` cleared to `clear_color`, the depth target `dsv` cleared, triangles in.
void begin_pass(ID3D12GraphicsCommandList* list, D3D12_CPU_DESCRIPTOR_HANDLE rtv,
                D3D12_CPU_DESCRIPTOR_HANDLE dsv, const float (&clear_color)[3], Extent extent,
                ID3D12RootSignature* root, ID3D12PipelineState* pipeline) {
  const float clear[4] = {clear_color[0], clear_color[1], clear_color[2], 1.0f};
  list->ClearRenderTargetView(rtv, clear, 0, nullptr);
  list->ClearDepthStencilView(dsv, D3D12_CLEAR_FLAG_DEPTH, 1.0f, 0, 0, nullptr);
  list->OMSetRenderTargets(1, &rtv, FALSE, &dsv);
  const D3D12_VIEWPORT viewport{
      0.0f, 0.0f, static_cast<float>(extent.width), static_cast<float>(extent.height), 0.0f, 1.0f};
  const D3D12_RECT scissor{0, 0, extent.width, extent.height};
  list->RSSetViewports(1, &viewport);
  list->RSSetScissorRects(1, &scissor);
  list->SetGraphicsRootSignature(root);
  list->SetPipelineState(pipeline);
  list->IASetPrimitiveTopology(D3D_PRIMITIVE_TOPOLOGY_TRIANGLELIST);
}

}  // namespace

struct Renderer::State {
  Extent extent;
  ComPtr<ID3D12CommandAllocator> allocator;
  ComPtr<ID3D12GraphicsCommandList> list;
  ComPtr<ID3D12Fence> fence;
  UINT64 fence_value = 0;
  EventHandle fence_event;

  ComPtr<ID3D12RootSignature> root;
  ComPtr<ID3D12PipelineState> wave, lit;
  ComPtr<ID3D12DescriptorHeap> rtv_heap, dsv_heap;
  UINT rtv_step = 0, dsv_step = 0;

  ComPtr<ID3D12Resource> wave_indices, cube_vertices, cube_indices;
  UINT wave_index_count = 0, cube_index_count = 0, cube_vertex_bytes = 0;

  ComPtr<ID3D12Resource> frame, frame_depth;
  D3D12_RESOURCE_STATES frame_state = D3D12_RESOURCE_STATE_RENDER_TARGET;
  std::vector<Resource> resources;
  std::vector<ComPtr<ID3D12Resource>> resource_depths;  // draw_cubes' targets, made on first use

  D3D12_CPU_DESCRIPTOR_HANDLE rtv(UINT slot) const {
    D3D12_CPU_DESCRIPTOR_HANDLE handle = rtv_heap->GetCPUDescriptorHandleForHeapStart();
    handle.ptr += static_cast<SIZE_T>(slot) * rtv_step;
    return handle;
  }
  D3D12_CPU_DESCRIPTOR_HANDLE dsv(UINT slot) const {
    D3D12_CPU_DESCRIPTOR_HANDLE handle = dsv_heap->GetCPUDescriptorHandleForHeapStart();
    handle.ptr += static_cast<SIZE_T>(slot) * dsv_step;
    return handle;
  }
};

Renderer::Renderer(Device& device, Extent extent) : RendererBase(device), m_state(std::make_unique<State>()) {
  ID3D12Device* d3d = device.device.Get();
  State& s = *m_state;
  LAB_D3D_CHECK(d3d->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT, IID_PPV_ARGS(&s.allocator)));
  LAB_D3D_CHECK(d3d->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, s.allocator.Get(), nullptr,
                                       IID_PPV_ARGS(&s.list)));
  LAB_D3D_CHECK(s.list->Close());
  LAB_D3D_CHECK(d3d->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&s.fence)));

  s.root = make_root_signature(d3d);
  s.wave = make_pipeline(d3d, s.root.Get(), "wave.hlsl", kMeshVertex, D3D12_CULL_MODE_NONE);
  s.lit = make_pipeline(d3d, s.root.Get(), "lit.hlsl", kMeshVertex, D3D12_CULL_MODE_BACK);
  s.rtv_heap = descriptor_heap(d3d, D3D12_DESCRIPTOR_HEAP_TYPE_RTV);
  s.dsv_heap = descriptor_heap(d3d, D3D12_DESCRIPTOR_HEAP_TYPE_DSV);
  s.rtv_step = d3d->GetDescriptorHandleIncrementSize(D3D12_DESCRIPTOR_HEAP_TYPE_RTV);
  s.dsv_step = d3d->GetDescriptorHandleIncrementSize(D3D12_DESCRIPTOR_HEAP_TYPE_DSV);

  const std::vector<uint32_t> indices = wave_mesh_indices();
  s.wave_index_count = static_cast<UINT>(indices.size());
  s.wave_indices = upload_buffer(d3d, indices.data(), indices.size() * sizeof(uint32_t));
  const CubeMesh cube = cube_mesh();
  s.cube_index_count = static_cast<UINT>(cube.indices.size());
  s.cube_vertex_bytes = static_cast<UINT>(cube.vertices.size() * sizeof(LitVertex));
  s.cube_vertices = upload_buffer(d3d, cube.vertices.data(), s.cube_vertex_bytes);
  s.cube_indices = upload_buffer(d3d, cube.indices.data(), cube.indices.size() * sizeof(uint32_t));
  resize(extent);
}

Renderer::~Renderer() {
  // Nothing recorded may still run when the resources go: signal once more and wait.
  State& s = *m_state;
  if (SUCCEEDED(m_device.queue->Signal(s.fence.Get(), ++s.fence_value)) &&
      s.fence->GetCompletedValue() < s.fence_value &&
      SUCCEEDED(s.fence->SetEventOnCompletion(s.fence_value, s.fence_event.handle)))
    WaitForSingleObject(s.fence_event.handle, INFINITE);
}

void Renderer::wait_idle() {
  State& s = *m_state;
  LAB_D3D_CHECK(m_device.queue->Signal(s.fence.Get(), ++s.fence_value));
  if (s.fence->GetCompletedValue() < s.fence_value) {
    LAB_D3D_CHECK(s.fence->SetEventOnCompletion(s.fence_value, s.fence_event.handle));
    WaitForSingleObject(s.fence_event.handle, INFINITE);
  }
}

Extent Renderer::extent() const {
  return m_state->extent;
}

void Renderer::resize(Extent extent) {
  State& s = *m_state;
  ID3D12Device* d3d = m_device.device.Get();
  D3D12_CLEAR_VALUE depth_clear{};
  depth_clear.Format = kDepthFormat;
  depth_clear.DepthStencil.Depth = 1.0f;
  s.frame = committed(d3d, D3D12_HEAP_TYPE_DEFAULT,
                      texture_desc(extent, kColourFormat, D3D12_RESOURCE_FLAG_ALLOW_RENDER_TARGET),
                      D3D12_RESOURCE_STATE_RENDER_TARGET);
  s.frame_state = D3D12_RESOURCE_STATE_RENDER_TARGET;
  s.frame_depth = committed(d3d, D3D12_HEAP_TYPE_DEFAULT,
                            texture_desc(extent, kDepthFormat, D3D12_RESOURCE_FLAG_ALLOW_DEPTH_STENCIL),
                            D3D12_RESOURCE_STATE_DEPTH_WRITE, &depth_clear);
  d3d->CreateRenderTargetView(s.frame.Get(), nullptr, s.rtv(0));
  d3d->CreateDepthStencilView(s.frame_depth.Get(), nullptr, s.dsv(0));
  s.extent = extent;
}

void Renderer::create_resources(const std::vector<ResourceDesc>& descs, bool shared) {
  if (descs.size() + 1 > kViewSlots)
    throw std::invalid_argument("Renderer::create_resources: too many resources");
  destroy_resources();
  State& s = *m_state;
  ID3D12Device* d3d = m_device.device.Get();
  // Shared textures: simultaneous access (Resource::shared says why); buffers have it implicitly.
  const D3D12_RESOURCE_FLAGS texture_sharing =
      shared ? D3D12_RESOURCE_FLAG_ALLOW_SIMULTANEOUS_ACCESS : D3D12_RESOURCE_FLAG_NONE;
  for (const ResourceDesc& desc : descs) {
    Resource resource;
    resource.desc = desc;
    resource.shared = shared;
    resource.state = shared ? D3D12_RESOURCE_STATE_COMMON : D3D12_RESOURCE_STATE_COPY_DEST;
    const D3D12_RESOURCE_DESC d3d_desc =
        desc.kind == ResourceKind::Buffer
            ? buffer_desc(desc.bytes)
            : texture_desc({desc.width, desc.height}, kColourFormat,
                           D3D12_RESOURCE_FLAG_ALLOW_RENDER_TARGET |
                               D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS | texture_sharing);
    resource.resource = committed(d3d, D3D12_HEAP_TYPE_DEFAULT, d3d_desc, resource.state, nullptr,
                                  shared ? D3D12_HEAP_FLAG_SHARED : D3D12_HEAP_FLAG_NONE);
    s.resources.push_back(std::move(resource));
  }
  s.resource_depths.resize(s.resources.size());
}

void Renderer::destroy_resources() {
  m_state->resource_depths.clear();
  m_state->resources.clear();
}

const std::vector<Resource>& Renderer::resources() const {
  return m_state->resources;
}

d3d::SharedHandle Renderer::export_handle(ID3D12DeviceChild* object) {
  HANDLE handle = nullptr;
  LAB_D3D_CHECK(m_device.device->CreateSharedHandle(object, nullptr, GENERIC_ALL, nullptr, &handle));
  return d3d::SharedHandle(handle);
}

void Renderer::signal(ID3D12Fence* fence, uint64_t value) {
  // Every call above has waited for its work, and buffers and simultaneous-access textures decay to the
  // common state when their command list completes: that is the state the other API gets them in and the
  // next barrier starts from.
  for (Resource& resource : m_state->resources)
    if (resource.shared) resource.state = D3D12_RESOURCE_STATE_COMMON;
  LAB_D3D_CHECK(m_device.queue->Signal(fence, value));
}

void Renderer::wait(ID3D12Fence* fence, uint64_t value) {
  LAB_D3D_CHECK(m_device.queue->Wait(fence, value));
}

void Renderer::upload(int index, const void* data) {
  State& s = *m_state;
  Resource& resource = s.resources.at(static_cast<size_t>(index));
  ID3D12Device* d3d = m_device.device.Get();
  ID3D12GraphicsCommandList* list = begin(s.allocator.Get(), s.list.Get());
  ComPtr<ID3D12Resource> staging;
  transition(list, resource.resource.Get(), resource.state, D3D12_RESOURCE_STATE_COPY_DEST);
  if (resource.desc.kind == ResourceKind::Buffer) {
    staging = upload_buffer(d3d, data, resource.desc.bytes);
    list->CopyBufferRegion(resource.resource.Get(), 0, staging.Get(), 0, resource.desc.bytes);
  } else {
    const D3D12_RESOURCE_DESC desc = resource.resource->GetDesc();
    D3D12_PLACED_SUBRESOURCE_FOOTPRINT footprint{};
    UINT64 total = 0;
    d3d->GetCopyableFootprints(&desc, 0, 1, 0, &footprint, nullptr, nullptr, &total);
    staging = committed(d3d, D3D12_HEAP_TYPE_UPLOAD, buffer_desc(total), D3D12_RESOURCE_STATE_GENERIC_READ);
    uint8_t* mapped = nullptr;
    const D3D12_RANGE nothing_read{0, 0};
    LAB_D3D_CHECK(staging->Map(0, &nothing_read, reinterpret_cast<void**>(&mapped)));
    const size_t row_bytes = linear_pitch(resource.desc);
    for (int row = 0; row < resource.desc.height; ++row)
      std::memcpy(mapped + footprint.Offset + static_cast<size_t>(row) * footprint.Footprint.RowPitch,
                  static_cast<const uint8_t*>(data) + static_cast<size_t>(row) * row_bytes, row_bytes);
    staging->Unmap(0, nullptr);
    D3D12_TEXTURE_COPY_LOCATION to{};
    to.pResource = resource.resource.Get();
    to.Type = D3D12_TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX;
    D3D12_TEXTURE_COPY_LOCATION from{};
    from.pResource = staging.Get();
    from.Type = D3D12_TEXTURE_COPY_TYPE_PLACED_FOOTPRINT;
    from.PlacedFootprint = footprint;
    list->CopyTextureRegion(&to, 0, 0, 0, &from, nullptr);
  }
  submit_and_wait(m_device, list, s.fence.Get(), s.fence_value, s.fence_event.handle);
}

namespace {
// Copies `resource` (a buffer of `bytes`, or a texture of `extent`) into `data` rows tightly packed.
void read_back(Device& device, ID3D12GraphicsCommandList* list, ID3D12Resource* resource,
               D3D12_RESOURCE_STATES& state, size_t bytes, int height, void* data, ID3D12Fence* fence,
               UINT64& value, HANDLE event) {
  ID3D12Device* d3d = device.device.Get();
  const D3D12_RESOURCE_DESC desc = resource->GetDesc();
  transition(list, resource, state, D3D12_RESOURCE_STATE_COPY_SOURCE);
  D3D12_PLACED_SUBRESOURCE_FOOTPRINT footprint{};
  UINT64 total = bytes;
  const bool texture = desc.Dimension == D3D12_RESOURCE_DIMENSION_TEXTURE2D;
  if (texture) d3d->GetCopyableFootprints(&desc, 0, 1, 0, &footprint, nullptr, nullptr, &total);
  const ComPtr<ID3D12Resource> readback =
      committed(d3d, D3D12_HEAP_TYPE_READBACK, buffer_desc(total), D3D12_RESOURCE_STATE_COPY_DEST);
  if (texture) {
    D3D12_TEXTURE_COPY_LOCATION to{};
    to.pResource = readback.Get();
    to.Type = D3D12_TEXTURE_COPY_TYPE_PLACED_FOOTPRINT;
    to.PlacedFootprint = footprint;
    D3D12_TEXTURE_COPY_LOCATION from{};
    from.pResource = resource;
    from.Type = D3D12_TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX;
    list->CopyTextureRegion(&to, 0, 0, 0, &from, nullptr);
  } else {
    list->CopyBufferRegion(readback.Get(), 0, resource, 0, bytes);
  }
  submit_and_wait(device, list, fence, value, event);
  const uint8_t* mapped = nullptr;
  const D3D12_RANGE everything{0, static_cast<SIZE_T>(total)};
  LAB_D3D_CHECK(readback->Map(0, &everything, reinterpret_cast<void**>(const_cast<uint8_t**>(&mapped))));
  if (!texture) {
    std::memcpy(data, mapped, bytes);
  } else {
    const size_t row_bytes = bytes / static_cast<size_t>(height);
    for (int row = 0; row < height; ++row)
      std::memcpy(static_cast<uint8_t*>(data) + static_cast<size_t>(row) * row_bytes,
                  mapped + footprint.Offset + static_cast<size_t>(row) * footprint.Footprint.RowPitch,
                  row_bytes);
  }
  const D3D12_RANGE nothing_written{0, 0};
  readback->Unmap(0, &nothing_written);
}
}  // namespace

void Renderer::download(int index, void* data) {
  State& s = *m_state;
  Resource& resource = s.resources.at(static_cast<size_t>(index));
  ID3D12GraphicsCommandList* list = begin(s.allocator.Get(), s.list.Get());
  read_back(m_device, list, resource.resource.Get(), resource.state, resource.desc.bytes,
            std::max(resource.desc.height, 1), data, s.fence.Get(), s.fence_value, s.fence_event.handle);
}

void Renderer::draw_cubes(int target_index, const CubesView& view, const PassSync& /*sync: none*/) {
  State& s = *m_state;
  Resource& target = s.resources.at(static_cast<size_t>(target_index));
  if (target.desc.kind != ResourceKind::Texture2D)
    throw std::invalid_argument("Renderer::draw_cubes: the target must be a texture resource");
  ID3D12Device* d3d = m_device.device.Get();
  const UINT slot = 1 + static_cast<UINT>(target_index);
  ComPtr<ID3D12Resource>& depth = s.resource_depths[static_cast<size_t>(target_index)];
  if (!depth) {
    D3D12_CLEAR_VALUE depth_clear{};
    depth_clear.Format = kDepthFormat;
    depth_clear.DepthStencil.Depth = 1.0f;
    depth = committed(d3d, D3D12_HEAP_TYPE_DEFAULT,
                      texture_desc({target.desc.width, target.desc.height}, kDepthFormat,
                                   D3D12_RESOURCE_FLAG_ALLOW_DEPTH_STENCIL),
                      D3D12_RESOURCE_STATE_DEPTH_WRITE, &depth_clear);
    d3d->CreateRenderTargetView(target.resource.Get(), nullptr, s.rtv(slot));
    d3d->CreateDepthStencilView(depth.Get(), nullptr, s.dsv(slot));
  }
  ID3D12GraphicsCommandList* list = begin(s.allocator.Get(), s.list.Get());
  transition(list, target.resource.Get(), target.state, D3D12_RESOURCE_STATE_RENDER_TARGET);
  begin_pass(list, s.rtv(slot), s.dsv(slot), kCubesClearColor, {target.desc.width, target.desc.height},
             s.root.Get(), s.lit.Get());
  const D3D12_VERTEX_BUFFER_VIEW vertices{s.cube_vertices->GetGPUVirtualAddress(), s.cube_vertex_bytes,
                                          sizeof(LitVertex)};
  const D3D12_INDEX_BUFFER_VIEW indices{s.cube_indices->GetGPUVirtualAddress(), s.cube_index_count * 4,
                                        DXGI_FORMAT_R32_UINT};
  list->IASetVertexBuffers(0, 1, &vertices);
  list->IASetIndexBuffer(&indices);
  for (const CubeInstance& cube : view.cubes) {
    const CubeConstants constants = d3d::cube_constants(view, cube);
    list->SetGraphicsRoot32BitConstants(0, kRootConstants, &constants, 0);
    list->DrawIndexedInstanced(s.cube_index_count, 1, 0, 0, 0);
  }
  submit_and_wait(m_device, list, s.fence.Get(), s.fence_value, s.fence_event.handle);
}

void Renderer::draw_frame(const DrawPlan& plan, const glm::mat4& view_projection,
                          const PassSync& /*sync: none*/) {
  if (plan.draw != SceneDraw::LitMesh) return;
  State& s = *m_state;
  Resource& mesh = s.resources.at(static_cast<size_t>(plan.mesh_resource));
  ID3D12GraphicsCommandList* list = begin(s.allocator.Get(), s.list.Get());
  transition(list, mesh.resource.Get(), mesh.state, D3D12_RESOURCE_STATE_VERTEX_AND_CONSTANT_BUFFER);
  transition(list, s.frame.Get(), s.frame_state, D3D12_RESOURCE_STATE_RENDER_TARGET);
  begin_pass(list, s.rtv(0), s.dsv(0), kClearColor, s.extent, s.root.Get(), s.wave.Get());
  const D3D12_VERTEX_BUFFER_VIEW vertices{mesh.resource->GetGPUVirtualAddress(),
                                          static_cast<UINT>(mesh.desc.bytes), 6 * sizeof(float)};
  const D3D12_INDEX_BUFFER_VIEW indices{s.wave_indices->GetGPUVirtualAddress(), s.wave_index_count * 4,
                                        DXGI_FORMAT_R32_UINT};
  list->IASetVertexBuffers(0, 1, &vertices);
  list->IASetIndexBuffer(&indices);
  float constants[16];
  copy_matrix(constants, view_projection);
  list->SetGraphicsRoot32BitConstants(0, 16, constants, 0);
  list->DrawIndexedInstanced(s.wave_index_count, 1, 0, 0, 0);
  submit_and_wait(m_device, list, s.fence.Get(), s.fence_value, s.fence_event.handle);
}

// A copy, not a draw: the image and the frame target have the same size and format, and a copy needs no
// descriptor heap. (A textured triangle, as app/d3d11 draws, read only zeros from its shader-resource
// table under Wine's vkd3d 1.6: "Invalid heap for base descriptor".)
void Renderer::draw_image(int index) {
  State& s = *m_state;
  Resource& image = s.resources.at(static_cast<size_t>(index));
  if (image.desc.kind != ResourceKind::Texture2D || image.desc.width != s.extent.width ||
      image.desc.height != s.extent.height)
    throw std::invalid_argument("Renderer::draw_image: the image must be a texture of the frame's size");
  ID3D12GraphicsCommandList* list = begin(s.allocator.Get(), s.list.Get());
  transition(list, image.resource.Get(), image.state, D3D12_RESOURCE_STATE_COPY_SOURCE);
  transition(list, s.frame.Get(), s.frame_state, D3D12_RESOURCE_STATE_COPY_DEST);
  list->CopyResource(s.frame.Get(), image.resource.Get());
  submit_and_wait(m_device, list, s.fence.Get(), s.fence_value, s.fence_event.handle);
}

namespace {
Image flipped_image(const std::vector<uint8_t>& rows, int width, int height) {
  Image image;
  image.width = width;
  image.height = height;
  image.rgba.resize(rows.size());
  const size_t row_bytes = static_cast<size_t>(width) * 4;
  // Memory row 0 is the bottom of the picture (GL's order); the Image starts at the top.
  for (int row = 0; row < height; ++row)
    std::memcpy(&image.rgba[static_cast<size_t>(height - 1 - row) * row_bytes],
                &rows[static_cast<size_t>(row) * row_bytes], row_bytes);
  return image;
}
}  // namespace

Image Renderer::read_frame(const DrawPlan& plan) {
  if (plan.draw != SceneDraw::ShowImage) return read_target();
  State& s = *m_state;
  Resource& image = s.resources.at(static_cast<size_t>(plan.image_resource));
  std::vector<uint8_t> rows(image.desc.bytes);
  ID3D12GraphicsCommandList* list = begin(s.allocator.Get(), s.list.Get());
  read_back(m_device, list, image.resource.Get(), image.state, image.desc.bytes, image.desc.height,
            rows.data(), s.fence.Get(), s.fence_value, s.fence_event.handle);
  return flipped_image(rows, image.desc.width, image.desc.height);
}

Image Renderer::read_target() {
  State& s = *m_state;
  std::vector<uint8_t> rows(static_cast<size_t>(s.extent.width) * s.extent.height * 4);
  ID3D12GraphicsCommandList* list = begin(s.allocator.Get(), s.list.Get());
  read_back(m_device, list, s.frame.Get(), s.frame_state, rows.size(), s.extent.height, rows.data(),
            s.fence.Get(), s.fence_value, s.fence_event.handle);
  return flipped_image(rows, s.extent.width, s.extent.height);
}

void Renderer::copy_frame_upright(ID3D12Resource* target, D3D12_RESOURCE_STATES state) {
  State& s = *m_state;
  ID3D12GraphicsCommandList* list = begin(s.allocator.Get(), s.list.Get());
  D3D12_RESOURCE_STATES target_state = state;
  transition(list, s.frame.Get(), s.frame_state, D3D12_RESOURCE_STATE_COPY_SOURCE);
  transition(list, target, target_state, D3D12_RESOURCE_STATE_COPY_DEST);
  D3D12_TEXTURE_COPY_LOCATION to{};
  to.pResource = target;
  to.Type = D3D12_TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX;
  D3D12_TEXTURE_COPY_LOCATION from{};
  from.pResource = s.frame.Get();
  from.Type = D3D12_TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX;
  for (int row = 0; row < s.extent.height; ++row) {
    const D3D12_BOX line{
        0, static_cast<UINT>(row), 0, static_cast<UINT>(s.extent.width), static_cast<UINT>(row + 1), 1};
    list->CopyTextureRegion(&to, 0, static_cast<UINT>(s.extent.height - 1 - row), 0, &from, &line);
  }
  transition(list, target, target_state, state);
  submit_and_wait(m_device, list, s.fence.Get(), s.fence_value, s.fence_event.handle);
}

Image Renderer::read_window_buffer(ID3D12Resource* target, D3D12_RESOURCE_STATES state) {
  State& s = *m_state;
  const D3D12_RESOURCE_DESC desc = target->GetDesc();
  Image image;
  image.width = static_cast<int>(desc.Width);
  image.height = static_cast<int>(desc.Height);
  image.rgba.resize(static_cast<size_t>(image.width) * image.height * 4);
  D3D12_RESOURCE_STATES target_state = state;
  ID3D12GraphicsCommandList* list = begin(s.allocator.Get(), s.list.Get());
  read_back(m_device, list, target, target_state, image.rgba.size(), image.height, image.rgba.data(),
            s.fence.Get(), s.fence_value, s.fence_event.handle);
  list = begin(s.allocator.Get(), s.list.Get());
  transition(list, target, target_state, state);
  submit_and_wait(m_device, list, s.fence.Get(), s.fence_value, s.fence_event.handle);
  return image;
}

}  // namespace lab::d3d12
