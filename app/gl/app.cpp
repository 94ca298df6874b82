// app/gl/app.cpp — start-up (CUDA devices, GL platform, interop probe, mode choice), the frame loop,
// live switching and teardown in a fixed order.
#include "app/gl/app.hpp"

#include "app/core/mode_switch.hpp"
#include "app/core/remedy.hpp"
#include "app/core/text.hpp"
#include "app/gl/backend.hpp"
#include "app/gl/profiling.hpp"
#include "app/gl/ui.hpp"
#include "app/os/os.hpp"
#include "app/os/out_of_memory.hpp"
#include "app/os/signals.hpp"
#include "app/serve/desk.hpp"
#include "interop/error.hpp"
#include "kernels/common.hpp"

#include <algorithm>
#include <cstdio>
#include <new>
#include <utility>

namespace lab {

namespace {

void log(const std::string& message) {
  std::fprintf(stderr, "interop-lab: %s\n", message.c_str());
}

std::string device_summary(const interop::CudaDevices& cuda, int device) {
  if (device < 0) return "CUDA: no device";
  const interop::CudaDeviceInfo& info = cuda.devices[static_cast<size_t>(device)];
  return "CUDA device " + std::to_string(device) + ": " + info.name + " (sm_" +
         std::to_string(info.compute_major) + std::to_string(info.compute_minor) + ", " + info.pci_bus_id +
         ")";
}

}  // namespace

App::App(const Options& options) : m_options(options), m_split_copy(options.split_copy) {
  os::return_freed_images_to_the_system();  // before the platform starts the driver's threads
  // Everything the command line names is checked before a window opens or a frame is drawn.
  m_cuda_devices = lab::probe_cuda_devices();
  const int device_count = static_cast<int>(m_cuda_devices.devices.size());
  for (const auto& [option, ordinal] :
       {std::pair{"--device", options.device}, std::pair{"--compute-device", options.compute_device}}) {
    if (!ordinal) continue;
    if (const std::string refusal = device_refusal(*ordinal, m_cuda_devices); !refusal.empty())
      throw UsageError(std::string(option) + " " + std::to_string(*ordinal) + ": " + refusal);
  }
  const Extent extent{options.width, options.height};
  if (options.headless) {
    HeadlessDesc desc;
    desc.extent = extent;
    desc.cuda_device = device_count > 0 ? options.device.value_or(0) : -1;
    m_platform = create_headless_platform(desc);
  } else {
    WindowDesc desc;
    desc.extent = extent;
    desc.vsync =
        options.vsync.value_or(!options.frames.has_value());  // a fixed frame count runs as fast as it can
    m_platform = create_window_platform(desc);
  }
  // Installed, GL debug output's errors end the frame with an exception (gl::Backend::after_frame).
  if (gl_debug_wanted(options.gl_debug) && !install_gl_debug_output())
    log("--gl-debug: this GL context has no KHR_debug; GL errors are found by glGetError only");

  if (device_count > 0) {
    m_device = options.device.value_or(0);
    m_gl_devices = interop::cuda_devices_for_current_gl().devices;
    // Without --device, prefer the CUDA device that drives this GL context, so interop just works.
    if (!options.device && !m_gl_devices.empty()) m_device = m_gl_devices.front();
    INTEROP_CUDA_CHECK(cudaSetDevice(m_device));
    m_stream.emplace();
    probe_cuda_device();
    create_compute_stream(options.compute_device.value_or(m_device));
  } else {
    probe_cuda_device();  // says there is none
  }
  m_timers = std::make_unique<FrameTimers>(gl_timer_queries());

  // Without --mode: the best tier that works here, interop -> staging -> cpu, saying why not higher.
  ModeId mode = ModeId::Interop;
  std::string default_mode_log;
  if (options.mode) {
    const ModeAvailability wanted = availability(*options.mode);
    if (!wanted.available)
      throw std::runtime_error(std::string("--mode ") + to_string(*options.mode) +
                               " is unavailable: " + wanted.reason);
    mode = *options.mode;
  } else {
    // The core loop's choice on GL's backend (app/gl/backend.hpp), the same rule.
    CudaContext cuda;
    cuda.device = m_device;
    gl::DefaultMode chosen = gl::Backend::default_mode(cuda, {m_interop, m_external});
    mode = chosen.mode;
    m_notice = std::move(chosen.notice);
    default_mode_log = std::move(chosen.log);
  }

  m_renderer = std::make_unique<gl::Renderer>(*m_platform);
  m_scene_extent = m_platform->framebuffer_extent();
  attach_scene(options.scene);
  m_access.map_access = options.map_flags;
  if (const std::string refusal = check_access(scene_resources(), m_access.map_access); !refusal.empty())
    throw UsageError("--map-flags " + std::string(interop::to_string(*options.map_flags)) + ": " + refusal);
  // What the scene decides (GL's exported mode and a scene with an input), now that it is attached.
  if (const ModeAvailability wanted = availability(mode); !wanted.available)
    throw std::runtime_error(std::string("--mode ") + to_string(mode) + " is unavailable: " + wanted.reason);
  // Said once every option has been judged, so that a usage error is the only line of a refused run.
  if (!default_mode_log.empty()) log(default_mode_log);
  attach_mode(mode);
  if (m_platform->is_window() && !options.no_ui) {
    PanelDesc panel;
    panel.layout_file = options.layout_file.value_or(default_layout_path());
    panel.content_scale = m_platform->content_scale();
    m_panel = std::make_unique<Panel>(m_platform->glfw_window(), panel);
    m_doctor = collect_doctor_report_for_current_context(m_device, m_platform->description(),
                                                         m_compute_device, m_split_copy);
  }
}

App::~App() {
  m_panel.reset();
  if (m_mode) m_mode->detach();  // unregister before the GL objects go
  m_mode.reset();
  if (m_scene) detach_scene();
  m_scene.reset();
  m_renderer.reset();
  m_timers.reset();
  m_compute_stream.reset();
  m_stream.reset();
  m_platform.reset();  // the GL context, last
}

ModeAvailability App::availability(ModeId mode) const {
  ModeAvailability verdict = mode_availability(mode, m_device, m_interop, m_cuda_devices.error, m_external);
  if (verdict.available && m_renderer) verdict = scene_mode_availability(mode, scene_resources());
  return verdict;
}

void App::attach_mode(ModeId mode) {
  const ProfileScope scope(std::string("attach ") + to_string(mode));
  CudaContext cuda;
  cuda.device = m_device;
  cuda.stream = cuda_stream();
  cuda.compute_device = m_compute_device;
  cuda.compute_stream = m_compute_stream ? m_compute_stream->get() : nullptr;
  cuda.split_copy = m_split_copy;
  cuda.semaphores = m_options.semaphores;
  cuda.graph = m_options.graph;
  std::unique_ptr<gl::Mode> next = create_mode(mode, cuda, m_access);
  next->attach(*m_renderer);
  m_mode = std::move(next);
}

void App::use_mode(std::unique_ptr<gl::Mode> mode) {
  m_mode->detach();
  mode->attach(*m_renderer);
  m_mode = std::move(mode);
}

void App::attach_scene(SceneId scene) {
  m_scene = create_scene_compute(scene, m_options.filter);
  m_plan = m_scene->draw_plan();
  m_renderer->create_resources(m_scene->resources(m_scene_extent));
}

void App::detach_scene() {
  m_renderer->destroy_resources();
  m_scene->release_scratch();  // CUDA memory of the device the scene ran on (the blur's)
}

std::vector<ResourceDesc> App::scene_resources() const {
  return gl::descs_of(m_renderer->resources());
}

ModeId App::fallback_for(ModeId failed) const {
  return fallback_tier(failed, availability(ModeId::Staging).available);
}

void App::fall_back(const std::string& what, const interop::Error& error) {
  const ModeId failed = m_mode->id();
  m_mode->detach();
  m_mode.reset();
  attach_next_tier(failed, what, error);
}

void App::attach_next_tier(ModeId failed, const std::string& what, const interop::Error& error) {
  const ModeId next = fallback_for(failed);
  m_notice = fallback_notice(failed, what, describe(error), next);
  log(m_notice);
  attach_mode(next);
}

void App::attach_or_fall_back(ModeId mode, const std::string& what) {
  try {
    attach_mode(mode);  // releases what it did before it throws: there is no mode attached then
  } catch (const interop::Error& error) {
    if (error.sticky()) throw;
    attach_next_tier(mode, what, error);
  }
}

void App::set_timing(bool enabled) {
  // Host-side phases recorded while timing was off wait for a frame that never came: start afresh.
  if (enabled && !m_timing) m_timers = std::make_unique<FrameTimers>(gl_timer_queries());
  m_timing = enabled;
}

void App::request_scene(SceneId scene) {
  m_pending_scene = scene;
}

std::string App::request_device(int device) {
  if (const std::string refusal = device_refusal(device, m_cuda_devices); !refusal.empty()) {
    m_notice = "CUDA device " + std::to_string(device) + ": " + refusal;
    return m_notice;
  }
  m_pending_device = device;
  return "";
}

void App::probe_cuda_device() {
  CudaContext cuda;
  cuda.device = m_device;
  const gl::CudaProbe probe = gl::Backend::probe_cuda(cuda, *m_platform, m_cuda_devices.error);
  m_interop = probe.interop;
  m_external = probe.external;
}

void App::create_compute_stream(int device) {
  m_compute_stream.reset();
  m_compute_device = device;
  interop::ScopedDevice on(device);
  m_compute_stream.emplace();
}

std::string App::request_compute_device(int device) {
  if (const std::string refusal = device_refusal(device, m_cuda_devices); !refusal.empty()) {
    m_notice = "compute device " + std::to_string(device) + ": " + refusal;
    return m_notice;
  }
  m_pending_compute_device = device;
  return "";
}

void App::request_split_copy(SplitCopy copy) {
  m_pending_split_copy = copy;
}

void App::switch_split(int compute_device, SplitCopy copy) {
  const bool reattach = m_mode->id() == ModeId::Split;
  if (reattach) m_mode->detach();
  if (compute_device != m_compute_device) create_compute_stream(compute_device);
  m_split_copy = copy;
  if (reattach) {
    m_mode.reset();
    attach_or_fall_back(ModeId::Split, "attaching on compute device " + std::to_string(m_compute_device));
    if (m_mode->id() == ModeId::Split) m_notice = "split: " + m_mode->transfer();
  }
  if (m_doctor)
    m_doctor = collect_doctor_report_for_current_context(m_device, m_platform->description(),
                                                         m_compute_device, m_split_copy);
}

void App::switch_device(int device) {
  const ModeId mode = m_mode->id();
  m_mode->detach();
  m_mode.reset();
  m_scene->release_scratch();  // its CUDA memory (the blur's scratch) belongs to the old device
  m_timers.reset();            // so do the timers' events
  const bool compute_follows = m_compute_device == m_device;
  m_compute_stream.reset();
  m_stream.reset();
  m_device = device;
  INTEROP_CUDA_CHECK(cudaSetDevice(m_device));
  m_stream.emplace();
  create_compute_stream(compute_follows ? m_device : m_compute_device);
  m_timers = std::make_unique<FrameTimers>(gl_timer_queries());
  probe_cuda_device();
  if (availability(mode).available) {
    attach_mode(mode);
    m_notice = "CUDA device " + std::to_string(device) + ": " + m_interop.reason;
  } else {
    const ModeId next = fallback_for(mode);
    attach_mode(next);
    m_notice = "CUDA device " + std::to_string(device) + " cannot run " + to_string(mode) + " (" +
               availability(mode).reason + "); now in " + to_string(next) + " mode";
  }
  log(m_notice);
  if (m_doctor)
    m_doctor = collect_doctor_report_for_current_context(m_device, m_platform->description(),
                                                         m_compute_device, m_split_copy);
}

ModeAvailability App::request_mode(ModeId mode) {
  ModeAvailability result = availability(mode);
  if (result.available) {
    m_pending_mode = mode;
  } else {
    m_notice = std::string(to_string(mode)) + " is unavailable: " + result.reason;
  }
  return result;
}

std::string App::request_map_access(std::optional<interop::Access> access) {
  if (std::string refusal = check_access(scene_resources(), access); !refusal.empty()) {
    m_notice = "map flags refused: " + refusal;
    return refusal;
  }
  m_access.map_access = access;
  m_mode->apply_access(m_access);
  return "";
}

std::string App::request_register_access(std::optional<interop::Access> access) {
  if (std::string refusal = check_access(scene_resources(), access); !refusal.empty()) {
    m_notice = "register flags refused: " + refusal;
    return refusal;
  }
  m_access.register_access = access;
  m_mode->apply_access(m_access);  // the mode re-registers
  return "";
}

void App::switch_scene(SceneId scene) {
  const ProfileScope scope(std::string("scene ") + to_string(scene));
  m_mode->detach();
  detach_scene();
  m_scene_extent = m_platform->framebuffer_extent();
  attach_scene(scene);
  // Flags chosen for the last scene may not suit this one (read-only on what it writes): start afresh.
  if (!check_access(scene_resources(), m_access.map_access).empty() ||
      !check_access(scene_resources(), m_access.register_access).empty()) {
    m_access = AccessSettings{};
    m_notice = "flags reset to each resource's best for the " + std::string(to_string(scene)) + " scene";
    m_mode->apply_access(m_access);
  }
  if (const ModeAvailability runs = availability(m_mode->id()); !runs.available) {
    // The mode cannot run this scene (GL's exported mode and postprocess): the next tier, saying why.
    const ModeId next = fallback_for(m_mode->id());
    m_notice = std::string(to_string(m_mode->id())) + " cannot run the " + to_string(scene) + " scene (" +
               runs.reason + "); now in " + to_string(next) + " mode";
    log(m_notice);
    m_mode.reset();
    attach_mode(next);
  } else {
    m_mode->attach(*m_renderer);
  }
  m_timers->clear();  // another scene's timings compare with nothing here
}

void App::apply_pending_switches() {
  if (!m_pending_device && !m_pending_compute_device && !m_pending_split_copy && !m_pending_semaphores &&
      !m_pending_graph && !m_pending_scene && !m_pending_mode)
    return;
  const ProfileScope scope("switch");
  if (m_pending_device) switch_device(*m_pending_device);  // the same device too: re-creates its state
  m_pending_device.reset();
  if (m_pending_compute_device || m_pending_split_copy)
    switch_split(m_pending_compute_device.value_or(m_compute_device),
                 m_pending_split_copy.value_or(m_split_copy));
  m_pending_compute_device.reset();
  m_pending_split_copy.reset();
  if (m_pending_semaphores && *m_pending_semaphores != m_options.semaphores) {
    m_options.semaphores = *m_pending_semaphores;
    if (uses_semaphores(m_mode->id())) {
      const ModeId mode = m_mode->id();
      m_mode->detach();
      m_mode.reset();
      attach_or_fall_back(
          mode, std::string("attaching with ") + (m_options.semaphores == interop::SemaphoreKind::Timeline
                                                      ? "a timeline semaphore"
                                                      : "binary semaphores"));
    }
  }
  m_pending_semaphores.reset();
  if (m_pending_graph && *m_pending_graph != m_options.graph) {
    m_options.graph = *m_pending_graph;
    if (has_graph_form(m_mode->id())) {
      const ModeId mode = m_mode->id();
      m_mode->detach();
      m_mode.reset();
      attach_or_fall_back(mode,
                          m_options.graph ? "attaching with a CUDA graph" : "attaching without a CUDA graph");
    }
  }
  m_pending_graph.reset();
  if (m_pending_scene && *m_pending_scene != m_scene->id()) switch_scene(*m_pending_scene);
  m_pending_scene.reset();
  if (m_pending_mode && *m_pending_mode != m_mode->id()) {
    const ProfileScope mode_scope(std::string("mode ") + to_string(*m_pending_mode));
    m_mode->detach();
    m_mode.reset();
    attach_or_fall_back(*m_pending_mode, "attaching");
  }
  m_pending_mode.reset();
}

FrameInfo App::frame_info(Extent extent) const {
  FrameInfo frame;
  frame.index = m_frame_index;
  frame.extent = extent;
  if (m_options.frames || !m_platform->is_window()) {
    frame.time = kernels::time_of_frame(m_frame_index);
  } else {
    frame.time = std::chrono::duration<float>(std::chrono::steady_clock::now() - m_start).count();
  }
  return frame;
}

bool App::render_frame() {
  const auto started = std::chrono::steady_clock::now();
  const Extent extent = m_platform->framebuffer_extent();
  if (extent.empty()) return false;  // minimised: nothing to draw, nothing to register
  // Nsight Systems' frame structure: "frame N" holds the switch, the phases and the panel.
  const ProfileScope frame_scope("frame " + std::to_string(m_frame_index));
  // A GL error from before the frame was reported where it happened (INTEROP_GL_CHECK); count this frame's.
  gl::Backend::before_frame(*m_platform);
  apply_pending_switches();
  if (extent != m_scene_extent) {
    if (m_scene->resize_recreates_resources()) {
      m_mode->detach();            // registrations go before the renderer deletes what they point at
      m_scene->release_scratch();  // re-allocated at the new size on the next frame
      m_renderer->create_resources(m_scene->resources(extent));
      try {
        m_mode->attach(*m_renderer);
      } catch (const interop::Error& error) {
        if (error.sticky()) throw;
        fall_back("registering after a resize", error);
      }
    }
    m_scene_extent = extent;
  }

  // Frame time: start to start, so it holds everything, present and vsync included.
  if (m_timing && m_frame_index > 0 && m_previous_frame_start != m_start)
    m_timers->cpu_add(Phase::Frame,
                      std::chrono::duration<double, std::milli>(started - m_previous_frame_start).count());
  // Outside begin_frame/end_frame the timers record nothing (host records wait for the next frame).
  if (m_timing) m_timers->begin_frame(static_cast<int>(m_mode->id()), m_frame_index);
  const FrameInfo frame = frame_info(extent);
  if (m_plan.cubes_target >= 0) {
    GlPhase phase(*m_timers, Phase::Draw);
    m_renderer->draw_cubes(m_plan.cubes_target, cubes_view(extent, frame.time));
  }
  try {
    m_mode->produce(*m_renderer, *m_scene, frame, *m_timers);
  } catch (const interop::Error& error) {
    if (error.sticky()) throw;  // the context is corrupt: main() ends the process with exit 1
    fall_back("producing frame " + std::to_string(frame.index), error);
    m_mode->produce(*m_renderer, *m_scene, frame, *m_timers);
  }
  if (m_renderer->draws_frame(m_plan)) {
    GlPhase phase(*m_timers, Phase::Draw);
    show(frame);
  }
  if (m_timing) m_timers->end_frame();
  if (m_screenshot_requested) take_numbered_screenshot();  // the scene, before the panel covers it
  if (m_panel && m_panel_visible) draw_panel(extent);
  m_previous_frame_start = started;
  gl::Backend::after_frame(*m_platform, m_frame_index);  // a GL error ends the frame with an exception
  ++m_frame_index;
  return true;
}

void App::draw_panel(Extent extent) {
  PanelModel model;
  model.scene = m_scene->id();
  model.mode = m_mode->id();
  for (const ModeId mode : all_modes()) model.modes.push_back(availability(mode));
  model.extent = extent;
  model.platform = m_platform->description();
  model.renderer = interop::current_gl_renderer();
  model.cuda = device_summary(m_cuda_devices, m_device);
  model.notice = m_notice;
  model.device = m_device;
  model.compute_device = m_compute_device;
  model.split_copy = m_split_copy;
  model.transfer = m_mode->transfer();
  for (const interop::CudaDeviceInfo& info : m_cuda_devices.devices) {
    const bool drives_gl =
        std::find(m_gl_devices.begin(), m_gl_devices.end(), info.ordinal) != m_gl_devices.end();
    model.devices.push_back(std::to_string(info.ordinal) + ": " + info.name +
                            (drives_gl ? " (drives GL)" : ""));
  }
  model.access = m_access;
  model.flags = m_mode->registered_flags();
  model.timers = m_timers.get();
  model.doctor = m_doctor ? &*m_doctor : nullptr;
  model.timing = m_timing;
  model.vsync = m_platform->vsync();
  model.refresh_hz = m_platform->refresh_hz();
  model.last_screenshot = m_last_screenshot;
  model.scene_ui = [this] { m_scene->on_ui(); };
  const PanelActions actions = m_panel->draw(model);
  if (actions.scene) request_scene(*actions.scene);
  if (actions.mode) request_mode(*actions.mode);
  if (actions.device) request_device(*actions.device);
  if (actions.compute_device) request_compute_device(*actions.compute_device);
  if (actions.split_copy) request_split_copy(*actions.split_copy);
  if (actions.timing) set_timing(*actions.timing);
  if (actions.map_access) request_map_access(*actions.map_access);
  if (actions.register_access) request_register_access(*actions.register_access);
  if (actions.vsync) m_platform->set_vsync(*actions.vsync);
  if (actions.screenshot) request_screenshot();
}

void App::present() {
  const ProfileRange range("present");
  m_platform->present();
}

void App::process_input() {
  for (const Hotkey hotkey : m_platform->take_hotkeys()) handle_hotkey(hotkey);
}

void App::handle_hotkey(Hotkey hotkey) {
  switch (hotkey) {
    case Hotkey::TogglePanel:
      m_panel_visible = !m_panel_visible;
      break;
    case Hotkey::Screenshot:
      request_screenshot();
      break;
    case Hotkey::Fullscreen:
      m_platform->toggle_fullscreen();
      break;
    case Hotkey::ToggleVsync:
      m_platform->set_vsync(!m_platform->vsync());
      break;
    case Hotkey::Quit:
      m_platform->request_close();
      break;
    case Hotkey::NextScene:
      request_scene(scene_after(m_pending_scene.value_or(m_scene->id())));
      break;
    case Hotkey::NextMode:
      // The next mode that works here, wrapping around; the current one when no other does.
      if (const std::optional<ModeId> next =
              mode_after(m_pending_mode.value_or(m_mode->id()), all_modes(),
                         [this](ModeId mode) { return availability(mode).available; }))
        request_mode(*next);
      break;
  }
}

void App::take_numbered_screenshot() {
  m_screenshot_requested = false;
  const ProfileScope scope("screenshot");
  const std::string path = next_screenshot_path(m_options.screenshot_dir);
  try {
    write_png(path, read_frame());
    m_last_screenshot = path;
    m_notice = "wrote " + path;
  } catch (const ImageError& error) {
    m_notice = std::string("screenshot failed: ") + error.what();  // the session goes on
  }
  log(m_notice);
}

void App::show(const FrameInfo& frame) {
  m_renderer->draw_frame(m_plan, wave_view_projection(frame.extent), frame.extent);
}

Image App::read_frame() const {
  return m_renderer->read_frame(m_plan, m_platform->framebuffer_extent());
}

// --serve: frames to the desk (app/serve/desk.hpp) a frame late. The frame before this one was read back
// while this one was made (app/gl/frame_read.hpp): collected now and handed over with its state (the
// read-back phase measures the collect), then this frame's read begins.
void App::offer_to_desk(serve::Desk& desk) {
  const auto started = std::chrono::steady_clock::now();
  std::optional<gl::FrameRead> before = m_renderer->end_read_frame();
  const double read_back_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  if (before) desk.frame_read_collected(std::move(before->image), before->frame, read_back_ms);
  const Extent extent = m_platform->framebuffer_extent();
  m_renderer->begin_read_frame(m_plan, extent, m_frame_index - 1);
  serve::AppState state;
  state.api = GraphicsApi::Gl;
  state.adapter = m_platform->description();
  state.cuda_device = m_device;
  state.cuda_devices = serve::device_names(m_cuda_devices, m_gl_devices);
  state.scene = m_scene->id();
  state.filter = serve::filter_name(*m_scene);
  state.flags = serve::flags_state(m_access);
  state.doctor = m_doctor ? format_doctor_report(*m_doctor) : "";
  state.mode = m_mode->id();
  for (const ModeId mode : modes_of(GraphicsApi::Gl)) {
    const ModeAvailability runs = availability(mode);
    state.modes.push_back({mode, runs.available, runs.reason});
  }
  state.size = extent;
  state.frame = m_frame_index - 1;
  state.notice = m_notice;
  if (m_timing) {
    state.phases = serve::phase_lines(*m_timers, static_cast<int>(m_mode->id()));
    state.compared = serve::compare_modes(*m_timers, modes_of(GraphicsApi::Gl));
    state.timeline = last_frame_timeline(*m_timers, static_cast<int>(m_mode->id()));
  }
  desk.frame_read_begun(std::move(state));
}

int App::run() {
  // --serve: the desk, called as app/core/app.hpp's loop calls it (its commands before a frame, the frame
  // after it); it serves until stopped unless --frames is given.
  const std::unique_ptr<serve::Desk> desk =
      m_options.serve ? std::make_unique<serve::Desk>(*m_options.serve) : nullptr;
  if (desk && !m_doctor)  // the page's doctor section, as the panel's tab
    m_doctor = collect_doctor_report_for_current_context(m_device, m_platform->description(),
                                                         m_compute_device, m_split_copy);
  const long long frames =
      m_options.frames.value_or(m_platform->is_window() || desk ? -1 : kDefaultHeadlessFrames);
  while (m_platform->keep_running() && (frames < 0 || m_frame_index < frames)) {
    stop_if_requested();  // SIGINT/SIGTERM/SIGHUP: out through main(), tearing down in order
    if (desk)
      if (std::string refused = serve::apply_commands(*this, desk->begin_frame()); !refused.empty())
        m_notice = std::move(refused);
    m_platform->poll_events();
    process_input();
    if (!m_platform->keep_running()) break;
    if (!render_frame()) continue;
    const bool last = frames >= 0 && m_frame_index == frames;
    if (last && !m_options.screenshot.empty()) m_last_frame = read_frame();
    present();
    if (desk) offer_to_desk(*desk);
  }
  if (!m_options.screenshot.empty()) write_screenshot();
  return 0;
}

void App::write_screenshot() {
  if (!m_last_frame) {
    // The window was closed by the user: render the current frame once more to capture it.
    if (m_platform->framebuffer_extent().empty() || !render_frame()) {
      log("no frame to write to " + m_options.screenshot + " (the window was minimised)");
      return;
    }
    m_last_frame = read_frame();
  }
  write_png(m_options.screenshot, *m_last_frame);
  log("wrote " + m_options.screenshot + " (" + size_text(m_last_frame->width, m_last_frame->height) +
      ", frame " + std::to_string(m_frame_index - 1) + ")");
}

}  // namespace lab
