// tests/gl/test_doctor_gl.cpp — the doctor on the machine that runs the tests. In CI (Mesa llvmpipe,
// no NVIDIA driver) the report must say why interop is unavailable; on a GPU server whose EGL device
// platform shares the GPU with CUDA, it must say that interop works.
#include "tests/support/app_fixture.hpp"

#include "app/cli/remedy.hpp"
#include "app/gl/doctor_gl.hpp"
#include "app/vulkan/doctor_vulkan.hpp"
#include "interop/device.hpp"
#include "interop/error.hpp"
#include "interop/vmm.hpp"

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const lab::DoctorSection* find_section(const lab::DoctorReport& report, const std::string& title) {
  for (const lab::DoctorSection& section : report.sections)
    if (section.title == title) return &section;
  return nullptr;
}

std::string value_of(const lab::DoctorReport& report, const std::string& title, const std::string& key) {
  if (const lab::DoctorSection* section = find_section(report, title))
    for (const lab::DoctorLine& line : section->lines)
      if (line.key == key) return line.value;
  return "(no \"" + key + "\" in " + title + ")";
}

std::string text_of(const lab::DoctorSection& section) {
  std::string text;
  for (const lab::DoctorLine& line : section.lines) text += line.key + ": " + line.value + "\n";
  return text;
}

// The sources app/main.cpp's API table gives this build's GL app and --doctor: GL's, Vulkan's and the
// environment's.
std::vector<lab::DoctorSource> build_sources() {
  return {lab::gl::gl_doctor_source(), lab::vulkan::doctor_source(), lab::environment_doctor_source()};
}

lab::Options headless_options() {
  lab::Options options;
  options.headless = true;
  options.doctor = true;
  return options;
}

void expect_every_section_and_no_bare_unknown_error(const lab::DoctorReport& report) {
  for (const char* title : {"CUDA", "GL context", "EGL devices", "CUDA-GL interop", "multi-GPU",
                            "environment", "modes", "remedies"})
    EXPECT_NE(find_section(report, title), nullptr) << "no section " << title;
  for (const lab::DoctorSection& section : report.sections)
    for (const lab::DoctorLine& line : section.lines) {
      EXPECT_FALSE(line.value.empty()) << section.title << " / " << line.key << " has no value";
      EXPECT_NE(line.value, "unknown error") << section.title << " / " << line.key;
    }
}

TEST(Doctor, HeadlessWithoutAnNvidiaDriverSaysWhyInteropIsUnavailable) {
  const interop::CudaDevices cuda = interop::enumerate_cuda_devices();
  if (!cuda.devices.empty())
    GTEST_SKIP() << "this machine has " << cuda.devices.size()
                 << " CUDA device(s); the test checks the report of a machine without an NVIDIA driver (CI)";
  const lab::DoctorReport report = lab::collect_doctor_report(headless_options(), build_sources());
  expect_every_section_and_no_bare_unknown_error(report);
  const std::string text = lab::format_doctor_report(report);
  EXPECT_FALSE(report.interop_works) << text;
  EXPECT_EQ(report.cuda_device, -1);

  const std::string cuda_text = text_of(*find_section(report, "CUDA"));
  EXPECT_TRUE(has(cuda_text, "cudaErrorInsufficientDriver") || has(cuda_text, "cudaErrorNoDevice"))
      << cuda_text;
  EXPECT_TRUE(has(value_of(report, "GL context", "GL_RENDERER"), "llvmpipe")) << text;
  EXPECT_TRUE(has(value_of(report, "GL context", "platform"), "headless")) << text;
  EXPECT_EQ(value_of(report, "modes", "cpu"), "available");
  // Why there is no CUDA device is said once, in the CUDA section; the modes and the verdict refer to it.
  const std::string why = lab::probe_cuda_devices().error;
  ASSERT_FALSE(why.empty());
  EXPECT_EQ(value_of(report, "CUDA", "devices"), "none: " + why);
  size_t said = 0;
  for (size_t at = text.find(why); at != std::string::npos; at = text.find(why, at + why.size())) ++said;
  EXPECT_EQ(said, 1u) << text;
  for (const char* mode : {"interop", "reregister", "pbo", "split", "staging"}) {
    const std::string verdict = value_of(report, "modes", mode);
    EXPECT_EQ(verdict, "unavailable: " + std::string(lab::kNoCudaDeviceSeeCuda)) << mode;
  }
  EXPECT_TRUE(has(text, "\nverdict: CUDA-GL interop is unavailable: no CUDA device")) << text;
  EXPECT_TRUE(has(value_of(report, "remedies", "no NVIDIA driver"), "install or update the NVIDIA driver") ||
              has(value_of(report, "remedies", "no CUDA device visible"), "CUDA_VISIBLE_DEVICES"))
      << text;
}

