// app/gl/app.hpp — the interop-lab application: one platform (window or headless), one scene and one
// interop mode attached at a time, the panel, and the frame loop. Tests drive it frame by frame.
#pragma once

#include "app/core/cli.hpp"
#include "app/core/hotkeys.hpp"
#include "app/core/remedy.hpp"
#include "app/gl/doctor_gl.hpp"
#include "app/gl/mode.hpp"
#include "app/gl/platform.hpp"
#include "app/gl/renderer.hpp"
#include "app/gl/timing.hpp"
#include "app/image/image_io.hpp"
#include "app/scene/scene_compute.hpp"
#include "interop/device.hpp"
#include "interop/error.hpp"
#include "interop/stream.hpp"

#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace lab {

class Panel;
namespace serve {
class Desk;
}

class App {
 public:
  using Renderer = gl::Renderer;
  using Mode = gl::Mode;

  explicit App(const Options& options);
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // The frame loop: until the window closes or --frames are done. Writes --screenshot at the end.
  // Returns 0, the process exit code of a finished run: failures throw (interop::Error, UsageError,
  // Interrupted), and main() turns each into its exit code.
  int run();

  // Renders frame frame_index() (switches requested since the last frame take effect first) and
  // advances the index. Returns false when nothing was drawn (minimised: 0x0 framebuffer).
  bool render_frame();
  // Renders frame `index` and counts on from there: core::App's render_frame(index), so that one test body
  // drives either loop.
  bool render_frame(long long index) {
    m_frame_index = index;
    return render_frame();
  }
  // Puts the frame's result where it is seen (gl::Renderer::draw_frame): a ShowImage scene's image is
  // shown by one full-screen pass in a window and by nothing headless (the image is the frame); the wave
  // mesh is drawn. The bench's reference loop shows its frames through this too.
  void show(const FrameInfo& frame);
  // The frame rendered last, read back from the framebuffer (panel included in a window), or headless
  // from a ShowImage scene's image; top row first.
  Image read_frame() const;
  void present();

  // The window's keys (app/core/hotkeys.hpp): handles what was pressed since the last call; run() calls it
  // after polling events. handle_hotkey does one, as if its key had been pressed.
  void process_input();
  void handle_hotkey(Hotkey hotkey);
  // The screenshot key and button: the next frame, before the panel is drawn over it, goes to the
  // next free interop-lab-NNNN.png in --screenshot-dir (default: the current folder).
  void request_screenshot() { m_screenshot_requested = true; }
  // The file the last screenshot went to; "" before the first.
  const std::string& last_screenshot() const { return m_last_screenshot; }
  bool panel_visible() const { return m_panel_visible; }
  // The panel (null without one: headless or --no-ui), for tests that check its layout.
  const Panel* panel() const { return m_panel.get(); }

  void set_frame_index(long long index) { m_frame_index = index; }
  long long frame_index() const { return m_frame_index; }

  // Take effect at the start of the next frame; an unavailable mode is refused (returns its reason).
  void request_scene(SceneId scene);
  ModeAvailability request_mode(ModeId mode);
  // Moves all CUDA work to another device at the start of the next frame: every registration, the
  // stream and the timers are re-created there; a mode the new device cannot run falls back a tier.
  // Returns "" or why the device cannot be used.
  std::string request_device(int device);
  // The split mode's compute device and how it copies (re-attached at the next frame when it runs).
  // The compute device stays where it is when request_device moves GL's, unless it was the same one.
  std::string request_compute_device(int device);
  void request_split_copy(SplitCopy copy);
  // What orders the external mode's frames (re-attached at the next frame when it runs).
  void request_semaphores(interop::SemaphoreKind kind) { m_pending_semaphores = kind; }
  // Whether the CUDA modes with a graph form launch each frame's CUDA work as one CUDA graph (--graph;
  // the running mode re-attached at the next frame when it has the form).
  void request_graph(bool graph) { m_pending_graph = graph; }
  bool graph() const { return m_options.graph; }
  interop::SemaphoreKind semaphores() const { return m_options.semaphores; }
  int compute_device() const { return m_compute_device; }
  SplitCopy split_copy() const { return m_split_copy; }
  // The CUDA devices that drive the GL context (cudaGLGetDevices), as probed at start.
  const std::vector<int>& gl_devices() const { return m_gl_devices; }

  // Map / register flags of every registered resource (unset: each resource's best). Applied at once;
  // returns "" or why the flags do not suit the scene (then nothing changes).
  std::string request_map_access(std::optional<interop::Access> access);
  std::string request_register_access(std::optional<interop::Access> access);
  const AccessSettings& access() const { return m_access; }
  // Attaches a mode made outside the app (a plug-in, or a test double) in place of the current one.
  void use_mode(std::unique_ptr<gl::Mode> mode);
  // The next tier down when `failed` stops working: interop, reregister, pbo, split, external -> staging
  // -> cpu.
  ModeId fallback_for(ModeId failed) const;
  const std::string& notice() const { return m_notice; }

