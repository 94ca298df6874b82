// tests/windows/dxgi_doctor_check.cpp — the doctor's Direct3D/DXGI section (app/d3d11/doctor_dxgi) on a
// real DXGI: Wine's under scripts/windows-cross.sh, or Windows. CUDA-free: it prints the section for no
// CUDA device, then checks the gathered facts against DXGI and Direct3D asked another way (the LUID as
// DXGI_ADAPTER_DESC1 gives it, the feature level of a device actually created) and runs the LUID matching
// on the live LUIDs with a CUDA device described by hand. With --under-wine (scripts/windows-cross.sh knows
// it runs Wine) it also checks that the section says the adapters are Wine's stand-ins. One line per check;
// exit 0 when all pass, 1 when any fails, 77 when DXGI lists no adapter (the reason is printed).
#include "app/d3d/doctor_dxgi.hpp"
#include "app/d3d/dxgi.hpp"

#include <d3d11.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using Microsoft::WRL::ComPtr;

struct Checks {
  int failures = 0;
  void check(bool ok, const std::string& what, const std::string& detail = "") {
    std::printf("%s %s%s%s\n", ok ? "ok  " : "FAIL", what.c_str(), detail.empty() ? "" : ": ",
                detail.c_str());
    if (!ok) ++failures;
  }
};

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Adapter `index` as DXGI describes it, read here rather than through the code under test.
bool adapter_desc(UINT index, DXGI_ADAPTER_DESC1& desc, ComPtr<IDXGIAdapter1>& adapter) {
  ComPtr<IDXGIFactory1> factory;
  return SUCCEEDED(CreateDXGIFactory1(IID_PPV_ARGS(&factory))) &&
         SUCCEEDED(factory->EnumAdapters1(index, &adapter)) && SUCCEEDED(adapter->GetDesc1(&desc));
}

// The feature level of a D3D11 device created on `adapter` (the same list, kept this time); 0 when none.
unsigned created_feature_level(IDXGIAdapter1* adapter) {
  const D3D_FEATURE_LEVEL levels[] = {D3D_FEATURE_LEVEL_11_1, D3D_FEATURE_LEVEL_11_0, D3D_FEATURE_LEVEL_10_1,
                                      D3D_FEATURE_LEVEL_10_0, D3D_FEATURE_LEVEL_9_3,  D3D_FEATURE_LEVEL_9_2,
                                      D3D_FEATURE_LEVEL_9_1};
  ComPtr<ID3D11Device> device;
  if (FAILED(D3D11CreateDevice(adapter, D3D_DRIVER_TYPE_UNKNOWN, nullptr, 0, levels, 7, D3D11_SDK_VERSION,
                               &device, nullptr, nullptr)))
    return 0;
  return static_cast<unsigned>(device->GetFeatureLevel());
}

}  // namespace

int main(int argc, char** argv) {
  const bool under_wine = argc > 1 && std::strcmp(argv[1], "--under-wine") == 0;
  const lab::DxgiFacts facts = lab::d3d::gather_dxgi_facts();
  // What `interop-lab --doctor` prints on this machine, had it no CUDA device.
  for (const std::string& line : lab::format_dxgi_section(lab::dxgi_report(facts, {}).lines))
    std::printf("%s\n", line.c_str());
  std::printf("\n");
  if (facts.adapters.empty()) {
    std::printf("SKIP DXGI lists no adapter here: %s\n",
                facts.error.empty() ? "EnumAdapters1(0) found none" : facts.error.c_str());
    return 77;
  }

  Checks checks;
  checks.check(facts.error.empty(), "every adapter listed", facts.error);
  bool luid_and_level = false;
  for (size_t i = 0; i < facts.adapters.size(); ++i) {
    const lab::DxgiAdapterFacts& adapter = facts.adapters[i];
    const std::string name = "adapter " + std::to_string(i) + " (" + adapter.description + ")";
    luid_and_level = luid_and_level || (adapter.luid != lab::Luid{} && adapter.d3d11_feature_level != 0);
    DXGI_ADAPTER_DESC1 desc{};
    ComPtr<IDXGIAdapter1> live;
    if (!adapter_desc(static_cast<UINT>(i), desc, live)) {
      checks.check(false, name + ": DXGI lists it again");
      continue;
    }
    // The report's byte-wise LUID text against the LUID structure's own.
    checks.check(lab::luid_hex(adapter.luid) == lab::d3d::luid_text(desc.AdapterLuid),
                 name + ": LUID as DXGI gives it",
                 lab::luid_hex(adapter.luid) + " vs " + lab::d3d::luid_text(desc.AdapterLuid));
    // The capability check (no device out) against a device really created.
    const unsigned created = created_feature_level(live.Get());
    checks.check(created == 0 || adapter.d3d11_feature_level >= created,
                 name + ": D3D11 feature level " + lab::feature_level_text(adapter.d3d11_feature_level) +
                     " is at least a created device's",
                 created == 0 ? adapter.d3d11_error : lab::feature_level_text(created));
  }
  checks.check(luid_and_level, "some adapter has a LUID and a D3D11 feature level");
  if (under_wine)
    checks.check(!facts.wine_version.empty(), "Wine detected, so the section says its adapters are stand-ins",
                 facts.wine_version);

  // The matching on live LUIDs: a CUDA device described with adapter 0's LUID is that adapter, and one
  // with a LUID no adapter has is reported as unlisted.
  lab::CudaDeviceFacts matching;
  matching.ordinal = 0;
  matching.name = "a CUDA device on adapter 0";
  matching.luid = facts.adapters[0].luid;
  matching.node_mask = 1;
  lab::CudaDeviceFacts unlisted = matching;
  unlisted.ordinal = 1;
  unlisted.name = "a CUDA device no adapter lists";
  unlisted.luid = {0xde, 0xad, 0xbe, 0xef, 0x7f, 0x00, 0x00, 0x00};
  const lab::DxgiReport report = lab::dxgi_report(facts, {matching, unlisted});
  checks.check(report.adapter_cuda_devices[0] == std::vector<int>{0},
               "CUDA device with adapter 0's LUID is adapter 0");
  checks.check(report.unlisted_devices == std::vector<int>{1},
               "CUDA device with an unknown LUID is unlisted");
  const std::string verdict = report.lines.back().value;
  const bool direct3d = facts.adapters[0].d3d11_feature_level != 0 || facts.adapters[0].d3d12;
  if (direct3d)
    checks.check(
        report.interop_adapter == 0 && contains(verdict, "interop possible: CUDA device 0 on adapter 0"),
        "verdict names the matched device", verdict);
  else
    checks.check(report.interop_adapter == -1 && contains(verdict, "unavailable"),
                 "verdict: no interop on an adapter without a Direct3D device", verdict);
  std::printf("%s\n", checks.failures == 0 ? "dxgi_doctor_check: all passed" : "dxgi_doctor_check: FAILED");
  return checks.failures == 0 ? 0 : 1;
}
