// app/serve/protocol.hpp — what the browser desk's page and the app say to each other over the WebSocket,
// with no network in it (the unit tests drive it directly):
//   page -> app   text: one JSON object of commands, e.g. {"scene":"wave"}, {"mode":"interop"},
//                 {"size":[1280,720]}, {"fps":30}, {"map_flags":"read-only"}, {"register_flags":"best"},
//                 {"device":1}, {"filter":"blur"}, {"blur_radius":8}, {"source":"sim"} (another publisher's
//                 frames), {"compute_device":1}, {"split_copy":"host"}, {"semaphores":"binary"},
//                 {"graph":true}, {"timing":false}, {"pause":true}, {"step":true}: the keys of the control
//                 table (app/controls/controls.hpp) the page shows; several keys are several commands,
//                 applied in their names' alphabetical order. A Python viewer's page also sends, in the
//                 frame's pixels: {"zoom":[x,y,factor]}, {"pan":[dx,dy]}, {"actual_size":[x,y]},
//                 {"fit":true},
//                 {"hover":[x,y]} or {"hover":null} (off the frame), {"index":3} (a stack's frame) and
//                 {"control":{"name":"exposure","value":1.5}} (a number, true/false or an option's name)
//   app -> page   text: the state (state_json: scene, modes with why each is unavailable, size, the map and
//                 register flags, the CUDA devices, the filter, the doctor's report, the per-phase timings,
//                 the desk's own phases, the frame's timeline; the source of the frames, the publishers it
//                 may switch to and the controls that apply to it; this viewer's link), then binary: one
//                 frame (frame_message)
//   page -> app   text, answered by the viewer's own connection, not the app (parse_viewer_message):
//                 {"ack": index} the page drew the frame message of that index; {"refresh": true} the page
//                 holds no picture and asks for a whole frame
// The frame message is the frame, or the part of it that changed, as horizontal strips, each its own JPEG,
// encoded in parallel; the page draws strip i over rows [y_i, y_i + rows_i) and keeps the rows no strip
// covers. A strip's JPEG holds its rows downscaled by its scale s_i (1, 2 or 4: each pixel the average of an
// s x s box), ceil(width / s_i) x ceil(rows_i / s_i) pixels, which the page draws s_i times as large (the
// part past the frame's edge clipped); y, rows, width and height are always the frame's. All numbers
// little-endian uint32:
//   "ILF2" | frame index | width | height | strip count n | n x (y, rows, scale, jpeg bytes) | the n JPEGs
// The magic's last character is the layout's version: a change of the layout takes the next one, and a
// reader refuses a message of any other (version 1 had no scale: n x (y, rows, jpeg bytes)).
// A viewer that never acks (a script) gets every frame whole, each once its previous write completed. From
// its first ack on, a viewer gets only the stripes that changed since the picture it holds and stripes
// painted over at a high quality once still (app/serve/stripes.hpp), at most a few messages unacknowledged,
// at the quality (and, when the lowest quality is still too much, the scale) its link keeps up with
// (app/serve/link.hpp); a new size or a new scale sends the whole frame again.
#pragma once

#include "app/controls/controls.hpp"
#include "app/core/vocabulary.hpp"
#include "app/scene/caller_controls.hpp"
#include "app/timing/timeline.hpp"
#include "interop/access.hpp"
#include "kernels/postprocess.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lab::serve {

// One command from the page, applied at the start of the app's next frame: the one vocabulary of the panel,
// the page and Python (app/controls/controls.hpp), sent as {KEY: value} with the control table's keys.
using Command = lab::Command;

// The most pixels a page may ask a frame to have ({"size":[w,h]}): 8K UHD, 7680x4320 (4 x 3840x2160), 127 MiB
// per RGBA8 copy of the frame. The app holds several copies at once (its render target, the read-back, the
// copy offered to the desk, the encoder's), so a 16384x16384 frame (1 GiB a copy) stalled it for a minute
// and took gigabytes; either edge may still be up to kMaxImageEdge within this budget.
constexpr long long kMaxPagePixels = 7680LL * 4320;
// The highest CUDA device ordinal a command may name (whether it exists is the app's to say).
constexpr int kMaxCudaDevice = 63;
// A Python viewer's page (the viewer commands of app/controls/controls.hpp): the points it sends lie within
// this many pixels of the frame's corner (a drag may leave the frame; nothing is that far), one zoom command
// zooms by a factor within these, a stack's frame is at most this index, a control's name or option at most
// this many bytes.
constexpr double kMaxPagePoint = 1e6;
constexpr double kMinPageZoom = 1.0 / 64.0;
constexpr double kMaxPageZoom = 64.0;
constexpr long long kMaxStackIndex = 1LL << 30;
constexpr size_t kMaxControlText = 256;
// The page's name for unset flags: each resource's best.
constexpr const char* kBestAccess = "best";

