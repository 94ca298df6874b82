// app/d3d11/renderer.cpp — the Direct3D 11 backend's device, resources, draws and copies
// (app/d3d11/renderer.hpp). Every HRESULT is checked; a failure throws std::runtime_error with the call
// and the code, and what was created so far is released by its ComPtr.
#include "app/d3d11/renderer.hpp"

#include "app/d3d/dxgi.hpp"
#include "app/d3d/hlsl_constants.hpp"

#include <d3dcompiler.h>
#include <dxgi1_2.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace lab::d3d11 {
namespace {

using d3d::adapter_name;
using d3d::check;
using d3d::compile;
using d3d::copy_matrix;
using d3d::CubeConstants;
using d3d::hresult_text;
using d3d::luid_text;

ComPtr<ID3D11Device> try_create(IDXGIAdapter* adapter, D3D_DRIVER_TYPE type, UINT flags,
                                ComPtr<ID3D11DeviceContext>& context, D3D_FEATURE_LEVEL& level,
                                HRESULT& result) {
  static constexpr D3D_FEATURE_LEVEL kLevels[] = {D3D_FEATURE_LEVEL_11_1, D3D_FEATURE_LEVEL_11_0};
  ComPtr<ID3D11Device> device;
  result = D3D11CreateDevice(adapter, type, nullptr, flags, kLevels, 2, D3D11_SDK_VERSION, &device, &level,
                             &context);
  if (result == E_INVALIDARG)  // Direct3D 11.0 runtimes do not know 11_1 and refuse the whole list
    result = D3D11CreateDevice(adapter, type, nullptr, flags, kLevels + 1, 1, D3D11_SDK_VERSION, &device,
                               &level, &context);
  return SUCCEEDED(result) ? device : nullptr;
}

}  // namespace

Device create_device(const DeviceDesc& desc) {
  Device created;
  const UINT flags = desc.debug_layer ? D3D11_CREATE_DEVICE_DEBUG : 0;
  HRESULT result = S_OK;
  if (desc.adapter_luid) {
    ComPtr<IDXGIFactory1> factory;
    LAB_D3D_CHECK(CreateDXGIFactory1(IID_PPV_ARGS(&factory)));
    std::string seen;
    ComPtr<IDXGIAdapter1> adapter;
    for (UINT i = 0; factory->EnumAdapters1(i, &adapter) != DXGI_ERROR_NOT_FOUND; ++i) {
      DXGI_ADAPTER_DESC1 adapter_desc{};
      LAB_D3D_CHECK(adapter->GetDesc1(&adapter_desc));
      const std::string name = adapter_name(adapter_desc.Description, adapter_desc.AdapterLuid);
      if (std::memcmp(&adapter_desc.AdapterLuid, desc.adapter_luid->data(), sizeof(LUID)) != 0) {
        seen += (seen.empty() ? "" : ", ") + name;
        continue;
      }
      // A given adapter takes D3D_DRIVER_TYPE_UNKNOWN.
      created.device = try_create(adapter.Get(), D3D_DRIVER_TYPE_UNKNOWN, flags, created.context,
                                  created.feature_level, result);
      check(result, "D3D11CreateDevice on the CUDA device's adapter");
      created.adapter = name;
      return created;
    }
    LUID wanted{};
    std::memcpy(&wanted, desc.adapter_luid->data(), sizeof wanted);
    throw std::runtime_error("no DXGI adapter has the CUDA device's LUID " + luid_text(wanted) +
                             " (adapters: " + (seen.empty() ? "none" : seen) +
                             "); a GPU in TCC mode has no graphics: switch it to WDDM (nvidia-smi -dm 0)");
  }
  created.device =
      try_create(nullptr, D3D_DRIVER_TYPE_HARDWARE, flags, created.context, created.feature_level, result);
  if (created.device) {
    created.adapter = "default adapter";
    ComPtr<IDXGIDevice> dxgi_device;
    ComPtr<IDXGIAdapter> adapter;
    DXGI_ADAPTER_DESC adapter_desc{};
    if (SUCCEEDED(created.device.As(&dxgi_device)) && SUCCEEDED(dxgi_device->GetAdapter(&adapter)) &&
        SUCCEEDED(adapter->GetDesc(&adapter_desc)))
      created.adapter = adapter_name(adapter_desc.Description, adapter_desc.AdapterLuid);
    return created;
  }
  const HRESULT hardware_result = result;
  created.device =
      try_create(nullptr, D3D_DRIVER_TYPE_WARP, flags, created.context, created.feature_level, result);
  if (!created.device)
    throw std::runtime_error("D3D11CreateDevice failed on the default adapter (HRESULT " +
                             hresult_text(hardware_result) + ") and on WARP (HRESULT " +
                             hresult_text(result) + ")");
  created.adapter = "WARP (Direct3D on the CPU)";
  return created;
}

