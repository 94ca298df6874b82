// app/d3d/app.hpp — interop-lab on Direct3D (--api d3d11, --api d3d12), the part both backends
// share: the CUDA device where there is one (its adapter LUID picks the Direct3D adapter, so interop can
// work), the Direct3D device and renderer, a scene's SceneCompute and a mode, the frame loop with the GL
// and Vulkan apps' frame times, and the screenshot. `Backend` names one API's types and calls
// (app/d3d11/app.hpp's Direct3D11, app/d3d12/app.hpp's Direct3D12), so neither app repeats the other.
// Headless, or in a GLFW window (app/d3d/window.hpp) through the API's presenter, with a panel that
// switches scene and mode live and the keys of app/core/hotkeys.hpp (handle_hotkey), as the GL and Vulkan windows.
// Needs the CUDA runtime's API (the build without CUDA links a runtime that finds no device), GLFW, Dear
// ImGui and Windows.
#pragma once

#include "app/core/cli.hpp"
#include "app/d3d/window.hpp"
#include "app/core/hotkeys.hpp"
#include "app/image/image_io.hpp"
#include "app/core/mode.hpp"
#include "app/core/mode_switch.hpp"
#include "app/core/remedy.hpp"
#include "app/scene/scene_compute.hpp"
#include "app/os/signals.hpp"
#include "app/core/text.hpp"
#include "app/timing/timing.hpp"
#include "interop/device.hpp"
#include "interop/error.hpp"
#include "interop/stream.hpp"
#include "kernels/common.hpp"

#include <cuda_runtime_api.h>
#include <imgui.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace lab::d3d {

template <class Backend>
class App {
 public:
  using Device = typename Backend::Device;
  using Renderer = typename Backend::Renderer;
  using Mode = typename Backend::Mode;

  // Checks the options (--device, the mode) before any Direct3D work, then opens the window (without
  // --headless) and creates the device on the CUDA device's adapter (else the default one), the renderer, the
  // scene, the mode and in a window the presenter and the panel. Throws UsageError for a bad --device,
  // std::runtime_error with the missing piece (no Direct3D device, a mode unavailable here, no window).
  explicit App(const Options& options);
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // Renders frame `index`: time = index / 60 with --frames or headless, as the GL and Vulkan apps, else the
  // seconds since start. In a window, follows its size first, handles the keys pressed since the last frame
  // (what they switch applies to this frame) and shows the frame with the panel; returns false when nothing
  // was drawn (minimised).
  bool render_frame(long long index);
  // Headless: makes the frame `extent` now (the frame target, and the scene's resources where they depend on
  // it); in a window the window's size rules, and this asks it for `extent`.
  void resize(Extent extent);
  // The frame rendered last, top row first (a ShowImage scene's image is the frame), without the window.
  Image read_frame() { return m_renderer->read_frame(m_plan); }
  // In a window: what it shows of the frame rendered last (its back buffer before it is presented, the panel
  // included), top row first. Empty headless.
  Image read_window() { return m_presenter ? m_presenter->read_back_buffer() : Image{}; }
  // --frames frames (default: kDefaultHeadlessFrames headless, until the window closes in one), then
  // --screenshot: headless the frame, in a window what the window showed last, panel included. Returns 0;
  // failures throw.
  int run();

  // The panel's switches, applied at the start of the next frame: the scene (its resources re-created) and
  // the mode. A mode that cannot run here is refused with its reason and nothing changes.
  void request_scene(SceneId scene) { m_pending_scene = scene; }
  ModeAvailability request_mode(ModeId mode);
  // What a key of app/core/hotkeys.hpp does, as its press in the window would (checks call it directly): the panel
  // hidden or shown; F12's screenshot of read_frame() to the next free interop-lab-NNNN.png of
  // --screenshot-dir now (a failure is said on stderr and in the panel, and the run goes on); full screen;
  // the next scene, or the next mode of the API that runs here (both wrapping, from the next frame on); vsync
  // on or off from the next present; the window closed, so run() ends. Those of a window do nothing headless.
  void handle_hotkey(Hotkey hotkey);
  Extent extent() const { return m_extent; }
  // In a window: whether its presents wait for the display's refresh (--vsync, then V). False headless.
  bool vsync() const { return m_presenter && m_presenter->vsync(); }
  ModeId mode_id() const { return m_mode->id(); }
  SceneId scene_id() const { return m_scene->id(); }
  const std::string& adapter() const { return m_device.adapter; }

 private:
  void apply_switches();
  // Makes `extent` the frame's size: the frame target, and the scene's resources where they depend on it.
  void apply_extent(Extent extent);
  void draw_panel();
  // Fullscreen, Quit and ToggleVsync, in a window.
  void handle_window_hotkey(Hotkey hotkey);

