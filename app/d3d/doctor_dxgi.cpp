// app/d3d/doctor_dxgi.cpp — gathers the DXGI adapters' facts for the doctor (doctor_dxgi.hpp): DXGI for
// the list, D3D11CreateDevice and D3D12CreateDevice without an output device as capability checks. Needs
// dxgi, d3d11 and d3d12 (Windows 10 or later; under Wine, D3D12 goes through vkd3d and needs Vulkan).
#include "app/d3d/doctor_dxgi.hpp"

#include "app/d3d/dxgi.hpp"

#include <d3d11.h>
// As app/d3d12/renderer.hpp includes it, so every file sees the same d3d12.h.
#ifndef WIDL_EXPLICIT_AGGREGATE_RETURNS
#define WIDL_EXPLICIT_AGGREGATE_RETURNS
#endif
#include <d3d12.h>

#include <cstring>
#include <iterator>
#include <string>
#include <utility>

namespace lab::d3d {
namespace {

using Microsoft::WRL::ComPtr;

constexpr unsigned kMicrosoftVendor = 0x1414, kBasicRenderDriver = 0x8c;  // WARP's PCI ids

// The highest feature level D3D11CreateDevice gives on `adapter`, or 0 with `error` saying why.
unsigned d3d11_feature_level(IDXGIAdapter1* adapter, std::string& error) {
  const D3D_FEATURE_LEVEL levels[] = {D3D_FEATURE_LEVEL_12_1, D3D_FEATURE_LEVEL_12_0, D3D_FEATURE_LEVEL_11_1,
                                      D3D_FEATURE_LEVEL_11_0, D3D_FEATURE_LEVEL_10_1, D3D_FEATURE_LEVEL_10_0,
                                      D3D_FEATURE_LEVEL_9_3,  D3D_FEATURE_LEVEL_9_2,  D3D_FEATURE_LEVEL_9_1};
  D3D_FEATURE_LEVEL level{};
  // No device out: the runtime only says which level it would create.
  HRESULT result =
      D3D11CreateDevice(adapter, D3D_DRIVER_TYPE_UNKNOWN, nullptr, 0, levels,
                        static_cast<UINT>(std::size(levels)), D3D11_SDK_VERSION, nullptr, &level, nullptr);
  if (result == E_INVALIDARG) {
    // A runtime older than 12_0 (or 11_1) refuses a list that names it: ask again from 11_0 down.
    const D3D_FEATURE_LEVEL* from_11_0 = levels + 3;
    result = D3D11CreateDevice(adapter, D3D_DRIVER_TYPE_UNKNOWN, nullptr, 0, from_11_0,
                               static_cast<UINT>(std::size(levels) - 3), D3D11_SDK_VERSION, nullptr, &level,
                               nullptr);
  }
  if (FAILED(result)) {
    error = "D3D11CreateDevice failed: HRESULT " + hresult_text(result);
    return 0;
  }
  return static_cast<unsigned>(level);
}

// "Wine 8.0" when this process runs under Wine (its ntdll exports wine_get_version), else "".
std::string wine_version() {
  const HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
  const FARPROC proc = ntdll ? GetProcAddress(ntdll, "wine_get_version") : nullptr;
  if (!proc) return "";
  // Through void (*)(), the type GCC lets any function pointer become without -Wcast-function-type.
  using WineGetVersion = const char*(__cdecl*)();
  const char* version = reinterpret_cast<WineGetVersion>(reinterpret_cast<void (*)()>(proc))();
  return std::string("Wine ") + (version ? version : "(version unknown)");
}

}  // namespace

DxgiFacts gather_dxgi_facts() {
  DxgiFacts facts;
  facts.wine_version = wine_version();
  ComPtr<IDXGIFactory1> factory;
  if (const HRESULT result = CreateDXGIFactory1(IID_PPV_ARGS(&factory)); FAILED(result)) {
    facts.error = "CreateDXGIFactory1 failed: HRESULT " + hresult_text(result);
    return facts;
  }
  for (UINT index = 0;; ++index) {
    ComPtr<IDXGIAdapter1> adapter;
    HRESULT result = factory->EnumAdapters1(index, &adapter);
    if (result == DXGI_ERROR_NOT_FOUND) break;
    DXGI_ADAPTER_DESC1 desc{};
    if (SUCCEEDED(result)) result = adapter->GetDesc1(&desc);
    if (FAILED(result)) {
      facts.error = "adapter " + std::to_string(index) +
                    " (IDXGIFactory1::EnumAdapters1, GetDesc1): HRESULT " + hresult_text(result);
      break;
    }
    DxgiAdapterFacts adapter_facts;
    adapter_facts.description = narrow(desc.Description);
    adapter_facts.vendor_id = desc.VendorId;
    adapter_facts.device_id = desc.DeviceId;
    static_assert(sizeof desc.AdapterLuid == sizeof adapter_facts.luid, "a LUID is 8 bytes");
    std::memcpy(adapter_facts.luid.data(), &desc.AdapterLuid, adapter_facts.luid.size());
    adapter_facts.dedicated_video_memory = desc.DedicatedVideoMemory;
    adapter_facts.software = (desc.Flags & DXGI_ADAPTER_FLAG_SOFTWARE) != 0 ||
                             (desc.VendorId == kMicrosoftVendor && desc.DeviceId == kBasicRenderDriver);
    adapter_facts.d3d11_feature_level = d3d11_feature_level(adapter.Get(), adapter_facts.d3d11_error);
    // A null device pointer makes D3D12CreateDevice a capability check (S_FALSE when it would succeed).
    const HRESULT d3d12 =
        D3D12CreateDevice(adapter.Get(), D3D_FEATURE_LEVEL_11_0, __uuidof(ID3D12Device), nullptr);
    adapter_facts.d3d12 = SUCCEEDED(d3d12);
    if (FAILED(d3d12)) adapter_facts.d3d12_error = "D3D12CreateDevice failed: HRESULT " + hresult_text(d3d12);
    facts.adapters.push_back(std::move(adapter_facts));
  }
  return facts;
}

DxgiReport dxgi_doctor_report(const std::vector<CudaDeviceFacts>& cuda) {
  return dxgi_report(gather_dxgi_facts(), cuda);
}

std::vector<std::string> dxgi_doctor_lines(const std::vector<CudaDeviceFacts>& cuda) {
  return format_dxgi_section(dxgi_doctor_report(cuda).lines);
}

}  // namespace lab::d3d