// Parses one text message of the page into `commands` (appended). Returns "" or what is wrong, naming the
// key and the accepted values; on an error nothing is appended.
std::string parse_commands(const std::string& text, std::vector<Command>& commands);

// The keys of a page's message, an object ({} of anything else): a desk that takes only some commands (a
// Python viewer's) tells a malformed one of those (parse_commands says what is wrong) from one it refuses.
std::vector<std::string> command_keys(const std::string& text);

// The reply to a page's message that could not be taken: {"type":"error","error":...,"errors":[...]}.
std::string error_json(const std::string& problem);
// One reply for several messages refused in a burst: "error" says every reason (one a line, then how many
// more were refused beyond those listed, `unlisted`), "errors" lists them.
std::string error_json(const std::vector<std::string>& problems, unsigned long long unlisted = 0);

// A mode of the running API, and whether it runs here (why not, with the remedy).
struct ModeChoice {
  ModeId mode = cpu_mode();
  bool available = false;
  std::string reason;
};

// One phase's timing of the running mode, as the panel shows it.
struct PhaseLine {
  std::string phase;  // timing.hpp's to_string(Phase), or the desk's "read-back", "encode", "send"
  std::string clock;  // "cuda", "gl", "vulkan", "cpu"
  float last_ms = 0, median_ms = 0, p90_ms = 0;
  int samples = 0;
  bool measured = true;  // PhaseStats::measured: false where a GPU timer did not see the work
};

// The median of each phase a mode recorded since the scene started: the "modes compared" table.
struct ModeComparison {
  ModeId mode = cpu_mode();
  std::vector<PhaseLine> phases;
};

// The map and register flags as the page shows them: kBestAccess or interop::to_string's name.
struct FlagsState {
  bool settable = false;  // whether this app has the flags at all (GL's registering modes use them)
  std::string why_not;    // when not settable
  std::string map_flags = kBestAccess;
  std::string register_flags = kBestAccess;
};

// What the app's page offers: its own controls (scene, mode, filter, blur radius, device, compute device,
// flags, doctor, size, screenshot), then every control the table draws by its Group and gives the page (the
// switches, actions, choices and numbers: the CUDA graph, timing, pause, step, the split mode's copy, the
// semaphores, the fps cap). Inline: AppState holds it from the start, in builds without the desk's sources
// too (the Direct3D-only Windows build).
inline std::vector<std::string> app_controls() {
  std::vector<std::string> controls = {"scene",          "mode",  "filter", "blur_radius", "device",
                                       "compute_device", "flags", "doctor", "size",        "screenshot"};
  for (const Control& control : all_controls())
    if (control.group != Group::None && control.not_on_page == nullptr && !viewer_command(control.kind))
      controls.push_back(control.key);
  return controls;
}

// The settings behind the page's controls of the split mode, the blur, and every control the table draws
// (the switches, choices and numbers: each with its value and why it does not apply), and where the
// animation clock stopped.
struct ControlSettings {
  std::optional<int> blur_radius;  // the postprocess scene's; nullopt in a source without one
  int compute_device = -1;         // the split mode's; -1: none
  std::string transfer;            // the split mode's path, "" in the other modes
  ControlStates states;            // the table's controls', by Command::Kind (app/controls/controls.hpp)
  double clock_s = 0.0;  // while paused, where the animation clock stopped (the scenes' time); else 0
  // A Python viewer's colorbar (one-channel pictures): its colormap's 256 colours as "rrggbb" each, 1536 hex
  // digits; "" without one. Here, not in ViewerTools, so that a page is sent it only when it changes.
  std::string colormap;
  bool operator==(const ControlSettings& other) const;
  bool operator!=(const ControlSettings& other) const { return !(*this == other); }
};

