// app/loop/app.hpp — the one frame loop of every graphics API (OpenGL, Vulkan, Direct3D 11, Direct3D 12),
// each drawing through its Renderer: the CUDA device where there is one (its UUID or LUID picks the API's
// device, so interop can work), the API's device and renderer, a scene's SceneCompute and a mode
// (app/modes/mode.hpp); headless, or in a GLFW window (app/glfw/window.hpp) through the API's presenter,
// with a panel that switches scene, mode and the external modes' semaphores live, per-phase timings, and
// the keys of app/core/hotkeys.hpp. One frame is a straight line:
//
//   renderer (cubes pass) -> mode (kernels) -> renderer (frame pass) -> presenter (window, panel)
//
// `Backend` names one API's types and verbs: app/loop/contract.hpp is the contract, checked by the compiler
// where the loop is instantiated (app/vulkan/app/app.hpp's Vulkan, app/d3d11/app/app.hpp's Direct3D11,
// app/d3d12/app/app.hpp's Direct3D12, app/gl/backend.hpp's gl::Backend, app/null's null::Backend); the
// optional verbs and their defaults are app/modes/backend.hpp's BackendDefaults.
//
// In a window the frame is: the switches, the window's events and keys, the cubes pass, the mode, the frame
// pass, F12's screenshot (the frame before the panel covers it: read_frame then reads what the frame pass
// drew, where GL's is the window's framebuffer), then the presenter draws the panel (app/panel/panel.hpp).
// With --serve, headless, the desk (app/serve/desk.hpp) is called in three places
// of run(): its commands before a frame (applied through request_scene / request_mode / resize), and after
// it the frame and the state (offer_to_desk). A mode that fails with a CUDA error that is not sticky, in a
// frame or when it re-attaches after a resize, gives way to the next tier down (fallback_for: staging, then
// cpu), saying why; a sticky one ends the run. Header-only: each API's library instantiates it (it includes
// Dear ImGui, so the libraries below it that unit_tests links never do).
#pragma once

#include "app/cli/cli.hpp"
#include "app/cli/remedy.hpp"
#include "app/core/hotkeys.hpp"
#include "app/core/tables.hpp"
#include "app/core/text.hpp"
#include "app/doctor/doctor.hpp"
#include "app/glfw/panel_layout.hpp"
#include "app/glfw/window.hpp"
#include "app/image/image_io.hpp"
#include "app/image/screenshots.hpp"
#include "app/loop/commands.hpp"
#include "app/loop/contract.hpp"
#include "app/modes/backend.hpp"
#include "app/modes/mode.hpp"
#include "app/modes/mode_switch.hpp"
#include "app/os/signals.hpp"
#include "app/panel/panel.hpp"
#include "app/scene/published_source.hpp"
#include "app/scene/scene_compute.hpp"
#include "app/serve/desk.hpp"
#include "app/timing/frame_pacer.hpp"
#include "app/timing/timing.hpp"
#include "app/timing/timing_ui.hpp"
#include "interop/device.hpp"
#include "interop/error.hpp"
#include "interop/stream.hpp"
#include "kernels/common.hpp"
#include "kernels/convert.hpp"

#include <cuda_runtime_api.h>
#include <imgui.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace lab::loop {

// The most a frame waits for a source with nothing new (FrameSource::wait_for_frame): a 60 Hz frame's time,
// so a window's input and a page's commands are still taken that often while a publisher is idle.
constexpr std::chrono::milliseconds kMostWaitForFrame{16};

template <class Backend>
class App {
  static_assert(check_backend<Backend>(), "app/loop/contract.hpp: what the loop asks of a Backend");
  // Whether the API's device judges the CUDA device (a CudaProbe of its own): the modes are then judged
  // once the device is made, and again after a device switch.
  static constexpr bool kProbesCuda = !std::is_same_v<typename Backend::CudaProbe, NoCudaProbe>;
  // Whether the API has a doctor's report (doctor_report gives one, not the default nullopt): only then does
  // the loop reach the doctor's library.
  static constexpr bool kHasDoctor =
      !std::is_same_v<decltype(Backend::doctor_report(std::declval<const CudaContext&>(),
                                                      std::declval<typename Backend::Device&>(),
                                                      std::declval<const std::vector<DoctorSource>&>())),
                      std::nullopt_t>;

 public:
  using Device = typename Backend::Device;
  using Renderer = typename Backend::Renderer;
  using Presenter = typename Backend::Presenter;
  using Mode = lab::Mode<Renderer>;

  // Checks the options (--device, the mode) before any graphics work, then opens the window (without
  // --headless) and creates the device on the CUDA device's GPU (else the API's default one), the renderer,
  // the scene, the mode, and in a window the presenter and the panel. Throws UsageError for a bad --device,
  // std::runtime_error with the missing piece (no display, no device, a mode unavailable here).
  // `doctor_sources`: this build's doctor sources (main's API table), for the panel's doctor tab and the
  // page's doctor section; none: the report has the CUDA section only.
  explicit App(const Options& options, std::vector<DoctorSource> doctor_sources = {});
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // Renders frame `index`: time = index / 60 with --frames or headless, else the seconds since start. In a
  // window, follows its size first, handles the keys pressed since the last frame (what they switch applies
  // to this frame) and draws the frame with the panel into the window (present() shows it); returns false
  // when nothing was drawn (minimised).
  bool render_frame(long long index);
  // Renders frame frame_index() and, where it drew, advances it: the frame counter of callers that do not
  // count frames themselves (the benchmark, the Python bridge, tests).
  bool render_frame() { return render_frame(m_frame_index); }
  // Frame `index` as run() makes it, for a caller that drives the loop itself (Python's attached viewer):
  // with --serve the page's commands and the desk's frame-rate cap, else the panel's cap; the source's wait
  // for something new (FrameSource::wait_for_frame); render_frame; present; with --serve the frame handed to
  // the desk. Returns render_frame's answer (false: nothing drawn, a minimised window). `shown`, where given,
  // gets what the window shows of the frame (read_window, before present), for --screenshot.
  bool run_frame(long long index, Image* shown = nullptr);
  // With --serve, for a caller that makes its frames on demand (the Python viewer): the frames read late
  // (GL's and Vulkan's read-back runs a frame behind) handed to the desk now, waiting for their reads, so
  // that the page gets the last frame made without waiting for the next one. Nothing without --serve.
  void flush_desk();
  // With --serve: the desk's URL, token included ("http://127.0.0.1:8080/?token=..."); "" without.
  std::string desk_url() const { return m_desk ? m_desk->url() : std::string(); }
  void set_frame_index(long long index) { m_frame_index = index; }
  // The frame render_frame() draws next: one after the frame drawn last.
  long long frame_index() const { return m_frame_index; }
  // In a window: whether the user closed it (run() ends then). False headless.
  bool window_closed() const { return m_window && m_window->should_close(); }
  // Shows what render_frame drew in the window (run() calls it; headless it does nothing).
  void present() {
    const auto scope = profile([] { return std::string("present"); });
    if (m_presenter) m_presenter->present();
  }
  // Headless: makes the frame `extent` now (the frame target, and the scene's resources where they depend on
  // it; 0x0: no frame is drawn until the next size); in a window the window's size rules, and this asks it
  // for `extent` (0x0 minimises it).
  void resize(Extent extent);
  // The frame rendered last, top row first (a ShowImage scene's image is the frame); without the window's
  // panel, except GL's in a window, whose frame is the window's framebuffer.
  Image read_frame() { return m_renderer->read_frame(m_plan); }
  // In a window: what it shows of the frame rendered last (its back buffer before it is presented, the panel
  // included), top row first. Empty headless, and where the API's presenter cannot read its back buffer.
  Image read_window() { return m_presenter ? m_presenter->read_back_buffer() : Image{}; }
  // The doctor's report that the panel's doctor section and the page show (Backend::doctor_report), made at
  // start when there is a panel or a desk and again after a device switch; nullopt otherwise.
  const std::optional<DoctorReport>& doctor_report() const { return m_doctor; }
  // --frames frames (default: kDefaultHeadlessFrames headless, until the window closes in one, or until
  // stopped with --serve), then
  // --screenshot: headless the frame; in a window what the window showed last, panel included, where the
  // presenter can read it, else the frame. Returns 0; failures throw.
  int run();

