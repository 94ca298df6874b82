// app/gl/backend.cpp — GL's side of the one frame loop (app/gl/backend.hpp): the platform (headless, or the
// window's context), the presenter's panel, the interop probes of a CUDA device, the best tier without
// --mode, the frame's GL error check.
#include "app/gl/backend.hpp"

#include "app/cli/remedy.hpp"
#include "app/gl/doctor_gl.hpp"
#include "app/gl/gl_external.hpp"
#include "app/modes/mode_switch.hpp"
#include "app/os/os.hpp"
#include "interop/error.hpp"

#include <backends/imgui_impl_opengl3.h>

#include <cstdio>
#include <stdexcept>

namespace lab::gl {

Presenter::Presenter(Renderer& renderer, Platform& platform, bool with_ui, bool vsync)
    : m_renderer(renderer), m_platform(platform) {
  platform.set_vsync(vsync);
  if (with_ui) m_ui = ImGui_ImplOpenGL3_Init("#version 450");
}

Presenter::~Presenter() {
  if (m_ui) ImGui_ImplOpenGL3_Shutdown();
}

void Presenter::begin_ui_frame() {
  if (m_ui) ImGui_ImplOpenGL3_NewFrame();
}

void Presenter::draw(const DrawPlan& plan, ImDrawData* ui) {
  m_plan = &plan;
  if (ui != nullptr && m_ui) ImGui_ImplOpenGL3_RenderDrawData(ui);
}

void Backend::at_start() {
  os::return_freed_images_to_the_system();
}

std::unique_ptr<Platform> Backend::create_device(const CudaContext& cuda, glfw::Window* window,
                                                 const Options& options) {
  std::unique_ptr<Platform> platform;
  if (window != nullptr) {
    // Vsync on in a window, off with --frames (a fixed count runs as fast as it can); the presenter says it
    // again.
    platform = create_window_platform(*window, options.vsync.value_or(!options.frames.has_value()));
  } else {
    HeadlessDesc desc;
    desc.extent = {options.width, options.height};
    desc.cuda_device = cuda.device;
    platform = create_headless_platform(desc);
  }
  if (gl_debug_wanted(options.gl_debug) && !install_gl_debug_output())
    std::fprintf(
        stderr,
        "interop-lab: --gl-debug: this GL context has no KHR_debug; GL errors are found by glGetError "
        "only\n");
  return platform;
}

std::vector<int> Backend::cuda_devices_of(Platform&) {
  return interop::cuda_devices_for_current_gl().devices;
}

std::vector<std::pair<std::string, std::string>> Backend::status_lines(const Platform&, const Presenter*) {
  return {{"GL", interop::current_gl_renderer()}};
}

DoctorReport Backend::doctor_report(const CudaContext& cuda, Platform& platform,
                                    const std::vector<DoctorSource>& sources) {
  return collect_doctor_report_for_current_context(sources, cuda.device, platform.description(),
                                                   cuda.compute_device, cuda.split_copy);
}

CudaProbe Backend::probe_cuda(const CudaContext& cuda, Platform&, const std::string& cuda_error) {
  if (cuda.device < 0)
    return {{false, "no CUDA device: " + cuda_error}, {false, "no CUDA device: " + cuda_error}};
  CudaProbe probe;
  probe.interop = lab::probe_gl_interop(cuda.device);
  probe.external = probe_gl_external(cuda.device);
  return probe;
}

ModeChoice Backend::default_mode(const CudaContext& cuda, const CudaProbe& probe) {
  ModeChoice chosen{best_mode(GraphicsApi::Gl), "", ""};
  if (probe.interop.usable) return chosen;
  const bool staging = mode_availability(copy_mode(), cuda, "", probe).available;
  chosen.mode = fallback_tier(best_mode(GraphicsApi::Gl), staging);
  chosen.notice = std::string("interop unavailable, running in ") + to_string(chosen.mode) +
                  " mode: " + probe.interop.reason;
  chosen.log = "CUDA-GL interop is unavailable (" + probe.interop.reason + "); running in " +
               to_string(chosen.mode) + " mode";
  return chosen;
}

glfw::WindowDesc Backend::window_desc(Extent extent) {
  WindowDesc desc;
  desc.extent = extent;
  return window_desc_for_gl(desc);
}

void Backend::after_frame(Platform&, long long index) {
  INTEROP_GL_CHECK("render_frame");
  if (const std::string error = take_gl_debug_error(); !error.empty())
    throw std::runtime_error("GL error in frame " + std::to_string(index) + ": " + error +
                             " (reported by GL debug output, --gl-debug)");
}

}  // namespace lab::gl