ID3D11Resource* Resource::get() const {
  if (buffer) return buffer.Get();
  return texture.Get();
}

namespace {

struct Pipeline {
  ComPtr<ID3D11VertexShader> vertex;
  ComPtr<ID3D11PixelShader> pixel;
  ComPtr<ID3D11InputLayout> layout;
  ComPtr<ID3D11Buffer> constants;
};

// Both meshes are position + normal, 6 floats a vertex (kernels::WaveVertex, LitVertex).
constexpr D3D11_INPUT_ELEMENT_DESC kMeshVertex[] = {
    {"POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0, D3D11_INPUT_PER_VERTEX_DATA, 0},
    {"NORMAL", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 12, D3D11_INPUT_PER_VERTEX_DATA, 0},
};
// ShowImage's triangle: clip-space corners.
constexpr D3D11_INPUT_ELEMENT_DESC kCornerVertex[] = {
    {"POSITION", 0, DXGI_FORMAT_R32G32_FLOAT, 0, 0, D3D11_INPUT_PER_VERTEX_DATA, 0},
};
constexpr float kCoveringTriangle[] = {-1.0f, -1.0f, 3.0f, -1.0f, -1.0f, 3.0f};

template <size_t N>
Pipeline make_pipeline(ID3D11Device* device, const char* file, const D3D11_INPUT_ELEMENT_DESC (&elements)[N],
                       UINT constant_bytes) {
  Pipeline pipeline;
  const ComPtr<ID3DBlob> vertex = compile(file, "vertex_main", "vs_5_0");
  const ComPtr<ID3DBlob> pixel = compile(file, "pixel_main", "ps_5_0");
  LAB_D3D_CHECK(device->CreateVertexShader(vertex->GetBufferPointer(), vertex->GetBufferSize(), nullptr,
                                           &pipeline.vertex));
  LAB_D3D_CHECK(
      device->CreatePixelShader(pixel->GetBufferPointer(), pixel->GetBufferSize(), nullptr, &pipeline.pixel));
  LAB_D3D_CHECK(device->CreateInputLayout(elements, static_cast<UINT>(N), vertex->GetBufferPointer(),
                                          vertex->GetBufferSize(), &pipeline.layout));
  if (constant_bytes == 0) return pipeline;
  D3D11_BUFFER_DESC constants{};
  constants.ByteWidth = constant_bytes;
  constants.Usage = D3D11_USAGE_DEFAULT;
  constants.BindFlags = D3D11_BIND_CONSTANT_BUFFER;
  LAB_D3D_CHECK(device->CreateBuffer(&constants, nullptr, &pipeline.constants));
  return pipeline;
}

ComPtr<ID3D11Buffer> make_buffer(ID3D11Device* device, UINT bytes, UINT bind, const void* data,
                                 UINT misc = 0) {
  D3D11_BUFFER_DESC desc{};
  desc.ByteWidth = bytes;
  desc.Usage = D3D11_USAGE_DEFAULT;
  desc.BindFlags = bind;
  desc.MiscFlags = misc;
  D3D11_SUBRESOURCE_DATA initial{};
  initial.pSysMem = data;
  ComPtr<ID3D11Buffer> buffer;
  LAB_D3D_CHECK(device->CreateBuffer(&desc, data ? &initial : nullptr, &buffer));
  return buffer;
}

ComPtr<ID3D11Texture2D> make_texture(ID3D11Device* device, Extent extent, DXGI_FORMAT format, UINT bind,
                                     UINT misc = 0) {
  D3D11_TEXTURE2D_DESC desc{};
  d3d::describe_texture(desc, extent, format);
  desc.ArraySize = 1;
  desc.Usage = D3D11_USAGE_DEFAULT;
  desc.BindFlags = bind;
  desc.MiscFlags = misc;
  ComPtr<ID3D11Texture2D> texture;
  LAB_D3D_CHECK(device->CreateTexture2D(&desc, nullptr, &texture));
  return texture;
}

// A colour target with its own depth buffer of the same size.
struct Target {
  ComPtr<ID3D11RenderTargetView> colour;
  ComPtr<ID3D11Texture2D> depth_texture;
  ComPtr<ID3D11DepthStencilView> depth;
  Extent extent;
};

Target make_target(ID3D11Device* device, ID3D11Texture2D* colour, Extent extent) {
  Target target;
  target.extent = extent;
  LAB_D3D_CHECK(device->CreateRenderTargetView(colour, nullptr, &target.colour));
  target.depth_texture =
      make_texture(device, extent, DXGI_FORMAT_D24_UNORM_S8_UINT, D3D11_BIND_DEPTH_STENCIL);
  LAB_D3D_CHECK(device->CreateDepthStencilView(target.depth_texture.Get(), nullptr, &target.depth));
  return target;
}

// The description of a staging copy of `object` (a buffer or a texture, as GetDesc gives it) that the CPU
// maps for reading.
template <class Desc, class Object>
Desc readable_staging_desc(Object* object) {
  Desc desc{};
  object->GetDesc(&desc);
  desc.Usage = D3D11_USAGE_STAGING;
  desc.BindFlags = 0;
  desc.CPUAccessFlags = D3D11_CPU_ACCESS_READ;
  return desc;
}

// Row `row` of a mapped staging copy, for copying into or out of tightly packed rows.
const uint8_t* mapped_row(const D3D11_MAPPED_SUBRESOURCE& mapped, int row) {
  return static_cast<const uint8_t*>(mapped.pData) + static_cast<size_t>(row) * mapped.RowPitch;
}

struct WaveConstants {
  float view_projection[16];
};
static_assert(sizeof(WaveConstants) % 16 == 0, "constant buffers are whole 16-byte registers");

}  // namespace

struct Renderer::State {
  Extent extent;
  ComPtr<ID3D11Texture2D> frame;  // RGBA8, the frame target
  Target frame_target;
  std::vector<Resource> resources;
  std::vector<Target>
      resource_targets;  // for the textures that draw_cubes renders into; empty views otherwise

