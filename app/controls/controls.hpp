// app/controls/controls.hpp — the one control vocabulary: every setting a user can change while interop-lab
// runs, as one Command type, and the table of controls that says what each is called, where it shows and
// why it does not show somewhere. The window's panel (app/panel) returns Commands, the desk's page sends them
// as JSON (app/serve/protocol.hpp parses them by this table's keys), and the frame loop applies both the same
// way (app/loop/commands.hpp). A new control is a Kind here, a row of kControls, its line in the loop's
// apply_command and its state in the loop's control_states(); a Switch, an Action, a Choice or a Number with
// a Group is then drawn by the panel and the page from the table alone. A control of its own widget (a
// scene's radio row, the size, a device list) is drawn by each UI by hand.
#pragma once

#include "app/core/names.hpp"
#include "app/core/vocabulary.hpp"
#include "interop/access.hpp"
#include "interop/external.hpp"
#include "kernels/postprocess.hpp"

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lab {

// How the external modes order their frames, by name (--semaphores, the panel's radio, the page's select).
inline constexpr NamedValue<interop::SemaphoreKind> kSemaphoreKinds[] = {
    {interop::SemaphoreKind::Timeline, "timeline", "one timeline semaphore, one value per step"},
    {interop::SemaphoreKind::Binary, "binary", "two binary semaphores, one per direction"},
};

// One change a user asked for, applied by the frame loop at the start of its next frame.
struct Command {
  enum class Kind {
    Scene,          // which of the app's scenes makes the frames
    Source,         // another process's published frames, by name
    Mode,           // how results cross to the graphics API
    MapFlags,       // GL's map flags (access; unset: each resource's best)
    RegisterFlags,  // GL's register flags (access)
    Filter,         // the postprocess scene's filter
    BlurRadius,     // its blur's radius (blur_radius)
    Size,           // the frame's size (size)
    Fps,            // a frame-rate cap (fps; 0: none)
    Device,         // the CUDA device (device)
    ComputeDevice,  // the split mode's compute device (device)
    SplitCopy,      // how the split mode copies (split_copy)
    Semaphores,     // the external modes' semaphores (semaphores)
    Graph,          // the frame's CUDA work as one CUDA graph (on)
    Timing,         // per-phase timing (on)
    Vsync,          // wait for the display's refresh (on)
    Pause,          // the animation clock stopped (on)
    Step,           // the animation clock one frame on, paused after
    Screenshot,     // the frame written to a PNG
    PictureFit,     // how a picture lies in the frame (text: contain, stretch, cover, actual)
    // A picture's tools (a Python viewer's, the app's picture sources), in the frame's pixels (x right, y
    // down from the top row):
    Zoom,        // zoom by `factor` about point (x, y), as the wheel does
    Pan,         // move the picture by (x, y) pixels, as a drag does
    ActualSize,  // one image pixel per frame pixel at (x, y) (the 1 key)
    Fit,         // back to the fit (the F key)
    Hover,       // the cursor at (x, y) (on), or off the frame: the readout reads the pixel there
    Index,       // the frame of a stack shown (index)
    Control,     // the caller's control `name` set to `value`
  };
  Kind kind = Kind::Scene;
  SceneId scene = SceneId::Wave;
  std::string source;
  ModeId mode = cpu_mode();
  std::optional<interop::Access> access;  // MapFlags, RegisterFlags
  kernels::Filter filter = kernels::Filter::Sobel;
  Extent size;
  int device = 0;  // Device, ComputeDevice: a CUDA device's ordinal
  int blur_radius = 0;
  bool on = false;          // a Switch (Graph, Timing, Vsync, Pause); Hover: on the frame
  double x = 0.0, y = 0.0;  // Zoom, ActualSize, Hover: a point of the frame; Pan: the offset
  double factor = 1.0;      // Zoom
  int index = 0;            // Index
  std::string name;         // Control: the control's name
  // Control: the value as the page typed it: a number (a slider's), true or false (a checkbox's; a button's
  // press is true) or text (a choice's option).
  enum class Value { Number, Boolean, Text };
  Value value = Value::Number;
  double number = 0.0;  // a Number (Fps), or Control's number
  std::string text;     // a Choice's option (SplitCopy, Semaphores: one of the row's options()), or Control's
};
constexpr size_t kCommandKindCount = 27;

// Whether `kind` is a picture's tool (Zoom to Control): a Python viewer's desk takes them all; the app's loop
// takes the view's moves and the cursor where it shows a picture (App::move_view, App::hover), and a stack's
// frame and the caller's controls where its source has them (App::caller_command).
constexpr bool viewer_command(Command::Kind kind) {
  return kind >= Command::Kind::Zoom && kind <= Command::Kind::Control;
}

// What a control's widget is: on or off (its Command's `on`), a press, one of the row's options (its
// Command's `text`), a number in the row's range (its Command's `number`), or its own (a scene's radio row,
// the size, a device list: drawn by each UI by hand).
enum class Widget { Own, Switch, Action, Choice, Number };
// Where the panel and the page draw a control of the table from the table alone, in the table's order; None:
// each UI places it by hand, beside what it belongs to (vsync by the window's rate, the screenshot by its
// last file).
enum class Group { None, Frame, Clock, Rate, Split, Semaphores };
const char* to_string(Widget widget);  // "own", "switch", "action", "choice", "number"
const char* to_string(Group group);    // "", "frame", "clock", "rate", "split", "semaphores"

// A control of the table: its Kind, the page's JSON key (and Python's name), the label the panel and the
// page show, and, where one of them does not show it, why not; its widget, and where it is drawn. A Choice
// names its options and what one is; a Number its range and what 0 means where 0 is taken outside it.
struct Control {
  Command::Kind kind;
  const char* key;
  const char* label;
  const char* what;          // one line: the tooltip
  const char* not_on_panel;  // nullptr: the panel shows it
  const char* not_on_page;   // nullptr: the page shows it
  Widget widget;
  Group group;
  // A Choice's options by name, in the order the UIs show them; nullptr for the other widgets.
  std::vector<std::string> (*options)() = nullptr;
  // A Choice's option, or a Number, as a refusal names what was asked for: "a copy path", "a frame-rate cap".
  const char* noun = "";
  // A Number's range; `zero`: what 0 means where 0 is taken below `low` ("none"), nullptr where it is not.
  double low = 0.0, high = 0.0;
  const char* zero = nullptr;
  // Whether the panel's slider moves a Number in whole steps (the page and Python may send any number the
  // row takes).
  bool whole = true;
};

// A control's state as the frame loop says it: a Switch's on or off, a Choice's option, a Number's value,
// and why it does not apply now ("" where it does: the UIs grey it and show why as its tooltip). Indexed by
// Command::Kind; the other kinds' stay unset.
struct ControlState {
  bool on = false;
  std::string why_not;
  std::string choice;
  double number = 0.0;
  bool operator==(const ControlState& other) const {
    return on == other.on && why_not == other.why_not && choice == other.choice && number == other.number;
  }
};
using ControlStates = std::array<ControlState, kCommandKindCount>;
// A Switch's, a Choice's and a Number's state.
inline ControlState switch_state(bool on, std::string why_not = "") {
  ControlState state;
  state.on = on;
  state.why_not = std::move(why_not);
  return state;
}
inline ControlState choice_state(std::string choice, std::string why_not = "") {
  ControlState state;
  state.choice = std::move(choice);
  state.why_not = std::move(why_not);
  return state;
}
inline ControlState number_state(double number, std::string why_not = "") {
  ControlState state;
  state.number = number;
  state.why_not = std::move(why_not);
  return state;
}

// Every control, in Kind's order.
const std::array<Control, kCommandKindCount>& all_controls();
const Control& control_of(Command::Kind kind);
// The control whose key is `key`, for the page's and Python's commands.
std::optional<Command::Kind> control_named(const std::string& key);
// "scene, source, mode, ..." : the keys, for a message that names what may be sent.
std::string control_keys();
// Whether `text` is one of a Choice's options, and whether `number` is what a Number takes (within its range,
// or 0 where the row names what 0 means).
bool takes_option(const Control& control, const std::string& text);
bool takes_number(const Control& control, double number);
// Why the page's or Python's value for a Choice or a Number is refused ("split_copy: \"x\" is not a copy
// path; choose peer, host"), with the value as the page sent it.
std::string refusal_of(const Control& control, const std::string& sent);

// The highest frame-rate cap a user may ask for.
constexpr double kMaxFpsCap = 240.0;

}  // namespace lab
