// app/vulkan/app.cpp — start-up (CUDA devices, the window, the Vulkan device, mode choice), the frame
// loop and the screenshot of the Vulkan backend, and its teardown in a fixed order.
#include "app/vulkan/app.hpp"

#include "app/core/mode_switch.hpp"
#include "app/core/remedy.hpp"
#include "app/os/signals.hpp"
#include "app/core/text.hpp"
#include "app/timing/timing_ui.hpp"
#include "app/vulkan/cuda_link.hpp"
#include "interop/error.hpp"
#include "kernels/common.hpp"

#include <cuda_runtime_api.h>
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace lab::vulkan {
namespace {

void log(const std::string& message) {
  std::fprintf(stderr, "interop-lab: %s\n", message.c_str());
}

}  // namespace

App::App(const Options& options) : m_options(options), m_extent{options.width, options.height} {
  m_cuda_devices = probe_cuda_devices();
  if (options.device)
    if (const std::string refusal = device_refusal(*options.device, m_cuda_devices); !refusal.empty())
      throw UsageError("--device " + std::to_string(*options.device) + ": " + refusal);
  if (!m_cuda_devices.devices.empty()) {
    m_cuda.device = options.device.value_or(0);
    m_cuda.semaphores = options.semaphores;
    INTEROP_CUDA_CHECK(cudaSetDevice(m_cuda.device));
  }
  // Judged before any Vulkan work, so a refused mode is the only line of the run.
  const ModeId mode = options.mode.value_or(m_cuda.device >= 0 ? ModeId::Staging : ModeId::Cpu);
  if (const ModeAvailability availability = mode_availability(mode, m_cuda, m_cuda_devices.error);
      !availability.available)
    throw std::runtime_error(std::string("--mode ") + to_string(mode) +
                             " is unavailable: " + availability.reason);

  ContextOptions context_options;
  if (!options.headless) {
    glfw::WindowDesc window;
    window.extent = m_extent;
    window.title = "interop-lab (Vulkan)";
    window.no_display_remedy = ". Without a display, run under Xvfb (xvfb-run) or use --headless";
    window.vulkan = true;
    m_window = std::make_unique<glfw::Window>(window);
    context_options.surface_extensions = surface_extensions();
    const Extent framebuffer = m_window->poll();  // the window manager may have its say
    if (!framebuffer.empty()) m_extent = framebuffer;
  }
  // The CUDA device's own GPU, so CUDA can import what Vulkan exports; without CUDA, the first device.
  if (m_cuda.device >= 0) {
    const Uuid uuid = cuda_device_uuid(m_cuda.device);
    m_context = std::make_unique<Context>(&uuid, context_options);
    m_stream.emplace();
    m_cuda.stream = m_stream->get();
  } else {
    m_context = std::make_unique<Context>(nullptr, context_options);
  }
  m_renderer = std::make_unique<Renderer>(*m_context, m_extent);
  m_timers = std::make_unique<FrameTimers>(m_renderer->timer_queries());
  if (m_window) {
    if (!options.no_ui) m_panel = std::make_unique<glfw::Panel>(*m_window, true);
    // As the GL app: vsync on in a window, off with --frames (a fixed count runs as fast as it can).
    m_presenter = std::make_unique<Presenter>(*m_renderer, m_window->handle(), m_panel != nullptr,
                                              options.vsync.value_or(!options.frames));
  }
  m_scene = create_scene_compute(options.scene, options.filter);
  m_plan = m_scene->draw_plan();
  m_mode = create_mode(mode, m_cuda);
  m_renderer->create_resources(m_scene->resources(m_extent), m_mode->needs_importable_resources());
  m_mode->attach(*m_renderer);
}

App::~App() {
  if (m_mode) m_mode->detach();
  m_mode.reset();
  m_scene.reset();
  m_presenter.reset();
  m_panel.reset();
  m_timers.reset();  // their queries are the renderer's
  if (m_renderer) m_renderer->destroy_resources();
  m_renderer.reset();
  m_stream.reset();
  m_context.reset();
  m_window.reset();
}

void App::resize(Extent extent) {
  if (m_window) {
    m_window->request_size(extent);
    return;
  }
  apply_extent(extent);
}

bool App::follow_window_size() {
  const Extent extent = m_window->poll();
  if (extent.empty()) return false;
  apply_extent(extent);
  return true;
}

void App::apply_extent(Extent extent) {
  if (extent == m_extent) return;
  resize_under_mode(*m_renderer, *m_scene, *m_mode, extent, m_mode->needs_importable_resources());
  m_extent = extent;
}

ModeAvailability App::request_mode(ModeId mode) {
  ModeAvailability availability = mode_availability(mode, m_cuda, m_cuda_devices.error);
  if (availability.available) m_pending_mode = mode;
  return availability;
}

void App::apply_switches() {
  const std::optional<SceneId> scene =
      m_pending_scene && *m_pending_scene != m_scene->id() ? m_pending_scene : std::nullopt;
  const ModeId mode = m_pending_mode.value_or(m_mode->id());
  const bool semaphores = m_pending_semaphores && *m_pending_semaphores != m_cuda.semaphores;
  if (m_pending_semaphores) m_cuda.semaphores = *m_pending_semaphores;
  m_pending_scene.reset();
  m_pending_mode.reset();
  m_pending_semaphores.reset();
  if (!scene && mode == m_mode->id() && !(semaphores && mode == ModeId::External)) return;
  const ModeId previous = m_mode->id();
  m_mode->detach();  // its copies or imports go before the resources they belong to
  m_mode.reset();
  if (scene) {
    m_scene = create_scene_compute(*scene, m_options.filter);
    m_plan = m_scene->draw_plan();
    m_timers->clear();  // another scene's timings compare with nothing here
  }
  const auto attach = [this](ModeId id) {
    m_mode = create_mode(id, m_cuda);
    // Re-created whole: a new scene has other resources, and external needs them exportable.
    m_renderer->create_resources(m_scene->resources(m_extent), m_mode->needs_importable_resources());
    m_mode->attach(*m_renderer);
  };
  try {
    attach(mode);
    m_notice.clear();
  } catch (const std::runtime_error& error) {
    // What availability could not judge before the device was asked (lavapipe exports no semaphores):
    // said in the panel and on stderr, and the mode that ran before runs on.
    m_notice = std::string(to_string(mode)) + " cannot run here: " + error.what();
    std::fprintf(stderr, "interop-lab: %s; staying in %s\n", m_notice.c_str(), to_string(previous));
    if (m_mode) m_mode->detach();
    attach(previous);
  }
}

bool App::render_frame(long long index) {
  apply_switches();
  if (m_window) {
    if (!follow_window_size()) return false;
    for (const Hotkey hotkey : m_window->take_hotkeys()) handle_hotkey(hotkey);
    apply_switches();  // what a key asked for, in this frame
  }
  // As the GL app: a fixed frame count or no window repeats exactly; a window's animation runs on time.
  const auto started = std::chrono::steady_clock::now();
  const float time = m_options.frames || !m_window
                         ? kernels::time_of_frame(index)
                         : std::chrono::duration<float>(started - m_start).count();
  const FrameInfo frame{index, time, m_extent};
  // Frame time: start to start, so it holds everything, present and vsync included.
  if (m_timing && m_frame_before)
    m_timers->cpu_add(Phase::Frame, std::chrono::duration<double, std::milli>(started - m_previous_frame).count());
  if (m_timing) m_timers->begin_frame(static_cast<int>(m_mode->id()));
  if (m_plan.cubes_target >= 0) {
    const PassSync sync = m_mode->cubes_sync(frame);
    GraphicsPhase phase(*m_timers, Phase::Draw);
    m_renderer->draw_cubes(m_plan.cubes_target, cubes_view(m_extent, frame.time), sync);
  }
  m_mode->produce(*m_renderer, *m_scene, frame, *m_timers);
  {
    const PassSync sync = m_mode->frame_sync(frame);
    GraphicsPhase phase(*m_timers, Phase::Draw);
    m_renderer->draw_frame(m_plan, wave_view_projection(m_extent), sync);
    if (m_presenter) {
      ImDrawData* ui = nullptr;
      if (m_panel && m_panel_visible) {
        m_presenter->begin_ui_frame();
        m_panel->begin_frame();
        ImGui::NewFrame();
        draw_panel();
        ImGui::Render();
        ui = ImGui::GetDrawData();
      }
      m_presenter->present(m_plan, ui);
    }
  }
  if (m_timing) m_timers->end_frame();
  m_previous_frame = started;
  m_frame_before = true;
  return true;
}

void App::set_timing(bool enabled) {
  if (enabled && !m_timing) m_timers = std::make_unique<FrameTimers>(m_renderer->timer_queries());
  m_timing = enabled;
  m_frame_before = false;  // a frame time across the switch would hold the switch
}

void App::handle_hotkey(Hotkey hotkey) {
  switch (hotkey) {
    case Hotkey::TogglePanel: m_panel_visible = !m_panel_visible; break;
    case Hotkey::Screenshot: m_last_screenshot = take_numbered_screenshot(m_options.screenshot_dir, read_frame()); break;
    case Hotkey::Fullscreen:
      if (m_window) m_window->toggle_fullscreen();
      break;
    case Hotkey::ToggleVsync:
      if (m_presenter) m_presenter->set_vsync(!m_presenter->vsync());
      break;
    case Hotkey::Quit:
      if (m_window) m_window->request_close();
      break;
    case Hotkey::NextScene: request_scene(scene_after(m_pending_scene.value_or(m_scene->id()))); break;
    case Hotkey::NextMode:
      // The next mode that runs here, in modes_of order, wrapping around (request_mode asks each).
      mode_after(m_pending_mode.value_or(m_mode->id()), modes_of(GraphicsApi::Vulkan),
                 [this](ModeId mode) { return request_mode(mode).available; });
      break;
  }
}

void App::draw_panel() {
  ImGui::SetNextWindowPos(ImVec2(10.0f, 10.0f), ImGuiCond_FirstUseEver);
  ImGui::Begin("interop-lab", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
  ImGui::Text("graphics API  vulkan (%s)", m_context->info().name.c_str());
  ImGui::Text("CUDA device   %s", m_cuda.device >= 0 ? std::to_string(m_cuda.device).c_str() : "none");
  ImGui::Text("scene         %s", to_string(m_scene->id()));
  const bool external = m_mode->id() == ModeId::External;
  ImGui::Text("mode          %s%s", to_string(m_mode->id()),
              !external ? ""
              : m_cuda.semaphores == interop::SemaphoreKind::Timeline ? " (a timeline semaphore)"
                                                                       : " (binary semaphores)");
  ImGui::Text("size          %s", size_text(m_extent.width, m_extent.height).c_str());
  if (m_presenter)
    ImGui::Text("present       %s%s", m_presenter->present_mode(), m_presenter->vsync() ? " (vsync)" : "");
  ImGui::Text("validation    %d messages", m_context->validation_messages());
  ImGui::Separator();
  ImGui::TextUnformatted("scene");
  for (const SceneId scene : all_scenes()) {
    ImGui::SameLine();
    if (ImGui::RadioButton(to_string(scene), m_scene->id() == scene)) request_scene(scene);
  }
  ImGui::TextUnformatted("mode ");
  for (const ModeId mode : modes_of(GraphicsApi::Vulkan)) {
    ImGui::SameLine();
    const ModeAvailability availability = mode_availability(mode, m_cuda, m_cuda_devices.error);
    ImGui::BeginDisabled(!availability.available);
    if (ImGui::RadioButton(to_string(mode), m_mode->id() == mode)) request_mode(mode);
    ImGui::EndDisabled();
    if (!availability.available && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip("%s", availability.reason.c_str());
  }
  if (m_mode->id() == ModeId::External) {
    ImGui::TextUnformatted("semaphores");
    ImGui::SameLine();
    if (ImGui::RadioButton("timeline", m_cuda.semaphores == interop::SemaphoreKind::Timeline))
      request_semaphores(interop::SemaphoreKind::Timeline);
    ImGui::SameLine();
    if (ImGui::RadioButton("binary", m_cuda.semaphores == interop::SemaphoreKind::Binary))
      request_semaphores(interop::SemaphoreKind::Binary);
  }
  if (!m_notice.empty()) ImGui::TextWrapped("%s", m_notice.c_str());
  m_scene->on_ui();
  if (ImGui::CollapsingHeader("timings", ImGuiTreeNodeFlags_DefaultOpen)) {
    bool timing = m_timing;
    if (ImGui::Checkbox("time each phase", &timing)) set_timing(timing);
    if (m_timing) {
      draw_timings(*m_timers, m_mode->id());
      if (!m_renderer->timestamp_reason().empty())
        ImGui::TextDisabled("draw untimed: %s", m_renderer->timestamp_reason().c_str());
      if (!m_timers->cuda_timing_off_reason().empty())
        ImGui::TextDisabled("CUDA phases untimed: %s", m_timers->cuda_timing_off_reason().c_str());
    }
  }
  if (m_timing && ImGui::CollapsingHeader("modes compared")) draw_mode_table(*m_timers);
  if (ImGui::CollapsingHeader("keys")) {
    for (const HotkeyInfo& key : hotkey_list()) ImGui::Text("%-12s %s", key.keys, key.what);
  }
  if (!m_last_screenshot.empty()) ImGui::TextWrapped("screenshot %s", m_last_screenshot.c_str());
  ImGui::End();
}

void App::render_graphics_only(long long index) {
  const FrameInfo frame{index, kernels::time_of_frame(index), m_extent};
  if (m_plan.cubes_target >= 0) m_renderer->draw_cubes(m_plan.cubes_target, cubes_view(m_extent, frame.time), {});
  m_renderer->draw_frame(m_plan, wave_view_projection(m_extent), {});
}

void App::finish() {
  m_renderer->wait_idle();
  if (m_stream) INTEROP_CUDA_CHECK(cudaStreamSynchronize(m_stream->get()));
}

Image App::read_frame() {
  return m_renderer->read_frame(m_plan);
}

int App::run() {
  const long long frames = m_options.frames.value_or(m_window ? -1 : kDefaultHeadlessFrames);
  long long index = 0;
  while (frames < 0 || index < frames) {
    stop_if_requested();  // SIGINT/SIGTERM/SIGHUP: out through main(), tearing down in order
    if (m_window && m_window->should_close()) break;
    if (render_frame(index)) {
      ++index;
    } else {
      m_window->wait(0.1);  // minimised: nothing to draw until it comes back
    }
  }
  if (m_options.screenshot.empty()) return 0;
  if (index == 0) {
    log("no frame to write to " + m_options.screenshot + " (the window was closed before the first)");
    return 0;
  }
  // The frame shown last: the one of --frames, or the one on screen when the window was closed.
  const Image frame = read_frame();
  write_png(m_options.screenshot, frame);
  log("wrote " + m_options.screenshot + " (" + size_text(frame.width, frame.height) + ", frame " +
      std::to_string(index - 1) + ")");
  return 0;
}

int run_app(const Options& options) {
  App app(options);
  return app.run();
}

}  // namespace lab::vulkan