  // The panel's switches, applied at the start of the next frame: the scene (its resources re-created), the
  // mode, and the external mode's semaphores. A mode that cannot run here is refused with its reason (also
  // the notice) and nothing changes; one whose attach fails (a driver without semaphore export) leaves the
  // previous mode running and says why (notice()).
  // Returns "" or why not (also the notice): with no graphics API (--api none) only a scene whose frame is a
  // picture CUDA writes (pattern) shows; the others are drawn.
  std::string request_scene(SceneId scene) {
    if (!m_pinned_source.empty())
      return m_notice = std::string("scene ") + to_string(scene) + " refused: " + pinned_why();
    if constexpr (Backend::kApi == GraphicsApi::None)
      if (scene != SceneId::Pattern)
        return m_notice =
                   std::string("scene ") + to_string(scene) +
                   " refused: it is drawn by a graphics API, and --api none draws nothing; the pattern "
                   "scene and --attach show pictures";
    m_pending_scene = scene;
    m_pending_source.reset();  // the later request wins
    return "";
  }
  ModeAvailability request_mode(ModeId mode);
  void request_semaphores(interop::SemaphoreKind kind) { m_pending_semaphores = kind; }
  // Applies the switches requested so far now, not at the next frame's start: for a caller that makes its
  // frames through the mode's halves itself, without the loop's frames (python/bridge.cpp's Lab).
  void apply_requests() { apply_switches(); }
  // Whether the CUDA modes with a graph form launch each frame's CUDA work as one CUDA graph (--graph); the
  // running mode re-attaches at the start of the next frame when it has the form.
  void request_graph(bool graph) { m_pending_graph = graph; }
  bool graph() const { return m_cuda.graph; }
  // Why the running mode has no graph form ("" where it has one): the panel and the page grey the switch.
  std::string graph_why_not() const {
    return has_graph_form(m_mode->id()) ? std::string()
                                        : std::string(to_string(m_mode->id())) +
                                              " has no CUDA graph form; the modes that map and unmap and the "
                                              "external modes have one";
  }
  // Moves the CUDA work to another device at the start of the next frame, where the backend can
  // (kCudaDeviceSwitch). Returns "" or why not (also the notice).
  std::string request_device(int device);
  // The split mode's compute device and how it copies, from the start of the next frame (the split mode,
  // when it runs, re-attaches). request_compute_device returns "" or why the device cannot be used.
  std::string request_compute_device(int device);
  void request_split_copy(SplitCopy copy) { m_pending_split_copy = copy; }
  // The frames the publisher `name` publishes in place of those shown, from the start of the next frame
  // (--attach NAME's source): attached now, so that a refusal comes back at once. Returns "" or why not
  // (nothing published by that name, frames that cannot be shown; also the notice). Where the frame had the
  // last publisher's size, it takes the new one's.
  std::string request_source(const std::string& name);
  // `source` makes the frames from the start of the next frame: a source its caller feeds (an ArraySource,
  // app/scene/array_source.hpp), until a scene or another source is asked for. The frame keeps its size
  // (resize() changes it).
  void use_source(std::unique_ptr<FrameSource> source) {
    m_pending_source = std::move(source);
    m_pending_published_name.clear();
    m_pending_scene.reset();  // the later request wins
  }
  // `source` makes every frame from the start of the next frame on: the loop is its caller's (a Python
  // viewer's), so no scene or other source takes its place. The scene and source commands (the panel's, the
  // keys', the page's) are refused, saying why (pinned_why), and the panel and the page do not offer them.
  void pin_source(std::unique_ptr<FrameSource> source) {
    m_pinned_source = source->name();
    use_source(std::move(source));
  }
  // Why no scene or other source can be asked for ("" where one can): the source is pinned.
  std::string pinned_why() const {
    return m_pinned_source.empty() ? std::string()
                                   : "the frames are the caller's (" + m_pinned_source +
                                         "), which feeds this loop; no scene or other source replaces them";
  }
  // The zoom, pan, 1:1 and fit commands (the frame's pixels, row 0 at the top) on where the source's picture
  // lies in the frame (FrameSource::picture_view, app/scene/view.hpp), from the next frame on. Returns "" or
  // why not: a scene, which has no picture to move, or no picture yet, or a zoom by no factor.
  std::string move_view(const Command& command);
  // How the source's picture lies in the frame (contain, stretch, cover, actual), from the next frame on, a
  // zoom or pan undone. Returns "" or why not (a scene).
  std::string set_picture_fit(PictureFit fit);
  // Why the picture's tools do not apply now ("" while the source shows a picture).
  std::string picture_why_not() const;
  // The page's and the panel's frame of a stack (Index) and caller's controls (Control), set where the source
  // keeps them for its caller (FrameSource::stack, caller_controls), who reads them. Returns "" or why not: a
  // source with none, an index past the stack, a value the control does not take.
  std::string caller_command(const Command& command);
  // The page's cursor (Hover: a point of the frame, or off it), whose picture pixel's value the state's
  // tools read (picture_tools). Always taken: a scene's frame has no value to read, and says none.
  std::string hover(const Command& command) {
    m_page_hover = command.on ? std::optional<std::array<double, 2>>({command.x, command.y}) : std::nullopt;
    return "";
  }
  // What the page shows beside a picture source's frame, as beside a Python viewer's: where the picture lies
  // (the fit or the free view, its scale) and the value of the picture pixel under the page's cursor (one
  // copy of that pixel's bytes a frame while the cursor is over it). nullopt for a scene, and before the
  // first picture.
  std::optional<serve::ViewerTools> picture_tools() const { return picture_tools_at(m_page_hover); }
  // What the page is sent about frame `index` (the desk's state, app/serve/protocol.hpp): the scene or
  // source, the modes, the size, the notice, the timings and the settings of every control. Python reads it
  // too (python/attach.cpp).
  serve::AppState app_state(long long index);
  // While a published source makes the frames: its publication's name, and the names published now (listed
  // at most once a second); "" and none while a scene does.
  std::string published_name() const;
  const std::vector<std::string>& publishers();
  int compute_device() const { return m_cuda.compute_device; }
  SplitCopy split_copy() const { return m_cuda.split_copy; }
  // Why the split mode's compute device and copy do not apply now ("" in the split mode).
  std::string split_why_not() const;
  // Map / register flags of every resource the running mode registers (unset: each resource's best),
  // applied at once. Returns "" or why the flags do not suit the scene (then nothing changes).
  std::string request_map_access(std::optional<interop::Access> access);
  std::string request_register_access(std::optional<interop::Access> access);
  const AccessSettings& access() const { return m_access; }
  // Attaches a mode made outside the app (a test double, a plug-in) in place of the running one, on the
  // resources as they are.
  void use_mode(std::unique_ptr<Mode> mode);
  // The tier a mode falls back to when it fails: staging where it runs, else cpu (cpu is the last).
  ModeId fallback_for(ModeId failed) const;
  // Whether `mode` can run here, and if not why.
  ModeAvailability availability(ModeId mode) const;
  // What a key of app/core/hotkeys.hpp does, as its press in the window would (tests call it directly): the
  // panel hidden or shown; F12's screenshot of read_frame() to the next free interop-lab-NNNN.png of
  // --screenshot-dir now (a failure is said on stderr and in the panel, and the run goes on); full screen;
  // the next scene, or the next mode of the API that runs here (both wrapping, from the next frame on);
  // vsync on or off from the next present; the window closed, so run() ends. Those of a window do nothing
  // headless.
  void handle_hotkey(Hotkey hotkey);
  // The screenshot button and, in a window, F12: the next frame, before the panel is drawn over it, to the
  // next free interop-lab-NNNN.png in --screenshot-dir.
  void request_screenshot() { m_screenshot_requested = true; }
  // For a caller that reads its frames (the Python viewer's read_frame): the next frame drawn is kept as
  // read_frame() reads it, before the panel covers it in a window (where GL's read_frame is the window's),
  // and taken with take_captured() (empty before).
  void request_capture() { m_capture_requested = true; }
  Image take_captured() { return std::exchange(m_captured, Image{}); }
  // The file the last screenshot went to, or why it was not written; "" before the first.
  const std::string& last_screenshot() const { return m_last_screenshot; }
  // Input as GLFW hands it to the window, for tests and scripted sessions (the Python viewer's): taken at
  // the next frame drawn with the panel, after the window's own, through the same ImGui frame and keys. The
  // pointer at window point (x, y); the left button held or not from now on; the wheel turned by `notches`;
  // a key (GLFW_KEY_*) pressed, as the window's key callback reads it (hotkey_for).
  void inject_pointer(float x, float y) { m_injected.pointer = {x, y}; }
  void inject_button(bool down) { m_injected.button = down; }
  void inject_wheel(float notches) { m_injected.wheel += notches; }
  void inject_key(int glfw_key) {
    if (const std::optional<Hotkey> hotkey = hotkey_for(glfw_key, 0)) m_injected.hotkeys.push_back(*hotkey);
  }
  // The picture's tools at the window's pointer (the panel's readout and cursor); nullopt where
  // picture_tools would be, and while the pointer is off the frame or over the panel.
  std::optional<serve::ViewerTools> window_tools() const {
    return m_pointer.at ? picture_tools_at(m_pointer.at) : std::nullopt;
  }
  // How many steps of the animation clock were asked for so far (step(): the key, the panel, the page, a
  // caller), for a caller that moves its own time by them (the Python viewer's poll()).
  long long steps() const { return m_steps; }
  // In a window with a panel (not --no-ui): whether it is shown (F1, Tab), and where it was drawn last;
  // null without a panel.
  bool panel_visible() const { return m_panel_visible; }
  const panel::PanelPlace* panel() const { return m_panel ? &m_panel_place : nullptr; }

  // The graphics passes of frame `index` alone (the cubes pass where the scene has one, then the frame
  // pass), without the mode: what the benchmark calls the graphics work of a frame. Headless only.
  void render_graphics_only(long long index);
  // Waits until the graphics API and the CUDA stream have done everything queued so far (the benchmark
  // ends each frame with it).
  void finish();

  // Per-phase timing of every frame: the mode's phases (wait, kernel, signal, the copies) on CUDA events or
  // the host clock, the graphics passes on the API's timer queries where it has them, the frame start to
  // start; tagged by mode, cleared on a scene switch. On by default; the benchmark turns it off.
  void set_timing(bool enabled);
  bool timing() const { return m_timing; }
  const FrameTimers& timers() const { return *m_timers; }
  FrameTimers& timers() { return *m_timers; }  // tests flush it

