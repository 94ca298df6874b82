// tests/windows/d3d_device_check.cpp — the Direct3D 11 and 12 device choice (app/d3d11, app/d3d12) and
// the D3D11 registrations (interop/d3d11) on real Direct3D runtimes: Wine's under scripts/windows-cross.sh,
// or Windows. CUDA-free (tests/windows/cuda_free.cpp answers as a machine without a CUDA device), so it
// checks everything up to the CUDA call: the adapter picked by LUID, the facts read from live resources, the
// validation that refuses before CUDA, and that an accepted resource reaches
// cudaGraphicsD3D11RegisterResource and its failure comes back as interop::Error; and the Direct3D half of
// the external modes: resources created shared (D3D11 keyed mutexes, D3D12 shared committed resources),
// a shared D3D12 fence, and their NT handles, which CUDA would import. One line per check ("skip" where
// this Direct3D lacks a piece, with what it answered); exit 1 when any fails.
#include "app/d3d11/renderer.hpp"
#include "app/d3d12/renderer.hpp"
#include "app/scene/scene_compute.hpp"
#include "interop/d3d11.hpp"
#include "interop/error.hpp"

#include <dxgi1_2.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

namespace interop::detail {
std::atomic<int>& registration_counter();  // what interop::live_registrations() reads
}

