// tests/windows/d3d_device_check.cpp — the Direct3D 11 and 12 device choice (app/d3d11, app/d3d12) and
// the D3D11 registrations (interop/d3d11) on real Direct3D runtimes: Wine's under scripts/windows-cross.sh,
// or Windows. CUDA-free (tests/windows/cuda_free.cpp answers as a machine without a CUDA device), so it
// checks everything up to the CUDA call: the adapter picked by LUID, the facts read from live resources, the
// validation that refuses before CUDA, and that an accepted resource reaches
// cudaGraphicsD3D11RegisterResource and its failure comes back as interop::Error. One line per check; exit 1
// when any fails.
#include "app/d3d11/renderer.hpp"
#include "app/d3d12/renderer.hpp"
#include "app/scene_compute.hpp"
#include "interop/d3d11.hpp"
#include "interop/error.hpp"

#include <dxgi1_2.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

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

}  // namespace

int main() {
  try {
    check_device_choice("d3d11", lab::d3d11::create_device);
    check_device_choice("d3d12", lab::d3d12::create_device);
    check_registrations();
  } catch (const std::exception& error) {
    check(false, "no unexpected failure", error.what());
  }
  std::printf("d3d_device_check: %s (%d failed)\n", g_failures == 0 ? "passed" : "FAILED", g_failures);
  return g_failures == 0 ? 0 : 1;
}
