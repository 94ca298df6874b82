// app/doctor/doctor.cpp — the doctor's report from its sources: the CUDA section (driver, runtime, devices,
// the VMM export the exported modes need), the sources' sections in their order, the modes, the remedies and
// the verdict; its text and JSON. Everything environmental is caught and reported: the doctor runs where the
// app cannot.
#include "app/doctor/doctor.hpp"

#include "app/cli/remedy.hpp"
#include "app/core/text.hpp"
#include "app/os/os.hpp"
#include "interop/vmm.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <utility>

namespace lab {
namespace {

constexpr const char* kInspectedVariables[] = {"DISPLAY",
                                               "WAYLAND_DISPLAY",
                                               "__GLX_VENDOR_LIBRARY_NAME",
                                               "__NV_PRIME_RENDER_OFFLOAD",
                                               "__VK_LAYER_NV_optimus",
                                               "__EGL_VENDOR_LIBRARY_FILENAMES",
                                               "LIBGL_ALWAYS_SOFTWARE",
                                               "MESA_LOADER_DRIVER_OVERRIDE",
                                               "CUDA_VISIBLE_DEVICES"};

bool contains_any_case(const std::string& text, const std::string& word) {
  return contains(lowercase(text), lowercase(word));
}

const char* environment(const char* name) {
  return std::getenv(name);
}
std::string environment_or_unset(const char* name) {
  const char* value = environment(name);
  return value ? "\"" + std::string(value) + "\"" : "unset";
}

std::string first_line_of(const char* path) {
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  return line;
}

bool file_exists(const char* path) {
  std::error_code error;
  return std::filesystem::exists(path, error);
}

std::string gibibytes(size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  return text;
}

// "llvmpipe" for "llvmpipe (LLVM 15.0.6, 256 bits)"; "" for a hardware renderer.
std::string software_renderer(const std::string& renderer) {
  for (const char* name : {"llvmpipe", "softpipe", "swrast", "software rasterizer"})
    if (contains_any_case(renderer, name)) return name;
  return "";
}

// By the vendor: WSL's renderer names the NVIDIA GPU too ("D3D12 (NVIDIA ...)") but its GL is Mesa's.
bool is_nvidia_gl(const std::string& vendor) {
  return contains_any_case(vendor, "nvidia");
}

DoctorSection cuda_section(const interop::CudaDevices& cuda, const DoctorFindings& findings,
                           const std::string& device_choice) {
  DoctorSection section{"CUDA", {}};
  if (cuda.driver_version == 0) {
    section.lines.push_back({"driver",
                             "none: no NVIDIA driver is loaded (libcuda.so.1 is missing); install the "
                             "NVIDIA driver, or use --mode cpu"});
  } else if (cuda.driver_version < cuda.runtime_version) {
    section.lines.push_back({"driver", cuda_version_text(cuda.driver_version) + ", older than the runtime " +
                                           cuda_version_text(cuda.runtime_version) +
                                           ": update the NVIDIA driver, or use --mode cpu"});
  } else {
    section.lines.push_back({"driver", cuda_version_text(cuda.driver_version)});
  }
  section.lines.push_back({"runtime", cuda_version_text(cuda.runtime_version)});
  if (cuda.devices.empty()) {
    section.lines.push_back({"devices", "none: " + no_cuda_device_text(cuda.error)});
  } else {
    section.lines.push_back({"devices", std::to_string(cuda.devices.size())});
    if (!cuda.error.empty()) section.lines.push_back({"device query", cuda.error});
  }
  for (const interop::CudaDeviceInfo& device : cuda.devices) {
    const std::string prefix = "device " + std::to_string(device.ordinal);
    section.lines.push_back({prefix, device.name});
    section.lines.push_back({prefix + " UUID", device.uuid});
    section.lines.push_back(
        {prefix + " PCI bus id", device.pci_bus_id.empty() ? "not reported" : device.pci_bus_id});
    section.lines.push_back({prefix + " compute capability", std::to_string(device.compute_major) + "." +
                                                                 std::to_string(device.compute_minor)});
    section.lines.push_back({prefix + " memory", gibibytes(device.total_memory)});
    // What the exported mode needs: cuMemCreate allocations that export as POSIX FDs.
    const interop::VmmExportSupport vmm = interop::probe_vmm_export(device.ordinal);
    section.lines.push_back(
        {prefix + " VMM export",
         vmm.supported ? "yes: POSIX FD, granularity " + std::to_string(vmm.granularity >> 10) + " KiB"
                       : "no: " + vmm.reason});
  }
  if (!findings.device_error.empty()) {
    section.lines.push_back({"device used", "none: " + findings.device_error});
  } else if (findings.cuda_device >= 0) {
    section.lines.push_back(
        {"device used", std::to_string(findings.cuda_device) + " (" + device_choice + ")"});
  } else {
    section.lines.push_back({"device used", "none"});
  }
  if (const char* visible = environment("CUDA_VISIBLE_DEVICES"))
    section.lines.push_back({"CUDA_VISIBLE_DEVICES", std::string("\"") + visible + "\""});
  return section;
}

DoctorSection environment_section(bool wsl) {
  DoctorSection section{"environment", {}};
  section.lines.push_back(
      {"WSL",
       wsl ? "yes: CUDA-GL interop is not supported under WSL; use --mode staging or --mode cpu" : "no"});
  section.lines.push_back({"MPS", os::mps_status(environment("CUDA_MPS_PIPE_DIRECTORY"))});
  for (const char* name : kInspectedVariables) section.lines.push_back({name, environment_or_unset(name)});
  return section;
}

}  // namespace

std::string no_cuda_device_text(const std::string& cuda_error) {
  return cuda_error.empty()
             ? "no CUDA device is visible to this process (check nvidia-smi and CUDA_VISIBLE_DEVICES)"
             : cuda_error;
}

std::string cuda_device_with_uuid(const interop::CudaDevices& cuda, const std::string& uuid) {
  std::string match = "no CUDA device has this UUID";
  for (const interop::CudaDeviceInfo& info : cuda.devices)
    if (info.uuid == "GPU-" + uuid) match = "= CUDA device " + std::to_string(info.ordinal);
  return match;
}

std::string doctor_headless_reason(bool headless_asked, const char* display, const char* wayland_display) {
  const auto set = [](const char* value) { return value != nullptr && *value != '\0'; };
  if (headless_asked || set(display) || set(wayland_display)) return "";
  return "no display (DISPLAY and WAYLAND_DISPLAY are unset), so GL was checked through EGL, as --headless "
         "does";
}

DoctorSource environment_doctor_source() {
  return {"environment",
          [](DoctorCollection& collection) {
            return std::vector<DoctorSection>{environment_section(collection.findings.wsl)};
          },
          {},
          {}};
}

DoctorReport collect_doctor_report(const DoctorContext& context, const interop::CudaDevices& cuda,
                                   const std::vector<DoctorSource>& sources) {
  DoctorCollection collection{context, cuda, {}, {}};
  DoctorFindings& findings = collection.findings;
  findings.cuda_device_count = static_cast<int>(cuda.devices.size());
  findings.cuda_error = cuda.error;
  findings.headless = context.headless;
  findings.gl_error = context.gl_error;
  findings.wsl = is_wsl(first_line_of("/proc/sys/kernel/osrelease"), first_line_of("/proc/version"),
                        file_exists("/dev/dxg"));
  const char* software = environment("LIBGL_ALWAYS_SOFTWARE");
  findings.software_gl_forced = software != nullptr && *software != '\0' && std::string(software) != "0" &&
                                lowercase(software) != "false";

  std::vector<DoctorSection> sections;
  for (const DoctorSource& source : sources) {
    if (!source.sections) continue;
    for (DoctorSection& section : source.sections(collection)) sections.push_back(std::move(section));
  }
  bool any_modes = false;
  DoctorSection modes{"modes", {}};
  for (const DoctorSource& source : sources) {
    if (!source.modes) continue;
    any_modes = true;
    for (DoctorLine& line : source.modes(collection)) modes.lines.push_back(std::move(line));
  }
  if (any_modes) sections.push_back(std::move(modes));

  DoctorReport report;
  // First, though gathered last: the sources choose the device it names.
  report.sections.push_back(cuda_section(cuda, findings, collection.device_choice));
  for (DoctorSection& section : sections) report.sections.push_back(std::move(section));
  report.reason = interop_unavailable_reason(findings);
  report.interop_works = report.reason.empty();
  report.cuda_device = findings.cuda_device;
  DoctorSection remedies{"remedies", doctor_remedies(findings)};
  if (remedies.lines.empty())
    remedies.lines.push_back({"none needed", report.interop_works
                                                 ? "CUDA-GL interop works here"
                                                 : "no common cause matched; the verdict says what failed"});
  report.sections.push_back(std::move(remedies));
  return report;
}

namespace {

// The report of `sources` for `context`, each source's `open` run first (GL's opens its context there).
DoctorReport collect_opened(DoctorContext& context, const std::vector<DoctorSource>& sources) {
  context.gl_error = kNoGlInThisBuild;  // until a source opens a GL context
  const interop::CudaDevices cuda = probe_cuda_devices();
  std::vector<std::shared_ptr<void>> opened;  // what the sources judge, until the report is done
  for (const DoctorSource& source : sources)
    if (source.open) opened.push_back(source.open(context, cuda));
  return collect_doctor_report(context, cuda, sources);
}

}  // namespace

DoctorReport collect_doctor_report(const Options& options, const std::vector<DoctorSource>& sources) {
  DoctorContext context;
#ifndef _WIN32
  // A window needs a display; without one the doctor checks the context the app can make there (EGL).
  context.headless_reason =
      doctor_headless_reason(options.headless, std::getenv("DISPLAY"), std::getenv("WAYLAND_DISPLAY"));
#endif
  context.headless = options.headless || !context.headless_reason.empty();
  context.requested_device = options.device.value_or(-1);
  context.device_source = "--device";
  context.compute_device = options.compute_device.value_or(-1);
  context.split_copy = options.split_copy;
  return collect_opened(context, sources);
}

DoctorContext app_doctor_context(int cuda_device, int compute_device, SplitCopy split_copy) {
  DoctorContext context;
  context.requested_device = cuda_device;
  context.device_source = "the app's";
  context.compute_device = compute_device;
  context.split_copy = split_copy;
  return context;
}

DoctorReport collect_doctor_report_beside(int cuda_device, int compute_device, SplitCopy split_copy,
                                          const std::vector<DoctorSource>& sources) {
  DoctorContext context = app_doctor_context(cuda_device, compute_device, split_copy);
  context.headless = true;
  context.headless_reason = kBesideTheApp;
  return collect_opened(context, sources);
}

int run_doctor(const Options& options, const std::vector<DoctorSource>& sources) {
  try {
    return print_doctor_report(collect_doctor_report(options, sources), options.doctor_json);
  } catch (const std::exception& error) {
    return print_doctor_failure(error.what(), options.doctor_json);
  }
}

bool is_wsl(const std::string& osrelease, const std::string& proc_version, bool has_dev_dxg) {
  for (const std::string* text : {&osrelease, &proc_version})
    if (contains_any_case(*text, "microsoft") || contains_any_case(*text, "wsl")) return true;
  return has_dev_dxg;
}

std::string interop_unavailable_reason(const DoctorFindings& findings) {
  if (findings.gl_error == kNoGlInThisBuild) return findings.gl_error;  // before anything this machine lacks
  if (findings.cuda_device_count == 0) return kNoCudaDeviceSeeCuda;
  if (!findings.device_error.empty()) return findings.device_error;
  if (!findings.gl_error.empty()) return "no GL context: " + findings.gl_error;
  if (findings.interop_support.usable && findings.cuda_device >= 0) return "";
  if (findings.wsl)
    return "CUDA-GL interop is not supported under WSL: use --mode staging or --mode cpu, or run on native "
           "Linux "
           "or Windows";
  if (findings.interop_support.reason.empty())
    return "CUDA-GL interop was not probed for CUDA device " + std::to_string(findings.cuda_device) +
           ": use --mode staging or cpu";
  return findings.interop_support.reason;
}

std::vector<DoctorLine> doctor_remedies(const DoctorFindings& findings) {
  std::vector<DoctorLine> remedies;
  const bool cuda = findings.cuda_device_count > 0;
  if (!cuda) {
    if (contains(findings.cuda_error, "cudaErrorInsufficientDriver")) {
      remedies.push_back(
          {"no NVIDIA driver",
           "cudaGetDeviceCount says cudaErrorInsufficientDriver: no NVIDIA driver new enough for "
           "this CUDA runtime is loaded; install or update the NVIDIA driver (nvidia-smi must list "
           "the GPU). Until then --mode cpu shows every scene"});
    } else if (contains(findings.cuda_error, "cudaErrorNoDevice")) {
      remedies.push_back(
          {"no CUDA device visible",
           "cudaGetDeviceCount says cudaErrorNoDevice: check nvidia-smi and CUDA_VISIBLE_DEVICES (an "
           "empty or wrong value hides every GPU). Until then --mode cpu shows every scene"});
    } else {
      remedies.push_back({"no CUDA device", "the CUDA section says why; --mode cpu needs no CUDA"});
    }
  }
  if (!findings.device_error.empty()) remedies.push_back({"--device", findings.device_error});
  if (findings.wsl)
    remedies.push_back({"WSL",
                        "CUDA-GL interop is not supported under WSL: use --mode staging (CUDA, then a copy "
                        "through the host) or --mode cpu; run on native Linux or Windows for interop"});
  const bool no_nvidia_egl = cuda && findings.egl_cuda_devices == 0;
  if (!findings.gl_error.empty()) {
    remedies.push_back({"no GL context", findings.gl_error});
  } else if (!findings.wsl) {  // under WSL no GL setting helps: the WSL remedy says what does
    const std::string software = software_renderer(findings.gl_renderer);
    const bool nvidia = is_nvidia_gl(findings.gl_vendor);
    const std::string forced = findings.software_gl_forced
                                   ? "LIBGL_ALWAYS_SOFTWARE is set, which forces it: unset it. Otherwise "
                                   : "";
    if (!software.empty() && !cuda) {
      // No NVIDIA driver: the GL remedies only help once the driver works.
      remedies.push_back({"GL on " + software + " (Mesa)",
                          "GL is rendered by " + software + " (Mesa), not by an NVIDIA GPU: " + forced +
                              (findings.headless ? "once the NVIDIA driver works, --headless renders on its "
                                                   "EGL device; until then use --mode cpu"
                                                 : "once the NVIDIA driver works, run with "
                                                   "__GLX_VENDOR_LIBRARY_NAME=nvidia or use --headless; "
                                                   "until then use --mode cpu")});
    } else if (!software.empty() && !findings.headless) {
      remedies.push_back({"GL on " + software + " (Mesa)",
                          "GL is rendered by " + software + " (Mesa), not by an NVIDIA GPU: " + forced +
                              "run with __GLX_VENDOR_LIBRARY_NAME=nvidia, or use --headless, or --mode cpu"});
    } else if (!nvidia && cuda && !findings.headless) {
      remedies.push_back(
          {"GL on another GPU",
           "GL is rendered by " + findings.gl_renderer + " (" + findings.gl_vendor +
               "), not by the NVIDIA GPU (a hybrid laptop?): run with __NV_PRIME_RENDER_OFFLOAD=1 "
               "__GLX_VENDOR_LIBRARY_NAME=nvidia, or use --headless, or --mode staging/cpu"});
    } else if (!nvidia && cuda && findings.headless && !no_nvidia_egl) {
      remedies.push_back(
          {"GL on another GPU",
           "the headless context is rendered by " + findings.gl_renderer +
               ", though an NVIDIA EGL device exists: pick its CUDA device with --device (the EGL "
               "devices section names it), or use --mode staging/cpu"});
    } else if (nvidia && cuda && findings.cuda_device >= 0 && !findings.gl_cuda_devices.empty() &&
               std::find(findings.gl_cuda_devices.begin(), findings.gl_cuda_devices.end(),
                         findings.cuda_device) == findings.gl_cuda_devices.end()) {
      const std::string gl_device = std::to_string(findings.gl_cuda_devices.front());
      remedies.push_back(
          {"GL on another GPU",
           "GL runs on CUDA device " + gl_device + ", not on the chosen CUDA device " +
               std::to_string(findings.cuda_device) + ": run with --device " + gl_device +
               ", or render GL on device " + std::to_string(findings.cuda_device) + " (--headless --device " +
               std::to_string(findings.cuda_device) +
               ", or __NV_PRIME_RENDER_OFFLOAD=1 __GLX_VENDOR_LIBRARY_NAME=nvidia on a hybrid laptop)"});
    } else if (nvidia && cuda && findings.gl_cuda_devices.empty()) {
      remedies.push_back({"GL GPU hidden from CUDA",
                          "GL runs on an NVIDIA GPU (" + findings.gl_renderer +
                              ") that CUDA does not list: check CUDA_VISIBLE_DEVICES, which may hide it"});
    }
  }
  if (no_nvidia_egl && findings.egl_error.empty()) {
    remedies.push_back(
        {"no NVIDIA EGL device",
         "no EGL device has EGL_NV_device_cuda, so --headless cannot render on the NVIDIA GPU: "
         "install the NVIDIA EGL vendor library (libnvidia-egl, "
         "/usr/share/glvnd/egl_vendor.d/10_nvidia.json) and check __EGL_VENDOR_LIBRARY_FILENAMES"});
  } else if (no_nvidia_egl) {
    remedies.push_back({"no NVIDIA EGL device",
                        findings.egl_error + " (until then --headless cannot render on the NVIDIA GPU)"});
  }
  return remedies;
}

std::string format_doctor_report(const DoctorReport& report) {
  std::string text;
  for (const DoctorSection& section : report.sections) {
    size_t width = 0;
    for (const DoctorLine& line : section.lines) width = std::max(width, line.key.size());
    text += section.title + "\n";
    for (const DoctorLine& line : section.lines) {
      const std::string indent(2 + width + 2, ' ');
      std::string value = line.value;
      // A value of several lines (an exception's text) continues under its first line.
      for (size_t at = value.find('\n'); at != std::string::npos;
           at = value.find('\n', at + 1 + indent.size()))
        value.insert(at + 1, indent);
      text += "  " + line.key + std::string(width - line.key.size() + 2, ' ') + value + "\n";
    }
    text += "\n";
  }
  return text + "verdict: " + doctor_verdict(report) + "\n";
}

std::string doctor_verdict(const DoctorReport& report) {
  if (report.interop_works)
    return "CUDA-GL interop works (device " + std::to_string(report.cuda_device) + ")";
  return "CUDA-GL interop is unavailable: " +
         (report.reason.empty() ? std::string("the doctor found no reason; run --doctor again and report it")
                                : report.reason);
}

std::string doctor_report_json(const DoctorReport& report) {
  nlohmann::json sections = nlohmann::json::array();
  for (const DoctorSection& section : report.sections) {
    nlohmann::json lines = nlohmann::json::array();
    for (const DoctorLine& line : section.lines) {
      nlohmann::json entry = {{"key", line.key}, {"value", line.value}};
      if (line.available) entry["available"] = *line.available;
      lines.push_back(std::move(entry));
    }
    sections.push_back({{"title", section.title}, {"lines", lines}});
  }
  const nlohmann::json document = {
      {"sections", sections},
      {"interop_works", report.interop_works},
      {"cuda_device", report.cuda_device >= 0 ? nlohmann::json(report.cuda_device) : nlohmann::json(nullptr)},
      {"reason", report.reason},
      {"verdict", doctor_verdict(report)}};
  // Replace, not throw, on bytes that are not UTF-8 (a driver's string, an environment variable).
  return document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

int print_doctor_report(const DoctorReport& report, bool json) {
  const std::string text = json ? doctor_report_json(report) : format_doctor_report(report);
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
  return report.interop_works ? 0 : 1;
}

int print_doctor_failure(const std::string& error, bool json) {
  if (json) {
    DoctorReport stopped;
    stopped.reason = "the doctor stopped early (" + error + ")";
    std::fputs(doctor_report_json(stopped).c_str(), stdout);
    return 1;
  }
  std::printf("verdict: CUDA-GL interop is unavailable: the doctor stopped early (%s)\n", error.c_str());
  return 1;
}

}  // namespace lab
