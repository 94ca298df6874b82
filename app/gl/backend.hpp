// app/gl/backend.hpp — what app/loop/app.hpp's one frame loop needs of GL: the platform (app/gl/platform.hpp:
// the EGL headless context, or the GL context of the loop's GLFW window) as the Device, GL's renderer
// (app/gl/renderer.hpp), its presenter (the window's swap, the panel through Dear ImGui's OpenGL3 renderer),
// its mode table (app/gl/mode.cpp) and the traits only GL declares: the live CUDA device switch, the interop
// probe of each CUDA device that GL's availability depends on (CudaProbe), the rules of the scene (eglstream
// and exported carry some resources only), the CUDA devices that drive the GL context, the map and register
// flags, the doctor's report, GL's best tier without --mode, NVTX ranges with GL debug groups, and GL debug
// output, whose error ends a frame with an exception. lab::App (app/gl/app/app.hpp) is
// loop::App<gl::Backend>.
#pragma once

#include "app/cli/cli.hpp"
#include "app/doctor/doctor.hpp"
#include "app/gl/mode.hpp"
#include "app/gl/platform.hpp"
#include "app/gl/profiling.hpp"
#include "app/gl/renderer.hpp"
#include "app/gl/timing.hpp"
#include "app/glfw/window.hpp"
#include "app/modes/backend.hpp"
#include "app/modes/mode.hpp"
#include "interop/device.hpp"

#include <imgui.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace lab::gl {

// In a window: the frame (the renderer drew it into the window's framebuffer) and the panel, through Dear
// ImGui's OpenGL3 renderer where there is a panel, shown by the platform's swap.
class Presenter {
 public:
  Presenter(Renderer& renderer, Platform& platform, bool with_ui, bool vsync);
  ~Presenter();
  Presenter(const Presenter&) = delete;
  Presenter& operator=(const Presenter&) = delete;
  void begin_ui_frame();
  void draw(const DrawPlan& plan, ImDrawData* ui);
  Image read_back_buffer() const { return m_plan ? m_renderer.read_frame(*m_plan) : Image{}; }
  void present() { m_platform.present(); }
  void resize(Extent) {}  // the platform's framebuffer is the window's
  bool vsync() const { return m_platform.vsync(); }
  void set_vsync(bool on) { m_platform.set_vsync(on); }

 private:
  Renderer& m_renderer;
  Platform& m_platform;
  bool m_ui = false;                 // ImGui's OpenGL3 renderer is initialised
  const DrawPlan* m_plan = nullptr;  // the frame's, for read_back_buffer
};

// What GL's availability depends on beyond the CUDA device: whether CUDA-GL interop works with the GL
// context on it (interop::probe_gl_interop) and whether GL imports CUDA's memory and semaphores there
// (probe_gl_external).
struct CudaProbe {
  interop::InteropSupport interop;
  interop::InteropSupport external;
};

// What app/loop/contract.hpp asks of GL; of the optional verbs (app/modes/backend.hpp), GL declares them all.
struct Backend : BackendDefaults {
  static constexpr GraphicsApi kApi = GraphicsApi::Gl;
  static constexpr bool kSemaphoreChoice = true;   // GL's external modes take either (--semaphores)
  static constexpr bool kCudaDeviceSwitch = true;  // the GL context works with any CUDA device's interop
  static constexpr bool kAccessFlags = true;       // its register/map modes take the user's flags
  using Device = Platform;
  using Renderer = gl::Renderer;
  using Presenter = gl::Presenter;
  using CudaProbe = gl::CudaProbe;
  using GraphicsPhase = GlPhase;  // each phase a GL debug group too

  // Before the platform starts the driver's threads: freed images go back to the system.
  static void at_start();
  // In a window, its GL context (vsync as --vsync says, on without --frames); else the EGL headless context
  // on the CUDA device's EGL device (at --width x --height). With GL debug output where asked for
  // (--gl-debug, INTEROP_LAB_GL_DEBUG=1 or a debug build).
  static std::unique_ptr<Platform> create_device(const CudaContext& cuda, glfw::Window* window,
                                                 const Options& options);
  static std::string device_name(const Platform& platform) { return platform.description(); }
  // The CUDA devices that drive the current GL context (cudaGLGetDevices).
  static std::vector<int> cuda_devices_of(Platform& platform);
  static std::unique_ptr<GpuTimerQueries> timer_queries(Renderer&) { return gl_timer_queries(); }
  static std::string graphics_untimed(const Renderer&) { return ""; }
  // The GL renderer's name (GL_RENDERER), for the panel.
  static std::vector<std::pair<std::string, std::string>> status_lines(const Platform&, const Presenter*);
  // The doctor's report for the panel's tab and the page (on the current GL context).
  static DoctorReport doctor_report(const CudaContext& cuda, Platform& platform,
                                    const std::vector<DoctorSource>& sources);

  static CudaProbe probe_cuda(const CudaContext& cuda, Platform& platform, const std::string& cuda_error);
  static std::string probe_summary(const CudaProbe& probe) { return probe.interop.reason; }
  static ModeAvailability mode_availability(ModeId mode, const CudaContext& cuda,
                                            const std::string& cuda_error, const CudaProbe& probe) {
    return gl::mode_availability(mode, cuda.device, probe.interop, cuda_error, probe.external);
  }
  // eglstream and exported carry some resources only.
  static ModeAvailability scene_availability(ModeId mode, const FrameSource& source, Extent extent) {
    return scene_mode_availability(mode, source.resources(extent));
  }
  // Interop where it works, else the next tier (staging, else cpu), saying why not interop.
  static ModeChoice default_mode(const CudaContext& cuda, const CudaProbe& probe);
  // The access settings come after (loop::App calls apply_access before attach).
  static std::unique_ptr<Mode> create_mode(ModeId id, const CudaContext& cuda) {
    return gl::create_mode(id, cuda, AccessSettings{});
  }
  static std::unique_ptr<Presenter> create_presenter(Renderer& renderer, Platform& platform, glfw::Window&,
                                                     Extent, bool with_ui, bool vsync) {
    return std::make_unique<Presenter>(renderer, platform, with_ui, vsync);
  }
  static glfw::WindowDesc window_desc(Extent extent);

  template <class Name>
  static ProfileScope profile_scope(const Name& name) {
    return ProfileScope(name());
  }
  // A GL error from before the frame was reported where it happened (INTEROP_GL_CHECK): forgotten, so that
  // after_frame counts this frame's.
  static void before_frame(Platform&) { take_gl_debug_error(); }
  // Throws std::runtime_error for a GL error in frame `index` (glGetError, or GL debug output).
  static void after_frame(Platform&, long long index);
  static bool draws_frame(const Renderer& renderer, const DrawPlan& plan) {
    return renderer.draws_frame(plan);
  }
};

}  // namespace lab::gl
