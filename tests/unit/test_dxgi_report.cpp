// tests/unit/test_dxgi_report.cpp — the doctor's Direct3D/DXGI rules (app/d3d/dxgi_report.hpp) on hand-built
// adapter and CUDA device facts: matching by LUID only, TCC devices refused with the way to WDDM, CUDA
// devices no adapter lists (MCDM), adapters without a CUDA device, and the verdict. No Windows needed: the
// mingw-w64 build runs the same code on Wine's live adapters (tests/windows/dxgi_doctor_check.cpp).
#include "app/d3d/dxgi_report.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace {

using lab::CudaDeviceFacts;
using lab::DxgiAdapterFacts;
using lab::DxgiFacts;
using lab::DxgiLine;
using lab::DxgiReport;

constexpr lab::Luid kH200Luid{0x45, 0x23, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00};
constexpr lab::Luid kL40Luid{0x9a, 0x78, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00};
constexpr lab::Luid kWarpLuid{0x11, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
constexpr unsigned kFeatureLevel11_0 = 0xb000, kFeatureLevel12_1 = 0xc100;

DxgiAdapterFacts nvidia_adapter(const std::string& description, const lab::Luid& luid) {
  DxgiAdapterFacts adapter;
  adapter.description = description;
  adapter.vendor_id = 0x10DE;
  adapter.device_id = 0x2335;
  adapter.luid = luid;
  adapter.dedicated_video_memory = 141ull << 30;
  adapter.d3d11_feature_level = kFeatureLevel12_1;
  adapter.d3d12 = true;
  return adapter;
}

DxgiAdapterFacts warp_adapter() {
  DxgiAdapterFacts adapter;
  adapter.description = "Microsoft Basic Render Driver";
  adapter.vendor_id = 0x1414;
  adapter.device_id = 0x8c;
  adapter.luid = kWarpLuid;
  adapter.software = true;
  adapter.d3d11_feature_level = kFeatureLevel12_1;
  adapter.d3d12 = true;
  return adapter;
}

// DXGI's answer when it lists `adapters`, outside Wine.
DxgiFacts listed(std::vector<DxgiAdapterFacts> adapters) {
  DxgiFacts dxgi;
  dxgi.adapters = std::move(adapters);
  return dxgi;
}

CudaDeviceFacts cuda_device(int ordinal, const std::string& name, const lab::Luid& luid) {
  CudaDeviceFacts device;
  device.ordinal = ordinal;
  device.name = name;
  device.luid = luid;
  device.node_mask = 1;
  return device;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The value of the line with `key`; fails the test when there is none.
std::string line(const DxgiReport& report, const std::string& key, int occurrence = 0) {
  for (const DxgiLine& line : report.lines)
    if (line.key == key && occurrence-- == 0) return line.value;
  ADD_FAILURE() << "no line \"" << key << "\"";
  return "";
}

TEST(DxgiReportTest, TheCudaDeviceWithAnAdaptersLuidIsThatAdapterAndInteropIsPossible) {
  const DxgiFacts dxgi = listed({nvidia_adapter("NVIDIA H200", kH200Luid), warp_adapter()});
  const DxgiReport report = lab::dxgi_report(dxgi, {cuda_device(0, "NVIDIA H200", kH200Luid)});

  ASSERT_EQ(report.adapter_cuda_devices.size(), 2u);
  EXPECT_EQ(report.adapter_cuda_devices[0], std::vector<int>{0});
  EXPECT_TRUE(report.adapter_cuda_devices[1].empty());
  EXPECT_EQ(report.interop_device, 0);
  EXPECT_EQ(report.interop_adapter, 0);
  EXPECT_EQ(report.reason, "");
  EXPECT_TRUE(contains(line(report, "adapter 0"),
                       "NVIDIA H200, vendor 0x10DE (NVIDIA), device 0x2335, LUID "
                       "0x0000000000012345, 141.0 GiB dedicated"))
      << line(report, "adapter 0");
  EXPECT_TRUE(contains(line(report, "  Direct3D"), "D3D11 feature level 12_1; D3D12 yes"))
      << line(report, "  Direct3D");
  EXPECT_TRUE(contains(line(report, "  CUDA"), "= CUDA device 0 (NVIDIA H200, node mask 0x0001)"))
      << line(report, "  CUDA");
  EXPECT_TRUE(contains(line(report, "CUDA device 0"), "= adapter 0 (NVIDIA H200)"))
      << line(report, "CUDA device 0");
  EXPECT_TRUE(contains(line(report, "verdict"), "Direct3D interop possible: CUDA device 0 on adapter 0"))
      << line(report, "verdict");
}

TEST(DxgiReportTest, SoftwareAdapterSaysItHasNoCudaDeviceAndWhatStillRuns) {
  const DxgiFacts dxgi = listed({nvidia_adapter("NVIDIA H200", kH200Luid), warp_adapter()});
  const DxgiReport report = lab::dxgi_report(dxgi, {cuda_device(0, "NVIDIA H200", kH200Luid)});

  const std::string warp = line(report, "adapter 1");
  EXPECT_TRUE(contains(warp, "vendor 0x1414 (Microsoft)")) << warp;
  EXPECT_TRUE(contains(warp, "software adapter")) << warp;
  EXPECT_FALSE(contains(line(report, "adapter 0"), "software adapter"));
  const std::string cuda = line(report, "  CUDA", 1);  // adapter 1's
  EXPECT_TRUE(contains(cuda, "no CUDA device")) << cuda;
  EXPECT_TRUE(contains(cuda, "interop modes unavailable on this adapter; staging or cpu mode only")) << cuda;
}

TEST(DxgiReportTest, DevicesAreMatchedByLuidNeverByOrdinalOrName) {
  // CUDA orders devices fastest first, DXGI by its own rules: device 0 is adapter 1 here. The second
  // device's name is adapter 0's description, but its LUID is no adapter's.
  const DxgiFacts dxgi =
      listed({nvidia_adapter("NVIDIA L40", kL40Luid), nvidia_adapter("NVIDIA H200", kH200Luid)});
  const lab::Luid other{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};
  const DxgiReport report =
      lab::dxgi_report(dxgi, {cuda_device(0, "NVIDIA H200", kH200Luid), cuda_device(1, "NVIDIA L40", other)});

  EXPECT_TRUE(report.adapter_cuda_devices[0].empty());
  EXPECT_EQ(report.adapter_cuda_devices[1], std::vector<int>{0});
  EXPECT_EQ(report.unlisted_devices, std::vector<int>{1});
  EXPECT_EQ(report.interop_device, 0);
  EXPECT_EQ(report.interop_adapter, 1);
  EXPECT_TRUE(contains(line(report, "CUDA device 0"), "= adapter 1 (NVIDIA H200)"))
      << line(report, "CUDA device 0");
}

TEST(DxgiReportTest, TccDeviceIsRefusedWithTheWayToWddmAndNeverMatched) {
  // A TCC device's LUID is undefined: even one that happens to equal an adapter's is not a match.
  CudaDeviceFacts tcc = cuda_device(1, "NVIDIA H200", kH200Luid);
  tcc.tcc = true;
  tcc.pci_bus_id = "0000:3B:00.0";
  const DxgiFacts dxgi = listed({nvidia_adapter("NVIDIA H200", kH200Luid)});
  const DxgiReport report = lab::dxgi_report(dxgi, {tcc});

  EXPECT_TRUE(report.adapter_cuda_devices[0].empty());
  EXPECT_EQ(report.tcc_devices, std::vector<int>{1});
  EXPECT_EQ(report.interop_device, -1);
  const std::string refusal = line(report, "CUDA device 1");
  EXPECT_TRUE(contains(refusal,
                       "CUDA device 1 is in TCC mode: no graphics interop with Direct3D or GL; switch it "
                       "to WDDM (nvidia-smi -i 0000:3B:00.0 -dm 0"))
      << refusal;
  EXPECT_TRUE(contains(refusal, "or use --mode staging/cpu")) << refusal;
  // The only device: the verdict is its refusal.
  EXPECT_TRUE(contains(report.reason, "CUDA device 1 is in TCC mode")) << report.reason;
  EXPECT_TRUE(
      contains(line(report, "verdict"), "Direct3D interop is unavailable: CUDA device 1 is in TCC mode"))
      << line(report, "verdict");
}

TEST(DxgiReportTest, TccDeviceWithoutPciBusIdSaysNvidiaSmiCountsDifferently) {
  CudaDeviceFacts tcc = cuda_device(2, "NVIDIA H200", kH200Luid);
  tcc.tcc = true;
  const DxgiReport report = lab::dxgi_report(listed({nvidia_adapter("NVIDIA L40", kL40Luid)}), {tcc});
  const std::string refusal = line(report, "CUDA device 2");
  EXPECT_TRUE(contains(refusal, "nvidia-smi -L")) << refusal;
  EXPECT_TRUE(contains(refusal, "CUDA ordinal 2")) << refusal;
}

TEST(DxgiReportTest, CudaDeviceNoAdapterListsIsReportedAsSuchNotGuessed) {
  // An MCDM (compute-only) GPU has a LUID, but DXGI does not enumerate it.
  const lab::Luid mcdm{0x77, 0x66, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  const DxgiFacts dxgi = listed({nvidia_adapter("NVIDIA H200", kH200Luid)});
  const DxgiReport report = lab::dxgi_report(dxgi, {cuda_device(0, "NVIDIA H200", mcdm)});

  EXPECT_EQ(report.unlisted_devices, std::vector<int>{0});
  EXPECT_TRUE(report.adapter_cuda_devices[0].empty());
  EXPECT_EQ(report.interop_device, -1);
  const std::string value = line(report, "CUDA device 0");
  EXPECT_TRUE(contains(value, "LUID 0x0000000000006677: no DXGI adapter has this LUID")) << value;
  EXPECT_TRUE(contains(value, "MCDM")) << value;
  EXPECT_FALSE(contains(value, "= adapter")) << value;
  EXPECT_TRUE(contains(report.reason, "use --mode staging/cpu")) << report.reason;
}

TEST(DxgiReportTest, WithoutCudaDevicesEveryAdapterIsCpuModeOnly) {
  const DxgiReport report =
      lab::dxgi_report(listed({nvidia_adapter("NVIDIA H200", kH200Luid), warp_adapter()}), {});
  EXPECT_EQ(line(report, "  CUDA", 0),
            "no CUDA device (interop modes unavailable on this adapter; cpu mode only)");
  EXPECT_TRUE(contains(line(report, "  CUDA", 1), "cpu mode only")) << line(report, "  CUDA", 1);
  EXPECT_TRUE(contains(line(report, "CUDA devices"), "none")) << line(report, "CUDA devices");
  EXPECT_EQ(report.interop_device, -1);
  EXPECT_TRUE(contains(report.reason, "no CUDA device")) << report.reason;
}

TEST(DxgiReportTest, UnderWineTheAdaptersAreSaidToBeStandIns) {
  DxgiFacts dxgi = listed({nvidia_adapter("NVIDIA GeForce GTX 470", kH200Luid)});
  EXPECT_TRUE(lab::dxgi_report(dxgi, {}).lines.front().key != "Wine");
  dxgi.wine_version = "Wine 8.0";
  const DxgiReport report = lab::dxgi_report(dxgi, {});
  EXPECT_EQ(report.lines.front().key, "Wine");  // before the adapters it qualifies
  EXPECT_TRUE(contains(report.lines.front().value, "Wine 8.0: the adapters below are Wine's stand-ins"))
      << report.lines.front().value;
}

TEST(DxgiReportTest, AdapterWithoutDirect3DDeviceGivesNoInterop) {
  DxgiAdapterFacts adapter = nvidia_adapter("NVIDIA H200", kH200Luid);
  adapter.d3d11_feature_level = 0;
  adapter.d3d11_error = "D3D11CreateDevice failed: HRESULT 0x887A0004";
  adapter.d3d12 = false;
  adapter.d3d12_error = "HRESULT 0x887A0004";
  const DxgiReport report = lab::dxgi_report(listed({adapter}), {cuda_device(0, "NVIDIA H200", kH200Luid)});

  EXPECT_EQ(report.adapter_cuda_devices[0], std::vector<int>{0});
  EXPECT_EQ(report.interop_device, -1);
  EXPECT_TRUE(contains(line(report, "  Direct3D"),
                       "D3D11 no device (D3D11CreateDevice failed: HRESULT 0x887A0004); "
                       "D3D12 no (HRESULT 0x887A0004)"))
      << line(report, "  Direct3D");
  EXPECT_TRUE(contains(line(report, "  CUDA"), "Direct3D creates no device on it")) << line(report, "  CUDA");
  EXPECT_FALSE(report.reason.empty());
}

TEST(DxgiReportTest, NodesOfALinkedAdapterAreAllItsCudaDevices) {
  CudaDeviceFacts second = cuda_device(1, "NVIDIA H200", kH200Luid);
  second.node_mask = 2;
  const DxgiReport report = lab::dxgi_report(listed({nvidia_adapter("NVIDIA H200", kH200Luid)}),
                                             {cuda_device(0, "NVIDIA H200", kH200Luid), second});
  EXPECT_EQ(report.adapter_cuda_devices[0], (std::vector<int>{0, 1}));
  EXPECT_TRUE(contains(line(report, "  CUDA"), "CUDA device 1 (NVIDIA H200, node mask 0x0002)"))
      << line(report, "  CUDA");
}

TEST(DxgiReportTest, FailedEnumerationSaysWhy) {
  DxgiFacts dxgi;
  dxgi.error = "CreateDXGIFactory1 failed: HRESULT 0x80004005";
  const DxgiReport report = lab::dxgi_report(dxgi, {cuda_device(0, "NVIDIA H200", kH200Luid)});
  EXPECT_TRUE(contains(line(report, "adapters"), "none listed: CreateDXGIFactory1 failed"))
      << line(report, "adapters");
  EXPECT_EQ(report.unlisted_devices, std::vector<int>{0});
  EXPECT_TRUE(contains(report.reason, "HRESULT 0x80004005")) << report.reason;
}

TEST(DxgiReportTest, FeatureLevelsAndLuidsPrintAsWindowsToolsDo) {
  EXPECT_EQ(lab::feature_level_text(kFeatureLevel11_0), "11_0");
  EXPECT_EQ(lab::feature_level_text(kFeatureLevel12_1), "12_1");
  EXPECT_EQ(lab::feature_level_text(0x9300), "9_3");
  EXPECT_EQ(lab::luid_hex(kH200Luid), "0x0000000000012345");
  EXPECT_EQ(lab::luid_hex(kL40Luid), "0x000000010000789A");  // HighPart 1
}

TEST(DxgiReportTest, SectionLinesAlignTheirValues) {
  const DxgiReport report = lab::dxgi_report(listed({nvidia_adapter("NVIDIA H200", kH200Luid)}),
                                             {cuda_device(0, "NVIDIA H200", kH200Luid)});
  const std::vector<std::string> text = lab::format_dxgi_section(report.lines);
  ASSERT_EQ(text.size(), report.lines.size() + 1);
  EXPECT_EQ(text.front(), lab::kDxgiSectionTitle);
  // Every value starts in the same column: two spaces, the longest key, two spaces.
  size_t width = 0;
  for (const DxgiLine& line : report.lines) width = std::max(width, line.key.size());
  for (size_t i = 0; i < report.lines.size(); ++i)
    EXPECT_EQ(text[i + 1].substr(2 + width + 2), report.lines[i].value) << text[i + 1];
}

}  // namespace
