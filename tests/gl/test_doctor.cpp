// tests/gl/test_doctor.cpp — the doctor's rules on made-up findings (no GPU, no GL context): the
// report's layout, which modes are available, WSL detection, the remedies and the verdict's reason, and
// the panel drawn without a renderer, and the report assembled from its sources (app/doctor). In gl_tests
// because GL's source (app/gl/doctor_gl.cpp) probes the platforms it reports on; test_doctor_gl.cpp runs
// it on a real context.
#include "app/gl/app/app.hpp"
#include "app/gl/doctor_gl.hpp"
#include "app/vulkan/doctor_vulkan.hpp"
#include "tests/support/headless_imgui.hpp"

#include <gtest/gtest.h>
#include <imgui.h>
#include <nlohmann/json.hpp>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

namespace {

// The sources app/main.cpp's API table gives this build's GL app and --doctor: GL's, Vulkan's and the
// environment's.
std::vector<lab::DoctorSource> build_sources() {
  return {lab::gl::gl_doctor_source(), lab::vulkan::doctor_source(), lab::environment_doctor_source()};
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A copy: the remedies are often a temporary.
std::optional<lab::DoctorLine> find_remedy(const std::vector<lab::DoctorLine>& remedies,
                                           const std::string& key) {
  for (const lab::DoctorLine& line : remedies)
    if (line.key == key) return line;
  return std::nullopt;
}

lab::DoctorReport sample_report() {
  lab::DoctorReport report;
  report.sections = {{"CUDA", {{"driver", "13.0"}, {"device 0 compute capability", "9.0"}}},
                     {"GL context", {{"GL_RENDERER", "NVIDIA H200/PCIe/SSE2"}}},
                     {"EGL devices", {{"EGL device 0", "CUDA device 0; EGL_NV_device_cuda"}}},
                     {"CUDA-GL interop", {{"cudaGLGetDevices (all)", "CUDA device(s) 0"}}},
                     {"environment", {{"WSL", "no"}, {"DISPLAY", "unset"}}},
                     {"modes", {{"interop", "available"}, {"cpu", "available"}}},
                     {"remedies", {{"none needed", "CUDA-GL interop works here"}}}};
  report.interop_works = true;
  report.cuda_device = 0;
  return report;
}

TEST(DoctorReport, FormatAlignsTheValuesOfEachSectionAndEndsWithTheVerdict) {
  const lab::DoctorReport report = sample_report();
  const std::string text = lab::format_doctor_report(report);
  for (const lab::DoctorSection& section : report.sections) {
    EXPECT_TRUE(has(text, section.title + "\n")) << section.title << " missing in\n" << text;
    size_t width = 0;
    for (const lab::DoctorLine& line : section.lines) width = std::max(width, line.key.size());
    for (const lab::DoctorLine& line : section.lines) {
      // "  key<padding>  value": every value of a section starts in the same column.
      const std::string expected =
          "  " + line.key + std::string(width - line.key.size() + 2, ' ') + line.value + "\n";
      EXPECT_TRUE(has(text, expected)) << "no line \"" << expected << "\" in\n" << text;
    }
  }
  std::istringstream lines(text);
  std::string line, last;
  while (std::getline(lines, line)) last = line;
  EXPECT_EQ(last, "verdict: CUDA-GL interop works (device 0)");
}

TEST(DoctorReport, ValuesOfSeveralLinesContinueInTheValueColumn) {
  lab::DoctorReport report;
  report.sections = {{"GL context", {{"error", "first\nsecond"}, {"platform", "none"}}}};
  report.reason = "no GL context: first";
  const std::string text = lab::format_doctor_report(report);
  EXPECT_TRUE(has(text, "  error     first\n            second\n")) << text;
  EXPECT_TRUE(has(text, "verdict: CUDA-GL interop is unavailable: no GL context: first\n")) << text;
}

TEST(ModeAvailability, WithoutACudaDeviceOnlyCpuRuns) {
  const std::string error = "cudaGetDeviceCount: cudaErrorInsufficientDriver: install the NVIDIA driver";
  for (const lab::ModeId mode : lab::all_modes()) {
    const lab::ModeAvailability verdict = lab::gl::mode_availability(mode, -1, {false, ""}, error);
    if (mode == lab::ModeId::Cpu) {
      EXPECT_TRUE(verdict.available);
    } else if (mode == lab::ModeId::Eglstream && !lab::gl::eglstream_support().available) {
      // What the GL context lacks comes first (Mesa's EGL has no EGL_KHR_stream, CUDA or not).
      EXPECT_FALSE(verdict.available);
      EXPECT_EQ(verdict.reason, lab::gl::eglstream_support().reason);
    } else {
      EXPECT_FALSE(verdict.available) << lab::to_string(mode);
      EXPECT_TRUE(has(verdict.reason, "no CUDA device")) << verdict.reason;
      EXPECT_TRUE(has(verdict.reason, "cudaErrorInsufficientDriver")) << verdict.reason;
    }
  }
  // Without an error text, the reason still says what to do.
  const lab::ModeAvailability bare = lab::gl::mode_availability(lab::ModeId::Staging, -1, {}, "");
  EXPECT_TRUE(has(bare.reason, "CUDA_VISIBLE_DEVICES")) << bare.reason;
}

TEST(ModeAvailability, ADeviceWithoutInteropRunsStagingButNotTheInteropModes) {
  const interop::InteropSupport unusable{false,
                                         "GL is rendered by llvmpipe, not by an NVIDIA GPU: use --mode cpu"};
  EXPECT_TRUE(lab::gl::mode_availability(lab::ModeId::Staging, 0, unusable, "").available);
  EXPECT_TRUE(lab::gl::mode_availability(lab::ModeId::Cpu, 0, unusable, "").available);
  for (const lab::ModeId mode :
       {lab::ModeId::Interop, lab::ModeId::Reregister, lab::ModeId::Pbo, lab::ModeId::Split}) {
    const lab::ModeAvailability verdict = lab::gl::mode_availability(mode, 0, unusable, "");
    EXPECT_FALSE(verdict.available) << lab::to_string(mode);
    EXPECT_EQ(verdict.reason, unusable.reason);
  }
  const lab::ModeAvailability unprobed = lab::gl::mode_availability(lab::ModeId::Interop, 0, {false, ""}, "");
  EXPECT_FALSE(unprobed.available);
  EXPECT_FALSE(unprobed.reason.empty());
}

// GL's mode table (mode.cpp) has a row per mode of --api gl, in --list's order: mode_availability and
// create_mode answer for each of them from it.
TEST(ModeAvailability, GlsTableHasARowPerModeOfGlInListOrder) {
  EXPECT_EQ(lab::gl::gl_mode_table_order(), lab::modes_of(lab::GraphicsApi::Gl));
}

TEST(ModeAvailability, EveryModeButExternalAndExportedRunsWhereInteropWorks) {
  const interop::InteropSupport works{true, "CUDA device 1 drives GL"};
  for (const lab::ModeId mode : lab::modes_of(lab::GraphicsApi::Gl)) {
    const lab::ModeAvailability verdict = lab::gl::mode_availability(mode, 1, works, "");
    if (mode == lab::ModeId::External) {
      EXPECT_FALSE(verdict.available) << "external was never probed";
      EXPECT_TRUE(has(verdict.reason, "the GL external mode was not probed")) << verdict.reason;
    } else if (mode == lab::ModeId::Exported) {
      EXPECT_FALSE(verdict.available) << "exported needs what external needs, never probed";
      EXPECT_TRUE(has(verdict.reason, "the GL exported mode was not probed")) << verdict.reason;
      EXPECT_TRUE(lab::gl::mode_availability(mode, 1, works, "", works).available)
          << "with GL's imports probed";
    } else if (mode == lab::ModeId::Eglstream) {
      // Its own probe of the current context: EGL's stream extensions (none without an EGL context).
      const lab::ModeAvailability support = lab::gl::eglstream_support();
      EXPECT_EQ(verdict.available, support.available) << verdict.reason;
      EXPECT_EQ(verdict.reason, support.reason);
    } else {
      EXPECT_TRUE(verdict.available) << lab::to_string(mode);
    }
  }
}

// External has needs of its own (GL's import extensions, GL on the CUDA device), judged apart from
// map/unmap interop: either can work without the other, and its reason is the probe's.
TEST(ModeAvailability, ExternalFollowsItsOwnProbe) {
  const interop::InteropSupport works{true, "CUDA device 0 drives GL"};
  const interop::InteropSupport lacking{
      false, "GL (llvmpipe) lacks GL_EXT_semaphore_fd: the external mode needs it"};
  EXPECT_TRUE(lab::gl::mode_availability(lab::ModeId::External, 0, works, "", works).available);
  const lab::ModeAvailability refused =
      lab::gl::mode_availability(lab::ModeId::External, 0, works, "", lacking);
  EXPECT_FALSE(refused.available);
  EXPECT_EQ(refused.reason, lacking.reason);
  EXPECT_TRUE(
      lab::gl::mode_availability(lab::ModeId::External, 0, {false, "no interop"}, "", works).available);
  EXPECT_FALSE(lab::gl::mode_availability(lab::ModeId::External, -1, works, "no driver", works).available);
}

TEST(Wsl, IsDetectedFromTheKernelReleaseTheVersionOrDevDxg) {
  EXPECT_TRUE(lab::is_wsl("5.15.153.1-microsoft-standard-WSL2", "", false));
  EXPECT_TRUE(lab::is_wsl("4.4.0-19041-Microsoft", "", false));  // WSL 1
  EXPECT_TRUE(lab::is_wsl("", "Linux version 5.15.90.1-microsoft-standard-WSL2 (oe-user@oe-host)", false));
  EXPECT_TRUE(lab::is_wsl("6.1.0-custom", "Linux version 6.1.0-custom", true));
  EXPECT_FALSE(
      lab::is_wsl("6.1.0-27-amd64", "Linux version 6.1.0-27-amd64 (debian-kernel@lists.debian.org)", false));
  EXPECT_FALSE(lab::is_wsl("", "", false));
}

lab::DoctorFindings no_driver_machine() {
  lab::DoctorFindings findings;
  findings.cuda_error = "cudaGetDeviceCount: cudaErrorInsufficientDriver: no NVIDIA driver new enough";
  findings.headless = true;
  findings.gl_vendor = "Mesa";
  findings.gl_renderer = "llvmpipe (LLVM 15.0.6, 256 bits)";
  findings.interop_support = {false, "no CUDA device: cudaGetDeviceCount: cudaErrorInsufficientDriver"};
  return findings;
}

lab::DoctorFindings gpu_machine() {
  lab::DoctorFindings findings;
  findings.cuda_device_count = 1;
  findings.cuda_device = 0;
  findings.gl_vendor = "NVIDIA Corporation";
  findings.gl_renderer = "NVIDIA H200/PCIe/SSE2";
  findings.gl_cuda_devices = {0};
  findings.egl_cuda_devices = 1;
  findings.interop_support = {true, "CUDA device 0 drives GL (NVIDIA H200/PCIe/SSE2)"};
  return findings;
}

TEST(DoctorRemedies, NoDriverNamesTheDriverAndCpuMode) {
  const lab::DoctorFindings findings = no_driver_machine();
  const std::vector<lab::DoctorLine> remedies = lab::doctor_remedies(findings);
  const std::optional<lab::DoctorLine> driver = find_remedy(remedies, "no NVIDIA driver");
  ASSERT_TRUE(driver);
  EXPECT_TRUE(has(driver->value, "install or update the NVIDIA driver")) << driver->value;
  EXPECT_TRUE(has(driver->value, "--mode cpu")) << driver->value;
  ASSERT_TRUE(find_remedy(remedies, "GL on llvmpipe (Mesa)"));
  // Without CUDA there is no NVIDIA EGL device to miss: the driver is the one thing to fix.
  EXPECT_FALSE(find_remedy(remedies, "no NVIDIA EGL device"));
  // The CUDA section says why there is no device (DoctorSources.WhyThereIsNoCudaDeviceIsSaidOnce).
  EXPECT_EQ(lab::interop_unavailable_reason(findings), lab::kNoCudaDeviceSeeCuda);

  lab::DoctorFindings hidden = findings;
  hidden.cuda_error = "cudaGetDeviceCount: cudaErrorNoDevice: no CUDA device is visible";
  std::optional<lab::DoctorLine> visible =
      find_remedy(lab::doctor_remedies(hidden), "no CUDA device visible");
  ASSERT_TRUE(visible);
  EXPECT_TRUE(has(visible->value, "CUDA_VISIBLE_DEVICES")) << visible->value;
}

TEST(DoctorRemedies, AWindowOnLlvmpipeWithAGpuNamesTheNvidiaGlxVendor) {
  lab::DoctorFindings findings = gpu_machine();
  findings.gl_vendor = "Mesa";
  findings.gl_renderer = "llvmpipe (LLVM 15.0.6, 256 bits)";
  findings.gl_cuda_devices.clear();
  findings.interop_support = {false, "GL is rendered by llvmpipe, not by an NVIDIA GPU that CUDA can use"};
  std::optional<lab::DoctorLine> remedy =
      find_remedy(lab::doctor_remedies(findings), "GL on llvmpipe (Mesa)");
  ASSERT_TRUE(remedy);
  EXPECT_EQ(
      remedy->value,
      "GL is rendered by llvmpipe (Mesa), not by an NVIDIA GPU: run with __GLX_VENDOR_LIBRARY_NAME=nvidia, "
      "or use --headless, or --mode cpu");
  EXPECT_EQ(lab::interop_unavailable_reason(findings), findings.interop_support.reason);

  findings.software_gl_forced = true;
  remedy = find_remedy(lab::doctor_remedies(findings), "GL on llvmpipe (Mesa)");
  ASSERT_TRUE(remedy);
  EXPECT_TRUE(has(remedy->value, "LIBGL_ALWAYS_SOFTWARE")) << remedy->value;
}

TEST(DoctorRemedies, AHybridLaptopGetsPrimeOffload) {
  lab::DoctorFindings findings = gpu_machine();
  findings.gl_vendor = "Intel";
  findings.gl_renderer = "Mesa Intel(R) UHD Graphics 620 (KBL GT2)";
  findings.gl_cuda_devices.clear();
  findings.interop_support = {
      false, "GL is rendered by Mesa Intel(R) UHD Graphics 620 (KBL GT2), not by an NVIDIA GPU"};
  const std::optional<lab::DoctorLine> remedy =
      find_remedy(lab::doctor_remedies(findings), "GL on another GPU");
  ASSERT_TRUE(remedy);
  EXPECT_TRUE(has(remedy->value, "__NV_PRIME_RENDER_OFFLOAD=1 __GLX_VENDOR_LIBRARY_NAME=nvidia"))
      << remedy->value;
}

TEST(DoctorRemedies, GlOnAnotherNvidiaGpuNamesItsDevice) {
  lab::DoctorFindings findings = gpu_machine();
  findings.cuda_device_count = 2;
  findings.cuda_device = 0;
  findings.gl_cuda_devices = {1};
  findings.interop_support = {false, "CUDA device 0 does not drive the GL context; pick --device 1"};
  const std::optional<lab::DoctorLine> remedy =
      find_remedy(lab::doctor_remedies(findings), "GL on another GPU");
  ASSERT_TRUE(remedy);
  EXPECT_TRUE(has(remedy->value, "--device 1")) << remedy->value;
  EXPECT_TRUE(has(remedy->value, "__NV_PRIME_RENDER_OFFLOAD=1")) << remedy->value;
}

TEST(DoctorRemedies, WslIsNamedAndIsTheVerdict) {
  lab::DoctorFindings findings = gpu_machine();
  findings.wsl = true;
  findings.gl_vendor = "Microsoft Corporation";
  findings.gl_renderer = "D3D12 (NVIDIA GeForce RTX 3080)";
  findings.gl_cuda_devices.clear();
  findings.interop_support = {false, "cudaGLGetDevices: cudaErrorNotSupported"};
  const std::optional<lab::DoctorLine> remedy = find_remedy(lab::doctor_remedies(findings), "WSL");
  ASSERT_TRUE(remedy);
  EXPECT_TRUE(has(remedy->value, "not supported under WSL")) << remedy->value;
  // No GL variable helps there (WSL's renderer names the NVIDIA GPU, its GL is Mesa's d3d12).
  EXPECT_FALSE(find_remedy(lab::doctor_remedies(findings), "GL on another GPU"));
  EXPECT_TRUE(has(lab::interop_unavailable_reason(findings), "WSL"))
      << lab::interop_unavailable_reason(findings);
}

TEST(DoctorRemedies, AHeadlessServerWithoutAnNvidiaEglDeviceNamesTheEglVendorLibrary) {
  lab::DoctorFindings findings = gpu_machine();
  findings.headless = true;
  findings.egl_cuda_devices = 0;
  findings.gl_vendor = "Mesa";
  findings.gl_renderer = "llvmpipe (LLVM 15.0.6, 256 bits)";
  findings.gl_cuda_devices.clear();
  findings.interop_support = {false, "GL is rendered by llvmpipe, not by an NVIDIA GPU that CUDA can use"};
  const std::optional<lab::DoctorLine> remedy =
      find_remedy(lab::doctor_remedies(findings), "no NVIDIA EGL device");
  ASSERT_TRUE(remedy);
  EXPECT_TRUE(has(remedy->value, "EGL_NV_device_cuda")) << remedy->value;
  EXPECT_TRUE(has(remedy->value, "__EGL_VENDOR_LIBRARY_FILENAMES")) << remedy->value;
}

TEST(DoctorRemedies, NoneWhereInteropWorks) {
  const lab::DoctorFindings findings = gpu_machine();
  EXPECT_TRUE(lab::doctor_remedies(findings).empty());
  EXPECT_EQ(lab::interop_unavailable_reason(findings), "");
}

// Without a display no window opens: the doctor checks EGL, as --headless does, and says why.
TEST(DoctorHeadless, WithoutADisplayTheDoctorGoesHeadless) {
  const std::string reason = lab::doctor_headless_reason(false, nullptr, nullptr);
  EXPECT_TRUE(has(reason, "no display") && has(reason, "EGL")) << reason;
  EXPECT_EQ(lab::doctor_headless_reason(false, "", ""), reason) << "set but empty is no display either";
  EXPECT_EQ(lab::doctor_headless_reason(false, ":0", nullptr), "");
  EXPECT_EQ(lab::doctor_headless_reason(false, nullptr, "wayland-0"), "");
  EXPECT_EQ(lab::doctor_headless_reason(true, nullptr, nullptr), "") << "asked for: nothing to explain";
}

TEST(DoctorRemedies, NoGlContextPassesOnTheReason) {
  lab::DoctorFindings findings = gpu_machine();
  findings.gl_error =
      "cannot open a window: X11: The DISPLAY environment variable is missing. Without a display, "
      "run under Xvfb (xvfb-run) or use --headless";
  const std::optional<lab::DoctorLine> remedy = find_remedy(lab::doctor_remedies(findings), "no GL context");
  ASSERT_TRUE(remedy);
  EXPECT_EQ(remedy->value, findings.gl_error);
  EXPECT_EQ(lab::interop_unavailable_reason(findings), "no GL context: " + findings.gl_error);
}

// The panel's tab builds its widgets from any report (no renderer needed: the draw lists are only built).
// What it drew is read back through ImGui's text log (LogToClipboard; without a backend the clipboard is
// ImGui's own buffer): the verdict, every section's header, and the lines of the sections open at first.
// An ImGui context without a renderer, on a 1280x720 display: the panel's drawing is built, not shown.
void create_imgui_context() {
  lab::testing::create_headless_imgui(1280, 720);
}

// The panel sizes itself to its content (ImGuiWindowFlags_AlwaysAutoResize): opening the doctor inside it
// must not widen it, however long the report's values are.
TEST(DoctorPanel, OpeningItKeepsAnAutoResizingPanelsWidth) {
  create_imgui_context();
  lab::DoctorReport report = sample_report();
  report.sections.push_back({"modes", {{"interop", std::string(400, 'x'), false}}});
  // The panel's own controls make it 450 pixels wide; frames until its size settles.
  auto panel_width = [&](bool doctor) {
    for (int frame = 0; frame < 4; ++frame) {
      ImGui::NewFrame();
      ImGui::Begin("interop-lab", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
      ImGui::Dummy(ImVec2(450, 20));
      if (doctor) lab::draw_doctor_report(report);
      const float width = ImGui::GetWindowWidth();
      ImGui::End();
      ImGui::Render();
      if (frame == 3) return width;
    }
    return 0.0f;
  };
  const float closed = panel_width(false);
  const float open = panel_width(true);
  EXPECT_GT(closed, 450.0f);
  EXPECT_EQ(open, closed) << "the doctor widened the panel from " << closed << " to " << open << " pixels";
  ImGui::DestroyContext();
}

TEST(DoctorPanel, DrawsEverySectionWithoutARenderer) {
  create_imgui_context();
  for (const bool works : {true, false}) {
    lab::DoctorReport report = sample_report();
    report.interop_works = works;
    // A new window is hidden on its first frame while ImGui measures it: draw two, log the second.
    for (int frame = 0; frame < 2; ++frame) {
      ImGui::NewFrame();
      ImGui::Begin("doctor");
      if (frame == 1) ImGui::LogToClipboard();
      lab::draw_doctor_report(report);
      if (frame == 1) ImGui::LogFinish();
      ImGui::End();
      ImGui::Render();
    }
    EXPECT_GT(ImGui::GetDrawData()->TotalVtxCount, 0);
    const std::string drawn = ImGui::GetClipboardText();
    EXPECT_TRUE(has(drawn, lab::doctor_verdict(report))) << drawn;
    for (const lab::DoctorSection& section : report.sections) {
      // Collapsing headers are logged as "### title ###".
      EXPECT_TRUE(has(drawn, "### " + section.title + " ###")) << section.title << " missing in\n" << drawn;
      const bool open_first = section.title == "remedies" || section.title == "modes";
      for (const lab::DoctorLine& line : section.lines)
        EXPECT_EQ(has(drawn, line.key), open_first) << line.key << " in " << section.title << ":\n" << drawn;
    }
  }
  ImGui::DestroyContext();
}

// The split mode's copy path: device to device when asked and possible, host memory otherwise, and
// the description says which and why. Devices that do not exist cannot reach each other, so this
// needs no GPU.
TEST(SplitPath, PeerWithinOneDeviceHostWhenAskedOrWhenTheDevicesCannotReachEachOther) {
  const lab::gl::SplitPath same = lab::gl::choose_split_path(0, 0, lab::SplitCopy::Peer);
  EXPECT_TRUE(same.peer);
  EXPECT_NE(same.description.find("within one device"), std::string::npos) << same.description;

  const lab::gl::SplitPath asked_host = lab::gl::choose_split_path(1, 0, lab::SplitCopy::Host);
  EXPECT_FALSE(asked_host.peer);
  EXPECT_NE(
      asked_host.description.find("device 1 -> device 0 through pinned host memory (--split-copy host)"),
      std::string::npos)
      << asked_host.description;

  const lab::gl::SplitPath unreachable = lab::gl::choose_split_path(7, 0, lab::SplitCopy::Peer);
  EXPECT_FALSE(unreachable.peer);
  EXPECT_NE(unreachable.description.find("cannot access each other's memory"), std::string::npos)
      << unreachable.description;
}

}  // namespace

// --doctor --json: one document a JSON parser accepts, strings escaped, the verdict included.
TEST(DoctorJson, IsOneParsableDocumentWithEverySection) {
  lab::DoctorReport report;
  report.sections.push_back({"CUDA", {{"driver", "none"}, {"quote \"and\" tab\t", "line one\nline two"}}});
  report.sections.push_back(
      {"environment", {{"DISPLAY", "\":99\""}, {"odd bytes", std::string("\xff\xfe")}}});
  report.reason = "no CUDA device: use --mode cpu";
  const nlohmann::json document = nlohmann::json::parse(lab::doctor_report_json(report));
  ASSERT_EQ(document["sections"].size(), 2u);
  EXPECT_EQ(document["sections"][0]["title"], "CUDA");
  EXPECT_EQ(document["sections"][0]["lines"][1]["value"], "line one\nline two");
  EXPECT_EQ(document["interop_works"], false);
  EXPECT_TRUE(document["cuda_device"].is_null());
  // The verdict's value is the verdict, without the text report's "verdict: " label.
  EXPECT_EQ(document["verdict"], "CUDA-GL interop is unavailable: no CUDA device: use --mode cpu");
  EXPECT_EQ(document["sections"][0]["lines"][0].count("available"), 0u) << "only the modes' lines have one";
}

// Each mode's line says whether it runs as a boolean, so a script needs no parsing of the value.
TEST(DoctorJson, ModeLinesSayWhetherTheModeIsAvailable) {
  lab::DoctorReport report;
  report.sections.push_back({"modes", {{"cpu", "available", true}, {"interop", "unavailable: why", false}}});
  const nlohmann::json document = nlohmann::json::parse(lab::doctor_report_json(report));
  const nlohmann::json& lines = document["sections"][0]["lines"];
  EXPECT_EQ(lines[0]["available"], true);
  EXPECT_EQ(lines[1]["available"], false);
  EXPECT_EQ(lines[1]["value"], "unavailable: why");
}

namespace {

// The Vulkan section matches devices to CUDA by UUID and says what external interop lacks.
TEST(DoctorVulkan, DevicesAreMatchedToCudaByUuidAndTheirExternalSupportIsListed) {
  lab::vulkan::DeviceInfo gpu;
  gpu.name = "NVIDIA H200";
  gpu.uuid = {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};
  gpu.api_version = VK_MAKE_API_VERSION(0, 1, 3, 0);
  gpu.external_memory_fd = gpu.external_semaphore_fd = gpu.timeline_semaphores = true;
  lab::vulkan::DeviceInfo software = gpu;
  software.name = "llvmpipe";
  software.uuid.fill(0x42);
  software.external_semaphore_fd = false;
  interop::CudaDevices cuda;
  interop::CudaDeviceInfo h200;
  h200.ordinal = 0;
  h200.uuid = "GPU-12345678-9abc-def0-0123-456789abcdef";
  cuda.devices.push_back(h200);

  const lab::DoctorSection section = lab::vulkan_section({gpu, software}, cuda, "");
  ASSERT_GE(section.lines.size(), 5u);
  EXPECT_EQ(section.title, "Vulkan");
  EXPECT_EQ(section.lines[0].value,
            "NVIDIA H200, UUID 12345678-9abc-def0-0123-456789abcdef, = CUDA device 0");
  EXPECT_EQ(section.lines[1].key, "device 0 external interop");
  EXPECT_EQ(section.lines[1].value.rfind("ready", 0), 0u) << section.lines[1].value;
  EXPECT_NE(section.lines[2].value.find("no CUDA device has this UUID"), std::string::npos)
      << section.lines[2].value;
  EXPECT_NE(section.lines[3].value.find("incomplete: memory FD yes, semaphore FD no"), std::string::npos)
      << section.lines[3].value;

  const lab::DoctorSection missing =
      lab::vulkan_section({}, cuda, "Vulkan: vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER");
  EXPECT_NE(missing.lines.at(0).value.find("VK_ERROR_INCOMPATIBLE_DRIVER"), std::string::npos);
}

}  // namespace

namespace {

// A source that records what it returned, so that the test compares the report with what the sources made.
struct RecordingSource {
  std::vector<std::string> titles;
  std::vector<std::string> modes;
};

lab::DoctorSource recording(lab::DoctorSource source, RecordingSource& record) {
  lab::DoctorSource wrapped{source.api, {}, {}, source.open};
  if (source.sections)
    wrapped.sections = [inner = source.sections, &record](lab::DoctorCollection& collection) {
      std::vector<lab::DoctorSection> sections = inner(collection);
      for (const lab::DoctorSection& section : sections) record.titles.push_back(section.title);
      return sections;
    };
  if (source.modes)
    wrapped.modes = [inner = source.modes, &record](const lab::DoctorCollection& collection) {
      std::vector<lab::DoctorLine> lines = inner(collection);
      for (const lab::DoctorLine& line : lines) record.modes.push_back(line.key);
      return lines;
    };
  return wrapped;
}

std::vector<std::string> titles_of(const lab::DoctorReport& report) {
  std::vector<std::string> titles;
  for (const lab::DoctorSection& section : report.sections) titles.push_back(section.title);
  return titles;
}

// The report is the CUDA section, each source's sections in the sources' order, the modes every source
// judged, and the remedies; what a source finds is what the verdict is judged on.
TEST(DoctorSources, TheReportIsTheSourcesSectionsInTheirOrder) {
  const lab::DoctorContext context;
  interop::CudaDevices cuda;
  interop::CudaDeviceInfo device;
  device.ordinal = 0;
  device.name = "a device of the test";
  cuda.devices.push_back(device);
  const lab::DoctorSource first{
      "first",
      [](lab::DoctorCollection& collection) {
        collection.findings.cuda_device = 0;
        collection.findings.interop_support = {true, "probed by the first source"};
        collection.device_choice = "the first source's";
        return std::vector<lab::DoctorSection>{{"first A", {{"k", "v"}}}, {"first B", {{"k", "v"}}}};
      },
      [](const lab::DoctorCollection& collection) {
        return std::vector<lab::DoctorLine>{{"first mode", std::to_string(collection.findings.cuda_device)}};
      },
      {}};
  const lab::DoctorSource second{
      "second",
      [](lab::DoctorCollection& collection) {
        // Sees what the first found.
        return std::vector<lab::DoctorSection>{
            {"second", {{"device", std::to_string(collection.findings.cuda_device)}}}};
      },
      {},
      {}};
  const lab::DoctorReport report = lab::collect_doctor_report(context, cuda, {first, second});
  EXPECT_EQ(titles_of(report),
            (std::vector<std::string>{"CUDA", "first A", "first B", "second", "modes", "remedies"}));
  EXPECT_EQ(report.sections[3].lines.at(0).value, "0");
  EXPECT_EQ(report.sections[4].lines.at(0).key, "first mode");
  EXPECT_TRUE(report.interop_works) << lab::format_doctor_report(report);
  EXPECT_EQ(report.cuda_device, 0);
  const std::string text = lab::format_doctor_report(report);
  EXPECT_TRUE(has(text, "0 (the first source's)")) << text;

  // Without sources of modes there is no modes section; the sources' order is the report's.
  const lab::DoctorReport reversed =
      lab::collect_doctor_report(context, cuda, {second, lab::environment_doctor_source()});
  EXPECT_EQ(titles_of(reversed), (std::vector<std::string>{"CUDA", "second", "environment", "remedies"}));
  EXPECT_FALSE(reversed.interop_works);
}

size_t occurrences(const std::string& text, const std::string& part) {
  size_t count = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++count;
  return count;
}

// Why there is no CUDA device is one long sentence (the probe's error and its remedy): the CUDA section says
// it, and every mode that needs CUDA, the remedies and the verdict refer to it instead of repeating it.
TEST(DoctorSources, WhyThereIsNoCudaDeviceIsSaidOnce) {
  interop::CudaDevices cuda;
  cuda.error = "cudaGetDeviceCount: cudaErrorInsufficientDriver: a driver this test made up; install it";
  lab::DoctorContext context;
  context.gl_error = "no context in this test";
  const lab::DoctorReport report = lab::collect_doctor_report(context, cuda, build_sources());
  const std::string text = lab::format_doctor_report(report);
  EXPECT_EQ(occurrences(text, cuda.error), 1u) << text;
  EXPECT_EQ(occurrences(lab::doctor_report_json(report), cuda.error), 1u) << lab::doctor_report_json(report);
  EXPECT_TRUE(has(text, "none: " + cuda.error + "\n")) << text;
  EXPECT_TRUE(
      has(text, "\nverdict: CUDA-GL interop is unavailable: " + std::string(lab::kNoCudaDeviceSeeCuda)))
      << text;
  for (const lab::DoctorSection& section : report.sections) {
    if (section.title != "modes") continue;
    for (const lab::DoctorLine& line : section.lines) {
      if (line.key == "staging" || line.key == "interop" || line.key == "external") {
        EXPECT_EQ(line.value, "unavailable: " + std::string(lab::kNoCudaDeviceSeeCuda)) << line.key;
      }
    }
  }
}

// This build's report (what --doctor prints) holds exactly the sections its registered sources made.
// --doctor in a build without GL (the API table has no GL row): no source opens a GL context, so the
// verdict says why first, whatever else the machine lacks; the other sources' sections are there.
TEST(DoctorSources, WithoutAGlSourceTheVerdictSaysTheBuildHasNoGl) {
  lab::Options options;
  options.headless = true;
  const lab::DoctorReport report = lab::collect_doctor_report(options, {lab::environment_doctor_source()});
  EXPECT_EQ(titles_of(report), (std::vector<std::string>{"CUDA", "environment", "remedies"}));
  EXPECT_FALSE(report.interop_works);
  EXPECT_EQ(report.reason, lab::kNoGlInThisBuild);
  EXPECT_EQ(lab::doctor_verdict(report),
            std::string("CUDA-GL interop is unavailable: ") + lab::kNoGlInThisBuild);
}

// The environment section says whether an MPS control daemon is there (its pipe `control` in
// CUDA_MPS_PIPE_DIRECTORY), and how to start one when it is not; a plain file of that name is no daemon.
TEST(DoctorSources, TheEnvironmentSaysWhetherAnMpsDaemonIsThere) {
  const std::filesystem::path directory =
      std::filesystem::temp_directory_path() / ("interop-lab-mps-" + std::to_string(::getpid()));
  std::filesystem::remove_all(directory);
  std::filesystem::create_directories(directory);
  const std::string control = (directory / "control").string();
  EXPECT_EQ(lab::os::mps_status(directory.c_str()).rfind("not running (no " + control + ")", 0), 0u)
      << lab::os::mps_status(directory.c_str());
  std::ofstream(control) << "not a pipe";
  EXPECT_EQ(lab::os::mps_status(directory.c_str()).rfind("not running", 0), 0u);
  std::filesystem::remove(control);
  ASSERT_EQ(::mkfifo(control.c_str(), 0600), 0);
  EXPECT_EQ(lab::os::mps_status(directory.c_str()).rfind("a control daemon's pipe at " + control, 0), 0u)
      << lab::os::mps_status(directory.c_str());
  // Where the daemon makes `control` a Unix socket, that is the daemon too.
  std::filesystem::remove(control);
  const int listening = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(listening, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, control.c_str(), sizeof address.sun_path - 1);
  ASSERT_EQ(::bind(listening, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  EXPECT_EQ(lab::os::mps_status(directory.c_str()).rfind("a control daemon's pipe at " + control, 0), 0u)
      << lab::os::mps_status(directory.c_str());
  ::close(listening);
  EXPECT_NE(lab::os::mps_status(nullptr).find("/tmp/nvidia-mps/control"), std::string::npos);  // the default
  lab::Options options;
  options.headless = true;
  const lab::DoctorReport report = lab::collect_doctor_report(options, {lab::environment_doctor_source()});
  bool listed = false;
  for (const lab::DoctorSection& section : report.sections)
    for (const lab::DoctorLine& line : section.lines)
      listed = listed || (section.title == "environment" && line.key == "MPS");
  EXPECT_TRUE(listed) << "the environment section has no MPS line";
  std::filesystem::remove_all(directory);
}

// --doctor with GL: GL's source opens the context it judges, so the report is the one of the GL context
// the options describe, not the no-GL verdict.
TEST(DoctorSources, GlsSourceOpensTheContextItJudges) {
  lab::Options options;
  options.headless = true;
  const lab::DoctorReport report = lab::collect_doctor_report(options, {lab::gl::gl_doctor_source()});
  EXPECT_NE(report.reason, lab::kNoGlInThisBuild);
  const std::string text = lab::format_doctor_report(report);
  EXPECT_FALSE(has(text, lab::kNoGlInThisBuild)) << text;
  EXPECT_TRUE(has(text, "GL_RENDERER") || has(text, "\n  error ")) << text;
}

TEST(DoctorSources, ThisBuildsReportComesFromTheRegisteredSources) {
  std::vector<lab::DoctorSource> sources = build_sources();
  ASSERT_GE(sources.size(), 3u);
  EXPECT_EQ(sources.front().api, "GL");
  EXPECT_EQ(sources.back().api, "environment");
  std::vector<RecordingSource> records(sources.size());
  std::vector<lab::DoctorSource> wrapped;
  for (size_t i = 0; i < sources.size(); ++i) wrapped.push_back(recording(sources[i], records[i]));
  lab::DoctorContext context;  // no GL context: each source says why it has nothing to judge
  context.gl_error = "no context in this test";
  const lab::DoctorReport report = lab::collect_doctor_report(context, lab::probe_cuda_devices(), wrapped);

  std::vector<std::string> expected{"CUDA"};
  std::vector<std::string> modes;
  for (const RecordingSource& record : records) {
    expected.insert(expected.end(), record.titles.begin(), record.titles.end());
    modes.insert(modes.end(), record.modes.begin(), record.modes.end());
  }
  ASSERT_FALSE(modes.empty()) << "GL's source judges GL's modes";
  expected.push_back("modes");
  expected.push_back("remedies");
  EXPECT_EQ(titles_of(report), expected);
  const lab::DoctorSection& mode_section = report.sections.at(report.sections.size() - 2);
  ASSERT_EQ(mode_section.lines.size(), modes.size());
  for (size_t i = 0; i < modes.size(); ++i) {
    EXPECT_EQ(mode_section.lines[i].key, modes[i]);
    ASSERT_TRUE(mode_section.lines[i].available.has_value()) << modes[i];
    EXPECT_EQ(*mode_section.lines[i].available, mode_section.lines[i].value == "available") << modes[i];
  }
  // Keys are names, not layout: the text report aligns them, JSON carries them as they are.
  for (const lab::DoctorSection& section : report.sections)
    for (const lab::DoctorLine& line : section.lines) {
      EXPECT_FALSE(line.key.empty()) << section.title;
      EXPECT_TRUE(line.key.front() != ' ' && line.key.back() != ' ')
          << section.title << ": \"" << line.key << "\"";
    }
  EXPECT_NE(std::find(records.front().titles.begin(), records.front().titles.end(), "GL context"),
            records.front().titles.end());
}

}  // namespace
