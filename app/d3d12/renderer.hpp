// app/d3d12/renderer.hpp — the Direct3D 12 backend's drawing: a device on the adapter of the CUDA device
// (by LUID), the resources a scene's kernels use (committed resources created from ResourceDesc), an
// offscreen frame target (RGBA8 colour + depth), the scene draws of app/scene/scene_compute.hpp, and host <->
// resource copies for the copying modes. The same shape as app/d3d11/renderer.hpp, whose HLSL it shares
// (assets/shaders/hlsl; the constants are root constants here) and whose conventions it keeps: memory
// rows are GL's (the shaders negate clip y; GL's counter-clockwise front faces are clockwise here), only
// read_frame() flips, and a ShowImage plan's image is the frame headless.
//
// Each call records one command list and waits for it on the queue's fence before returning: simple and
// enough for the cpu mode and the tests. The external mode adds shared committed resources and a shared
// fence that CUDA imports (interop/external.hpp), and orders CUDA's work with signal() and wait().
//
// Needs d3d12, dxgi and d3dcompiler_47 (Windows 10 or later; Wine runs it through vkd3d on Vulkan).
#pragma once

#include "app/d3d/dxgi.hpp"
#include "app/d3d/renderer_base.hpp"
#include "app/image/image_io.hpp"
#include "app/scene/scene_compute.hpp"

// mingw-w64's d3d12.h calls the methods that return a structure (GetDesc, Get*DescriptorHandleForHeapStart)
// with GCC's convention for returning it unless this is defined, and d3d12.dll (Windows' or Wine's)
// implements Microsoft's: a descriptor handle then comes back as garbage. MSVC's headers ignore it.
#ifndef WIDL_EXPLICIT_AGGREGATE_RETURNS
#define WIDL_EXPLICIT_AGGREGATE_RETURNS
#endif
#include <d3d12.h>
#include <dxgi1_4.h>
#include <wrl/client.h>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lab::d3d12 {

using Microsoft::WRL::ComPtr;

struct DeviceDesc {
  // The adapter whose LUID this is (cudaDeviceProp::luid); unset: the default adapter, else WARP.
  std::optional<std::array<unsigned char, 8>> adapter_luid;
};

struct Device {
  ComPtr<ID3D12Device> device;
  ComPtr<ID3D12CommandQueue> queue;  // direct
  std::string adapter;               // "NVIDIA H200 (LUID 0x...)", "WARP"
};

// Throws std::runtime_error naming the adapters seen when no adapter has the LUID, or what failed.
Device create_device(const DeviceDesc& desc);

// One resource of the scene: a committed resource in the default heap; textures R8G8B8A8_UNORM that can
// be render targets and unordered-access views (what CUDA's external memory import maps as a surface).
struct Resource {
  ResourceDesc desc;
  ComPtr<ID3D12Resource> resource;
  D3D12_RESOURCE_STATES state = D3D12_RESOURCE_STATE_COMMON;  // as the renderer last left it
  // D3D12_HEAP_FLAG_SHARED, for another API to open through export_handle(); textures also
  // D3D12_RESOURCE_FLAG_ALLOW_SIMULTANEOUS_ACCESS, so that they decay to the common state after each
  // command list, as buffers do, and keep no compressed layout that the other API would not know.
  bool shared = false;
};

// device(), PassSync and no copies: app/d3d/renderer_base.hpp, as for Direct3D 11.
class Renderer : public d3d::RendererBase<Device> {
 public:
  Renderer(Device& device, Extent extent);  // the device outlives the renderer
  ~Renderer();                              // waits for the queue first

  Extent extent() const;
  void resize(Extent extent);

  void create_resources(const std::vector<ResourceDesc>& descs, bool shared = false);
  void destroy_resources();
  const std::vector<Resource>& resources() const;
  // A new NT handle to a shared object of the device: a resource created shared, or a fence created with
  // D3D12_FENCE_FLAG_SHARED (ID3D12Device::CreateSharedHandle, GENERIC_ALL).
  d3d::SharedHandle export_handle(ID3D12DeviceChild* object);

  // The queue signals `fence` with `value` once the work submitted so far is done, and hands the shared
  // resources over in the common state; the next work waits until `fence` reaches `value`. Another API
  // (CUDA, through the fence it imported) waits for and signals the values in between.
  void signal(ID3D12Fence* fence, uint64_t value);
  void wait(ID3D12Fence* fence, uint64_t value);

  void upload(int index, const void* data);  // desc.bytes, rows tightly packed, row 0 first
  void download(int index, void* data);

  void draw_cubes(int target, const CubesView& view, const PassSync& sync = {});
  void draw_frame(const DrawPlan& plan, const glm::mat4& view_projection, const PassSync& sync = {});
  void draw_image(int index);  // ShowImage's: the image copied into the frame target (same size)

  Image read_frame(const DrawPlan& plan);  // top row first
  // Returns once the queue has done everything submitted so far (each call already waits for its own work;
  // this also covers what CUDA signalled since, through the fences).
  void wait_idle();
  Image read_target();

  // A window's present (app/d3d12/presenter.cpp): the frame target copied upright into `target`, a swap
  // chain's back buffer of the same size and format in `state` (and left in it). Row by row: the frame keeps
  // GL's rows, a copy cannot flip, and a textured draw reads zeros under Wine's vkd3d (see draw_image).
  void copy_frame_upright(ID3D12Resource* target, D3D12_RESOURCE_STATES state);
  // `target` (a back buffer in `state`, left in it) read back as it is: row 0 is the window's top row.
  Image read_window_buffer(ID3D12Resource* target, D3D12_RESOURCE_STATES state);

 private:
  struct State;
  std::unique_ptr<State> m_state;
};

}  // namespace lab::d3d12