TEST(Doctor, HeadlessOnAnNvidiaEglDeviceSaysInteropWorks) {
  const interop::CudaDevices cuda = interop::enumerate_cuda_devices();
  if (cuda.devices.empty()) LABTEST_NEEDS_GPUS(1, "needs a CUDA device: " << cuda.error);
  const lab::DoctorReport report = lab::collect_doctor_report(headless_options(), build_sources());
  expect_every_section_and_no_bare_unknown_error(report);
  const std::string text = lab::format_doctor_report(report);
  ASSERT_TRUE(report.interop_works) << text;
  EXPECT_TRUE(
      has(text, "\nverdict: CUDA-GL interop works (device " + std::to_string(report.cuda_device) + ")\n"))
      << text;
  // NVIDIA's GL imports memory and semaphores and runs on the CUDA device: every mode, external and
  // exported too.
  for (const lab::ModeId mode : lab::modes_of(lab::GraphicsApi::Gl))
    EXPECT_EQ(value_of(report, "modes", lab::to_string(mode)), "available") << lab::to_string(mode);
  // What the exported mode needs of the CUDA device, from the probe itself.
  const interop::VmmExportSupport vmm = interop::probe_vmm_export(report.cuda_device);
  EXPECT_TRUE(has(value_of(report, "CUDA", "device " + std::to_string(report.cuda_device) + " VMM export"),
                  vmm.supported ? "yes: POSIX FD, granularity " : "no: "))
      << text;
  EXPECT_TRUE(has(value_of(report, "GL context", "platform"), "EGL device platform")) << text;
}

// What the panel's tab shows: the report of the app's own context, not of a new one.
TEST(Doctor, ReportsTheCurrentContextOfARunningApp) {
  lab::gl::App app(labtest::app_options(lab::SceneId::Pattern, lab::ModeId::Cpu, 64, 64));
  const lab::DoctorReport report = lab::gl::collect_doctor_report_for_current_context(
      build_sources(), app.cuda_device(), app.platform().description(), app.compute_device(),
      app.split_copy());
  expect_every_section_and_no_bare_unknown_error(report);
  // The split mode's path as the mode itself would take it, and peer access between every two devices.
  const size_t devices = app.cuda_devices().devices.size();
  if (devices == 0) {
    EXPECT_EQ(value_of(report, "multi-GPU", "split mode"), "unavailable: no CUDA device");
  } else {
    EXPECT_EQ(
        value_of(report, "multi-GPU", "split mode"),
        lab::gl::choose_split_path(app.compute_device(), app.cuda_device(), app.split_copy()).description);
  }
  if (devices == 1) {
    EXPECT_EQ(value_of(report, "multi-GPU", "peer access"), "one CUDA device: nothing to reach");
  } else if (devices >= 2) {
    const std::string peer = value_of(report, "multi-GPU", "peer access 0 <-> 1");
    EXPECT_TRUE(has(peer, "yes, both ways") || has(peer, " only") || has(peer, "no: ")) << peer;
  }
  EXPECT_EQ(value_of(report, "GL context", "platform"), app.platform().description());
  EXPECT_EQ(value_of(report, "GL context", "GL_RENDERER"), interop::current_gl_renderer());
  EXPECT_EQ(report.interop_works, app.interop_support().usable) << lab::format_doctor_report(report);
  // The app's judgement of each mode; why there is no CUDA device is the CUDA section's, referred to.
  const std::string no_cuda_device = lab::no_cuda_device_reason(app.cuda_devices().error);
  for (const lab::ModeId mode : lab::all_modes()) {
    const lab::ModeAvailability availability = app.availability(mode);
    const std::string reason =
        availability.reason == no_cuda_device ? lab::kNoCudaDeviceSeeCuda : availability.reason;
    EXPECT_EQ(value_of(report, "modes", lab::to_string(mode)),
              availability.available ? "available" : "unavailable: " + reason);
  }
  EXPECT_TRUE(app.render_frame());  // collecting left the app's context usable
}