  Extent extent() const { return m_extent; }
  bool windowed() const { return m_window != nullptr; }
  // In a window: whether its presents wait for the display's refresh (--vsync, then V). False headless.
  bool vsync() const { return m_presenter && m_presenter->vsync(); }
  // Vsync on or off from the next present; headless, where nothing is presented, refused saying why.
  std::string set_vsync(bool on);
  // The animation clock (the scenes' time): paused, it stops while the frames go on (modes, timings and
  // the desk all run); step() moves it one frame (1/60 s) on and leaves it paused. Never paused, a frame's
  // time is as it always was: frame / 60 with --frames or headless, else the seconds since start.
  void set_paused(bool paused);
  bool paused() const { return m_paused; }
  void step();
  // A frame-rate cap (0: none): with --serve the desk's (its page sets it too), else the loop's own.
  void set_fps_cap(double fps);
  double fps_cap() const;
  // The control table's controls as they are now (a switch on or off, a choice's option, a number), each
  // with why it does not apply ("" where it does), for the panel and the page alike
  // (app/controls/controls.hpp).
  ControlStates control_states() const;
  ModeId mode_id() const { return m_mode->id(); }
  // The scene the frames come from; nullopt while another source makes them (--attach).
  std::optional<SceneId> scene_id() const { return m_scene->scene(); }
  FrameSource& scene() { return *m_scene; }  // the page's filter (app/serve/desk.hpp)
  const FrameSource& source() const { return *m_scene; }
  Renderer& renderer() { return *m_renderer; }  // --bench --serve reads frames as the desk does
  const DrawPlan& plan() const { return m_plan; }
  const std::string& notice() const { return m_notice; }
  // With --serve: the desk (app/serve/desk.hpp), else null.
  const serve::Desk* desk() const { return m_desk.get(); }
  interop::SemaphoreKind semaphores() const { return m_cuda.semaphores; }
  int cuda_device() const { return m_cuda.device; }
  Device& device() { return *m_device; }
  const std::string& adapter() const { return m_device_name; }
  Mode& mode() { return *m_mode; }
  const interop::CudaDevices& cuda_devices() const { return m_cuda_devices; }
  // The stream every CUDA mode works on; null without a CUDA device.
  cudaStream_t cuda_stream() const { return m_cuda.stream; }
  // What the backend's CudaProbe said of the CUDA device last (at start, after a device switch).
  const typename Backend::CudaProbe& cuda_probe() const { return m_cuda_probe; }
  // The CUDA devices that drive the API's device, as probed at start (cuda_devices_of; empty where the
  // backend cannot say).
  const std::vector<int>& driving_devices() const { return m_driving_devices; }

 private:
  // Applies the requested switches: detach the mode, re-create what changed, attach.
  void apply_switches();
  // Makes `extent` the frame's size: the frame target, and the scene's resources where they depend on it
  // (the mode detaches from the old ones first).
  void apply_extent(Extent extent);
  void draw_panel();
  // In the panel's ImGui frame: the window's pointer over the frame moves a picture (the wheel zooms, a drag
  // pans: panel::frame_pointer), also while the panel is hidden. Returns whether the pointer is followed
  // (a source with a picture, a frame that fills the window).
  bool follow_pointer();
  // inject_*'s input into this frame's ImGui IO (after the window's own) and its keys' hotkeys.
  void apply_injected_input();
  // picture_tools with the cursor at `point` of the frame (the page's, the window pointer's).
  std::optional<serve::ViewerTools> picture_tools_at(const std::optional<std::array<double, 2>>& point) const;
  // Fullscreen, Quit and ToggleVsync, in a window.
  void handle_window_hotkey(Hotkey hotkey);
  // Makes mode `id` (with the chosen flags) the running one, re-creates the scene's resources as it needs
  // them and attaches it; when that throws, m_mode is the mode whose attach failed.
  void attach_mode(ModeId id);
  // Attaches `mode`, or on a CUDA error that is not sticky the next tier, saying `what` failed.
  void attach_or_fall_back(ModeId mode, const std::string& what);
  // Detaches the running mode and attaches it again (its settings changed), falling back as above.
  void reattach_or_fall_back(const std::string& what);
  // A CUDA error that is not sticky in `what` (a frame, a re-attach): the running mode gives way to the next
  // tier, said on stderr and in the notice.
  void fall_back(const std::string& what, const interop::Error& error);
  // After `failed` could not attach or run (no mode attached now): attaches the next tier, saying why.
  void attach_next_tier(ModeId failed, const std::string& what, const interop::Error& error);
  // The split settings asked for: a new compute stream where the device changed.
  void apply_split(int compute_device, SplitCopy copy);
  void create_compute_stream(int device);
  // Moves the CUDA work to `device` (kCudaDeviceSwitch): the mode detached, the scene's scratch, the
  // timers' events and the streams re-created there, the device probed again, and the mode attached again,
  // or the next tier where the new device cannot run it.
  void switch_device(int device);
  // Backend::profile_scope(name()) where the backend has one, else nothing (and name() is not called).
  template <class Name>
  auto profile(const Name& name) const;
  std::vector<ResourceDesc> resource_descs() const;
  // --serve: the frame just rendered and the state after it, to the desk.
  void offer_to_desk(long long index);
  // The settings behind the page's controls (split, semaphores, the switches, blur, clock) now.
  serve::ControlSettings control_settings() const;
  // Whether the scenes' time follows the frame index (--frames, headless) rather than the clock.
  bool fixed_time() const { return m_options.frames || !m_window; }
  // The scenes' time for frame `index`, started at `started`: the animation clock's.
  float animation_time(long long index, std::chrono::steady_clock::time_point started) const;
  // The doctor's report (Backend::doctor_report) where the panel or the page shows it.
  void collect_doctor_report();
  // read_frame() to the next numbered file; the file, or why it was not written (also the notice).
  std::string take_screenshot();

  Options m_options;
  Extent m_extent;
  std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point m_previous_frame = m_start;
  bool m_frame_before = false;  // m_previous_frame is a frame's start
  bool m_empty = false;         // headless, resized to 0x0
  interop::CudaDevices m_cuda_devices;
  CudaContext m_cuda;
  typename Backend::CudaProbe m_cuda_probe;
  // Declaration order is teardown order in reverse (and ~App() detaches the mode first): the mode's
  // copies, registrations or imports, the scene's scratch memory, the presenter (and the API's ImGui
  // backend), the panel, the timers (their queries are the renderer's), the renderer's resources, the
  // stream, the device, the window.
  std::unique_ptr<glfw::Window> m_window;
  std::unique_ptr<Device> m_device;
  std::string m_device_name;
  std::optional<interop::Stream> m_stream;
  std::optional<interop::Stream> m_compute_stream;  // on m_cuda.compute_device (the split mode's kernels)
  std::unique_ptr<Renderer> m_renderer;
  std::unique_ptr<FrameTimers> m_timers;
  bool m_timing = true;
  // Before the presenter, which shuts the API's ImGui backend down first.
  std::unique_ptr<glfw::Panel> m_panel;
  std::unique_ptr<Presenter> m_presenter;
  std::unique_ptr<FrameSource> m_scene;  // what makes the frames: a scene, or another process's frames
  DrawPlan m_plan;
  std::unique_ptr<Mode> m_mode;
  std::optional<SceneId> m_pending_scene;
  std::string m_pinned_source;  // pin_source's source's name; "" while a scene or source may be asked for
  std::unique_ptr<FrameSource> m_pending_source;  // request_source's, attached, swapped in by apply_switches
  std::optional<std::array<double, 2>> m_page_hover;  // the page's cursor over the frame (hover)
  panel::FramePointer m_pointer;                      // the window's pointer over the frame (draw_panel)
  // inject_*'s input, taken at the next frame with the panel (apply_injected_input).
  struct InjectedInput {
    std::optional<std::array<float, 2>> pointer;
    std::optional<bool> button;
    float wheel = 0.0f;
    std::vector<Hotkey> hotkeys;
  } m_injected;
  long long m_steps = 0;  // step() calls
  // picture_tools_at's last readout of the page's cursor (0) and the window's pointer (1): the pixel, the
  // picture (FrameSource::picture_serial) and the line.
  struct ReadCache {
    std::array<int, 2> pixel{-1, -1};
    long long serial = 0;
    std::string line;
  };
  mutable std::array<ReadCache, 2> m_read_caches;
  bool m_capture_requested = false;  // request_capture: the next frame kept in m_captured
  Image m_captured;
  std::string m_pending_published_name;
  std::string m_published_name;                             // the running published source's (--attach NAME)
  std::vector<std::string> m_publishers;                    // published_names(), as listed last
  std::chrono::steady_clock::time_point m_publishers_next;  // when to list them again
  std::optional<ModeId> m_pending_mode;
  std::optional<interop::SemaphoreKind> m_pending_semaphores;
  std::optional<bool> m_pending_graph;
  std::optional<int> m_pending_device;
  std::optional<int> m_pending_compute_device;
  std::optional<SplitCopy> m_pending_split_copy;
  AccessSettings m_access;
  long long m_frame_index = 0;
  std::string m_notice;  // why the last switch did not happen, for the panel
  // The animation clock (set_paused, step): the frames and seconds it lags the frame index and the time
  // since start by, and while paused where it stopped.
  bool m_paused = false;
  long long m_clock_lag_frames = 0;
  double m_clock_lag_s = 0.0;
  long long m_paused_frame = 0;
  double m_paused_s = 0.0;
  double m_clock_s = 0.0;               // the scenes' time in the frame rendered last
  FramePacer m_pacer;                   // the cap without a desk (with one, the desk keeps the cap)
  bool m_panel_visible = true;          // F1 or Tab
  std::string m_last_screenshot;        // what F12 wrote last, or why it did not, for the panel
  bool m_screenshot_requested = false;  // taken in the next frame, before the panel
  panel::PanelPlace m_panel_place;
  std::vector<int> m_driving_devices;
  std::optional<DoctorReport> m_doctor;
  std::vector<DoctorSource> m_doctor_sources;  // what m_doctor is collected from
  serve::LateReader m_late_reader;             // the desk's read-back, where the renderer reads frames late
  std::unique_ptr<serve::Desk> m_desk;         // --serve; last, so it serves a complete app
};

