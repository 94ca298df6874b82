// app/gl/doctor_gl.cpp — GL's part of `interop-lab --doctor` (app/doctor): the GL context the app would
// use, the EGL devices and the CUDA device behind each, cudaGLGetDevices (all, current frame, next frame)
// and the interop probe, peer access and the split mode's path, and GL's modes; the device the app would
// use, chosen as App does. Also the report GL's app shows, made from the sources its creator passes
// (app/main.cpp's API table: every API's source in this build).
#include "app/gl/doctor_gl.hpp"

#include "app/cli/remedy.hpp"
#include "app/core/text.hpp"
#include "app/gl/gl_external.hpp"
#include "app/gl/gl_objects.hpp"
#include "app/gl/mode.hpp"
#include "app/gl/platform.hpp"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <memory>
#include <utility>

namespace lab::gl {
namespace {

std::string join(const std::vector<int>& values) {
  std::string text;
  for (int value : values) text += (text.empty() ? "" : ", ") + std::to_string(value);
  return text;
}

// Two GPUs, one for GL and one for compute: which devices can reach each other's memory, and the way
// the split mode would take between its compute device and the GL device.
DoctorSection multi_gpu_section(const interop::CudaDevices& cuda, const DoctorContext& context,
                                int gl_device) {
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
    // GL, Vulkan and CUDA share memory only on one device: the same UUID in all three.
    const std::string text = uuid_text(support.device_uuids[i]);
    lines.push_back({"GL device UUID", text + ", " + cuda_device_with_uuid(cuda, text)});
  }
  return lines;
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

std::vector<DoctorSection> gl_sections(DoctorCollection& collection) {
  const DoctorContext& context = collection.context;
  const interop::CudaDevices& cuda = collection.cuda;
  DoctorFindings& findings = collection.findings;
  const int count = static_cast<int>(cuda.devices.size());
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
  if (!context.headless_reason.empty()) gl.lines.push_back({"headless", context.headless_reason});
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
      collection.device_choice = context.device_source;
    }
  } else if (count > 0) {
    findings.cuda_device = 0;  // until cudaGLGetDevices names the one that drives GL
    collection.device_choice = has_context ? "the first; no CUDA device drives GL" : "the first";
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
          collection.device_choice = "drives GL";
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

  return {std::move(gl), egl_section(egl_devices, findings.egl_error), std::move(interop_lines),
          multi_gpu_section(cuda, context, findings.cuda_device)};
}

std::vector<DoctorLine> gl_mode_lines(const DoctorCollection& collection) {
  const DoctorContext& context = collection.context;
  const interop::CudaDevices& cuda = collection.cuda;
  const DoctorFindings& findings = collection.findings;
  const bool has_context = context.gl_error.empty();
  std::vector<DoctorLine> modes;
  const std::string cuda_error = findings.device_error.empty() ? cuda.error : findings.device_error;
  // Why there is no CUDA device is the CUDA section's, said once there: the modes refer to it.
  const std::string no_cuda_device = no_cuda_device_reason(cuda.error);
  // The GL external mode's needs, judged on this context as the app judges them.
  interop::InteropSupport external{false, "no GL context: " + context.gl_error};
  if (has_context) external = probe_gl_external(findings.cuda_device);
  for (const ModeId mode : modes_of(GraphicsApi::Gl)) {
    const ModeAvailability availability =
        mode_availability(mode, findings.cuda_device, findings.interop_support, cuda_error, external);
    const std::string reason =
        availability.reason == no_cuda_device ? kNoCudaDeviceSeeCuda : availability.reason;
    modes.push_back({to_string(mode), availability.available ? "available" : "unavailable: " + reason,
                     availability.available});
  }
  return modes;
}

}  // namespace

// The GL context the app would use for `context` (a hidden window, or EGL: with --headless, or where no
// display is set), current until the report is done; or why there is none (context.gl_error).
std::shared_ptr<void> open_gl_context(DoctorContext& context, const interop::CudaDevices& cuda) {
  context.gl_error.clear();
  // The headless context must come from the EGL device of the CUDA device in use, as App picks it.
  const int count = static_cast<int>(cuda.devices.size());
  const int device = context.requested_device >= 0 ? context.requested_device : 0;
  std::shared_ptr<Platform> platform;
  try {
    if (context.headless) {
      HeadlessDesc desc;
      desc.extent = {64, 64};
      desc.cuda_device = count > 0 && device < count ? device : -1;
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
  return platform;
}

DoctorSource gl_doctor_source() {
  return {"GL", gl_sections, gl_mode_lines, open_gl_context};
}

DoctorReport collect_doctor_report_for_current_context(const std::vector<DoctorSource>& sources,
                                                       int cuda_device, const std::string& platform,
                                                       int compute_device, SplitCopy split_copy) {
  DoctorContext context = app_doctor_context(cuda_device, compute_device, split_copy);
  context.platform = platform.empty() ? "the app's current GL context" : platform;
  if (gl_string(GL_VERSION).empty())
    context.gl_error =
        "no GL context is current on this thread: collect the report on the thread that renders";
  return collect_doctor_report(context, lab::probe_cuda_devices(), sources);
}

}  // namespace lab::gl