// Sets (or, with nullptr, unsets) an environment variable for one test, and puts it back after.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const char* value) : m_name(name) {
    const char* before = std::getenv(name);
    if (before != nullptr) m_before = before;
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedVariable() {
    if (m_before) {
      setenv(m_name, m_before->c_str(), 1);
    } else {
      unsetenv(m_name);
    }
  }
  ScopedVariable(const ScopedVariable&) = delete;
  ScopedVariable& operator=(const ScopedVariable&) = delete;

 private:
  const char* m_name;
  std::optional<std::string> m_before;
};

// Without a display no window can open: the doctor checks the GL context the app can make there (EGL, as
// --headless does) and says so, instead of reporting a window that cannot exist.
TEST(Doctor, WithoutADisplayGoesHeadlessAndSaysSo) {
  const ScopedVariable display("DISPLAY", nullptr);
  const ScopedVariable wayland("WAYLAND_DISPLAY", nullptr);
  lab::Options options = headless_options();
  options.headless = false;
  const lab::DoctorReport report = lab::collect_doctor_report(options, build_sources());
  expect_every_section_and_no_bare_unknown_error(report);
  const std::string text = lab::format_doctor_report(report);
  EXPECT_EQ(value_of(report, "GL context", "headless"), lab::doctor_headless_reason(false, nullptr, nullptr))
      << text;
  EXPECT_TRUE(has(value_of(report, "GL context", "platform"), "headless (EGL")) << text;
  EXPECT_EQ(value_of(report, "GL context", "error"), "(no \"error\" in GL context)") << text;
  // CI's EGL is Mesa's: the software renderer, where a window under Xvfb would have been GLX's.
  if (interop::enumerate_cuda_devices().devices.empty()) {
    EXPECT_TRUE(has(value_of(report, "GL context", "GL_RENDERER"), "llvmpipe")) << text;
  }
  EXPECT_FALSE(has(report.reason, "no GL context")) << report.reason;
}

// A display that is set but cannot be opened is not "no display": the window's failure is reported, not
// thrown, and the doctor goes on.
TEST(Doctor, WindowOnADisplayThatCannotOpenIsReportedNotThrown) {
  const ScopedVariable display("DISPLAY", ":4095");
  const ScopedVariable wayland("WAYLAND_DISPLAY", nullptr);
  lab::Options options = headless_options();
  options.headless = false;
  const lab::DoctorReport report = lab::collect_doctor_report(options, build_sources());
  expect_every_section_and_no_bare_unknown_error(report);
  EXPECT_FALSE(report.interop_works);
  EXPECT_EQ(value_of(report, "GL context", "headless"), "(no \"headless\" in GL context)");
  const std::string error = value_of(report, "GL context", "error");
  EXPECT_TRUE(has(error, "cannot open a window")) << error;
  EXPECT_TRUE(has(report.reason, "no CUDA device") || has(report.reason, "no GL context")) << report.reason;
}

}  // namespace