// One of the caller's controls (app/scene/caller_controls.hpp: a Python viewer's, an array source's), as the
// page builds its widget.
struct ViewerControlState {
  std::string name;
  std::string kind;              // "slider", "checkbox", "button", "choice"
  double low = 0.0, high = 1.0;  // a slider's range
  double value = 0.0;  // a slider's number, a checkbox's 0 or 1, a button's presses, a choice's index
  std::vector<std::string> options;  // a choice's
};

// What a picture's page shows beside its frame (a Python viewer's, python/viewer.cpp; the app's while it
// shows a picture, App::picture_tools): where the picture lies (the fit, zoomed or panned, its scale), the
// readout of the pixel under the page's cursor, the colorbar's range, the stack's frame and the caller's
// controls.
struct ViewerTools {
  std::string fit = "contain";  // app/scene/view.hpp's fit_name
  bool free = false;            // zoomed or panned away from the fit
  double origin_x = 0.0, origin_y = 0.0, scale_x = 1.0,
         scale_y = 1.0;                           // image point = (frame - origin) / scale
  Extent image;                                   // the picture's size; empty: none
  std::optional<std::array<int, 2>> cursor;       // the image pixel under the page's cursor
  std::string readout;                            // the window panel's line for it
  std::optional<std::array<double, 2>> colorbar;  // a one-channel picture's range: low, high
  int index = 0, frames = 1;                      // the frame of a stack shown, of how many
  std::vector<ViewerControlState> controls;
};

// The caller's controls as the page is sent them. Inline, as colormap_hex: the loop makes them in builds
// without the desk's sources too.
inline std::vector<ViewerControlState> control_states(const caller::Registry& controls) {
  constexpr const char* kKinds[] = {"slider", "checkbox", "button", "choice"};
  std::vector<ViewerControlState> states;
  for (const caller::Control& control : controls.all())
    states.push_back({control.name, kKinds[static_cast<int>(control.kind)], control.low, control.high,
                      control.value, control.options});
  return states;
}

// What the app is showing, made by the frame loop after each frame it offers.
struct AppState {
  GraphicsApi api = GraphicsApi::Vulkan;
  std::string adapter;   // the graphics device's name
  int cuda_device = -1;  // -1: none
  // The CUDA devices the app may move to ("0: NVIDIA H200"), one per ordinal; empty without CUDA.
  std::vector<std::string> cuda_devices;
  std::string device_switch;                     // "" when request_device moves the app live, else why not
  std::optional<SceneId> scene = SceneId::Wave;  // nullopt while another source makes the frames
  std::string filter;                            // the postprocess scene's; "" in the other scenes
  FlagsState flags;
  std::string doctor;  // the doctor's report as --doctor prints it; "" where the app has none
  ModeId mode = cpu_mode();
  std::vector<ModeChoice> modes;
  Extent size;
  long long frame = 0;
  std::string notice;  // why the last switch did not happen; "" once a later command succeeded
  // Which notice `notice` is: the desk counts them (Desk::hand_over), and a viewer is sent a notice once,
  // in the first state message it gets after the count moved (state_json's `with_notice`); 0: none yet.
  unsigned long long notice_serial = 0;
  std::vector<PhaseLine> phases;
  std::vector<ModeComparison> compared;
  std::string untimed;  // why some phases are not timed ("" when all are)
  // What makes the frames: "app" (interop-lab's scenes), "published" (another process's frames, --attach:
  // source_name is the publication's name, source_status how it is doing: the publisher's frame index, the
  // frames skipped, a publisher gone), "array" (pictures a caller of the loop hands in, ArraySource:
  // source_status says which) or "viewer" (interop_lab.Viewer serving a Python caller's arrays: no scenes or
  // modes to switch), and the page's controls that apply to it, by name.
  std::string source = "app";
  std::string source_name;
  std::string source_status;
  // While the source is "published": the names published now, which {"source": NAME} may switch to.
  std::vector<std::string> publishers;
  std::vector<std::string> controls = app_controls();
  // The settings of the one control vocabulary (app/controls/controls.hpp) that the rest of the state does
  // not say already, each with why it does not apply now ("" where it does).
  ControlSettings settings;
  // A viewer's path from the caller's memory to GL ("interop", "staging", "cpu") and why not interop.
  std::string path;
  std::string path_reason;
  // The frame on one axis (app/timing/timeline.hpp); the desk adds its own lane (Desk::end_frame).
  FrameTimeline timeline;
  // A picture's tools on the page (a Python viewer's; the app's while it shows a picture); nullopt: none (a
  // scene).
  std::optional<ViewerTools> viewer;
};