  Options m_options;
  Extent m_extent;
  std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point m_previous_frame = m_start;
  float m_frame_ms = 0.0f;  // start to start of the last two frames, smoothed, for the panel
  interop::CudaDevices m_cuda_devices;
  CudaContext m_cuda;
  // Declaration order is teardown order in reverse (and ~App() detaches the mode first): the mode's
  // copies, registrations or imports, the scene's scratch memory, the swap chain (and ImGui's Direct3D
  // backend), the panel, the renderer's resources, the device, the stream, the window.
  std::unique_ptr<glfw::Window> m_window;
  std::optional<interop::Stream> m_stream;
  Device m_device;
  std::unique_ptr<Renderer> m_renderer;
  // The modes' phases: CUDA events and host time (the Direct3D renderers have no timer queries yet).
  FrameTimers m_timers;
  std::unique_ptr<glfw::Panel> m_panel;
  std::unique_ptr<Presenter> m_presenter;
  std::unique_ptr<SceneCompute> m_scene;
  DrawPlan m_plan;
  std::unique_ptr<Mode> m_mode;
  std::optional<SceneId> m_pending_scene;
  std::optional<ModeId> m_pending_mode;
  std::string m_notice;           // why the last switch did not happen, for the panel
  bool m_panel_visible = true;    // F1 or Tab
  std::string m_last_screenshot;  // what F12 wrote last, or why it did not, for the panel
};

namespace detail {

inline void log(const std::string& message) {
  std::fprintf(stderr, "interop-lab: %s\n", message.c_str());
}

// The adapter of CUDA device `device` (cudaDeviceProp::luid): Direct3D resources CUDA registers or imports
// must live on the CUDA device's own GPU.
inline std::array<unsigned char, 8> luid_of_cuda_device(int device) {
  cudaDeviceProp properties{};
  INTEROP_CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
  std::array<unsigned char, 8> luid{};
  static_assert(sizeof(properties.luid) == luid.size(), "CUDA's LUID is not a DXGI LUID");
  std::memcpy(luid.data(), properties.luid, luid.size());
  return luid;
}

}  // namespace detail

template <class Backend>
App<Backend>::App(const Options& options) : m_options(options), m_extent{options.width, options.height} {
  m_cuda_devices = probe_cuda_devices();
  if (options.device)
    if (const std::string refusal = device_refusal(*options.device, m_cuda_devices); !refusal.empty())
      throw UsageError("--device " + std::to_string(*options.device) + ": " + refusal);
  if (!m_cuda_devices.devices.empty()) {
    m_cuda.device = options.device.value_or(0);
    INTEROP_CUDA_CHECK(cudaSetDevice(m_cuda.device));
  }
  // Judged before any Direct3D work, so a refused mode is the only line of the run.
  const ModeId mode = options.mode.value_or(m_cuda.device >= 0 ? ModeId::Staging : ModeId::Cpu);
  if (const ModeAvailability availability = Backend::mode_availability(mode, m_cuda, m_cuda_devices.error);
      !availability.available)
    throw std::runtime_error(std::string("--mode ") + to_string(mode) +
                             " is unavailable: " + availability.reason);

  if (!options.headless) {
    glfw::WindowDesc window;
    window.extent = m_extent;
    window.title = std::string("interop-lab (") + display_name(Backend::kApi) + ")";
    m_window = std::make_unique<glfw::Window>(window);
    const Extent framebuffer = m_window->poll();  // the window manager may have its say
    if (!framebuffer.empty()) m_extent = framebuffer;
  }
  typename Backend::DeviceDesc desc;
  if (m_cuda.device >= 0) {
    desc.adapter_luid = detail::luid_of_cuda_device(m_cuda.device);
    m_stream.emplace();
    m_cuda.stream = m_stream->get();
  }
  m_device = Backend::create_device(desc);
  m_renderer = std::make_unique<Renderer>(m_device, m_extent);
  if (m_window) {
    if (!options.no_ui) m_panel = std::make_unique<glfw::Panel>(*m_window, false);
    const bool vsync = options.vsync.value_or(!options.frames.has_value());  // --frames: as fast as it can
    m_presenter = Backend::create_presenter(*m_renderer, m_device, hwnd(*m_window), m_extent,
                                            m_panel != nullptr, vsync);
  }
  m_scene = create_scene_compute(options.scene, options.filter);
  m_plan = m_scene->draw_plan();
  m_mode = Backend::create_mode(mode, m_cuda);
  m_renderer->create_resources(m_scene->resources(m_extent), m_mode->needs_importable_resources());
  m_mode->attach(*m_renderer);
}

