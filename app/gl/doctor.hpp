// app/gl/doctor.hpp — `interop-lab --doctor`: why CUDA-GL interop works or does not on this machine.
// It reports CUDA (driver, runtime, devices), the GL context the app would use, EGL devices and the
// CUDA device behind each, cudaGLGetDevices (all, current frame, next frame), peer access between CUDA
// devices and the split mode's path, the Vulkan devices (UUID, the CUDA device with the same UUID, what
// external interop needs), on Windows the DXGI adapters (LUID, D3D feature level, the CUDA device with the
// same LUID, TCC devices: app/d3d/dxgi_report.hpp), WSL, the GLX/PRIME/EGL variables in force, and a verdict
// with a remedy for every mode. The same report is a tab of the panel.
#pragma once

#include "app/core/cli.hpp"
#include "app/vulkan/export.hpp"
#include "interop/device.hpp"

#include <string>
#include <vector>

namespace lab {

struct DoctorLine {
  std::string key;  // "CUDA driver", "GL renderer", ...
  std::string value;
};

struct DoctorSection {
  std::string title;  // "CUDA", "GL context", "EGL devices", "environment", "modes"
  std::vector<DoctorLine> lines;
};

struct DoctorReport {
  std::vector<DoctorSection> sections;
  bool interop_works = false;
  int cuda_device = -1;  // the CUDA device the app would use; -1: none
  std::string reason;    // why CUDA-GL interop is unavailable, with a remedy; "" when it works
};

// Gathers the report for the context `options` describe (window or --headless, --device): creates
// that context (a hidden window, or EGL), and reports why where it cannot. Never throws for what the
// machine lacks.
DoctorReport collect_doctor_report(const Options& options);
// The same from inside a running app, for the GL context current on this thread. `cuda_device` is
// the app's device (-1: choose as the app does: the one that drives GL, else 0); `platform` is the
// current platform's description(), shown in the GL context section; the split mode's compute device
// (-1: the GL device) and copy choice fill the multi-GPU section.
DoctorReport collect_doctor_report_for_current_context(int cuda_device, const std::string& platform = "",
                                                       int compute_device = -1,
                                                       SplitCopy split_copy = SplitCopy::Peer);
// The sections as aligned "key  value" lines under each title, then the verdict line.
std::string format_doctor_report(const DoctorReport& report);
// The report as one JSON document: {"sections": [{"title", "lines": [{"key", "value"}]}], "interop_works",
// "cuda_device" (null: none), "reason", "verdict"}.
std::string doctor_report_json(const DoctorReport& report);
// "verdict: CUDA-GL interop works (device N)" or "verdict: CUDA-GL interop is unavailable: <reason>".
std::string doctor_verdict(const DoctorReport& report);
// Prints the report (as JSON with --doctor --json); returns 0 when CUDA-GL interop works, 1 when it does not.
int run_doctor(const Options& options);

// The panel's doctor tab: one collapsing header per section, each a two-column table.
void draw_doctor_report(const DoctorReport& report);

// --- The rules behind the advice, pure functions of what was found (tested without a GPU) ---

// The Vulkan section: every Vulkan device with its UUID, the CUDA device with the same UUID (matched by
// UUID, never by ordinal), and what external interop needs of it (VK_KHR_external_memory_fd,
// VK_KHR_external_semaphore_fd, timeline semaphores); `error` says why there is no list.
DoctorSection vulkan_section(const std::vector<vulkan::DeviceInfo>& devices, const interop::CudaDevices& cuda,
                             const std::string& error);

// WSL, from /proc/sys/kernel/osrelease, /proc/version and whether /dev/dxg exists: either file naming
// "microsoft" or "WSL" (any case), or /dev/dxg (WSL's GPU paravirtualisation device).
bool is_wsl(const std::string& osrelease, const std::string& proc_version, bool has_dev_dxg);

// What the doctor found that its advice depends on.
struct DoctorFindings {
  int cuda_device_count = 0;
  std::string cuda_error;    // why there is no CUDA device (interop::CudaDevices::error)
  int cuda_device = -1;      // the device the app would use; -1: none
  std::string device_error;  // --device names a device that does not exist; "" otherwise
  bool headless = false;     // the context is EGL (--headless), not a GLFW window
  std::string gl_error;      // why no GL context could be created; "" when one was
  std::string gl_vendor;     // GL_VENDOR, GL_RENDERER of that context
  std::string gl_renderer;
  std::vector<int> gl_cuda_devices;  // cudaGLGetDevices (all): CUDA devices that drive the GL context
  std::string egl_error;             // why EGL devices could not be listed; "" when they were
  int egl_cuda_devices = 0;          // EGL devices with EGL_NV_device_cuda
  bool wsl = false;
  bool software_gl_forced = false;          // LIBGL_ALWAYS_SOFTWARE is set to something other than 0
  interop::InteropSupport interop_support;  // interop::probe_gl_interop(cuda_device) in that context
};

// The common causes detected in `findings`, each as {what is wrong, what to do}; empty when none.
std::vector<DoctorLine> doctor_remedies(const DoctorFindings& findings);
// Why CUDA-GL interop is unavailable, as a sentence with a remedy; "" when it works.
std::string interop_unavailable_reason(const DoctorFindings& findings);

}  // namespace lab