  // Headless: the offscreen size; window: asks for a new window size.
  void resize(Extent extent) { m_platform->resize(extent); }

  SceneId scene_id() const { return m_scene->id(); }
  ModeId mode_id() const { return m_mode->id(); }
  SceneCompute& scene() { return *m_scene; }
  const DrawPlan& plan() const { return m_plan; }
  gl::Renderer& renderer() { return *m_renderer; }
  gl::Mode& mode() { return *m_mode; }
  FrameTimers& timers() { return *m_timers; }
  // Per-phase timing (CUDA events, GL timer queries) costs GPU time of its own; off, frames record
  // nothing, which is how the benchmark measures a frame's own cost. On by default.
  void set_timing(bool enabled);
  bool timing() const { return m_timing; }
  Platform& platform() { return *m_platform; }
  ModeAvailability availability(ModeId mode) const;
  int cuda_device() const { return m_device; }
  // The stream every CUDA mode works on; null without a CUDA device.
  cudaStream_t cuda_stream() const { return m_stream ? m_stream->get() : nullptr; }
  const interop::CudaDevices& cuda_devices() const { return m_cuda_devices; }
  const interop::InteropSupport& interop_support() const { return m_interop; }

 private:
  void apply_pending_switches();
  void attach_mode(ModeId mode);
  void switch_scene(SceneId scene);
  // The scene's compute and its resources in the renderer (at m_scene_extent), and back.
  void attach_scene(SceneId scene);
  void detach_scene();
  std::vector<ResourceDesc> scene_resources() const;
  void switch_device(int device);
  // m_interop and m_external for m_device, as GL's backend of the core loop probes them.
  void probe_cuda_device();
  void switch_split(int compute_device, SplitCopy copy);
  void create_compute_stream(int device);
  // A non-sticky CUDA error in `what` (attach or frame): log it, say it in the panel, attach the
  // next tier. Sticky errors are rethrown by the caller: the process must restart.
  void fall_back(const std::string& what, const interop::Error& error);
  // After `failed` could not attach or run (no mode attached now): attach the next tier, saying why.
  void attach_next_tier(ModeId failed, const std::string& what, const interop::Error& error);
  // attach_mode, or on a non-sticky CUDA error the next tier (a switch asked for in the panel).
  void attach_or_fall_back(ModeId mode, const std::string& what);
  FrameInfo frame_info(Extent extent) const;
  void write_screenshot();
  void take_numbered_screenshot();
  void offer_to_desk(serve::Desk& desk);
  void draw_panel(Extent extent);

  Options m_options;
  interop::CudaDevices m_cuda_devices;
  int m_device = -1;  // -1: no CUDA device
  // Declaration order is teardown order in reverse; ~App() also tears down explicitly:
  // panel, mode (registrations), the renderer's resources (GL objects), stream, platform (the GL context)
  // last.
  std::unique_ptr<Platform> m_platform;
  interop::InteropSupport m_interop;
  interop::InteropSupport m_external;  // whether the GL external mode can run (probe_gl_external)
  std::optional<interop::Stream> m_stream;
  int m_compute_device = -1;                        // the split mode's kernels; -1: no CUDA device
  std::optional<interop::Stream> m_compute_stream;  // on m_compute_device
  SplitCopy m_split_copy = SplitCopy::Peer;
  std::unique_ptr<FrameTimers> m_timers;  // CUDA events and GL queries: inside the context's lifetime
  std::unique_ptr<gl::Renderer> m_renderer;
  std::unique_ptr<SceneCompute> m_scene;
  DrawPlan m_plan;
  std::unique_ptr<gl::Mode> m_mode;
  std::unique_ptr<Panel> m_panel;
  std::optional<DoctorReport> m_doctor;  // for the panel's doctor tab

  AccessSettings m_access;
  bool m_timing = true;
  std::string m_notice;  // the last fallback or refusal, for the panel
  std::vector<int> m_gl_devices;
  std::optional<int> m_pending_device;
  std::optional<int> m_pending_compute_device;
  std::optional<SplitCopy> m_pending_split_copy;
  std::optional<interop::SemaphoreKind> m_pending_semaphores;
  std::optional<bool> m_pending_graph;
  std::optional<SceneId> m_pending_scene;
  std::optional<ModeId> m_pending_mode;
  Extent m_scene_extent;
  long long m_frame_index = 0;
  std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point m_previous_frame_start = m_start;
  std::optional<Image> m_last_frame;
  bool m_panel_visible = true;
  bool m_screenshot_requested = false;
  std::string m_last_screenshot;
};

}  // namespace lab
