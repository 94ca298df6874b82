// app/doctor/doctor.hpp — `interop-lab --doctor`: the report of why CUDA interop with each graphics API works
// or does not on this machine, assembled from sections that each API's folder provides (a DoctorSource: GL's
// in app/gl/doctor_gl.hpp, Vulkan's in app/vulkan/doctor_vulkan.hpp, DXGI's in app/d3d/doctor_d3d.hpp). This
// library itself has the report, its text and JSON, the CUDA and environment sections, the verdict and the
// remedies (pure functions of what the sources found, tested without a GPU) and the panel's doctor tab. It
// includes no graphics API.
#pragma once

#include "app/cli/cli.hpp"
#include "app/core/vocabulary.hpp"
#include "interop/device.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lab {

struct DoctorLine {
  DoctorLine() = default;
  // Two strings for most lines, so that {"key", "value"} stays a line without naming `available`.
  DoctorLine(std::string line_key, std::string line_value, std::optional<bool> mode_available = std::nullopt)
      : key(std::move(line_key)), value(std::move(line_value)), available(mode_available) {}

  std::string key;  // "CUDA driver", "GL renderer", ...
  std::string value;
  std::optional<bool> available;  // the modes section's lines: whether the mode runs here
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

// What the doctor found that its advice depends on.
struct DoctorFindings {
  int cuda_device_count = 0;
  std::string cuda_error;    // why there is no CUDA device (interop::CudaDevices::error)
  int cuda_device = -1;      // the device the app would use; -1: none
  std::string device_error;  // --device names a device that does not exist; "" otherwise
  bool headless = false;     // the context is EGL (--headless, or no display), not a GLFW window
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

// What the report is asked for: the graphics context the sources judge (made by the caller and current
// while they run, or why there is none) and the devices asked for.
struct DoctorContext {
  bool headless = false;
  std::string headless_reason;             // why EGL though --headless was not given (no display); ""
  std::string platform;                    // the platform's description(); "" when there is none
  std::string gl_error;                    // why there is no context
  int requested_device = -1;               // --device or the app's device; -1: choose as the app does
  std::string device_source;               // what asked for requested_device ("--device", "the app's")
  int compute_device = -1;                 // --compute-device or the app's; -1: the GL device
  SplitCopy split_copy = SplitCopy::Peer;  // the split mode's copy between the devices
};

// One collection under way: what the sources read, and what they found so far. Sources run in their
// order; each may add to `findings` (GL's decides the CUDA device the app would use).
struct DoctorCollection {
  const DoctorContext& context;
  const interop::CudaDevices& cuda;
  DoctorFindings findings;
  std::string
      device_choice;  // why findings.cuda_device was chosen ("--device", "drives GL"), for the CUDA section
};

// A graphics API's part of the report: its sections, and its modes' lines of the "modes" section, judged
// once every source's sections are in. Either may be empty. `open`, where set, makes what the source judges
// before any source runs (GL: its context, current while the report is collected), says so in the context
// (platform, gl_error) and returns it, kept until the report is done.
struct DoctorSource {
  std::string api;  // "GL", "Vulkan", "DXGI", "environment"
  std::function<std::vector<DoctorSection>(DoctorCollection&)> sections;
  std::function<std::vector<DoctorLine>(const DoctorCollection&)> modes;
  std::function<std::shared_ptr<void>(DoctorContext&, const interop::CudaDevices&)> open;
};

// The report from `sources`, in their order: the CUDA section first (CUDA's driver, runtime and devices,
// and the device the sources chose), then each source's sections, then "modes" (every source's mode lines,
// when any source has modes), then "remedies"; the verdict is judged on the findings. Never throws for what
// the machine lacks (the sources catch and report it).
DoctorReport collect_doctor_report(const DoctorContext& context, const interop::CudaDevices& cuda,
                                   const std::vector<DoctorSource>& sources);

// The environment section: WSL and the GLX/PRIME/EGL/CUDA variables in force.
DoctorSource environment_doctor_source();

// Why the verdict has no GL context where no source opened one: this build has no GL.
inline constexpr const char* kNoGlInThisBuild =
    "this build of interop-lab has no OpenGL (--api gl): the CUDA-GL checks need a build with it";

// The report of `sources` (in their order; each opens what it judges first) for the context `options`
// describe: a window or --headless (or EGL where no display is set, saying so), --device, --compute-device
// and --split-copy. Never throws for what the machine lacks.
DoctorReport collect_doctor_report(const Options& options, const std::vector<DoctorSource>& sources);
// The context of a report made inside a running app: the app's CUDA device (said "the app's"), its split
// mode's compute device (-1: the graphics device) and copy.
DoctorContext app_doctor_context(int cuda_device, int compute_device, SplitCopy split_copy);
// The report for an app that has no GL context of its own (Vulkan's panel tab and page section): `sources`
// each open what they judge, GL's a headless EGL context beside the app's (so the verdict is CUDA-GL's, as
// --doctor's is), for the app's CUDA device, compute device and split copy. Never throws for what the
// machine lacks.
DoctorReport collect_doctor_report_beside(int cuda_device, int compute_device, SplitCopy split_copy,
                                          const std::vector<DoctorSource>& sources);
// What the GL section's "headless" line says in that report.
inline constexpr const char* kBesideTheApp =
    "a context of the doctor's own (EGL), beside the app's graphics API, as --doctor --headless makes it";
// --doctor: that report, printed (as JSON with --json); returns 0 when CUDA-GL interop works, 1 when it does
// not or collecting stopped on an error (said in the report's form).
int run_doctor(const Options& options, const std::vector<DoctorSource>& sources);

// The sections as aligned "key  value" lines under each title, then "verdict: " and the verdict.
std::string format_doctor_report(const DoctorReport& report);
// The report as one JSON document: {"sections": [{"title", "lines": [{"key", "value"}]}], "interop_works",
// "cuda_device" (null: none), "reason", "verdict"}; the modes section's lines add "available" (true/false).
std::string doctor_report_json(const DoctorReport& report);
// "CUDA-GL interop works (device N)" or "CUDA-GL interop is unavailable: <reason>".
std::string doctor_verdict(const DoctorReport& report);
// Prints `report` (as JSON when `json`) to stdout; returns 0 when CUDA-GL interop works, 1 when it does not.
int print_doctor_report(const DoctorReport& report, bool json);
// What --doctor prints when collecting stopped on `error`; returns 1.
int print_doctor_failure(const std::string& error, bool json);

// The panel's doctor tab: one collapsing header per section, each a two-column table.
void draw_doctor_report(const DoctorReport& report);

// --- What the sources share, and the rules behind the advice (pure functions, tested without a GPU) ---

// Why there is no CUDA device, `cuda_error` or, when it says nothing, where to look. The CUDA section says
// it once; the modes, the remedies and the verdict refer to it as kNoCudaDeviceSeeCuda.
std::string no_cuda_device_text(const std::string& cuda_error);
inline constexpr const char* kNoCudaDeviceSeeCuda = "no CUDA device (see the CUDA section)";

// Why --doctor checks GL through EGL though --headless was not given, or "" when it opens a window:
// without a display (`display` and `wayland_display`, the variables DISPLAY and WAYLAND_DISPLAY, unset or
// empty) no window can open, and EGL needs none.
std::string doctor_headless_reason(bool headless_asked, const char* display, const char* wayland_display);
// "= CUDA device N" for the CUDA device whose UUID is "GPU-" + `uuid`, else "no CUDA device has this UUID":
// two APIs share memory only on one device, matched by UUID, never by ordinal.
std::string cuda_device_with_uuid(const interop::CudaDevices& cuda, const std::string& uuid);

// WSL, from /proc/sys/kernel/osrelease, /proc/version and whether /dev/dxg exists: either file naming
// "microsoft" or "WSL" (any case), or /dev/dxg (WSL's GPU paravirtualisation device).
bool is_wsl(const std::string& osrelease, const std::string& proc_version, bool has_dev_dxg);

// The common causes detected in `findings`, each as {what is wrong, what to do}; empty when none.
std::vector<DoctorLine> doctor_remedies(const DoctorFindings& findings);
// Why CUDA-GL interop is unavailable, as a sentence with a remedy; "" when it works.
std::string interop_unavailable_reason(const DoctorFindings& findings);

}  // namespace lab