namespace detail {

inline void log(const std::string& message) {
  std::fprintf(stderr, "interop-lab: %s\n", message.c_str());
}

// "CUDA device 0: NVIDIA H200 (sm_90, 0000:4B:00.0)", or "CUDA: no device".
inline std::string cuda_device_summary(const interop::CudaDevices& cuda, int device) {
  if (device < 0) return "CUDA: no device";
  const interop::CudaDeviceInfo& info = cuda.devices[static_cast<size_t>(device)];
  return "CUDA device " + std::to_string(device) + ": " + info.name + " (sm_" +
         std::to_string(info.compute_major) + std::to_string(info.compute_minor) + ", " + info.pci_bus_id +
         ")";
}

}  // namespace detail

template <class Backend>
App<Backend>::App(const Options& options, std::vector<DoctorSource> doctor_sources)
    : m_options(options),
      m_extent{options.width, options.height},
      m_doctor_sources(std::move(doctor_sources)) {
  Backend::at_start();
  m_cuda_devices = probe_cuda_devices();
  for (const auto& [option, ordinal] :
       {std::pair{"--device", options.device}, std::pair{"--compute-device", options.compute_device}}) {
    if (!ordinal) continue;
    if (const std::string refusal = device_refusal(*ordinal, m_cuda_devices); !refusal.empty())
      throw UsageError(std::string(option) + " " + std::to_string(*ordinal) + ": " + refusal);
  }
  if (!m_cuda_devices.devices.empty()) {
    m_cuda.device = options.device.value_or(0);
    m_cuda.semaphores = options.semaphores;
    m_cuda.graph = options.graph;
    m_cuda.split_copy = options.split_copy;
  }
  // Judged before any graphics work, so a refused mode is the only line of the run; where the API's device
  // must probe the CUDA device first (CudaProbe), as soon as it has.
  ModeId mode = options.mode.value_or(m_cuda.device >= 0 ? copy_mode() : cpu_mode());
  std::string default_mode_log;  // why the mode without --mode is not the backend's best, said once judged
  const auto check_mode = [this, &mode] {
    if (const ModeAvailability wanted = availability(mode); !wanted.available)
      throw std::runtime_error(std::string("--mode ") + to_string(mode) +
                               " is unavailable: " + wanted.reason);
  };
  if constexpr (!kProbesCuda) check_mode();

  // Another process's frames (--attach): attached before the window, whose size they give without --size.
  if (options.attach) {
    m_scene = create_published_source(*options.attach);
    m_published_name = *options.attach;
    if (options.picture_fit) set_picture_fit(*options.picture_fit);
    if (const std::optional<Extent> natural = m_scene->natural_extent(); natural && !options.size_given) {
      m_extent = *natural;
      m_options.width = natural->width;  // what a headless device sizes its frame by
      m_options.height = natural->height;
    }
  }

  if (!options.headless) {
    glfw::WindowDesc window = Backend::window_desc(m_extent);
    if (options.window_title) window.title = *options.window_title;
    m_window = std::make_unique<glfw::Window>(window);
    const Extent framebuffer = m_window->poll();  // the window manager may have its say
    if (!framebuffer.empty()) m_extent = framebuffer;
  }
  m_device = Backend::create_device(m_cuda, m_window.get(), m_options);
  m_device_name = Backend::device_name(*m_device);
  if (m_cuda.device >= 0) {
    // Without --device, the CUDA device that drives the API's device (where it says), so that interop just
    // works; made current once the API's device is there.
    m_driving_devices = Backend::cuda_devices_of(*m_device);
    if (!options.device && !m_driving_devices.empty()) m_cuda.device = m_driving_devices.front();
    INTEROP_CUDA_CHECK(cudaSetDevice(m_cuda.device));
  }
  if (m_cuda.device >= 0) {
    m_stream.emplace();
    m_cuda.stream = m_stream->get();
    create_compute_stream(options.compute_device.value_or(m_cuda.device));
  }
  m_cuda_probe = Backend::probe_cuda(m_cuda, *m_device, m_cuda_devices.error);
  if (!options.mode) {
    ModeChoice chosen = Backend::default_mode(m_cuda, m_cuda_probe);
    mode = chosen.mode;
    m_notice = std::move(chosen.notice);
    default_mode_log = std::move(chosen.log);
  }
  if constexpr (kProbesCuda) check_mode();
  m_renderer = std::make_unique<Renderer>(*m_device, m_extent);
  m_timers = std::make_unique<FrameTimers>(Backend::timer_queries(*m_renderer));
  if (m_window) {
    if (!options.no_ui)
      m_panel = std::make_unique<glfw::Panel>(*m_window, options.layout_file.value_or(default_layout_path()));
    // Vsync on in a window, off with --frames (a fixed count runs as fast as it can).
    const bool vsync = options.vsync.value_or(!options.frames.has_value());
    m_presenter =
        Backend::create_presenter(*m_renderer, *m_device, *m_window, m_extent, m_panel != nullptr, vsync);
  }
  if (!m_scene) m_scene = create_scene_compute(options.scene, options.filter);
  m_plan = m_scene->draw_plan();
  m_access.map_access = options.map_flags;
  if (const std::string refusal = check_access(m_scene->resources(m_extent), m_access.map_access);
      !refusal.empty())
    throw UsageError("--map-flags " + std::string(interop::to_string(*options.map_flags)) + ": " + refusal);
  check_mode();  // what the scene decides (scene_availability)
  // Said once every option has been judged, so that a usage error is the only line of a refused run.
  if (!default_mode_log.empty()) detail::log(default_mode_log);
  attach_mode(mode);
  if (options.serve) m_desk = std::make_unique<serve::Desk>(*options.serve);
  if (m_panel || m_desk) collect_doctor_report();  // the panel's doctor tab, the page's doctor section
}

template <class Backend>
void App<Backend>::collect_doctor_report() {
  m_doctor = Backend::doctor_report(m_cuda, *m_device, m_doctor_sources);
}

template <class Backend>
App<Backend>::~App() {
  m_desk.reset();  // no viewer waits on a frame of a loop being torn down
  if (m_mode) m_mode->detach();
  m_mode.reset();
  m_scene.reset();
  if (m_panel) m_panel->make_current();  // the presenter's ImGui backend goes with its own context
  m_presenter.reset();
  m_panel.reset();
  m_timers.reset();  // their queries are the renderer's
  if (m_renderer) m_renderer->destroy_resources();
  m_renderer.reset();
  m_compute_stream.reset();
  m_stream.reset();
  m_device.reset();
  m_window.reset();
}

template <class Backend>
ModeAvailability App<Backend>::request_mode(ModeId mode) {
  ModeAvailability wanted = availability(mode);
  if (wanted.available)
    m_pending_mode = mode;
  else
    m_notice = std::string(to_string(mode)) + " is unavailable: " + wanted.reason;
  return wanted;
}

template <class Backend>
std::string App<Backend>::request_device(int device) {
  if (const std::string refusal = device_refusal(device, m_cuda_devices); !refusal.empty()) {
    m_notice = "CUDA device " + std::to_string(device) + ": " + refusal;
    return m_notice;
  }
  if constexpr (!Backend::kCudaDeviceSwitch) {
    m_notice = std::string("CUDA device ") + std::to_string(device) + ": " + display_name(Backend::kApi) +
               "'s device was chosen for CUDA device " + std::to_string(m_cuda.device) +
               " at start, so that they share memory; restart with --device " + std::to_string(device);
    return m_notice;
  } else {
    m_pending_device = device;  // the same device too: its state is re-created
    return "";
  }
}

template <class Backend>
ModeAvailability App<Backend>::availability(ModeId mode) const {
  ModeAvailability verdict = Backend::mode_availability(mode, m_cuda, m_cuda_devices.error, m_cuda_probe);
  if (verdict.available && m_scene) verdict = Backend::scene_availability(mode, *m_scene, m_extent);
  return verdict;
}

template <class Backend>
template <class Name>
auto App<Backend>::profile(const Name& name) const {
  return Backend::profile_scope(name);
}

template <class Backend>
void App<Backend>::switch_device(int device) {
  const ModeId mode = m_mode->id();
  m_mode->detach();  // its registrations and streams' work belong to the old device
  m_mode.reset();
  m_scene->release_scratch();  // its CUDA memory (the blur's scratch) belongs to the old device
  m_timers.reset();            // so do the timers' events
  // The split mode's compute device stays where it is, unless it was the device that moves.
  const bool compute_follows = m_cuda.compute_device == m_cuda.device;
  m_compute_stream.reset();
  m_cuda.compute_stream = nullptr;
  m_stream.reset();
  m_cuda.stream = nullptr;
  m_cuda.device = device;
  INTEROP_CUDA_CHECK(cudaSetDevice(m_cuda.device));
  m_stream.emplace();
  m_cuda.stream = m_stream->get();
  create_compute_stream(compute_follows ? m_cuda.device : m_cuda.compute_device);
  m_timers = std::make_unique<FrameTimers>(Backend::timer_queries(*m_renderer));
  m_cuda_probe = Backend::probe_cuda(m_cuda, *m_device, m_cuda_devices.error);
  const ModeAvailability runs = availability(mode);
  if (runs.available) {
    attach_mode(mode);
    m_notice = "CUDA device " + std::to_string(device);
    if constexpr (kProbesCuda) m_notice += ": " + Backend::probe_summary(m_cuda_probe);
  } else {
    const ModeId next = fallback_for(mode);
    attach_mode(next);
    m_notice = "CUDA device " + std::to_string(device) + " cannot run " + to_string(mode) + " (" +
               runs.reason + "); now in " + to_string(next) + " mode";
  }
  detail::log(m_notice);
  if (m_doctor) collect_doctor_report();
}