// The desk's own numbers, added to each state message.
struct DeskStats {
  int viewers = 0;
  double fps_cap = 0.0;
  unsigned long long frames_encoded = 0;
  unsigned long long frames_dropped = 0;  // skipped for a slow viewer, over all viewers
  std::vector<PhaseLine> phases;          // read-back, encode, send
};

// One viewer's link (app/serve/link.hpp), in the state it is sent: "link": {quality, scale, kbit_s, fps,
// paced}.
struct LinkState {
  int quality = 0;          // of the JPEGs of changed stripes now
  int scale = 1;            // what their edges are divided by: 1, 2 or 4
  double kbit_per_s = 0;    // what the page acknowledged over the last second
  double frames_per_s = 0;  // frames the page drew (or had up to date) over the last second
  bool paced = false;       // whether the page acks: only then are these measured and the quality chosen
};

// The state message. "notice" is in it only `with_notice`: a notice is news once, not repeated in every
// state (the page keeps showing it until a message carries another, or "" when a later command succeeded).
// `link`: the viewer's, where there is one. "settings" is in it `with_settings`: when they changed since the
// last state the viewer got (the page keeps them).
std::string state_json(const AppState& app, const DeskStats& desk, bool with_notice = true,
                       const LinkState* link = nullptr, bool with_settings = true);

// GET /controls.json: the control table (app/controls/controls.hpp: each control's key, label, tooltip and
// why the page does not show it, "" where it does) and the settings' choices, which never change: the page
// labels its controls as the panel does, and a test holds the page to the table.
std::string control_table_json();

// A colormap of 256 RGBA8 colours as ControlSettings::colormap says it: "rrggbb" each, 1536 hex digits.
// Inline, as app_controls: the loop makes it in builds without the desk's sources too.
inline std::string colormap_hex(const uint8_t* rgba) {
  constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(256 * 6);
  for (size_t i = 0; i < 256; ++i)
    for (size_t c = 0; c < 3; ++c) {
      hex += kDigits[rgba[i * 4 + c] >> 4];
      hex += kDigits[rgba[i * 4 + c] & 15];
    }
  return hex;
}

// A viewer's message for its own connection (see the header comment): nullopt when `text` is none (then it
// is the app's commands, parse_commands).
struct ViewerMessage {
  enum class Kind { Ack, Refresh };
  Kind kind = Kind::Ack;
  unsigned int frame = 0;  // Ack's
};
std::optional<ViewerMessage> parse_viewer_message(const std::string& text);

// One JPEG strip of a frame: rows [y, y + rows) of the frame, downscaled by `scale`.
struct EncodedStrip {
  int y = 0;
  int rows = 0;
  std::vector<uint8_t> jpeg;
  int scale = 1;  // 1, 2 or 4: the JPEG is ceil(width / scale) x ceil(rows / scale)
};

// Whether a strip's scale is one the frame message carries.
constexpr bool valid_strip_scale(int scale) {
  return scale == 1 || scale == 2 || scale == 4;
}

// The binary frame message of the header comment.
std::vector<uint8_t> frame_message(unsigned long long index, int width, int height,
                                   const std::vector<EncodedStrip>& strips);

struct FrameMessage {
  unsigned int index = 0;
  int width = 0, height = 0;
  std::vector<EncodedStrip> strips;
  // Whether the strips cover every row (a whole frame), not just the ones that changed.
  bool whole() const;
};
// Reads a frame message back (tests, and any client); nullopt with `why` for a malformed one: a bad magic
// (another version's included), truncated, no strips, strips out of order, overlapping or past the frame's
// last row, a scale other than 1, 2 or 4.
std::optional<FrameMessage> parse_frame_message(const uint8_t* data, size_t size, std::string& why);

}  // namespace lab::serve
