// app/d3d/dxgi_report.cpp — the doctor's Direct3D/DXGI section from facts (dxgi_report.hpp). OS-free: the
// same rules run in the Windows doctor and in the Linux unit tests.
#include "app/d3d/dxgi_report.hpp"

#include <algorithm>
#include <cstdio>

namespace lab {
namespace {

const char* vendor_name(unsigned vendor_id) {
  switch (vendor_id) {
    case 0x10DE:
      return "NVIDIA";
    case 0x1002:
      return "AMD";
    case 0x8086:
      return "Intel";
    case 0x1414:
      return "Microsoft";
    default:
      return nullptr;
  }
}

std::string hex4(unsigned value) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%04X", value);
  return text;
}

std::string memory_text(unsigned long long bytes) {
  char text[32];
  constexpr double mebibyte = 1024.0 * 1024.0;
  if (bytes >= 1024ull * 1024 * 1024)
    std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1024.0 * mebibyte));
  else
    std::snprintf(text, sizeof text, "%.0f MiB", static_cast<double>(bytes) / mebibyte);
  return text;
}

// nvidia-smi numbers GPUs its own way (PCI order), not as CUDA does (fastest first): the PCI bus id
// names the same GPU for both.
std::string wddm_command(const CudaDeviceFacts& device) {
  if (!device.pci_bus_id.empty()) return "nvidia-smi -i " + device.pci_bus_id + " -dm 0";
  return "nvidia-smi -i N -dm 0, N its index in nvidia-smi -L (it can differ from the CUDA ordinal " +
         std::to_string(device.ordinal) + ")";
}

std::string tcc_refusal(const CudaDeviceFacts& device) {
  return "CUDA device " + std::to_string(device.ordinal) +
         " is in TCC mode: no graphics interop with Direct3D or GL; switch it to WDDM (" +
         wddm_command(device) + ", as administrator, then reboot) or use --mode staging/cpu";
}

bool has_direct3d_device(const DxgiAdapterFacts& adapter) {
  return adapter.d3d11_feature_level != 0 || adapter.d3d12;
}

std::string adapter_line(const DxgiAdapterFacts& adapter) {
  const char* vendor = vendor_name(adapter.vendor_id);
  std::string text = adapter.description + ", vendor " + hex4(adapter.vendor_id) +
                     (vendor ? std::string(" (") + vendor + ")" : "") + ", device " +
                     hex4(adapter.device_id) + ", LUID " + luid_hex(adapter.luid) + ", " +
                     memory_text(adapter.dedicated_video_memory) + " dedicated";
  if (adapter.software) text += ", software adapter (renders on the CPU)";
  return text;
}

std::string direct3d_line(const DxgiAdapterFacts& adapter) {
  const std::string d3d11 = adapter.d3d11_feature_level != 0
                                ? "D3D11 feature level " + feature_level_text(adapter.d3d11_feature_level)
                                : "D3D11 no device (" + adapter.d3d11_error + ")";
  const std::string d3d12 = adapter.d3d12 ? "D3D12 yes" : "D3D12 no (" + adapter.d3d12_error + ")";
  return d3d11 + "; " + d3d12;
}

}  // namespace

std::string feature_level_text(unsigned feature_level) {
  return std::to_string((feature_level >> 12) & 0xF) + "_" + std::to_string((feature_level >> 8) & 0xF);
}

std::string luid_hex(const Luid& luid) {
  // LUID is {DWORD LowPart; LONG HighPart;}, little-endian: bytes 0-3 are the low half.
  unsigned long low = 0, high = 0;
  for (int i = 3; i >= 0; --i) {
    low = (low << 8) | luid[static_cast<size_t>(i)];
    high = (high << 8) | luid[static_cast<size_t>(i + 4)];
  }
  char text[32];
  std::snprintf(text, sizeof text, "0x%08lX%08lX", high, low);
  return text;
}

