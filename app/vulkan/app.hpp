// app/vulkan/app.hpp — interop-lab on Vulkan (--api vulkan): the Vulkan device (the CUDA device's own,
// matched by UUID, where there is one), the Vulkan renderer, a scene's SceneCompute and a Vulkan mode;
// headless, or in a GLFW window through the presenter (app/vulkan/presenter.hpp). Renders --frames
// frames (in a window: until it closes) with the same frame times as the GL app and writes --screenshot
// the same way, with a panel in the window; --bench measures its modes (app/vulkan/bench.hpp). Tests drive it frame by frame.
#pragma once

#include "app/core/cli.hpp"
#include "app/core/hotkeys.hpp"
#include "app/glfw/window.hpp"
#include "app/image/image_io.hpp"
#include "app/scene/scene_compute.hpp"
#include "app/timing/timing.hpp"
#include "app/vulkan/export.hpp"
#include "app/vulkan/modes.hpp"
#include "app/vulkan/presenter.hpp"
#include "app/vulkan/renderer.hpp"
#include "interop/device.hpp"
#include "interop/stream.hpp"

#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace lab::vulkan {

class App {
 public:
  // Checks the options (--device, the mode), opens the window (without --headless) and the Vulkan
  // device and attaches the scene and the mode. Throws UsageError for a bad --device, std::runtime_error
  // with the missing piece (no display, no Vulkan loader, no device, a mode unavailable here).
  explicit App(const Options& options);
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // Renders frame `index` at the current size: time = index / 60 with --frames or headless, as in the
  // GL app, else the seconds since start. In a window, follows the window's size first and shows the
  // frame; returns false when nothing was drawn (minimised: 0x0).
  bool render_frame(long long index);
  // Headless: re-creates the frame (and the resources that depend on its size) now; in a window: asks
  // for a new window size, which the next frame follows.
  void resize(Extent extent);
  Extent extent() const { return m_extent; }
  bool windowed() const { return m_window != nullptr; }
  // The Vulkan passes of frame `index` alone (the cubes pass where the scene has one, then the frame
  // pass), without the mode: what the benchmark calls the graphics work of a frame. Headless only.
  void render_graphics_only(long long index);
  // Waits until the Vulkan queue and the CUDA stream have done everything queued so far (the benchmark
  // ends each frame with it).
  void finish();
  // The frame rendered last, top row first, without the window around it (as lab::App::read_frame
  // headless).
  Image read_frame();
  // --frames frames (default: kDefaultHeadlessFrames headless, until the window closes in one), then
  // --screenshot. Returns 0; failures throw.
  int run();

  // Switches that take effect at the start of the next frame (the panel's buttons call them): the scene
  // (its resources re-created), the mode, and the external mode's semaphores. A mode that cannot run here
  // is refused with its reason, and nothing changes; one whose attach fails (a driver without semaphore
  // export) leaves the previous mode running and says why (notice()).
  void request_scene(SceneId scene) { m_pending_scene = scene; }
  ModeAvailability request_mode(ModeId mode);
  void request_semaphores(interop::SemaphoreKind kind) { m_pending_semaphores = kind; }
  SceneId scene_id() const { return m_scene->id(); }
  const std::string& notice() const { return m_notice; }
  interop::SemaphoreKind semaphores() const { return m_cuda.semaphores; }
  ModeId mode_id() const { return m_mode->id(); }
  int cuda_device() const { return m_cuda.device; }
  // What the Khronos validation layer reported so far (0 without the layer installed).
  int validation_messages() const { return m_context->validation_messages(); }

  // Per-phase timing of every frame, as in the GL app: the mode's phases (wait, kernel, signal, the
  // copies) on CUDA events or the host clock, the Vulkan passes (draw, vulkan copy) on Vulkan timestamps,
  // the frame start to start; tagged by mode, cleared on a scene switch. On by default; the benchmark
  // turns it off.
  void set_timing(bool enabled);
  bool timing() const { return m_timing; }
  const FrameTimers& timers() const { return *m_timers; }
  FrameTimers& timers() { return *m_timers; }  // tests flush it
  // The window's keys (app/core/hotkeys.hpp), as a key press would: tests call it directly.
  void handle_hotkey(Hotkey hotkey);

 private:
  // In a window: handles its events and follows its framebuffer's size. False while it is minimised.
  bool follow_window_size();
  // The window's panel: the device, scene, mode, size, frame time and validation count, the scene's own
  // controls (the postprocess filter), the per-phase timings and the keys.
  void draw_panel();
  // Applies the requested switches: detach the mode, re-create what changed, attach.
  void apply_switches();
  // Makes `extent` the frame's size: the frame target, and the scene's resources where they depend on it
  // (the mode detaches from the old ones first).
  void apply_extent(Extent extent);

  Options m_options;
  Extent m_extent;
  std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point m_previous_frame = m_start;
  bool m_frame_before = false;  // m_previous_frame is a frame's start
  interop::CudaDevices m_cuda_devices;
  CudaContext m_cuda;
  // Declaration order is teardown order in reverse (and ~App() detaches the mode first): the mode's
  // copies and imports, the scene's scratch memory, the swapchain, the renderer's resources, the
  // stream, the device, the window.
  std::unique_ptr<glfw::Window> m_window;
  std::unique_ptr<Context> m_context;
  std::optional<interop::Stream> m_stream;
  std::unique_ptr<Renderer> m_renderer;
  std::unique_ptr<FrameTimers> m_timers;  // their Vulkan queries belong to the renderer
  bool m_timing = true;
  std::unique_ptr<glfw::Panel> m_panel;  // before the presenter, which shuts ImGui's Vulkan backend down first
  std::unique_ptr<Presenter> m_presenter;
  std::unique_ptr<SceneCompute> m_scene;
  DrawPlan m_plan;
  std::unique_ptr<Mode> m_mode;
  std::optional<SceneId> m_pending_scene;
  std::optional<ModeId> m_pending_mode;
  std::optional<interop::SemaphoreKind> m_pending_semaphores;
  std::string m_notice;  // why the last switch did not happen, for the panel
  bool m_panel_visible = true;
  std::string m_last_screenshot;  // what F12 wrote last, for the panel
};

// main()'s entry for --api vulkan: App(options).run().
int run_app(const Options& options);

}  // namespace lab::vulkan