template <class Backend>
std::string App<Backend>::request_source(const std::string& name) {
  if (!m_pinned_source.empty()) return m_notice = "source " + name + " refused: " + pinned_why();
  if (name == published_name()) {
    m_pending_source.reset();  // the one running stays
    return "";
  }
  try {
    m_pending_source = create_published_source(name);
  } catch (const std::exception& error) {
    m_notice = std::string("source ") + name + ": " + error.what();
    return m_notice;
  }
  m_pending_published_name = name;
  m_pending_scene.reset();  // the later request wins
  return "";
}

template <class Backend>
std::string App<Backend>::picture_why_not() const {
  if (m_scene->picture_view() != nullptr) return "";
  return "the " + m_scene->name() +
         " scene fills the frame; a picture (--attach, a caller's arrays) has a view";
}

template <class Backend>
std::string App<Backend>::set_picture_fit(PictureFit fit) {
  view::View* view = m_scene->picture_view();
  if (view == nullptr)
    return std::string("picture_fit ") + name_of(kPictureFits, fit) + " refused: " + picture_why_not();
  view->fit = fit;
  *view = view::fitted(*view);
  m_scene->move_camera(FrameSource::ViewMove::Fit, 0.0, 0.0, 1.0, m_extent);  // points shown: framed again
  return "";
}

template <class Backend>
std::string App<Backend>::move_view(const Command& command) {
  const std::string what = std::string(control_of(command.kind).key) + " refused: ";
  // A source's camera (a caller's points) takes the moves first.
  using Move = FrameSource::ViewMove;
  constexpr std::array<std::pair<Command::Kind, Move>, 4> kMoves{
      {{Command::Kind::Zoom, Move::Zoom},
       {Command::Kind::Pan, Move::Pan},
       {Command::Kind::ActualSize, Move::ActualSize},
       {Command::Kind::Fit, Move::Fit}}};
  for (const auto& [kind, move] : kMoves)
    if (command.kind == kind && m_scene->move_camera(move, command.x, command.y, command.factor, m_extent))
      return "";
  view::View* view = m_scene->picture_view();
  if (view == nullptr) return what + picture_why_not() + " to move";
  const std::optional<Extent> picture = m_scene->natural_extent();
  if (!picture) return what + "no picture yet";
  const view::Size image{picture->width, picture->height}, frame{m_extent.width, m_extent.height};
  switch (command.kind) {
    case Command::Kind::Zoom:
      if (!std::isfinite(command.factor) || command.factor <= 0.0)
        return what + "a zoom by " + number_text(command.factor) + "; a factor above 0 zooms";
      *view = view::zoom_at(*view, image, frame, command.x, command.y, command.factor);
      return "";
    case Command::Kind::Pan:
      *view = view::pan_by(*view, image, frame, command.x, command.y);
      return "";
    case Command::Kind::ActualSize:
      *view = view::actual_size_at(*view, image, frame, command.x, command.y);
      return "";
    case Command::Kind::Fit:
      *view = view::fitted(*view);
      return "";
    default:
      return what + "no move of the view";
  }
}

template <class Backend>
std::string App<Backend>::caller_command(const Command& command) {
  const std::string owner = "the " + m_scene->name() + (m_scene->scene() ? " scene" : " source");
  if (command.kind == Command::Kind::Index) {
    caller::Stack* stack = m_scene->stack();
    if (stack == nullptr) return "index refused: " + owner + " shows no stack";
    return pick_stack_frame(*stack, command);
  }
  caller::Registry* controls = m_scene->caller_controls();
  if (controls == nullptr)
    return "control '" + command.name + "' refused: " + owner + " has no caller's controls";
  return apply_caller_control(*controls, command, owner);
}

template <class Backend>
std::optional<serve::ViewerTools> App<Backend>::picture_tools_at(
    const std::optional<std::array<double, 2>>& point) const {
  view::View* view = m_scene->picture_view();
  const std::optional<Extent> picture = m_scene->natural_extent();
  if (view == nullptr || !picture) return std::nullopt;
  const view::Size image{picture->width, picture->height}, frame{m_extent.width, m_extent.height};
  serve::ViewerTools tools;
  const view::Transform t = view::transform_of(*view, image, frame);
  tools.fit = view::fit_name(view->fit);
  tools.free = view->free;
  tools.origin_x = t.origin_x;
  tools.origin_y = t.origin_y;
  tools.scale_x = t.scale_x;
  tools.scale_y = t.scale_y;
  tools.image = *picture;
  tools.colorbar = m_scene->picture_colorbar();
  if (const caller::Stack* stack = m_scene->stack()) {
    tools.index = stack->index;
    tools.frames = stack->frames;
  }
  if (const caller::Registry* controls = m_scene->caller_controls())
    tools.controls = serve::control_states(*controls);
  tools.readout = readout::kOffPicture;
  if (!point) return tools;
  const std::optional<view::Pixel> cursor =
      view::pixel_at(*view, image, frame, static_cast<int>(std::floor((*point)[0])),
                     static_cast<int>(std::floor((*point)[1])));
  if (!cursor) return tools;
  tools.cursor = std::array<int, 2>{cursor->x, cursor->y};
  // Read once per pixel and picture where the source numbers its pictures: the readout says what the
  // picture shows, though its caller writes the array after showing it.
  const long long serial = m_scene->picture_serial();
  ReadCache& cache = m_read_caches[point == m_page_hover ? 0 : 1];
  if (serial != 0 && cache.serial == serial && cache.pixel == *tools.cursor) {
    tools.readout = cache.line;
    return tools;
  }
  // With no picture to read (none shown yet), read_out says where the cursor is.
  const std::optional<readout::Source> values = m_scene->picture_values();
  tools.readout = readout::read_out(values.value_or(readout::Source{}), 0, cursor->x, cursor->y);
  cache = {*tools.cursor, serial, tools.readout};
  return tools;
}

template <class Backend>
std::string App<Backend>::published_name() const {
  return m_scene->kind() == SourceKind::Published ? m_published_name : "";
}

template <class Backend>
const std::vector<std::string>& App<Backend>::publishers() {
  const auto now = std::chrono::steady_clock::now();
  if (m_scene->kind() != SourceKind::Published) {
    m_publishers.clear();
    m_publishers_next = now;  // listed afresh when a published source runs again
  } else if (now >= m_publishers_next) {
    m_publishers = published_names();
    m_publishers_next = now + std::chrono::seconds(1);
  }
  return m_publishers;
}

template <class Backend>
std::string App<Backend>::request_compute_device(int device) {
  if (const std::string refusal = device_refusal(device, m_cuda_devices); !refusal.empty()) {
    m_notice = "compute device " + std::to_string(device) + ": " + refusal;
    return m_notice;
  }
  m_pending_compute_device = device;
  return "";
}

template <class Backend>
void App<Backend>::create_compute_stream(int device) {
  m_compute_stream.reset();
  m_cuda.compute_stream = nullptr;
  m_cuda.compute_device = device;
  const interop::ScopedDevice on(device);
  m_compute_stream.emplace();
  m_cuda.compute_stream = m_compute_stream->get();
}

template <class Backend>
std::vector<ResourceDesc> App<Backend>::resource_descs() const {
  std::vector<ResourceDesc> descs;
  for (const auto& resource : m_renderer->resources()) descs.push_back(resource.desc);
  return descs;
}

template <class Backend>
std::string App<Backend>::request_map_access(std::optional<interop::Access> access) {
  if (std::string refusal = check_access(resource_descs(), access); !refusal.empty()) {
    m_notice = "map flags refused: " + refusal;
    return refusal;
  }
  m_access.map_access = access;
  m_mode->apply_access(m_access);
  return "";
}

template <class Backend>
std::string App<Backend>::request_register_access(std::optional<interop::Access> access) {
  if (std::string refusal = check_access(resource_descs(), access); !refusal.empty()) {
    m_notice = "register flags refused: " + refusal;
    return refusal;
  }
  m_access.register_access = access;
  m_mode->apply_access(m_access);  // the mode re-registers
  return "";
}

template <class Backend>
void App<Backend>::use_mode(std::unique_ptr<Mode> mode) {
  m_mode->detach();
  mode->attach(*m_renderer);
  m_mode = std::move(mode);
}

template <class Backend>
ModeId App<Backend>::fallback_for(ModeId failed) const {
  return fallback_tier(failed, availability(copy_mode()).available);
}

template <class Backend>
void App<Backend>::attach_mode(ModeId id) {
  const auto scope = profile([id] { return std::string("attach ") + to_string(id); });
  m_mode = Backend::create_mode(id, m_cuda);
  m_mode->apply_access(m_access);
  // Re-created whole: a new scene has other resources, and a CUDA mode may need them importable.
  m_renderer->create_resources(m_scene->resources(m_extent), m_mode->needs_importable_resources());
  m_mode->attach(*m_renderer);
}

template <class Backend>
void App<Backend>::fall_back(const std::string& what, const interop::Error& error) {
  const ModeId failed = m_mode->id();
  m_mode->detach();
  m_mode.reset();
  attach_next_tier(failed, what, error);
}