DxgiReport dxgi_report(const DxgiFacts& dxgi, const std::vector<CudaDeviceFacts>& cuda) {
  DxgiReport report;
  report.adapter_cuda_devices.resize(dxgi.adapters.size());
  // Each CUDA device's adapter, by LUID only: a TCC device's LUID is undefined, so it has none.
  std::vector<int> adapter_of(cuda.size(), -1);
  for (size_t d = 0; d < cuda.size(); ++d) {
    const CudaDeviceFacts& device = cuda[d];
    if (device.tcc) {
      report.tcc_devices.push_back(device.ordinal);
      continue;
    }
    for (size_t a = 0; a < dxgi.adapters.size() && adapter_of[d] < 0; ++a) {
      if (dxgi.adapters[a].luid != device.luid) continue;
      adapter_of[d] = static_cast<int>(a);
      report.adapter_cuda_devices[a].push_back(device.ordinal);
    }
    if (adapter_of[d] < 0) report.unlisted_devices.push_back(device.ordinal);
  }
  for (size_t d = 0; d < cuda.size() && report.interop_device < 0; ++d) {
    if (adapter_of[d] >= 0 && has_direct3d_device(dxgi.adapters[static_cast<size_t>(adapter_of[d])])) {
      report.interop_device = cuda[d].ordinal;
      report.interop_adapter = adapter_of[d];
    }
  }

  std::vector<DxgiLine>& lines = report.lines;
  // What an adapter without a CUDA device can still run: staging needs a CUDA device anywhere.
  const std::string elsewhere = cuda.empty() ? "cpu mode only" : "staging or cpu mode only";
  if (!dxgi.wine_version.empty())
    lines.push_back({"Wine", dxgi.wine_version +
                                 ": the adapters below are Wine's stand-ins (the name, ids and LUID "
                                 "are made up; the host's GL or Vulkan driver draws), and CUDA does "
                                 "not run under Wine"});
  if (!dxgi.error.empty()) {
    lines.push_back({"adapters", "none listed: " + dxgi.error});
  } else if (dxgi.adapters.empty()) {
    lines.push_back({"adapters", "none: DXGI lists no adapter"});
  }
  for (size_t a = 0; a < dxgi.adapters.size(); ++a) {
    const DxgiAdapterFacts& adapter = dxgi.adapters[a];
    lines.push_back({"adapter " + std::to_string(a), adapter_line(adapter)});
    lines.push_back({"  Direct3D", direct3d_line(adapter)});
    std::string match;
    for (int ordinal : report.adapter_cuda_devices[a]) {
      const auto device = std::find_if(cuda.begin(), cuda.end(), [ordinal](const CudaDeviceFacts& facts) {
        return facts.ordinal == ordinal;
      });
      match += (match.empty() ? "= CUDA device " : ", CUDA device ") + std::to_string(ordinal) + " (" +
               device->name + ", node mask " + hex4(device->node_mask) + ")";
    }
    if (match.empty())
      match = adapter.software
                  ? "no CUDA device: a software adapter (interop modes unavailable on this adapter; " +
                        elsewhere + ")"
                  : "no CUDA device (interop modes unavailable on this adapter; " + elsewhere + ")";
    else if (!has_direct3d_device(adapter))
      match += ", but Direct3D creates no device on it: no interop here";
    lines.push_back({"  CUDA", match});
  }

  if (cuda.empty())
    lines.push_back({"CUDA devices", "none (interop and staging modes need one; cpu mode only)"});
  for (size_t d = 0; d < cuda.size(); ++d) {
    const CudaDeviceFacts& device = cuda[d];
    std::string value;
    if (device.tcc) {
      value = device.name + ": " + tcc_refusal(device);
    } else if (adapter_of[d] >= 0) {
      value = device.name + ", LUID " + luid_hex(device.luid) + " = adapter " +
              std::to_string(adapter_of[d]) + " (" +
              dxgi.adapters[static_cast<size_t>(adapter_of[d])].description + ")";
    } else {
      // Never guessed from the name or the ordinal: only the LUID says which adapter a device is.
      value =
          device.name + ", LUID " + luid_hex(device.luid) +
          ": no DXGI adapter has this LUID (a compute-only device, such as one in MCDM mode, or one of "
          "another session is not listed by DXGI): no Direct3D interop with it; use --mode staging/cpu, or "
          "switch it to WDDM (" +
          wddm_command(device) + ", as administrator, then reboot)";
    }
    lines.push_back({"CUDA device " + std::to_string(device.ordinal), value});
  }

  if (report.interop_device >= 0) {
    lines.push_back(
        {"verdict", "Direct3D interop possible: CUDA device " + std::to_string(report.interop_device) +
                        " on adapter " + std::to_string(report.interop_adapter) + " (" +
                        dxgi.adapters[static_cast<size_t>(report.interop_adapter)].description + ")"});
    return report;
  }
  if (cuda.empty())
    report.reason = "no CUDA device; --mode cpu shows every scene";
  else if (!dxgi.error.empty())
    report.reason = "no DXGI adapter could be listed (" + dxgi.error + "); use --mode cpu";
  else if (report.tcc_devices.size() == cuda.size())
    report.reason = cuda.size() == 1
                        ? tcc_refusal(cuda.front())
                        : "every CUDA device is in TCC mode: switch one to WDDM (see its line) or use "
                          "--mode staging/cpu";
  else if (!report.unlisted_devices.empty() || !report.tcc_devices.empty())
    report.reason =
        "no DXGI adapter with a Direct3D device has a CUDA device's LUID (see the CUDA device lines); "
        "use --mode staging/cpu";
  else
    report.reason = "the adapters of the CUDA devices create no Direct3D device; use --mode staging/cpu";
  lines.push_back({"verdict", "Direct3D interop is unavailable: " + report.reason});
  return report;
}

std::vector<std::string> format_dxgi_section(const std::vector<DxgiLine>& lines) {
  size_t width = 0;
  for (const DxgiLine& line : lines) width = std::max(width, line.key.size());
  std::vector<std::string> text{kDxgiSectionTitle};
  for (const DxgiLine& line : lines)
    text.push_back("  " + line.key + std::string(width - line.key.size() + 2, ' ') + line.value);
  return text;
}

}  // namespace lab
