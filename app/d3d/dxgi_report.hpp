// app/d3d/dxgi_report.hpp — the doctor's Direct3D/DXGI section, computed from facts alone: which DXGI adapter
// each CUDA device is (matched by LUID, never by ordinal or name), what a CUDA device in TCC mode or one
// that no adapter lists means for interop, and the section's lines with verdicts and remedies. Needs no
// Windows, Direct3D or CUDA header: app/d3d/doctor_dxgi.cpp gathers the adapters' facts on Windows, the
// caller the CUDA devices' (cudaGetDeviceProperties), and tests/unit feeds hand-built facts on Linux.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace lab {

using Luid = std::array<unsigned char, 8>;  // a LUID's 8 bytes as cudaDeviceProp::luid holds them

// One CUDA device, as cudaGetDeviceProperties describes it.
struct CudaDeviceFacts {
  int ordinal = -1;
  std::string name;
  Luid luid{};             // cudaDeviceProp::luid; undefined in TCC mode, so never matched there
  unsigned node_mask = 0;  // cudaDeviceProp::luidDeviceNodeMask: the node of a linked adapter
  bool tcc = false;        // cudaDeviceProp::tccDriver
  std::string pci_bus_id;  // "0000:3B:00.0" (cudaDeviceGetPCIBusId), for nvidia-smi -i; "" unknown
};

// One DXGI adapter (IDXGIFactory1::EnumAdapters1) and what Direct3D creates on it.
struct DxgiAdapterFacts {
  std::string description;  // DXGI_ADAPTER_DESC1::Description, ASCII
  unsigned vendor_id = 0;
  unsigned device_id = 0;
  Luid luid{};
  unsigned long long dedicated_video_memory = 0;  // bytes
  bool software = false;             // DXGI_ADAPTER_FLAG_SOFTWARE, or Microsoft's Basic Render Driver (WARP)
  unsigned d3d11_feature_level = 0;  // D3D_FEATURE_LEVEL (0xb000 = 11_0); 0: D3D11CreateDevice failed
  std::string d3d11_error;           // why, when it failed
  bool d3d12 = false;                // D3D12CreateDevice(adapter, 11_0) succeeds
  std::string d3d12_error;           // why not
};

struct DxgiFacts {
  std::vector<DxgiAdapterFacts> adapters;
  std::string error;  // why no adapter could be listed (CreateDXGIFactory1 failed); "" when they were
  // Wine's version (ntdll's wine_get_version) when this runs under Wine, else "": its adapters are
  // stand-ins (a made-up GPU and LUID over the host's GL or Vulkan driver), never flagged as software.
  std::string wine_version;
};

inline constexpr const char* kDxgiSectionTitle = "Direct3D / DXGI";

struct DxgiLine {
  std::string key;
  std::string value;
};

// What the facts mean.
struct DxgiReport {
  // For each adapter (same order as DxgiFacts::adapters): the CUDA devices with its LUID (several: the
  // nodes of a linked adapter).
  std::vector<std::vector<int>> adapter_cuda_devices;
  std::vector<int> tcc_devices;       // CUDA devices in TCC mode: no graphics interop at all
  std::vector<int> unlisted_devices;  // not TCC, but no adapter has their LUID (MCDM, another session)
  int interop_device = -1;            // the first CUDA device Direct3D interop can use; -1: none
  int interop_adapter = -1;           // its adapter
  std::string reason;                 // why Direct3D interop is unavailable, with a remedy; "" when usable
  std::vector<DxgiLine> lines;        // the doctor's section, verdict last
};

DxgiReport dxgi_report(const DxgiFacts& dxgi, const std::vector<CudaDeviceFacts>& cuda);

// 0xb000 -> "11_0", 0xc100 -> "12_1" (D3D_FEATURE_LEVEL's major and minor nibbles).
std::string feature_level_text(unsigned feature_level);
// "0x0000000000012345": the LUID as a 64-bit number (HighPart, then LowPart), as Windows tools print it.
std::string luid_hex(const Luid& luid);
// The lines as the doctor prints a section: its title, then "  key  value" aligned on the longest key.
std::vector<std::string> format_dxgi_section(const std::vector<DxgiLine>& lines);

}  // namespace lab
