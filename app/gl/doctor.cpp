// app/gl/doctor.cpp — `interop-lab --doctor`: gathers what decides whether CUDA-GL interop can work here
// (CUDA driver and devices, the GL context the app would use, EGL devices, cudaGLGetDevices, WSL, the
// GLX/PRIME/EGL variables) into a report with a verdict and, for each common cause, its remedy.
// Everything environmental is caught and reported: the doctor runs where the app cannot.
#include "app/gl/doctor.hpp"

#include "app/core/remedy.hpp"
#include "app/core/text.hpp"
#include "app/gl/app.hpp"
#include "app/gl/gl_external.hpp"
#include "app/gl/gl_objects.hpp"
#include "app/gl/platform.hpp"
#include "interop/external.hpp"
#include "interop/vmm.hpp"

#include <nlohmann/json.hpp>

#ifdef _WIN32
#include <cstring>
#include "app/d3d/doctor_dxgi.hpp"
#endif

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

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

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

std::string join(const std::vector<int>& values) {
  std::string text;
  for (int value : values) text += (text.empty() ? "" : ", ") + std::to_string(value);
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

std::string no_cuda_device_text(const std::string& cuda_error) {
  return cuda_error.empty()
             ? "no CUDA device is visible to this process (check nvidia-smi and CUDA_VISIBLE_DEVICES)"
             : cuda_error;
}

// What the two collectors share: the GL context is current (or failed), CUDA enumerated.
struct Context {
  bool headless = false;
  std::string platform;       // the platform's description(); "" when there is none
  std::string gl_error;       // why there is no context
  int requested_device = -1;  // --device or the app's device; -1: choose as the app does
  std::string device_source;  // what asked for requested_device ("--device", "the app's")
  int compute_device = -1;    // --compute-device or the app's; -1: the GL device
  SplitCopy split_copy = SplitCopy::Peer;
};

// Two GPUs, one for GL and one for compute: which devices can reach each other's memory, and the way
// the split mode would take between its compute device and the GL device.
DoctorSection multi_gpu_section(const interop::CudaDevices& cuda, const Context& context, int gl_device) {
  DoctorSection section{"multi-GPU", {}};
  const int count = static_cast<int>(cuda.devices.size());
  if (count == 0) {
    section.lines.push_back({"split mode", "unavailable: no CUDA device"});
    return section;
  }
  if (count == 1) {
    section.lines.push_back({"peer access", "one CUDA device: nothing to reach"});
  } else {
    for (int a = 0; a < count; ++a) {
      for (int b = a + 1; b < count; ++b) {
        const bool there = interop::can_access_peer(a, b);
        const bool back = interop::can_access_peer(b, a);
        section.lines.push_back({"peer access " + std::to_string(a) + " <-> " + std::to_string(b),
                                 there && back ? "yes, both ways"
                                 : there       ? std::to_string(a) + " -> " + std::to_string(b) + " only"
                                 : back        ? std::to_string(b) + " -> " + std::to_string(a) + " only"
                                               : "no: copies between them go through host memory"});
      }
    }
  }
  if (context.compute_device >= 0) {
    if (const std::string refusal = device_refusal(context.compute_device, cuda); !refusal.empty()) {
      section.lines.push_back(
          {"split mode", "--compute-device " + std::to_string(context.compute_device) + ": " + refusal});
      return section;
    }
  }
  if (gl_device < 0) {
    section.lines.push_back({"split mode", "unavailable: no CUDA device drives GL to map the results on"});
    return section;
  }
  const int compute = context.compute_device >= 0 ? context.compute_device : gl_device;
  section.lines.push_back(
      {"split mode", choose_split_path(compute, gl_device, context.split_copy).description});
  return section;
}

#ifdef _WIN32
// The DXGI adapters and the CUDA device with each one's LUID (app/d3d/dxgi_report.hpp says how it is judged).
DoctorSection dxgi_section(const interop::CudaDevices& cuda) {
  std::vector<CudaDeviceFacts> facts;
  for (const interop::CudaDeviceInfo& info : cuda.devices) {
    cudaDeviceProp properties{};
    // A device listed but without properties now is left out, not described by guess.
    if (cudaGetDeviceProperties(&properties, info.ordinal) != cudaSuccess) continue;
    CudaDeviceFacts device;
    device.ordinal = info.ordinal;
    device.name = info.name;
    std::memcpy(device.luid.data(), properties.luid, device.luid.size());
    device.node_mask = properties.luidDeviceNodeMask;
    device.tcc = properties.tccDriver != 0;
    device.pci_bus_id = info.pci_bus_id;
    facts.push_back(std::move(device));
  }
  DoctorSection section{kDxgiSectionTitle, {}};
  for (DxgiLine& line : d3d::dxgi_doctor_report(facts).lines)
    section.lines.push_back({std::move(line.key), std::move(line.value)});
  return section;
}
#endif

}  // namespace