template <class Backend>
void App<Backend>::attach_next_tier(ModeId failed, const std::string& what, const interop::Error& error) {
  const ModeId next = fallback_for(failed);
  m_notice = fallback_notice(failed, what, describe(error), next);
  detail::log(m_notice);
  attach_mode(next);
}

template <class Backend>
void App<Backend>::attach_or_fall_back(ModeId mode, const std::string& what) {
  try {
    attach_mode(mode);
  } catch (const interop::Error& error) {
    m_mode.reset();  // its attach released what it made before it threw
    if (error.sticky()) throw;
    attach_next_tier(mode, what, error);
  }
}

template <class Backend>
void App<Backend>::reattach_or_fall_back(const std::string& what) {
  const ModeId mode = m_mode->id();
  m_mode->detach();
  m_mode.reset();
  attach_or_fall_back(mode, what);
}

template <class Backend>
void App<Backend>::apply_split(int compute_device, SplitCopy copy) {
  const ModeId mode = m_mode->id();
  const bool reattach = uses_compute_device(mode);
  if (reattach) {
    m_mode->detach();  // its copies run on the old compute stream
    m_mode.reset();
  }
  if (compute_device != m_cuda.compute_device) create_compute_stream(compute_device);
  m_cuda.split_copy = copy;
  if (reattach) {
    attach_or_fall_back(mode, "attaching on compute device " + std::to_string(m_cuda.compute_device));
    if (m_mode->id() == mode) m_notice = std::string(to_string(mode)) + ": " + m_mode->transfer();
  }
  if (m_doctor) collect_doctor_report();
}

