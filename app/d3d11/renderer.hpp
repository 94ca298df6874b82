// app/d3d11/renderer.hpp — the Direct3D 11 backend's drawing: a device on the adapter of the CUDA device
// (by LUID), the resources a scene's kernels use (created from ResourceDesc, registrable with CUDA through
// interop/d3d11.hpp), an offscreen frame target (RGBA8 colour + depth), the scene draws of
// app/scene/scene_compute.hpp, and host <-> resource copies for the copying modes (cpu, staging). The same
// shape as app/vulkan/renderer.hpp; Direct3D 11 orders its own work, so passes take no semaphores.
//
// Conventions every backend keeps, so all APIs give the same picture and the same screenshot:
//   - rows: row 0 of every image is the BOTTOM of the picture, as in GL. Direct3D's viewport puts clip-space
//     y = +1 at row 0 (its origin is the top left), so the HLSL vertex shaders negate clip y: memory rows
//     then match GL's, a texture CUDA writes (row 0 at the bottom, kernels/image.hpp) is drawn and shown
//     the same in every API, and only read_frame() flips (it returns the top row first, like
//     App::read_frame). Flipping in the readback rather than in the data keeps every resource CUDA sees
//     identical across APIs, which is what makes the modes comparable. The flip mirrors the winding, so
//     meshes counter-clockwise in GL are clockwise on the render target here: FrontCounterClockwise =
//     FALSE with back faces culled. The shaders also remap GL's -w..w depth to Direct3D's 0..w.
//   - a scene whose DrawPlan is ShowImage has no draw headless: that image is the frame (read_frame reads
//     it), as in GL; draw_image is the draw a window needs.
//
// Needs d3d11, dxgi and d3dcompiler_47 (Windows; Wine has all three): the HLSL of assets/shaders/hlsl is
// compiled at run time with D3DCompile.
#pragma once

#include "app/d3d/dxgi.hpp"
#include "app/d3d/renderer_base.hpp"
#include "app/image/image_io.hpp"
#include "app/scene/scene_compute.hpp"

#include <d3d11.h>
#include <dxgi1_2.h>
#include <wrl/client.h>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lab::d3d11 {

using Microsoft::WRL::ComPtr;

struct DeviceDesc {
  // The adapter whose LUID this is (cudaDeviceProp::luid): interop needs the D3D11 device on the CUDA
  // device's GPU. Unset: the default adapter, or WARP (Direct3D on the CPU) where no hardware adapter
  // creates a device (a server without a display driver; Wine offers its own adapter).
  std::optional<std::array<unsigned char, 8>> adapter_luid;
  bool debug_layer = false;  // D3D11_CREATE_DEVICE_DEBUG: needs the Graphics Tools feature on Windows
};

// A D3D11 device and its immediate context. Move-only through its ComPtrs.
struct Device {
  ComPtr<ID3D11Device> device;
  ComPtr<ID3D11DeviceContext> context;
  std::string adapter;  // "NVIDIA H200 (LUID 0x0000000000012345)", "WARP", for the panel and messages
  D3D_FEATURE_LEVEL feature_level = D3D_FEATURE_LEVEL_11_0;
};

// Throws std::runtime_error naming the adapters seen when no adapter has the LUID, or what failed.
Device create_device(const DeviceDesc& desc);

// Which way a texture's memory rows run: the renderer's images keep GL's order (row 0 at the bottom), a
// swap chain's back buffer has row 0 at the top of the window.
enum class MemoryRows { BottomFirst, TopFirst };
// An RGBA8 texture read back through a staging copy (waits for it), as an Image with its top row first.
Image read_texture(Device& device, ID3D11Texture2D* texture, MemoryRows rows);

// One resource of the scene, as the renderer created it: buffers with D3D11_BIND_VERTEX_BUFFER (the wave
// mesh draws from it), textures DXGI_FORMAT_R8G8B8A8_UNORM bound as shader resource, render target and
// unordered access. D3D11_USAGE_DEFAULT and unshared, which is what cudaGraphicsD3D11RegisterResource
// accepts (interop/d3d11.hpp validates the same facts); or `shared` for the external mode.
struct Resource {
  ResourceDesc desc;
  ComPtr<ID3D11Buffer> buffer;
  ComPtr<ID3D11Texture2D> texture;
  // D3D11_RESOURCE_MISC_SHARED_NTHANDLE | D3D11_RESOURCE_MISC_SHARED_KEYEDMUTEX: another API opens it
  // through export_handle(), and this device may use it only while it holds its keyed mutex.
  bool shared = false;
  ID3D11Resource* get() const;  // the buffer or the texture, for registration and copies (borrowed)
};

// device(), PassSync and no copies: app/d3d/renderer_base.hpp, as for Direct3D 12.
class Renderer : public d3d::RendererBase<Device> {
 public:
  // Offscreen frame target of `extent` on `device` (the device outlives the renderer).
  Renderer(Device& device, Extent extent);
  ~Renderer();

  Extent extent() const;
  // Re-creates the frame target. Resources are the caller's to re-create.
  void resize(Extent extent);

  // The scene's resources, in the order of FrameSource::resources(); replaces the previous set. `shared`:
  // as Resource::shared says (what CUDA's external memory imports, with a keyed mutex).
  void create_resources(const std::vector<ResourceDesc>& descs, bool shared = false);
  void destroy_resources();
  const std::vector<Resource>& resources() const;
  // A new NT handle to resources()[index], which must be shared (IDXGIResource1::CreateSharedHandle, read
  // and write): what CUDA imports as the resource's memory and as its keyed mutex.
  d3d::SharedHandle export_handle(int index) const;

  // The copying modes: `data` (desc.bytes, rows tightly packed, row 0 first) into the resource.
  void upload(int index, const void* data);
  // resources()[index] into `data` (desc.bytes, the same layout), through a staging copy; waits for it.
  void download(int index, void* data);

  // The postprocess scene's 3D input: the cubes of `view` into texture resources()[target], cleared to
  // kCubesClearColor first, with a depth buffer of its own.
  void draw_cubes(int target, const CubesView& view, const PassSync& sync = {});
  // The frame: plan.draw == LitMesh draws the wave mesh from resources()[plan.mesh_resource] with
  // `view_projection` into the frame target (cleared to kClearColor); ShowImage draws nothing headless.
  void draw_frame(const DrawPlan& plan, const glm::mat4& view_projection, const PassSync& sync = {});

  // ShowImage's draw: texture resources()[index] into the frame target as it is, texel (x, y) on pixel
  // (x, y) (what a window shows; headless the image itself is the frame). Sizes must match.
  void draw_image(int index);

  // The frame drawn last, top row first: the frame target, or for a ShowImage plan its image.
  Image read_frame(const DrawPlan& plan);
  // Returns once the GPU has done everything the context was given so far (an event query).
  void wait_idle();
  // The frame target as drawn, top row first, whatever the plan.
  Image read_target();
  // The frame target's texture (RGBA8, GL's rows; shader resource), for a window to show (borrowed).
  ID3D11Texture2D* frame_texture() const;

 private:
  Image read_texture(ID3D11Texture2D* texture);

  struct State;
  std::unique_ptr<State> m_state;
};

}  // namespace lab::d3d11
