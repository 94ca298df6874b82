// app/gl/backend.cpp — GL's side of the one frame loop (app/gl/backend.hpp): the headless platform, the
// interop probes of a CUDA device, the best tier without --mode, the frame's GL error check.
#include "app/gl/backend.hpp"

#include "app/core/mode_switch.hpp"
#include "app/core/remedy.hpp"
#include "app/gl/gl_external.hpp"
#include "app/os/os.hpp"
#include "interop/error.hpp"

#include <backends/imgui_impl_opengl3.h>

#include <cstdio>
#include <stdexcept>

namespace lab::gl {

void Presenter::draw(const DrawPlan& plan, ImDrawData* ui) {
  m_plan = &plan;
  if (ui != nullptr) ImGui_ImplOpenGL3_RenderDrawData(ui);
}

void Backend::at_start() {
  os::return_freed_images_to_the_system();
}

std::unique_ptr<Platform> Backend::create_device(const CudaContext& cuda, const glfw::Window* window,
                                                 const Options& options) {
  if (window != nullptr)
    throw std::runtime_error(
        "GL on the core frame loop runs headless only: GL's window is its platform, which owns the GL "
        "context; "
        "use --headless, or GL's own loop (interop-lab --api gl)");
  HeadlessDesc desc;
  desc.extent = {options.width, options.height};
  desc.cuda_device = cuda.device;
  std::unique_ptr<Platform> platform = create_headless_platform(desc);
  if (gl_debug_wanted(options.gl_debug) && !install_gl_debug_output())
    std::fprintf(
        stderr,
        "interop-lab: --gl-debug: this GL context has no KHR_debug; GL errors are found by glGetError "
        "only\n");
  return platform;
}

int Backend::cuda_device_of(Platform&) {
  const std::vector<int> devices = interop::cuda_devices_for_current_gl().devices;
  return devices.empty() ? -1 : devices.front();
}

CudaProbe Backend::probe_cuda(const CudaContext& cuda, Platform&, const std::string& cuda_error) {
  if (cuda.device < 0)
    return {{false, "no CUDA device: " + cuda_error}, {false, "no CUDA device: " + cuda_error}};
  CudaProbe probe;
  probe.interop = lab::probe_gl_interop(cuda.device);
  probe.external = probe_gl_external(cuda.device);
  return probe;
}

DefaultMode Backend::default_mode(const CudaContext& cuda, const CudaProbe& probe) {
  DefaultMode chosen;
  if (probe.interop.usable) return chosen;
  const bool staging = mode_availability(ModeId::Staging, cuda, "", probe).available;
  chosen.mode = fallback_tier(ModeId::Interop, staging);
  chosen.notice = std::string("interop unavailable, running in ") + to_string(chosen.mode) +
                  " mode: " + probe.interop.reason;
  chosen.log = "CUDA-GL interop is unavailable (" + probe.interop.reason + "); running in " +
               to_string(chosen.mode) + " mode";
  return chosen;
}

glfw::WindowDesc Backend::window_desc(Extent extent) {
  glfw::WindowDesc desc;
  desc.extent = extent;
  desc.title = "interop-lab";
  return desc;
}

void Backend::after_frame(Platform&, long long index) {
  INTEROP_GL_CHECK("render_frame");
  if (const std::string error = take_gl_debug_error(); !error.empty())
    throw std::runtime_error("GL error in frame " + std::to_string(index) + ": " + error +
                             " (reported by GL debug output, --gl-debug)");
}

}  // namespace lab::gl