template <class Backend>
App<Backend>::~App() {
  if (m_mode) m_mode->detach();
  m_mode.reset();
  m_scene.reset();
  m_presenter.reset();
  m_panel.reset();
  if (m_renderer) m_renderer->destroy_resources();
  m_renderer.reset();
}

template <class Backend>
ModeAvailability App<Backend>::request_mode(ModeId mode) {
  ModeAvailability availability = Backend::mode_availability(mode, m_cuda, m_cuda_devices.error);
  if (availability.available) m_pending_mode = mode;
  return availability;
}

template <class Backend>
void App<Backend>::handle_hotkey(Hotkey hotkey) {
  switch (hotkey) {
    case Hotkey::NextScene:
      request_scene(scene_after(m_pending_scene.value_or(m_scene->id())));
      break;
    case Hotkey::NextMode:
      // The first mode after the running (or already requested) one, in modes_of's order and wrapping,
      // that runs here (request_mode asks each); with none, the running mode stays.
      mode_after(m_pending_mode.value_or(m_mode->id()), modes_of(Backend::kApi),
                 [this](ModeId mode) { return request_mode(mode).available; });
      break;
    case Hotkey::Screenshot:
      m_last_screenshot = take_numbered_screenshot(m_options.screenshot_dir, read_frame());
      break;
    case Hotkey::TogglePanel:
      m_panel_visible = !m_panel_visible;
      break;
    case Hotkey::Fullscreen:
    case Hotkey::Quit:
    case Hotkey::ToggleVsync:
      if (m_window) handle_window_hotkey(hotkey);  // a window's own: headless there is nothing to do
      break;
  }
}

template <class Backend>
void App<Backend>::handle_window_hotkey(Hotkey hotkey) {
  if (hotkey == Hotkey::Fullscreen) m_window->toggle_fullscreen();
  if (hotkey == Hotkey::Quit) m_window->request_close();
  if (hotkey == Hotkey::ToggleVsync) m_presenter->set_vsync(!m_presenter->vsync());  // a window has one
}

template <class Backend>
void App<Backend>::apply_switches() {
  const std::optional<SceneId> scene =
      m_pending_scene && *m_pending_scene != m_scene->id() ? m_pending_scene : std::nullopt;
  const ModeId mode = m_pending_mode.value_or(m_mode->id());
  m_pending_scene.reset();
  m_pending_mode.reset();
  if (!scene && mode == m_mode->id()) return;
  const ModeId previous = m_mode->id();
  m_mode->detach();  // its copies, registrations or imports go before the resources they belong to
  m_mode.reset();
  if (scene) {
    m_scene = create_scene_compute(*scene, m_options.filter);
    m_plan = m_scene->draw_plan();
  }
  const auto attach = [this](ModeId id) {
    m_mode = Backend::create_mode(id, m_cuda);
    // Re-created whole: a new scene has other resources, and a CUDA mode may need them shared.
    m_renderer->create_resources(m_scene->resources(m_extent), m_mode->needs_importable_resources());
    m_mode->attach(*m_renderer);
  };
  m_notice = attach_or_keep(mode, previous, attach, [this] {
    if (m_mode) m_mode->detach();
  });
}

template <class Backend>
void App<Backend>::apply_extent(Extent extent) {
  if (extent == m_extent) return;
  resize_under_mode(*m_renderer, *m_scene, *m_mode, extent, m_mode->needs_importable_resources());
  if (m_presenter) m_presenter->resize(extent);
  m_extent = extent;
}

template <class Backend>
void App<Backend>::resize(Extent extent) {
  if (m_window) {
    m_window->request_size(extent);
    return;
  }
  apply_extent(extent);
}

template <class Backend>
bool App<Backend>::render_frame(long long index) {
  apply_switches();
  if (m_window) {
    const Extent framebuffer = m_window->poll();
    if (framebuffer.empty()) return false;  // minimised
    apply_extent(framebuffer);
    for (const Hotkey hotkey : m_window->take_hotkeys()) handle_hotkey(hotkey);
    apply_switches();  // what a key asked for, in this frame
  }
  // As the GL and Vulkan apps: a fixed frame count or no window repeats exactly; a window's animation runs
  // on time.
  const float time = m_options.frames || !m_window
                         ? kernels::time_of_frame(index)
                         : std::chrono::duration<float>(std::chrono::steady_clock::now() - m_start).count();
  const FrameInfo frame{index, time, m_extent};
  if (m_plan.cubes_target >= 0) m_renderer->draw_cubes(m_plan.cubes_target, cubes_view(m_extent, frame.time));
  m_timers.begin_frame(static_cast<int>(m_mode->id()));
  m_mode->produce(*m_renderer, *m_scene, frame, m_timers);
  m_timers.end_frame();
  m_renderer->draw_frame(m_plan, wave_view_projection(m_extent));
  if (!m_presenter) return true;
  const auto now = std::chrono::steady_clock::now();
  const float frame_ms = std::chrono::duration<float, std::milli>(now - m_previous_frame).count();
  m_previous_frame = now;
  m_frame_ms = m_frame_ms == 0.0f ? frame_ms : 0.9f * m_frame_ms + 0.1f * frame_ms;
  ImDrawData* ui = nullptr;
  if (m_panel && m_panel_visible) {
    m_presenter->begin_ui_frame();
    m_panel->begin_frame();
    ImGui::NewFrame();
    draw_panel();
    ImGui::Render();
    ui = ImGui::GetDrawData();
  }
  m_presenter->draw(m_plan, ui);
  return true;
}