DoctorSection vulkan_section(const std::vector<vulkan::DeviceInfo>& devices, const interop::CudaDevices& cuda,
                             const std::string& error) {
  DoctorSection section{"Vulkan", {}};
  if (!error.empty()) {
    section.lines.push_back({"devices", "none listed: " + error});
    return section;
  }
  if (devices.empty()) section.lines.push_back({"devices", "none: the Vulkan loader found no driver"});
  const auto yes_no = [](bool value) { return value ? "yes" : "no"; };
  for (size_t i = 0; i < devices.size(); ++i) {
    const vulkan::DeviceInfo& device = devices[i];
    const std::string uuid = vulkan::to_string(device.uuid);
    std::string match = "no CUDA device has this UUID";
    for (const interop::CudaDeviceInfo& info : cuda.devices)
      if (info.uuid == "GPU-" + uuid) match = "= CUDA device " + std::to_string(info.ordinal);
    section.lines.push_back({"device " + std::to_string(i), device.name + ", UUID " + uuid + ", " + match});
    const bool external =
        device.external_memory_fd && device.external_semaphore_fd && device.timeline_semaphores;
    section.lines.push_back(
        {"  external interop", std::string(external ? "ready" : "incomplete") + ": memory FD " +
                                   yes_no(device.external_memory_fd) + ", semaphore FD " +
                                   yes_no(device.external_semaphore_fd) + ", timeline semaphores " +
                                   yes_no(device.timeline_semaphores) + ", Vulkan " +
                                   std::to_string(VK_API_VERSION_MAJOR(device.api_version)) + "." +
                                   std::to_string(VK_API_VERSION_MINOR(device.api_version))});
  }
  section.lines.push_back(
      {"handle types here", interop::handle_type_available(interop::ExternalHandleType::OpaqueFd)
                                ? "opaque FD, timeline FD (POSIX)"
                                : "NT handles: opaque Win32, D3D12 resource and fence, D3D11"});
  return section;
}