template <class Backend>
void App<Backend>::handle_hotkey(Hotkey hotkey) {
  switch (hotkey) {
    case Hotkey::NextScene:
      request_scene(scene_after(m_pending_scene.value_or(m_scene->scene().value_or(all_scenes().back()))));
      break;
    case Hotkey::NextMode:
      // The first mode after the running (or already requested) one, in modes_of's order and wrapping,
      // that runs here; with none, the running mode stays and the notice says why.
      if (const std::optional<ModeId> next =
              mode_after(m_pending_mode.value_or(m_mode->id()), modes_of(Backend::kApi),
                         [this](ModeId mode) { return availability(mode).available; })) {
        request_mode(*next);
      } else {
        std::vector<ModeAvailability> runs;
        for (const ModeId mode : modes_of(Backend::kApi)) runs.push_back(availability(mode));
        m_notice = panel::no_other_mode_notice(m_mode->id(), modes_of(Backend::kApi), runs);
      }
      break;
    case Hotkey::Screenshot:
      // In a window the next frame's, before its panel; headless the frame rendered last, now.
      if (m_window)
        request_screenshot();
      else
        m_last_screenshot = take_screenshot();
      break;
    case Hotkey::TogglePanel:
      m_panel_visible = !m_panel_visible;
      m_pointer = {};  // the pointer is followed in the panel's frames
      break;
    case Hotkey::Pause:
      set_paused(!m_paused);
      break;
    case Hotkey::Step:
      step();
      break;
    case Hotkey::ActualSize:
    case Hotkey::Fit: {
      // Not while the panel takes typing: 1 is a digit of the size and the fps cap.
      if (ImGui::GetCurrentContext() != nullptr && ImGui::GetIO().WantTextInput) break;
      // At the pointer where it is over the frame, else the frame's centre.
      Command command;
      command.kind = hotkey == Hotkey::Fit ? Command::Kind::Fit : Command::Kind::ActualSize;
      command.x = m_pointer.at ? (*m_pointer.at)[0] : m_extent.width / 2.0;
      command.y = m_pointer.at ? (*m_pointer.at)[1] : m_extent.height / 2.0;
      if (std::string refusal = move_view(command); !refusal.empty()) m_notice = std::move(refusal);
      break;
    }
    case Hotkey::PreviousFrame:
    case Hotkey::NextFrame:
      // The stack's frame before or after, where the source has a stack of more than one (the caller shows
      // it); nothing at either end.
      if (const caller::Stack* stack = m_scene->stack()) {
        Command command;
        command.kind = Command::Kind::Index;
        command.index = stack->index + (hotkey == Hotkey::NextFrame ? 1 : -1);
        if (command.index >= 0 && command.index < stack->frames) caller_command(command);
      }
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
  if (!m_pending_device && !m_pending_compute_device && !m_pending_split_copy && !m_pending_semaphores &&
      !m_pending_graph && !m_pending_scene && !m_pending_mode && !m_pending_source)
    return;
  const auto scope = profile([] { return std::string("switch"); });
  if (m_pending_device) switch_device(*m_pending_device);  // set only where the backend can switch
  m_pending_device.reset();
  if (m_pending_compute_device || m_pending_split_copy)
    apply_split(m_pending_compute_device.value_or(m_cuda.compute_device),
                m_pending_split_copy.value_or(m_cuda.split_copy));
  m_pending_compute_device.reset();
  m_pending_split_copy.reset();
  if (m_pending_graph && *m_pending_graph != m_cuda.graph) {
    m_cuda.graph = *m_pending_graph;
    if (has_graph_form(m_mode->id()))
      reattach_or_fall_back(m_cuda.graph ? "attaching with a CUDA graph" : "attaching without a CUDA graph");
  }
  m_pending_graph.reset();
  const std::optional<SceneId> running_scene = m_scene->scene();
  const SceneId scene_wanted = m_pending_scene.value_or(running_scene.value_or(SceneId::Wave));
  const bool scene = m_pending_scene && m_pending_scene != running_scene;
  std::unique_ptr<FrameSource> source = std::move(m_pending_source);
  const bool swapped = source != nullptr;  // another publisher's frames
  ModeId mode = m_pending_mode.value_or(m_mode->id());
  const bool semaphores = m_pending_semaphores && *m_pending_semaphores != m_cuda.semaphores;
  if (m_pending_semaphores) m_cuda.semaphores = *m_pending_semaphores;
  m_pending_scene.reset();
  m_pending_mode.reset();
  m_pending_semaphores.reset();
  if (!scene && !swapped && mode == m_mode->id() && !(semaphores && uses_semaphores(mode))) return;
  const ModeId previous = m_mode->id();
  m_mode->detach();  // its copies, registrations or imports go before the resources they belong to
  m_mode.reset();
  if (scene) {
    const auto scene_scope =
        profile([scene_wanted] { return std::string("scene ") + to_string(scene_wanted); });
    m_scene = create_scene_compute(scene_wanted, m_options.filter);
    m_plan = m_scene->draw_plan();
    m_timers->clear();  // another scene's timings compare with nothing here
  }
  // Another publisher: the frame follows its size where it had the last one's (no --size, no resize since).
  std::optional<Extent> follow;
  if (source) {
    const auto source_scope = profile([&source] { return "source " + source->name(); });
    const std::optional<Extent> before = m_scene->natural_extent(), after = source->natural_extent();
    if (!m_options.size_given && before == m_extent && after && after != m_extent) follow = after;
    // Another publisher's picture lies in the frame as the last one's did.
    const view::View* before_view = m_scene->picture_view();
    const bool keep_fit = before_view != nullptr;
    const PictureFit fit = keep_fit ? before_view->fit : PictureFit::Stretch;
    m_scene = std::move(source);
    m_published_name = std::move(m_pending_published_name);
    m_plan = m_scene->draw_plan();
    if (keep_fit && m_scene->picture_view() != nullptr) m_scene->picture_view()->fit = fit;
  }
  // What the new frames are, for the messages: "the pattern scene", "published 'sim'".
  const std::string what = scene ? std::string("the ") + to_string(scene_wanted) + " scene" : m_scene->name();
  std::string scene_refused;
  if (const ModeAvailability runs = scene || swapped ? availability(mode) : ModeAvailability{true, ""};
      !runs.available) {
    // The mode cannot run this scene (one that carries some resources only): the next tier, saying why.
    const ModeId next = fallback_for(mode);
    scene_refused = std::string(to_string(mode)) + " cannot run " + what + " (" + runs.reason + "); now in " +
                    to_string(next) + " mode";
    detail::log(scene_refused);
    mode = next;
  }
  std::string flags_reset;
  if ((scene || swapped) && (!check_access(m_scene->resources(m_extent), m_access.map_access).empty() ||
                             !check_access(m_scene->resources(m_extent), m_access.register_access).empty())) {
    // Flags chosen for the last scene may not suit this one (read-only on what it writes): start afresh.
    m_access = AccessSettings{};
    flags_reset = "flags reset to each resource's best for " + what;
  }
  const auto attach = [this](ModeId id) { attach_mode(id); };
  m_notice = attach_or_keep(mode, previous, attach, [this] {
    if (m_mode) m_mode->detach();
  });
  if (m_notice.empty()) m_notice = !scene_refused.empty() ? scene_refused : flags_reset;
  if (follow) resize(*follow);
}

template <class Backend>
void App<Backend>::apply_extent(Extent extent) {
  if (extent == m_extent) return;
  try {
    resize_under_mode(*m_renderer, *m_scene, *m_mode, extent, m_mode->needs_importable_resources());
  } catch (const interop::Error& error) {
    if (error.sticky()) throw;
    m_extent = extent;  // the resources are the new size's: the next tier attaches to them
    fall_back("attaching after a resize", error);
  }
  if (m_presenter) m_presenter->resize(extent);
  m_extent = extent;
}

template <class Backend>
void App<Backend>::resize(Extent extent) {
  if (m_window) {
    m_window->request_size(extent);
    return;
  }
  // Headless 0x0 (what a minimised window reports): nothing is drawn, nothing re-created, until a size comes.
  m_empty = extent.empty();
  if (!m_empty) apply_extent(extent);
}

template <class Backend>
bool App<Backend>::render_frame(long long index) {
  // The profilers' frame structure: "frame N" holds the switches, the phases and the panel.
  const auto frame_scope = profile([index] { return "frame " + std::to_string(index); });
  Backend::before_frame(*m_device);
  apply_switches();
  if (m_empty) return false;  // headless at 0x0
  if (m_window) {
    if (m_panel) m_panel->make_current();  // GLFW's callbacks write into the current ImGui context
    const Extent framebuffer = m_window->poll();
    if (framebuffer.empty()) return false;  // minimised
    apply_extent(framebuffer);
    for (const Hotkey hotkey : m_window->take_hotkeys()) handle_hotkey(hotkey);
    apply_switches();  // what a key asked for, in this frame
  }
  // A fixed frame count or no window repeats exactly; a window's animation runs on time.
  const auto started = std::chrono::steady_clock::now();
  const float time = animation_time(index, started);
  const FrameInfo frame{index, time, m_extent};
  m_clock_s = time;
  // Frame time: start to start, so it holds everything, present and vsync included.
  if (m_timing && m_frame_before)
    m_timers->cpu_add(Phase::Frame,
                      std::chrono::duration<double, std::milli>(started - m_previous_frame).count());
  if (m_timing) m_timers->begin_frame(static_cast<int>(m_mode->id()), index);
  if (m_plan.cubes_target >= 0) {
    const auto sync = m_mode->cubes_sync(frame);
    const typename Backend::GraphicsPhase phase(*m_timers, Phase::Draw);
    m_renderer->draw_cubes(m_plan.cubes_target, cubes_view(m_extent, frame.time), sync);
  }
  try {
    m_mode->produce(*m_renderer, *m_scene, frame, *m_timers);
  } catch (const interop::Error& error) {
    if (error.sticky()) throw;  // the CUDA context is corrupt: main() ends the process with exit 1
    fall_back("producing frame " + std::to_string(index), error);
    m_mode->produce(*m_renderer, *m_scene, frame, *m_timers);
  }
  {
    const auto sync = m_mode->frame_sync(frame);
    // A frame pass that does nothing (GL's image headless: it is the frame) is not timed.
    if (Backend::draws_frame(*m_renderer, m_plan)) {
      const typename Backend::GraphicsPhase phase(*m_timers, Phase::Draw);
      m_renderer->draw_frame(m_plan, wave_view_projection(m_extent), sync);
    }
  }
  if (m_timing) m_timers->end_frame();
  if (m_capture_requested) {
    m_capture_requested = false;
    m_captured = read_frame();  // the frame, before the panel covers it
  }
  if (m_screenshot_requested) {
    m_screenshot_requested = false;
    const auto scope = profile([] { return std::string("screenshot"); });
    m_last_screenshot = take_screenshot();  // the frame, before the panel covers it
  }
  if (m_presenter) {
    ImDrawData* ui = nullptr;
    // The panel's ImGui frame, hidden or not where a picture has a pointer to follow: a hidden panel draws
    // nothing, and the wheel and a drag still move the picture.
    if (m_panel && (m_panel_visible || m_scene->picture_view())) {
      const auto scope = profile([] { return std::string("panel"); });
      m_panel->make_current();
      m_presenter->begin_ui_frame();
      m_panel->begin_frame();
      apply_injected_input();
      ImGui::NewFrame();
      if (m_panel_visible)
        draw_panel();
      else
        follow_pointer();
      ImGui::Render();
      ui = ImGui::GetDrawData();
    }
    m_presenter->draw(m_plan, ui);
  }
  m_previous_frame = started;
  m_frame_before = true;
  Backend::after_frame(*m_device, index);  // may throw
  m_frame_index = index + 1;
  return true;
}

template <class Backend>
float App<Backend>::animation_time(long long index, std::chrono::steady_clock::time_point started) const {
  if (fixed_time()) return kernels::time_of_frame(m_paused ? m_paused_frame : index - m_clock_lag_frames);
  return static_cast<float>(
      m_paused ? m_paused_s : std::chrono::duration<double>(started - m_start).count() - m_clock_lag_s);
}

template <class Backend>
serve::ControlSettings App<Backend>::control_settings() const {
  serve::ControlSettings settings;
  settings.blur_radius = m_scene->blur_radius();
  settings.compute_device = m_cuda.compute_device;
  settings.transfer = m_mode->transfer();
  settings.states = control_states();
  settings.clock_s = m_paused ? m_clock_s : 0.0;
  // A one-channel picture runs through its caller's colormap, else gray (app/scene/picture.hpp).
  if (const uint8_t* colours = m_scene->picture_colormap(); colours && m_scene->picture_colorbar())
    settings.colormap = serve::colormap_hex(colours);
  return settings;
}

template <class Backend>
std::string App<Backend>::split_why_not() const {
  const std::vector<ModeId>& modes = modes_of(Backend::kApi);
  if (std::none_of(modes.begin(), modes.end(), uses_compute_device))
    return std::string(display_name(Backend::kApi)) + " has no split mode; OpenGL's app has";
  if (!uses_compute_device(m_mode->id()))
    return "the split mode's: its compute device and how it copies to the graphics device";
  return "";
}

template <class Backend>
ControlStates App<Backend>::control_states() const {
  using Kind = Command::Kind;
  ControlStates states;
  const auto state = [&](Kind kind) -> ControlState& { return states[static_cast<size_t>(kind)]; };
  state(Kind::Graph) = switch_state(graph(), graph_why_not());
  state(Kind::Timing) = switch_state(m_timing);
  state(Kind::Vsync) = switch_state(vsync());
  state(Kind::Pause) = switch_state(m_paused);
  state(Kind::Fps) = number_state(fps_cap());
  state(Kind::SplitCopy) = choice_state(name_of(kSplitCopies, m_cuda.split_copy), split_why_not());
  const view::View* picture = m_scene->picture_view();
  state(Kind::PictureFit) =
      choice_state(name_of(kPictureFits, picture ? picture->fit : PictureFit::Stretch), picture_why_not());
  std::string semaphores_why_not;
  if (!Backend::kSemaphoreChoice)
    semaphores_why_not = std::string(display_name(Backend::kApi)) +
                         " orders its external modes its own way; --semaphores is OpenGL's and Vulkan's";
  else if (!uses_semaphores(m_mode->id()))
    semaphores_why_not = std::string(to_string(m_mode->id())) +
                         " orders its frames without semaphores; the external and exported modes use them";
  state(Kind::Semaphores) = choice_state(name_of(kSemaphoreKinds, m_cuda.semaphores), semaphores_why_not);
  return states;
}

template <class Backend>
void App<Backend>::set_paused(bool paused) {
  if (paused == m_paused) return;
  const double since_start =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
  if (paused) {  // stopped where the next frame would have been
    m_paused_frame = m_frame_index - m_clock_lag_frames;
    m_paused_s = since_start - m_clock_lag_s;
  } else {  // on from where it stopped
    m_clock_lag_frames = m_frame_index - m_paused_frame;
    m_clock_lag_s = since_start - m_paused_s;
  }
  m_paused = paused;
}

template <class Backend>
void App<Backend>::apply_injected_input() {
  ImGuiIO& io = ImGui::GetIO();
  if (m_injected.pointer) io.MousePos = ImVec2((*m_injected.pointer)[0], (*m_injected.pointer)[1]);
  if (m_injected.button) io.MouseDown[0] = *m_injected.button;
  io.MouseWheel += std::exchange(m_injected.wheel, 0.0f);
  for (const Hotkey hotkey : std::exchange(m_injected.hotkeys, {})) handle_hotkey(hotkey);
}

template <class Backend>
void App<Backend>::step() {
  ++m_steps;
  set_paused(true);
  m_paused_frame += 1;
  m_paused_s += static_cast<double>(kernels::time_of_frame(1));
}

template <class Backend>
std::string App<Backend>::set_vsync(bool on) {
  if (!m_presenter)
    return std::string("vsync ") + (on ? "on" : "off") + " refused: headless, nothing is presented";
  m_presenter->set_vsync(on);
  return "";
}

template <class Backend>
void App<Backend>::set_fps_cap(double fps) {
  if (m_desk)
    m_desk->set_fps_cap(fps);
  else
    m_pacer.set_fps(fps);
}

template <class Backend>
double App<Backend>::fps_cap() const {
  return m_desk ? m_desk->fps_cap() : m_pacer.fps();
}

template <class Backend>
void App<Backend>::set_timing(bool enabled) {
  if (enabled && !m_timing) m_timers = std::make_unique<FrameTimers>(Backend::timer_queries(*m_renderer));
  m_timing = enabled;
  m_frame_before = false;  // a frame time across the switch would hold the switch
}

template <class Backend>
std::string App<Backend>::take_screenshot() {
  std::string written = take_numbered_screenshot(m_options.screenshot_dir, read_frame());
  m_notice = written.rfind("not written", 0) == 0 ? "screenshot " + written : "wrote " + written;
  return written;
}

template <class Backend>
bool App<Backend>::follow_pointer() {
  // The pointer moves a picture where the frame fills the window (it follows the window unless --size).
  const ImGuiIO& io = ImGui::GetIO();
  const bool fills_window = std::lround(io.DisplaySize.x * io.DisplayFramebufferScale.x) == m_extent.width &&
                            std::lround(io.DisplaySize.y * io.DisplayFramebufferScale.y) == m_extent.height;
  if (!m_scene->picture_view() || !fills_window) {
    m_pointer = {};
    return false;
  }
  apply_commands(*this, panel::frame_pointer(m_pointer, m_extent));
  return true;
}

template <class Backend>
void App<Backend>::draw_panel() {
  panel::PanelModel model;
  model.api = Backend::kApi;
  model.scene = m_scene->scene();
  model.scenes_offered = m_pinned_source.empty();
  if (!model.scene) {
    model.source = m_scene->name();
    model.source_status = m_scene->status();
    model.published = published_name();
    model.publishers = publishers();
  }
  model.mode = m_mode->id();
  model.mode_ids = modes_of(Backend::kApi);
  for (const ModeId mode : model.mode_ids) model.modes.push_back(availability(mode));
  model.extent = m_extent;
  model.status = Backend::status_lines(*m_device, m_presenter.get());
  model.system.push_back(m_device_name);
  model.system.push_back(detail::cuda_device_summary(m_cuda_devices, m_cuda.device));
  model.notice = m_notice;
  model.devices = serve::device_names(m_cuda_devices, m_driving_devices);
  model.device = m_cuda.device;
  model.compute_device = m_cuda.compute_device;
  model.transfer = m_mode->transfer();
  model.access = m_access;
  if constexpr (Backend::kAccessFlags) model.flags = m_mode->registered_flags();
  model.timers = m_timers.get();
  if constexpr (kHasDoctor)
    if (m_doctor) model.doctor_ui = [this] { draw_doctor_report(*m_doctor); };
  model.states = control_states();
  model.graphics_untimed = Backend::graphics_untimed(*m_renderer);
  model.refresh_hz = m_window->refresh_hz();
  model.last_screenshot = m_last_screenshot;
  model.filter = m_scene->filter();
  model.blur_radius = m_scene->blur_radius();
  if (follow_pointer())
    if (const std::optional<serve::ViewerTools> tools = picture_tools_at(m_pointer.at)) {
      model.picture_readout = tools->readout;
      model.picture_colorbar = tools->colorbar;
      model.picture_colormap = m_scene->picture_colormap();
    }
  if (const caller::Stack* stack = m_scene->stack()) model.stack = *stack;
  model.caller_controls = m_scene->caller_controls();
  // The panel's commands take the page's path (app/loop/commands.hpp); each verb says its own notice.
  apply_commands(*this, panel::draw_panel(model, m_panel_place));
}

template <class Backend>
void App<Backend>::render_graphics_only(long long index) {
  const FrameInfo frame{index, kernels::time_of_frame(index), m_extent};
  if (m_plan.cubes_target >= 0)
    m_renderer->draw_cubes(m_plan.cubes_target, cubes_view(m_extent, frame.time), {});
  m_renderer->draw_frame(m_plan, wave_view_projection(m_extent), {});
}

template <class Backend>
void App<Backend>::finish() {
  m_renderer->wait_idle();
  if (m_stream) INTEROP_CUDA_CHECK(cudaStreamSynchronize(m_stream->get()));
}

template <class Backend>
serve::AppState App<Backend>::app_state(long long index) {
  serve::AppState state;
  state.api = Backend::kApi;
  state.adapter = m_device_name;
  state.cuda_device = m_cuda.device;
  state.cuda_devices = serve::device_names(m_cuda_devices, m_driving_devices);
  if constexpr (!Backend::kCudaDeviceSwitch) state.device_switch = serve::kNoDeviceSwitch;
  state.scene = m_scene->scene();
  if (!state.scene) {
    state.source = m_scene->kind() == SourceKind::Published ? "published" : "array";
    state.source_name = m_scene->kind() == SourceKind::Published ? published_name() : m_scene->name();
    state.source_status = m_scene->status();
    state.publishers = publishers();
    state.viewer = picture_tools();
  }
  if (!m_pinned_source.empty())  // the page does not offer what the loop refuses
    state.controls.erase(std::remove(state.controls.begin(), state.controls.end(), "scene"),
                         state.controls.end());
  state.filter = serve::filter_name(*m_scene);
  if constexpr (Backend::kAccessFlags)
    state.flags = serve::flags_state(m_access);
  else
    state.flags = serve::no_flags();
  if constexpr (kHasDoctor) state.doctor = m_doctor ? format_doctor_report(*m_doctor) : "";
  state.mode = m_mode->id();
  for (const ModeId mode : modes_of(Backend::kApi)) {
    const ModeAvailability runs = availability(mode);
    state.modes.push_back({mode, runs.available, runs.reason});
  }
  state.size = m_extent;
  state.frame = index;
  state.notice = m_notice;
  if (m_timing) {
    state.phases = serve::phase_lines(*m_timers, static_cast<int>(m_mode->id()));
    state.compared = serve::compare_modes(*m_timers, modes_of(Backend::kApi));
    state.timeline = last_frame_timeline(*m_timers, static_cast<int>(m_mode->id()));
  }
  state.untimed = Backend::graphics_untimed(*m_renderer);
  // Made every frame: 2 us of the state's 73 us (2-core host); the server sends it only when changed.
  state.settings = control_settings();
  return state;
}

template <class Backend>
void App<Backend>::offer_to_desk(long long index) {
  // A renderer that reads frames late (GL's, Vulkan's): reads under way, collected once done and handed over
  // with their states as the desk wants frames, then this frame's read begun where serve::LateReader says
  // (a slot free, fewer than its depth on their way to a viewer; the loop never waits on a read); the others
  // read this frame now.
  constexpr bool kLate = serve::ReadsFramesLate<Renderer>::value;
  const auto started = std::chrono::steady_clock::now();
  Image frame;
  if constexpr (kLate) {
    serve::LateRead read = m_late_reader.step(*m_renderer, m_desk->wants_frame(),
                                              [&] { m_renderer->begin_read_frame(m_plan, index); });
    if (read.collected)
      m_desk->frame_read_collected(std::move(read.collected->image), read.collected->frame, read.read_back_ms,
                                   std::move(read.collected->stripe_hashes), read.collected->way);
    if (!read.begun) return;  // this frame is not read: no state to hand over with it
  } else {
    frame = read_frame();
  }
  const double read_back_ms = serve::ms_since(started);
  serve::AppState state = app_state(index);
  if constexpr (kLate)
    m_desk->frame_read_begun(std::move(state));
  else
    m_desk->end_frame(std::move(frame), std::move(state), read_back_ms);
}

template <class Backend>
void App<Backend>::flush_desk() {
  if constexpr (serve::ReadsFramesLate<Renderer>::value) {
    if (!m_desk) return;
    m_late_reader.drain(*m_renderer, [this](FrameRead& read, double read_back_ms) {
      m_desk->frame_read_collected(std::move(read.image), read.frame, read_back_ms,
                                   std::move(read.stripe_hashes), read.way);
    });
  }
}

template <class Backend>
int App<Backend>::run() {
  const long long frames = m_options.frames.value_or(m_window || m_desk ? -1 : kDefaultHeadlessFrames);
  const bool screenshot = !m_options.screenshot.empty();
  Image shown;  // in a window: what it showed last, for --screenshot (empty: the presenter cannot say)
  long long index = 0;
  while (frames < 0 || index < frames) {
    stop_if_requested();  // SIGINT/SIGTERM/SIGHUP, a console close: out through main(), tearing down in order
    if (m_window && m_window->should_close()) break;
    // What the window shows is kept on the last frame of --frames, or on every frame while the window may
    // close any time.
    const bool keep_shown = m_presenter && screenshot && (frames < 0 || index + 1 == frames);
    if (!run_frame(index, keep_shown ? &shown : nullptr)) {
      m_window->wait(0.1);  // minimised: nothing to draw until it comes back
      continue;
    }
    ++index;
  }
  if (!screenshot) return 0;
  if (index == 0) {
    detail::log("no frame to write to " + m_options.screenshot + " (the window was closed before the first)");
    return 0;
  }
  // The frame shown last: the one of --frames, or the one on screen when the window was closed.
  const bool as_shown = !shown.rgba.empty();
  const Image frame = as_shown ? std::move(shown) : read_frame();
  write_png(m_options.screenshot, frame);
  detail::log("wrote " + m_options.screenshot + " (" + size_text(frame.width, frame.height) + ", frame " +
              std::to_string(index - 1) + ", " + display_name(Backend::kApi) + " on " + m_device_name +
              ", mode " + to_string(m_mode->id()) + (as_shown ? ", as the window showed it" : "") + ")");
  return 0;
}

template <class Backend>
bool App<Backend>::run_frame(long long index, Image* shown) {
  // The page's switches, through the panel's own calls; a refused mode says why there.
  if (m_desk)
    if (std::string refused = apply_commands(*this, m_desk->begin_frame()); !refused.empty())
      m_notice = std::move(refused);
  if (!m_desk) m_pacer.wait();  // the panel's cap; the desk's begin_frame waits for its own
  // A published source with nothing new waits for its next frame, a frame's time at most.
  m_scene->wait_for_frame(kMostWaitForFrame);
  if (!render_frame(index)) return false;
  // The back buffer before it is presented (a flip-model swap chain discards it then).
  if (shown) *shown = read_window();
  present();
  if (m_desk) offer_to_desk(index);
  return true;
}

// main()'s entry for an API of this loop: App(options, doctor_sources).run().
template <class Backend>
int run_app(const Options& options, const std::vector<DoctorSource>& doctor_sources) {
  App<Backend> app(options, doctor_sources);
  return app.run();
}

}  // namespace lab::loop