  Pipeline wave;
  Pipeline lit;
  Pipeline show;
  ComPtr<ID3D11Buffer> show_corners;
  std::vector<ComPtr<ID3D11ShaderResourceView>> resource_views;  // ShowImage's, made on first use
  ComPtr<ID3D11Buffer> wave_indices;
  UINT wave_index_count = 0;
  ComPtr<ID3D11Buffer> cube_vertices, cube_indices;
  UINT cube_index_count = 0;
  ComPtr<ID3D11RasterizerState> no_culling, back_face_culling;
  ComPtr<ID3D11DepthStencilState> depth_test;
};

Renderer::Renderer(Device& device, Extent extent) : RendererBase(device), m_state(std::make_unique<State>()) {
  ID3D11Device* d3d = device.device.Get();
  State& s = *m_state;
  s.wave = make_pipeline(d3d, "wave.hlsl", kMeshVertex, sizeof(WaveConstants));
  s.lit = make_pipeline(d3d, "lit.hlsl", kMeshVertex, sizeof(CubeConstants));
  s.show = make_pipeline(d3d, "show.hlsl", kCornerVertex, 0);
  s.show_corners = make_buffer(d3d, sizeof kCoveringTriangle, D3D11_BIND_VERTEX_BUFFER, kCoveringTriangle);

  const std::vector<uint32_t> indices = wave_mesh_indices();
  s.wave_index_count = static_cast<UINT>(indices.size());
  s.wave_indices = make_buffer(d3d, static_cast<UINT>(indices.size() * sizeof(uint32_t)),
                               D3D11_BIND_INDEX_BUFFER, indices.data());
  const CubeMesh cube = cube_mesh();
  s.cube_index_count = static_cast<UINT>(cube.indices.size());
  s.cube_vertices = make_buffer(d3d, static_cast<UINT>(cube.vertices.size() * sizeof(LitVertex)),
                                D3D11_BIND_VERTEX_BUFFER, cube.vertices.data());
  s.cube_indices = make_buffer(d3d, static_cast<UINT>(cube.indices.size() * sizeof(uint32_t)),
                               D3D11_BIND_INDEX_BUFFER, cube.indices.data());

  // GL's defaults and the scenes' states: depth test LESS, solid fill, no multisampling, depth clip on.
  D3D11_RASTERIZER_DESC raster{};
  raster.FillMode = D3D11_FILL_SOLID;
  raster.CullMode = D3D11_CULL_NONE;
  raster.DepthClipEnable = TRUE;
  LAB_D3D_CHECK(d3d->CreateRasterizerState(&raster, &s.no_culling));
  raster.CullMode = D3D11_CULL_BACK;
  raster.FrontCounterClockwise = FALSE;  // GL's counter-clockwise after the y flip (renderer.hpp)
  LAB_D3D_CHECK(d3d->CreateRasterizerState(&raster, &s.back_face_culling));
  D3D11_DEPTH_STENCIL_DESC depth{};
  depth.DepthEnable = TRUE;
  depth.DepthWriteMask = D3D11_DEPTH_WRITE_MASK_ALL;
  depth.DepthFunc = D3D11_COMPARISON_LESS;
  LAB_D3D_CHECK(d3d->CreateDepthStencilState(&depth, &s.depth_test));
  resize(extent);
}

Renderer::~Renderer() {
  // The context may still hold views of what is released below: unbind them first.
  m_device.context->ClearState();
  m_device.context->Flush();
}

Extent Renderer::extent() const {
  return m_state->extent;
}

void Renderer::resize(Extent extent) {
  State& s = *m_state;
  m_device.context->OMSetRenderTargets(0, nullptr, nullptr);
  s.frame = make_texture(m_device.device.Get(), extent, DXGI_FORMAT_R8G8B8A8_UNORM,
                         D3D11_BIND_RENDER_TARGET | D3D11_BIND_SHADER_RESOURCE);
  s.frame_target = make_target(m_device.device.Get(), s.frame.Get(), extent);
  s.extent = extent;
}

void Renderer::create_resources(const std::vector<ResourceDesc>& descs, bool shared) {
  destroy_resources();
  State& s = *m_state;
  const UINT misc = shared ? D3D11_RESOURCE_MISC_SHARED_NTHANDLE | D3D11_RESOURCE_MISC_SHARED_KEYEDMUTEX : 0;
  for (const ResourceDesc& desc : descs) {
    Resource resource;
    resource.desc = desc;
    resource.shared = shared;
    if (desc.kind == ResourceKind::Buffer) {
      resource.buffer = make_buffer(m_device.device.Get(), static_cast<UINT>(desc.bytes),
                                    D3D11_BIND_VERTEX_BUFFER, nullptr, misc);
    } else {
      resource.texture = make_texture(
          m_device.device.Get(), {desc.width, desc.height}, DXGI_FORMAT_R8G8B8A8_UNORM,
          D3D11_BIND_SHADER_RESOURCE | D3D11_BIND_RENDER_TARGET | D3D11_BIND_UNORDERED_ACCESS, misc);
    }
    s.resources.push_back(std::move(resource));
  }
  s.resource_targets.resize(s.resources.size());
  s.resource_views.resize(s.resources.size());
}

void Renderer::destroy_resources() {
  m_device.context->OMSetRenderTargets(0, nullptr, nullptr);
  m_device.context->PSSetShaderResources(0, 0, nullptr);
  m_state->resource_targets.clear();
  m_state->resource_views.clear();
  m_state->resources.clear();
}

const std::vector<Resource>& Renderer::resources() const {
  return m_state->resources;
}

d3d::SharedHandle Renderer::export_handle(int index) const {
  const Resource& resource = m_state->resources.at(static_cast<size_t>(index));
  if (!resource.shared)
    throw std::logic_error(std::string("Renderer::export_handle: \"") + resource.desc.label +
                           "\" was not created shared; call create_resources(descs, true)");
  ComPtr<IDXGIResource1> dxgi_resource;
  LAB_D3D_CHECK(resource.get()->QueryInterface(IID_PPV_ARGS(&dxgi_resource)));
  HANDLE handle = nullptr;
  LAB_D3D_CHECK(dxgi_resource->CreateSharedHandle(
      nullptr, DXGI_SHARED_RESOURCE_READ | DXGI_SHARED_RESOURCE_WRITE, nullptr, &handle));
  return d3d::SharedHandle(handle);
}

void Renderer::upload(int index, const void* data) {
  const Resource& resource = m_state->resources.at(static_cast<size_t>(index));
  const UINT pitch = static_cast<UINT>(linear_pitch(resource.desc));
  m_device.context->UpdateSubresource(resource.get(), 0, nullptr, data, pitch, 0);
}

void Renderer::download(int index, void* data) {
  const Resource& resource = m_state->resources.at(static_cast<size_t>(index));
  ID3D11Device* d3d = m_device.device.Get();
  ComPtr<ID3D11Resource> staging;
  if (resource.buffer) {
    const auto desc = readable_staging_desc<D3D11_BUFFER_DESC>(resource.buffer.Get());
    ComPtr<ID3D11Buffer> buffer;
    LAB_D3D_CHECK(d3d->CreateBuffer(&desc, nullptr, &buffer));
    staging = buffer;
  } else {
    const auto desc = readable_staging_desc<D3D11_TEXTURE2D_DESC>(resource.texture.Get());
    ComPtr<ID3D11Texture2D> texture;
    LAB_D3D_CHECK(d3d->CreateTexture2D(&desc, nullptr, &texture));
    staging = texture;
  }
  m_device.context->CopyResource(staging.Get(), resource.get());
  D3D11_MAPPED_SUBRESOURCE mapped{};
  LAB_D3D_CHECK(m_device.context->Map(staging.Get(), 0, D3D11_MAP_READ, 0, &mapped));
  if (resource.buffer) {
    std::memcpy(data, mapped.pData, resource.desc.bytes);
  } else {
    const size_t row_bytes = linear_pitch(resource.desc);
    for (int row = 0; row < resource.desc.height; ++row)
      std::memcpy(static_cast<uint8_t*>(data) + row * row_bytes, mapped_row(mapped, row), row_bytes);
  }
  m_device.context->Unmap(staging.Get(), 0);
}

void Renderer::draw_cubes(int target_index, const CubesView& view, const PassSync& /*sync: none*/) {
  State& s = *m_state;
  const Resource& resource = s.resources.at(static_cast<size_t>(target_index));
  if (!resource.texture)
    throw std::invalid_argument("Renderer::draw_cubes: the target must be a texture resource");
  Target& target = s.resource_targets[static_cast<size_t>(target_index)];
  if (!target.colour)
    target = make_target(m_device.device.Get(), resource.texture.Get(),
                         {resource.desc.width, resource.desc.height});

  ID3D11DeviceContext* context = m_device.context.Get();
  const float clear[4] = {kCubesClearColor[0], kCubesClearColor[1], kCubesClearColor[2], 1.0f};
  context->ClearRenderTargetView(target.colour.Get(), clear);
  context->ClearDepthStencilView(target.depth.Get(), D3D11_CLEAR_DEPTH, 1.0f, 0);
  context->OMSetRenderTargets(1, target.colour.GetAddressOf(), target.depth.Get());
  const D3D11_VIEWPORT viewport{
      0.0f, 0.0f, static_cast<float>(target.extent.width), static_cast<float>(target.extent.height),
      0.0f, 1.0f};
  context->RSSetViewports(1, &viewport);
  context->RSSetState(s.back_face_culling.Get());
  context->OMSetDepthStencilState(s.depth_test.Get(), 0);
  context->IASetPrimitiveTopology(D3D11_PRIMITIVE_TOPOLOGY_TRIANGLELIST);
  context->IASetInputLayout(s.lit.layout.Get());
  const UINT stride = sizeof(LitVertex), offset = 0;
  context->IASetVertexBuffers(0, 1, s.cube_vertices.GetAddressOf(), &stride, &offset);
  context->IASetIndexBuffer(s.cube_indices.Get(), DXGI_FORMAT_R32_UINT, 0);
  context->VSSetShader(s.lit.vertex.Get(), nullptr, 0);
  context->PSSetShader(s.lit.pixel.Get(), nullptr, 0);
  context->VSSetConstantBuffers(0, 1, s.lit.constants.GetAddressOf());
  context->PSSetConstantBuffers(0, 1, s.lit.constants.GetAddressOf());
  for (const CubeInstance& cube : view.cubes) {
    const CubeConstants constants = d3d::cube_constants(view, cube);
    context->UpdateSubresource(s.lit.constants.Get(), 0, nullptr, &constants, 0, 0);
    context->DrawIndexed(s.cube_index_count, 0, 0);
  }
  context->OMSetRenderTargets(0, nullptr, nullptr);  // the texture is read next (download, CUDA)
}

void Renderer::draw_frame(const DrawPlan& plan, const glm::mat4& view_projection,
                          const PassSync& /*sync: none*/) {
  if (plan.draw != SceneDraw::LitMesh) return;
  State& s = *m_state;
  const Resource& mesh = s.resources.at(static_cast<size_t>(plan.mesh_resource));
  ID3D11DeviceContext* context = m_device.context.Get();
  const float clear[4] = {kClearColor[0], kClearColor[1], kClearColor[2], 1.0f};
  context->ClearRenderTargetView(s.frame_target.colour.Get(), clear);
  context->ClearDepthStencilView(s.frame_target.depth.Get(), D3D11_CLEAR_DEPTH, 1.0f, 0);
  context->OMSetRenderTargets(1, s.frame_target.colour.GetAddressOf(), s.frame_target.depth.Get());
  const D3D11_VIEWPORT viewport{
      0.0f, 0.0f, static_cast<float>(s.extent.width), static_cast<float>(s.extent.height), 0.0f, 1.0f};
  context->RSSetViewports(1, &viewport);
  context->RSSetState(s.no_culling.Get());
  context->OMSetDepthStencilState(s.depth_test.Get(), 0);
  context->IASetPrimitiveTopology(D3D11_PRIMITIVE_TOPOLOGY_TRIANGLELIST);
  context->IASetInputLayout(s.wave.layout.Get());
  const UINT stride = 6 * sizeof(float), offset = 0;
  context->IASetVertexBuffers(0, 1, mesh.buffer.GetAddressOf(), &stride, &offset);
  context->IASetIndexBuffer(s.wave_indices.Get(), DXGI_FORMAT_R32_UINT, 0);
  context->VSSetShader(s.wave.vertex.Get(), nullptr, 0);
  context->PSSetShader(s.wave.pixel.Get(), nullptr, 0);
  WaveConstants constants{};
  copy_matrix(constants.view_projection, view_projection);
  context->UpdateSubresource(s.wave.constants.Get(), 0, nullptr, &constants, 0, 0);
  context->VSSetConstantBuffers(0, 1, s.wave.constants.GetAddressOf());
  context->DrawIndexed(s.wave_index_count, 0, 0);
  context->OMSetRenderTargets(0, nullptr, nullptr);
}

ID3D11Texture2D* Renderer::frame_texture() const {
  return m_state->frame.Get();
}

void Renderer::draw_image(int index) {
  State& s = *m_state;
  const Resource& image = s.resources.at(static_cast<size_t>(index));
  if (!image.texture)
    throw std::invalid_argument("Renderer::draw_image: the image must be a texture resource");
  ComPtr<ID3D11ShaderResourceView>& view = s.resource_views[static_cast<size_t>(index)];
  if (!view) LAB_D3D_CHECK(m_device.device->CreateShaderResourceView(image.texture.Get(), nullptr, &view));
  ID3D11DeviceContext* context = m_device.context.Get();
  // Every pixel is written: no clear, no depth.
  context->OMSetRenderTargets(1, s.frame_target.colour.GetAddressOf(), nullptr);
  const D3D11_VIEWPORT viewport{
      0.0f, 0.0f, static_cast<float>(s.extent.width), static_cast<float>(s.extent.height), 0.0f, 1.0f};
  context->RSSetViewports(1, &viewport);
  context->RSSetState(s.no_culling.Get());
  context->OMSetDepthStencilState(nullptr, 0);
  context->IASetPrimitiveTopology(D3D11_PRIMITIVE_TOPOLOGY_TRIANGLELIST);
  context->IASetInputLayout(s.show.layout.Get());
  const UINT stride = 2 * sizeof(float), offset = 0;
  context->IASetVertexBuffers(0, 1, s.show_corners.GetAddressOf(), &stride, &offset);
  context->VSSetShader(s.show.vertex.Get(), nullptr, 0);
  context->PSSetShader(s.show.pixel.Get(), nullptr, 0);
  context->PSSetShaderResources(0, 1, view.GetAddressOf());
  context->Draw(3, 0);
  ID3D11ShaderResourceView* none = nullptr;
  context->PSSetShaderResources(0, 1, &none);  // the image may be written next (upload, CUDA)
  context->OMSetRenderTargets(0, nullptr, nullptr);
}

void Renderer::wait_idle() {
  D3D11_QUERY_DESC desc{};
  desc.Query = D3D11_QUERY_EVENT;
  ComPtr<ID3D11Query> query;
  LAB_D3D_CHECK(m_device.device->CreateQuery(&desc, &query));
  m_device.context->End(query.Get());
  BOOL done = FALSE;
  HRESULT result = S_FALSE;
  while ((result = m_device.context->GetData(query.Get(), &done, sizeof(done), 0)) == S_FALSE)
    std::this_thread::yield();
  LAB_D3D_CHECK(result);
}

Image Renderer::read_frame(const DrawPlan& plan) {
  if (plan.draw == SceneDraw::ShowImage)
    return read_texture(m_state->resources.at(static_cast<size_t>(plan.image_resource)).texture.Get());
  return read_target();
}

Image Renderer::read_target() {
  return read_texture(m_state->frame.Get());
}

Image Renderer::read_texture(ID3D11Texture2D* source) {
  // Memory row 0 is the bottom of the picture (GL's order); the Image starts at the top.
  return d3d11::read_texture(m_device, source, MemoryRows::BottomFirst);
}

Image read_texture(Device& device, ID3D11Texture2D* source, MemoryRows rows) {
  D3D11_TEXTURE2D_DESC desc = readable_staging_desc<D3D11_TEXTURE2D_DESC>(source);
  desc.MiscFlags = 0;
  ComPtr<ID3D11Texture2D> staging;
  LAB_D3D_CHECK(device.device->CreateTexture2D(&desc, nullptr, &staging));
  device.context->CopyResource(staging.Get(), source);
  D3D11_MAPPED_SUBRESOURCE mapped{};
  LAB_D3D_CHECK(device.context->Map(staging.Get(), 0, D3D11_MAP_READ, 0, &mapped));
  Image image;
  image.width = static_cast<int>(desc.Width);
  image.height = static_cast<int>(desc.Height);
  image.rgba.resize(static_cast<size_t>(image.width) * image.height * 4);
  const size_t row_bytes = static_cast<size_t>(image.width) * 4;
  for (int row = 0; row < image.height; ++row) {
    const int image_row = rows == MemoryRows::BottomFirst ? image.height - 1 - row : row;
    std::memcpy(&image.rgba[static_cast<size_t>(image_row) * row_bytes], mapped_row(mapped, row), row_bytes);
  }
  device.context->Unmap(staging.Get(), 0);
  return image;
}

}  // namespace lab::d3d11