namespace {

// The GL context's side of the external mode: the import extensions, and which CUDA device GL runs on
// by UUID (GL_DEVICE_UUID_EXT).
std::vector<DoctorLine> gl_external_lines(const GlExternalSupport& support,
                                          const interop::CudaDevices& cuda) {
  const auto yes_no = [](bool value) { return value ? "yes" : "no"; };
  std::vector<DoctorLine> lines;
  lines.push_back({"external memory",
                   std::string("memory FD ") + yes_no(support.memory_fd) + ", semaphore FD " +
                       yes_no(support.semaphore_fd) + ", timeline semaphores " + yes_no(support.timeline) +
                       (support.memory_fd ? "" : " (the GL external mode needs memory FD)")});
  for (size_t i = 0; i < support.device_uuids.size(); ++i) {
    vulkan::Uuid uuid;
    std::copy(support.device_uuids[i].begin(), support.device_uuids[i].end(), uuid.begin());
    const std::string text = vulkan::to_string(uuid);
    // GL, Vulkan and CUDA share memory only on one device: the same UUID in all three.
    std::string match = "no CUDA device has this UUID";
    for (const interop::CudaDeviceInfo& info : cuda.devices)
      if (info.uuid == "GPU-" + text) match = "= CUDA device " + std::to_string(info.ordinal);
    lines.push_back({"GL device UUID", text + ", " + match});
  }
  return lines;
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

DoctorSection egl_section(const std::vector<EglDeviceInfo>& devices, const std::string& egl_error) {
  DoctorSection section{"EGL devices", {}};
  if (!egl_error.empty()) {
    section.lines.push_back({"EGL", egl_error});
    return section;
  }
  if (devices.empty()) {
    section.lines.push_back({"EGL",
                             "libEGL lists no device: install a GL driver's EGL vendor library (NVIDIA: "
                             "/usr/share/glvnd/egl_vendor.d/10_nvidia.json) and check "
                             "__EGL_VENDOR_LIBRARY_FILENAMES"});
    return section;
  }
  section.lines.push_back({"devices", std::to_string(devices.size())});
  for (const EglDeviceInfo& device : devices) {
    std::string value = device.cuda_device >= 0       ? "CUDA device " + std::to_string(device.cuda_device)
                        : device.nv_device_cuda       ? "NVIDIA, CUDA device not reported"
                        : device.mesa_device_software ? "software (Mesa), not a CUDA device"
                                                      : "not a CUDA device";
    std::string extensions;
    if (device.nv_device_cuda) extensions += " EGL_NV_device_cuda";
    if (device.ext_device_drm) extensions += " EGL_EXT_device_drm";
    if (device.mesa_device_software) extensions += " EGL_MESA_device_software";
    value += ";" + (extensions.empty() ? std::string(" none of EGL_NV_device_cuda, EGL_EXT_device_drm, "
                                                     "EGL_MESA_device_software")
                                       : extensions);
    if (!device.drm_device_file.empty()) value += "; " + device.drm_device_file;
    section.lines.push_back({"EGL device " + std::to_string(device.index), value});
  }
  return section;
}

DoctorSection environment_section(bool wsl) {
  DoctorSection section{"environment", {}};
  section.lines.push_back(
      {"WSL",
       wsl ? "yes: CUDA-GL interop is not supported under WSL; use --mode staging or --mode cpu" : "no"});
  for (const char* name : kInspectedVariables) section.lines.push_back({name, environment_or_unset(name)});
  return section;
}

DoctorReport collect(const Context& context, const interop::CudaDevices& cuda) {
  DoctorFindings findings;
  const int count = static_cast<int>(cuda.devices.size());
  findings.cuda_device_count = count;
  findings.cuda_error = cuda.error;
  findings.headless = context.headless;
  findings.gl_error = context.gl_error;
  findings.wsl = is_wsl(first_line_of("/proc/sys/kernel/osrelease"), first_line_of("/proc/version"),
                        file_exists("/dev/dxg"));
  const char* software = environment("LIBGL_ALWAYS_SOFTWARE");
  findings.software_gl_forced = software != nullptr && *software != '\0' && std::string(software) != "0" &&
                                lowercase(software) != "false";

  std::vector<EglDeviceInfo> egl_devices;
  try {
    egl_devices = enumerate_egl_devices();
  } catch (const std::exception& error) {
    findings.egl_error = error.what();
  }
  findings.egl_cuda_devices = static_cast<int>(std::count_if(
      egl_devices.begin(), egl_devices.end(), [](const EglDeviceInfo& d) { return d.nv_device_cuda; }));

  const bool has_context = context.gl_error.empty();
  DoctorSection gl{"GL context", {}};
  gl.lines.push_back({"platform", context.platform.empty() ? "none" : context.platform});
  if (has_context) {
    findings.gl_vendor = gl_string(GL_VENDOR);
    findings.gl_renderer = gl_string(GL_RENDERER);
    gl.lines.push_back({"GL_VENDOR", findings.gl_vendor});
    gl.lines.push_back({"GL_RENDERER", findings.gl_renderer});
    gl.lines.push_back({"GL_VERSION", gl_string(GL_VERSION)});
    for (const DoctorLine& line : gl_external_lines(query_gl_external_support(), cuda))
      gl.lines.push_back(line);
  } else {
    gl.lines.push_back({"error", context.gl_error});
  }

  // The device, chosen as App does: the one asked for, else the one that drives GL, else 0.
  std::string device_choice;
  if (context.requested_device >= 0) {
    if (count == 0) {
      findings.device_error = context.device_source + " asks for CUDA device " +
                              std::to_string(context.requested_device) + ", but this machine has none";
    } else if (context.requested_device >= count) {
      findings.device_error = context.device_source + " asks for CUDA device " +
                              std::to_string(context.requested_device) + ", but this machine has " +
                              std::to_string(count) + " (0 to " + std::to_string(count - 1) +
                              "): pick one of those";
    } else {
      findings.cuda_device = context.requested_device;
      device_choice = context.device_source;
    }
  } else if (count > 0) {
    findings.cuda_device = 0;  // until cudaGLGetDevices names the one that drives GL
    device_choice = has_context ? "the first; no CUDA device drives GL" : "the first";
  }

  DoctorSection interop_lines{"CUDA-GL interop", {}};
  if (!has_context) {
    findings.interop_support = {false, "no GL context: " + context.gl_error};
    interop_lines.lines.push_back(
        {"cudaGLGetDevices", "not queried: there is no GL context (see the GL context section)"});
  } else if (count == 0) {
    findings.interop_support = {false, "no CUDA device: " + no_cuda_device_text(cuda.error)};
    interop_lines.lines.push_back(
        {"cudaGLGetDevices", "not queried: there is no CUDA device (see the CUDA section)"});
  } else {
    const std::pair<interop::GlDeviceList, const char*> lists[] = {
        {interop::GlDeviceList::All, "cudaGLGetDevices (all)"},
        {interop::GlDeviceList::CurrentFrame, "cudaGLGetDevices (current frame)"},
        {interop::GlDeviceList::NextFrame, "cudaGLGetDevices (next frame)"}};
    for (const auto& [list, label] : lists) {
      const interop::GlDevices gl_devices = interop::cuda_devices_for_current_gl(list);
      const std::string value = !gl_devices.error.empty()    ? gl_devices.error
                                : gl_devices.devices.empty() ? "none: no CUDA device drives this GL context"
                                                             : "CUDA device(s) " + join(gl_devices.devices);
      if (list == interop::GlDeviceList::All) {
        findings.gl_cuda_devices = gl_devices.devices;
        if (context.requested_device < 0 && !gl_devices.devices.empty()) {
          findings.cuda_device = gl_devices.devices.front();
          device_choice = "drives GL";
        }
      }
      interop_lines.lines.push_back({label, value});
    }
    if (findings.cuda_device >= 0) {
      findings.interop_support = lab::probe_gl_interop(findings.cuda_device);
      interop_lines.lines.push_back(
          {"probe (CUDA device " + std::to_string(findings.cuda_device) + ")",
           (findings.interop_support.usable ? "usable: " : "unusable: ") + findings.interop_support.reason});
    } else {
      findings.interop_support = {false, findings.device_error};
      interop_lines.lines.push_back({"probe", "not run: " + findings.device_error});
    }
  }

  DoctorReport report;
  report.sections.push_back(cuda_section(cuda, findings, device_choice));
  report.sections.push_back(std::move(gl));
  report.sections.push_back(egl_section(egl_devices, findings.egl_error));
  report.sections.push_back(std::move(interop_lines));
  report.sections.push_back(multi_gpu_section(cuda, context, findings.cuda_device));
  {
    std::vector<vulkan::DeviceInfo> vulkan_devices;
    std::string vulkan_error;
    try {
      vulkan_devices = vulkan::on_own_thread([] { return vulkan::enumerate_devices(); });  // keeps GL current
    } catch (const std::exception& error) {
      vulkan_error = error.what();
    }
    report.sections.push_back(vulkan_section(vulkan_devices, cuda, vulkan_error));
  }
#ifdef _WIN32
  report.sections.push_back(dxgi_section(cuda));
#endif
  report.sections.push_back(environment_section(findings.wsl));

  DoctorSection modes{"modes", {}};
  const std::string cuda_error = findings.device_error.empty() ? cuda.error : findings.device_error;
  // The GL external mode's needs, judged on this context as the app judges them.
  interop::InteropSupport external{false, "no GL context: " + context.gl_error};
  if (has_context) external = probe_gl_external(findings.cuda_device);
  for (const ModeId mode : modes_of(GraphicsApi::Gl)) {
    const ModeAvailability availability =
        mode_availability(mode, findings.cuda_device, findings.interop_support, cuda_error, external);
    modes.lines.push_back(
        {to_string(mode), availability.available ? "available" : "unavailable: " + availability.reason});
  }
  report.sections.push_back(std::move(modes));

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

}  // namespace

bool is_wsl(const std::string& osrelease, const std::string& proc_version, bool has_dev_dxg) {
  for (const std::string* text : {&osrelease, &proc_version})
    if (contains_any_case(*text, "microsoft") || contains_any_case(*text, "wsl")) return true;
  return has_dev_dxg;
}

std::string interop_unavailable_reason(const DoctorFindings& findings) {
  if (findings.cuda_device_count == 0) return "no CUDA device: " + no_cuda_device_text(findings.cuda_error);
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
      remedies.push_back(
          {"no CUDA device", no_cuda_device_text(findings.cuda_error) + "; --mode cpu needs no CUDA"});
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

DoctorReport collect_doctor_report(const Options& options) {
  Context context;
  context.headless = options.headless;
  context.requested_device = options.device.value_or(-1);
  context.device_source = "--device";
  context.compute_device = options.compute_device.value_or(-1);
  context.split_copy = options.split_copy;
  // The headless context must come from the EGL device of the CUDA device in use, as App picks it.
  const interop::CudaDevices cuda = lab::probe_cuda_devices();
  const int count = static_cast<int>(cuda.devices.size());
  std::unique_ptr<Platform> platform;
  try {
    if (options.headless) {
      HeadlessDesc desc;
      desc.extent = {64, 64};
      desc.cuda_device = count > 0 && options.device.value_or(0) < count ? options.device.value_or(0) : -1;
      platform = create_headless_platform(desc);
    } else {
      WindowDesc desc;
      desc.extent = {320, 240};
      desc.title = "interop-lab --doctor";
      desc.vsync = false;
      desc.visible = false;
      platform = create_window_platform(desc);
    }
    context.platform = platform->description();
  } catch (const std::exception& error) {
    context.gl_error = error.what();
  }
  return collect(context, cuda);  // while the platform's context is current
}

DoctorReport collect_doctor_report_for_current_context(int cuda_device, const std::string& platform,
                                                       int compute_device, SplitCopy split_copy) {
  Context context;
  context.compute_device = compute_device;
  context.split_copy = split_copy;
  context.platform = platform.empty() ? "the app's current GL context" : platform;
  context.requested_device = cuda_device;
  context.device_source = "the app's";
  if (gl_string(GL_VERSION).empty())
    context.gl_error =
        "no GL context is current on this thread: collect the report on the thread that renders";
  return collect(context, lab::probe_cuda_devices());
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
  return text + doctor_verdict(report) + "\n";
}

std::string doctor_verdict(const DoctorReport& report) {
  if (report.interop_works)
    return "verdict: CUDA-GL interop works (device " + std::to_string(report.cuda_device) + ")";
  return "verdict: CUDA-GL interop is unavailable: " +
         (report.reason.empty() ? std::string("the doctor found no reason; run --doctor again and report it")
                                : report.reason);
}

std::string doctor_report_json(const DoctorReport& report) {
  nlohmann::json sections = nlohmann::json::array();
  for (const DoctorSection& section : report.sections) {
    nlohmann::json lines = nlohmann::json::array();
    for (const DoctorLine& line : section.lines) lines.push_back({{"key", line.key}, {"value", line.value}});
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

int run_doctor(const Options& options) {
  try {
    const DoctorReport report = collect_doctor_report(options);
    const std::string text = options.doctor_json ? doctor_report_json(report) : format_doctor_report(report);
    std::fputs(text.c_str(), stdout);
    std::fflush(stdout);
    return report.interop_works ? 0 : 1;
  } catch (const std::exception& error) {
    if (options.doctor_json) {
      DoctorReport stopped;
      stopped.reason = std::string("the doctor stopped early (") + error.what() + ")";
      std::fputs(doctor_report_json(stopped).c_str(), stdout);
      return 1;
    }
    std::printf("verdict: CUDA-GL interop is unavailable: the doctor stopped early (%s)\n", error.what());
    return 1;
  }
}

}  // namespace lab
