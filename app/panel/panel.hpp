// app/panel/panel.hpp — the panel of every graphics API's window, as Dear ImGui draws it: the API and its
// device, scene (or another process's frames: their source, status and a combo of the publishers to switch
// to), mode (greyed where it cannot run here, its reason as a tooltip), the CUDA device and the
// split mode's choices, the external modes' semaphores, the map and register flags, per-phase timings with a
// mode comparison, vsync, the screenshot button, the keys, the doctor's report and the system it runs on. The
// frame loop (app/loop/app.hpp) fills a PanelModel from its state and applies the Commands the user
// picked; the panel never changes the app itself. Between ImGui::NewFrame and ImGui::Render, whatever the
// API's ImGui renderer is (app/glfw/window.hpp's Panel holds the context).
#pragma once

#include "app/controls/controls.hpp"
#include "app/core/vocabulary.hpp"
#include "app/modes/access.hpp"
#include "app/scene/caller_controls.hpp"
#include "app/timing/timing.hpp"
#include "interop/external.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lab {

namespace panel {

struct PanelModel {
  GraphicsApi api = GraphicsApi::Gl;
  std::optional<SceneId> scene = SceneId::Wave;  // nullopt while another source makes the frames
  bool scenes_offered = true;  // false: the scene row is not drawn (a source its caller pins to the loop)
  // Another source's name and how it is doing ("published 'sim'", "frame 1234 of pid 4242, ..."); "" for a
  // scene.
  std::string source;
  std::string source_status;
  // While a published source runs: its publication's name and the names published now, for the combo that
  // switches to another publisher (PanelActions::source).
  std::string published;
  std::vector<std::string> publishers;
  ModeId mode = cpu_mode();
  std::vector<ModeId> mode_ids;         // the API's modes, in modes_of's order
  std::vector<ModeAvailability> modes;  // indexed like mode_ids
  Extent extent;
  // The API's own lines ("GL: the renderer", Vulkan's present mode and validation): label, text.
  std::vector<std::pair<std::string, std::string>> status;
  std::vector<std::string> system;   // the device, "CUDA device 0: NVIDIA H200 (...)" or "CUDA: no device"
  std::string notice;                // the last fallback or refusal, "" when none
  std::vector<std::string> devices;  // "0: NVIDIA H200 (drives the graphics)", one per CUDA device
  int device = -1;
  int compute_device = -1;  // the split mode's
  std::string transfer;     // the split mode's path, "" in the other modes
  AccessSettings access;
  std::vector<RegisteredFlags> flags;  // what the mode registered, with the flags in force
  const FrameTimers* timers = nullptr;
  std::function<void()> doctor_ui;  // the doctor's report (app/doctor), where the API's backend makes one
  // The table's controls (the CUDA graph, timing, vsync, pause, the fps cap, the split mode's copy, the
  // semaphores), as the loop's control_states() says.
  ControlStates states;
  std::string graphics_untimed;  // why the graphics passes are not timed, "" when they are
  double refresh_hz = 0.0;       // of the window's monitor; 0 when unknown
  std::string last_screenshot;   // the file the last screenshot went to, "" before the first
  // The postprocess scene's filter and blur radius; nullopt in a source without them.
  std::optional<kernels::Filter> filter;
  std::optional<int> blur_radius;
  // While the source shows a picture: the value under the window's pointer ("x 12  y 40  0.25", the
  // readout's line off the picture); "" for a scene.
  std::string picture_readout;
  // A one-channel picture's colorbar: the values its colours run from and to, and the 256 RGBA8 colours
  // (null: gray).
  std::optional<std::array<double, 2>> picture_colorbar;
  const uint8_t* picture_colormap = nullptr;
  // The stack the source's picture is one frame of (a slider picks another: Index), nullopt for one frame;
  // the controls its caller added (Control), null or empty for none (app/scene/caller_controls.hpp).
  std::optional<caller::Stack> stack;
  const caller::Registry* caller_controls = nullptr;
};

// The window's pointer over its frame, which fills the window's framebuffer: the frame point under it
// (nullopt: off the frame, or over the panel) and a drag begun on the frame.
struct FramePointer {
  std::optional<std::array<double, 2>> at;
  bool dragging = false;
};

// Inside an ImGui frame: the pointer over a frame of `frame`'s size in the window, as a Python viewer's
// window takes it. The wheel zooms about the pointer (view::kWheelZoom a notch), a drag begun on the frame
// pans, both as the commands of the one vocabulary (Zoom, Pan), which the loop applies where its source shows
// a picture; the panel keeps what is over it. `pointer.at` says where the pointer is now.
std::vector<Command> frame_pointer(FramePointer& pointer, Extent frame);

// A one-channel picture's colorbar (inside an ImGui window): its 256 RGBA8 `colours` as a bar, with the
// values `low` and `high` that its two ends stand for beneath them.
void draw_colorbar(const uint8_t* colours, double low, double high);

// The stack's slider ("frame", 0 to frames - 1) and the caller's controls, each as its kind's widget under
// its own name (inside an ImGui window): what the user changed comes back as the page's commands, Index and
// Control, which the loop or a Python viewer applies (app/loop/commands.hpp). `rects`, where given, gets
// where each control was drawn (screen pixels: x0, y0, x1, y1), indexed as the registry's.
std::vector<Command> draw_caller_tools(const std::optional<caller::Stack>& stack,
                                       const caller::Registry* controls,
                                       std::vector<std::array<float, 4>>* rects = nullptr);

// Where the panel's window was at its last draw (the layout file moves it), in pixels, and where it drew
// each of a caller's controls (x0, y0, x1, y1, indexed as the registry's).
struct PanelPlace {
  float x = 0.0f;
  float y = 0.0f;
  std::vector<std::array<float, 4>> caller_controls;
};

// Builds the panel's window (inside an ImGui frame) from `model`; `place` gets where it is. Returns what the
// user changed, as the commands of the one control vocabulary (app/controls/controls.hpp), each widget
// labelled as the control table labels its control.
std::vector<Command> draw_panel(const PanelModel& model, PanelPlace& place);

// The notice when the next-mode key (M) finds no other mode that runs here: that `running` stays, and why
// the others do not run, modes that share a reason named together ("M: no other mode runs here; cpu stays.
// interop, pbo: needs a CUDA device ..."). `modes` and `availability` are indexed alike (PanelModel's).
std::string no_other_mode_notice(ModeId running, const std::vector<ModeId>& modes,
                                 const std::vector<ModeAvailability>& availability);

}  // namespace panel
}  // namespace lab