namespace {

int g_failures = 0;

void check(bool ok, const std::string& what, const std::string& detail = "") {
  std::printf("%s %s%s%s\n", ok ? "ok  " : "FAIL", what.c_str(), detail.empty() ? "" : ": ", detail.c_str());
  if (!ok) ++g_failures;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The first DXGI adapter's LUID, as cudaDeviceProp::luid would give it.
std::array<unsigned char, 8> first_adapter_luid() {
  lab::d3d11::ComPtr<IDXGIFactory1> factory;
  lab::d3d11::ComPtr<IDXGIAdapter1> adapter;
  DXGI_ADAPTER_DESC1 desc{};
  std::array<unsigned char, 8> luid{};
  if (SUCCEEDED(CreateDXGIFactory1(IID_PPV_ARGS(&factory))) &&
      SUCCEEDED(factory->EnumAdapters1(0, &adapter)) && SUCCEEDED(adapter->GetDesc1(&desc)))
    std::memcpy(luid.data(), &desc.AdapterLuid, luid.size());
  return luid;
}

// The same three cases for either backend's create_device.
template <class Device, class DeviceDesc>
void check_device_choice(const char* api, Device (*create_device)(const DeviceDesc&)) {
  const std::string prefix = std::string(api) + ": ";
  Device default_device;
  try {
    default_device = create_device({});
  } catch (const std::exception& error) {
    // The machine's lack, not this code's (Wine's D3D12 needs a Vulkan driver): said, and skipped.
    std::printf("skip %sno device here, so its adapter choice is not checked: %s\n", prefix.c_str(),
                error.what());
    return;
  }
  check(default_device.device != nullptr, prefix + "a device on the default adapter", default_device.adapter);

  DeviceDesc by_luid;
  by_luid.adapter_luid = first_adapter_luid();
  const Device chosen = create_device(by_luid);
  check(chosen.device != nullptr && chosen.adapter == default_device.adapter,
        prefix + "the adapter with a given LUID (the CUDA device's, on a GPU machine)", chosen.adapter);

  DeviceDesc unknown;
  unknown.adapter_luid = std::array<unsigned char, 8>{0xde, 0xad, 0xbe, 0xef, 0x7f, 0x00, 0x00, 0x00};
  std::string message;
  try {
    create_device(unknown);
  } catch (const std::exception& error) {
    message = error.what();
  }
  check(contains(message, "no DXGI adapter has the CUDA device's LUID") &&
            contains(message, default_device.adapter),
        prefix + "a LUID no adapter has is refused, naming the adapters seen", message);
}

void check_registrations() {
  lab::d3d11::Device device = lab::d3d11::create_device({});
  lab::d3d11::Renderer renderer(device, {64, 32});
  const lab::Extent extent{64, 32};
  // Every resource the three scenes give the D3D11 backend, as the interop mode would register it.
  for (const lab::SceneId scene : {lab::SceneId::Wave, lab::SceneId::Pattern, lab::SceneId::Postprocess}) {
    renderer.create_resources(lab::create_scene_compute(scene, kernels::Filter::Sobel)->resources(extent));
    for (const lab::d3d11::Resource& resource : renderer.resources()) {
      const bool output = resource.desc.role == lab::ResourceRole::Output;
      interop::D3d11RegistrationUse use;
      use.access = output ? interop::Access::WriteDiscard : interop::Access::ReadOnly;
      use.surface_load_store = output && resource.desc.kind == lab::ResourceKind::Texture2D;
      const std::string problem = interop::validate(interop::facts_of(resource.get()), use);
      check(problem.empty(), std::string("CUDA can register the renderer's ") + resource.desc.label, problem);
    }
  }

  // An accepted texture reaches cudaGraphicsD3D11RegisterResource; its failure is an interop::Error.
  interop::D3d11TextureRegistrationDesc accepted;
  accepted.texture = renderer.resources().back().get();
  accepted.use.access = interop::Access::WriteDiscard;
  accepted.use.surface_load_store = true;
  std::string reached;
  try {
    interop::D3d11TextureRegistration registration(accepted);
  } catch (const interop::Error& error) {
    reached =
        error.cuda_error() == cudaErrorNoDevice ? error.call() : std::string("wrong error: ") + error.what();
  }
  check(contains(reached, "cudaGraphicsD3D11RegisterResource"),
        "a valid texture is registered (here CUDA answers: no device)", reached);
  check(interop::detail::registration_counter().load() == 0, "a failed registration is not counted as live");

  // A depth texture, read from the live object, is refused before CUDA with the fix.
  D3D11_TEXTURE2D_DESC depth_desc{};
  depth_desc.Width = 64;
  depth_desc.Height = 32;
  depth_desc.MipLevels = 1;
  depth_desc.ArraySize = 1;
  depth_desc.Format = DXGI_FORMAT_D24_UNORM_S8_UINT;
  depth_desc.SampleDesc.Count = 1;
  depth_desc.BindFlags = D3D11_BIND_DEPTH_STENCIL;
  lab::d3d11::ComPtr<ID3D11Texture2D> depth;
  check(SUCCEEDED(device.device->CreateTexture2D(&depth_desc, nullptr, &depth)),
        "a depth texture is created");
  interop::D3d11TextureRegistrationDesc refused;
  refused.texture = depth.Get();
  std::string refusal;
  try {
    interop::D3d11TextureRegistration registration(refused);
  } catch (const interop::Error& error) {
    refusal = error.source() == interop::ErrorSource::Desc
                  ? error.what()
                  : std::string("not refused first: ") + error.what();
  }
  check(contains(refusal, "D3D11_BIND_DEPTH_STENCIL"), "a depth texture is refused before CUDA, with the fix",
        refusal);
}

void skip(const std::string& what, const std::string& why) {
  std::printf("skip %s: %s\n", what.c_str(), why.c_str());
}

// The resources of the wave scene (a buffer) and the postprocess scene (an input and an output texture).
std::vector<lab::ResourceDesc> buffer_and_texture_descs(lab::Extent extent) {
  std::vector<lab::ResourceDesc> descs =
      lab::create_scene_compute(lab::SceneId::Wave, kernels::Filter::Sobel)->resources(extent);
  for (const lab::ResourceDesc& desc :
       lab::create_scene_compute(lab::SceneId::Postprocess, kernels::Filter::Sobel)->resources(extent))
    descs.push_back(desc);
  return descs;
}

// Bytes that differ from one resource to the next, for upload / download round trips.
std::vector<uint8_t> pattern(size_t bytes, int seed) {
  std::vector<uint8_t> data(bytes);
  for (size_t i = 0; i < bytes; ++i)
    data[i] = static_cast<uint8_t>((i * 7 + static_cast<size_t>(seed) * 13) & 0xff);
  return data;
}

// Either renderer's scene resources created shared at 64x32; false (said, skipped) where this Direct3D
// refuses them.
template <class Renderer>
bool create_shared_resources(Renderer& renderer, const std::string& what) {
  try {
    renderer.create_resources(buffer_and_texture_descs({64, 32}), true);
    return true;
  } catch (const std::exception& error) {
    skip(what, error.what());
    return false;
  }
}

// Either renderer's upload and download of resources()[index] give back what went in.
template <class Renderer>
void check_round_trip(Renderer& renderer, int index, const std::string& name) {
  const size_t bytes = renderer.resources()[static_cast<size_t>(index)].desc.bytes;
  const std::vector<uint8_t> data = pattern(bytes, index);
  std::vector<uint8_t> back(bytes);
  renderer.upload(index, data.data());
  renderer.download(index, back.data());
  check(back == data, name + ": the renderer's upload and download work on it");
}

// D3D11: each resource shared with a keyed mutex (the external mode's), its NT handle, and the renderer's
// copies while this device holds the mutex, as the mode makes it.
void check_shared_d3d11() {
  lab::d3d11::Device device = lab::d3d11::create_device({});
  lab::d3d11::Renderer renderer(device, {64, 32});
  if (!create_shared_resources(renderer, "d3d11: shared resources with keyed mutexes (the external mode's)"))
    return;
  const std::vector<lab::d3d11::Resource>& resources = renderer.resources();
  for (size_t i = 0; i < resources.size(); ++i) {
    const lab::d3d11::Resource& resource = resources[i];
    const std::string name = std::string("d3d11: the shared ") + resource.desc.label;
    UINT misc = 0;
    if (resource.buffer) {
      D3D11_BUFFER_DESC desc{};
      resource.buffer->GetDesc(&desc);
      misc = desc.MiscFlags;
    } else {
      D3D11_TEXTURE2D_DESC desc{};
      resource.texture->GetDesc(&desc);
      misc = desc.MiscFlags;
    }
    check(resource.shared && (misc & D3D11_RESOURCE_MISC_SHARED_NTHANDLE) != 0 &&
              (misc & D3D11_RESOURCE_MISC_SHARED_KEYEDMUTEX) != 0,
          name + " is created with D3D11_RESOURCE_MISC_SHARED_NTHANDLE | SHARED_KEYEDMUTEX");
    // Where the keyed mutex exists, the copies run while this device holds it, as in the mode.
    lab::d3d11::ComPtr<IDXGIKeyedMutex> mutex;
    if (const HRESULT queried = resource.get()->QueryInterface(IID_PPV_ARGS(&mutex)); FAILED(queried)) {
      skip(name + "'s keyed mutex",
           "QueryInterface(IDXGIKeyedMutex): HRESULT " + lab::d3d::hresult_text(queried));
      mutex.Reset();
    } else {
      // Created unowned with key 0: what the mode's first AcquireSync(0) relies on.
      const HRESULT acquired = mutex->AcquireSync(0, 0);
      check(acquired == S_OK, name + ": this device acquires its keyed mutex with key 0",
            lab::d3d::hresult_text(acquired));
    }
    check_round_trip(renderer, static_cast<int>(i), name);
    if (mutex) {
      const HRESULT released = mutex->ReleaseSync(1);
      check(released == S_OK, name + ": released with key 1 (CUDA's key in the mode)",
            lab::d3d::hresult_text(released));
    }
    try {
      const lab::d3d::SharedHandle handle = renderer.export_handle(static_cast<int>(i));
      check(handle.get() != nullptr, name + " exports an NT handle (IDXGIResource1::CreateSharedHandle)");
    } catch (const std::exception& error) {
      skip(name + "'s NT handle (what CUDA imports)", error.what());
    }
  }

  renderer.create_resources(buffer_and_texture_descs({64, 32}));
  std::string refusal;
  try {
    renderer.export_handle(0);
  } catch (const std::logic_error& error) {
    refusal = error.what();
  }
  check(contains(refusal, "create_resources(descs, true)"),
        "d3d11: an unshared resource has no handle, with the fix", refusal);
}

// D3D12: shared committed resources (the external mode's), their allocation sizes and NT handles, a shared
// fence with its handle, and the queue's signal / wait around the renderer's own work.
void check_shared_d3d12() {
  lab::d3d12::Device device;
  try {
    device = lab::d3d12::create_device({});
  } catch (const std::exception& error) {
    skip("d3d12: no device here, so its shared resources are not checked", error.what());
    return;
  }
  lab::d3d12::Renderer renderer(device, {64, 32});
  if (!create_shared_resources(renderer, "d3d12: shared committed resources (the external mode's)")) return;
  const std::vector<lab::d3d12::Resource>& resources = renderer.resources();
  for (size_t i = 0; i < resources.size(); ++i) {
    const lab::d3d12::Resource& resource = resources[i];
    const std::string name = std::string("d3d12: the shared ") + resource.desc.label;
    D3D12_HEAP_PROPERTIES heap{};
    D3D12_HEAP_FLAGS heap_flags{};
    check(resource.shared && SUCCEEDED(resource.resource->GetHeapProperties(&heap, &heap_flags)) &&
              (heap_flags & D3D12_HEAP_FLAG_SHARED) != 0,
          name + " is a committed resource in a D3D12_HEAP_FLAG_SHARED heap");
    const D3D12_RESOURCE_DESC desc = resource.resource->GetDesc();
    const D3D12_RESOURCE_ALLOCATION_INFO allocation = device.device->GetResourceAllocationInfo(0, 1, &desc);
    check(allocation.SizeInBytes >= resource.desc.bytes,
          name + "'s allocation holds its data (the size CUDA's import is given)",
          std::to_string(allocation.SizeInBytes) + " bytes for " + std::to_string(resource.desc.bytes));
    check_round_trip(renderer, static_cast<int>(i), name);
    try {
      const lab::d3d::SharedHandle handle = renderer.export_handle(resource.resource.Get());
      check(handle.get() != nullptr, name + " exports an NT handle (ID3D12Device::CreateSharedHandle)");
    } catch (const std::exception& error) {
      skip(name + "'s NT handle (what CUDA imports)", error.what());
    }
  }

  lab::d3d12::ComPtr<ID3D12Fence> fence;
  const HRESULT created = device.device->CreateFence(0, D3D12_FENCE_FLAG_SHARED, IID_PPV_ARGS(&fence));
  if (FAILED(created)) {
    skip("d3d12: a shared fence (D3D12_FENCE_FLAG_SHARED, what CUDA imports)",
         "CreateFence: HRESULT " + lab::d3d::hresult_text(created));
    return;
  }
  try {
    const lab::d3d::SharedHandle handle = renderer.export_handle(fence.Get());
    check(handle.get() != nullptr, "d3d12: the shared fence exports an NT handle");
  } catch (const std::exception& error) {
    skip("d3d12: the shared fence's NT handle (what CUDA imports)", error.what());
  }
  // The frame's hand-over without CUDA: the queue signals 1 and waits for 1 (CUDA's values in the mode
  // come in between), then the renderer's next call runs behind the wait and hands back the common state.
  renderer.signal(fence.Get(), 1);
  renderer.wait(fence.Get(), 1);
  bool common = true;
  for (const lab::d3d12::Resource& resource : renderer.resources())
    common = common && resource.state == D3D12_RESOURCE_STATE_COMMON;
  check(common, "d3d12: signal() hands the shared resources over in the common state");
  std::vector<uint8_t> back(resources.back().desc.bytes);
  renderer.download(static_cast<int>(resources.size() - 1), back.data());
  check(
      fence->GetCompletedValue() >= 1 && back == pattern(back.size(), static_cast<int>(resources.size() - 1)),
      "d3d12: work queued after the fence's wait runs and finds the resource as it was");
}

}  // namespace

int main() {
  try {
    check_device_choice("d3d11", lab::d3d11::create_device);
    check_device_choice("d3d12", lab::d3d12::create_device);
    check_registrations();
    check_shared_d3d11();
    check_shared_d3d12();
  } catch (const std::exception& error) {
    check(false, "no unexpected failure", error.what());
  }
  std::printf("d3d_device_check: %s (%d failed)\n", g_failures == 0 ? "passed" : "FAILED", g_failures);
  return g_failures == 0 ? 0 : 1;
}