template <class Backend>
void App<Backend>::draw_panel() {
  ImGui::SetNextWindowPos(ImVec2(10.0f, 10.0f), ImGuiCond_FirstUseEver);
  ImGui::Begin("interop-lab", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
  ImGui::Text("graphics API  %s (%s)", to_string(Backend::kApi), m_device.adapter.c_str());
  ImGui::Text("CUDA device   %s", m_cuda.device >= 0 ? std::to_string(m_cuda.device).c_str() : "none");
  ImGui::Text("scene         %s", to_string(m_scene->id()));
  ImGui::Text("mode          %s", to_string(m_mode->id()));
  ImGui::Text("size          %s", size_text(m_extent.width, m_extent.height).c_str());
  ImGui::Text("frame         %.2f ms", static_cast<double>(m_frame_ms));
  ImGui::Text("vsync         %s", m_presenter->vsync() ? "on" : "off");
  ImGui::Separator();
  ImGui::TextUnformatted("scene");
  for (const SceneId scene : all_scenes()) {
    ImGui::SameLine();
    if (ImGui::RadioButton(to_string(scene), m_scene->id() == scene)) request_scene(scene);
  }
  ImGui::TextUnformatted("mode ");
  for (const ModeId mode : modes_of(Backend::kApi)) {
    ImGui::SameLine();
    const ModeAvailability availability = Backend::mode_availability(mode, m_cuda, m_cuda_devices.error);
    ImGui::BeginDisabled(!availability.available);
    if (ImGui::RadioButton(to_string(mode), m_mode->id() == mode)) request_mode(mode);
    ImGui::EndDisabled();
    if (!availability.available && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip("%s", availability.reason.c_str());
  }
  if (!m_notice.empty()) ImGui::TextWrapped("%s", m_notice.c_str());
  m_scene->on_ui();
  if (ImGui::CollapsingHeader("keys"))
    for (const HotkeyInfo& key : hotkey_list()) ImGui::Text("%-12s %s", key.keys, key.what);
  if (!m_last_screenshot.empty()) ImGui::TextWrapped("screenshot %s", m_last_screenshot.c_str());
  ImGui::End();
}

template <class Backend>
int App<Backend>::run() {
  const long long frames = m_options.frames.value_or(m_window ? -1 : kDefaultHeadlessFrames);
  const bool screenshot = !m_options.screenshot.empty();
  std::optional<Image> shown;  // in a window: what it showed last, for --screenshot
  long long index = 0;
  while (frames < 0 || index < frames) {
    stop_if_requested();  // Ctrl+C, a console close: out through main(), tearing down in order
    if (m_window && m_window->should_close()) break;
    if (!render_frame(index)) {
      m_window->wait(0.1);  // minimised: nothing to draw until it comes back
      continue;
    }
    if (m_presenter) {
      // The back buffer before it is presented (a flip-model swap chain discards it then): on the last
      // frame of --frames, or on every frame while the window may close any time.
      if (screenshot && (frames < 0 || index + 1 == frames)) shown = read_window();
      m_presenter->present();
    }
    ++index;
  }
  if (!screenshot) return 0;
  if (index == 0) {
    detail::log("no frame to write to " + m_options.screenshot + " (the window was closed before the first)");
    return 0;
  }
  const Image frame = shown ? *shown : read_frame();
  write_png(m_options.screenshot, frame);
  detail::log("wrote " + m_options.screenshot + " (" + size_text(frame.width, frame.height) + ", frame " +
              std::to_string(index - 1) + ", " + display_name(Backend::kApi) + " on " + m_device.adapter +
              ", mode " + to_string(m_mode->id()) + (m_presenter ? ", as the window showed it" : "") + ")");
  return 0;
}

}  // namespace lab::d3d
