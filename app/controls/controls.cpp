// app/controls/controls.cpp — the table of controls (app/controls/controls.hpp).
#include "app/controls/controls.hpp"

#include "app/core/tables.hpp"
#include "app/core/text.hpp"

#include <cmath>
#include <stdexcept>

namespace lab {

namespace {

using Kind = Command::Kind;

// A Choice's options: the names of one of app/core's name tables, in its order.
template <const auto& kTable>
std::vector<std::string> names() {
  std::vector<std::string> options;
  for (const auto& entry : kTable) options.emplace_back(entry.name);
  return options;
}

// Why the panel draws no widget for zoom, pan, 1:1, fit or the value under the cursor.
constexpr const char* kPictureTools =
    "the pointer's, not a widget's: over a picture's frame (a Python viewer's, or the app's while it shows a "
    "picture, --attach) the wheel zooms, a drag pans, 1 and F show it 1:1 and fit it, and the panel and the "
    "page read the value under the cursor";

// In Kind's order (all_controls checks it).
constexpr std::array<Control, kCommandKindCount> kControls = {{
    {Kind::Scene, "scene", "scene", "which of the app's scenes makes the frames (S)", nullptr, nullptr,
     Widget::Own, Group::None},
    {Kind::Source, "source", "publisher",
     "the frames another process publishes under this name, while the app shows published frames (--attach)",
     nullptr, nullptr, Widget::Own, Group::None},
    {Kind::Mode, "mode", "mode", "how the results reach the graphics API (M)", nullptr, nullptr, Widget::Own,
     Group::None},
    {Kind::MapFlags, "map_flags", "map flags", "the flags GL's registering modes map their resources with",
     nullptr, nullptr, Widget::Own, Group::None},
    {Kind::RegisterFlags, "register_flags", "register flags",
     "the flags GL's registering modes register their resources with", nullptr, nullptr, Widget::Own,
     Group::None},
    {Kind::Filter, "filter", "filter", "the postprocess scene's filter", nullptr, nullptr, Widget::Own,
     Group::None},
    {Kind::BlurRadius, "blur_radius", "radius", "the postprocess scene's blur radius, in pixels", nullptr,
     nullptr, Widget::Own, Group::None},
    {Kind::Size, "size", "size", "the frame's size in pixels (a window's framebuffer follows it)", nullptr,
     nullptr, Widget::Own, Group::None},
    {Kind::Fps, "fps", "fps cap", "frames per second at most; 0 for none", nullptr, nullptr, Widget::Number,
     Group::Rate, nullptr, "a frame-rate cap", 1.0, kMaxFpsCap, "none"},
    {Kind::Device, "device", "CUDA device", "the CUDA device the app computes on", nullptr, nullptr,
     Widget::Own, Group::None},
    {Kind::ComputeDevice, "compute_device", "compute device",
     "the split mode's compute device (its frames copied to the graphics device)", nullptr, nullptr,
     Widget::Own, Group::None},
    {Kind::SplitCopy, "split_copy", "copy", "how the split mode copies: peer to peer where it can, or host",
     nullptr, nullptr, Widget::Choice, Group::Split, names<kSplitCopies>, "a copy path"},
    {Kind::Semaphores, "semaphores", "semaphores", "how the external modes order CUDA and the graphics API",
     nullptr, nullptr, Widget::Choice, Group::Semaphores, names<kSemaphoreKinds>, "a semaphore kind"},
    {Kind::Graph, "graph", "CUDA graph", "launch each frame's CUDA work as one CUDA graph (--graph)", nullptr,
     nullptr, Widget::Switch, Group::Frame},
    {Kind::Timing, "timing", "time each phase",
     "CUDA events and the graphics API's timer queries in every frame; on an H200 with GL they add about "
     "0.33 ms "
     "a frame",
     nullptr, nullptr, Widget::Switch, Group::Frame},
    {Kind::Vsync, "vsync", "vsync", "wait for the display's refresh (V, --vsync on|off)", nullptr,
     "vsync paces the app's own window on its machine; the page shows frames as the desk sends them, "
     "paced by the fps cap",
     Widget::Switch, Group::None},
    {Kind::Pause, "pause", "paused", "stop the animation clock; the frames go on (Space)", nullptr, nullptr,
     Widget::Switch, Group::Clock},
    {Kind::Step, "step", "step", "the animation clock one frame on, paused after (period)", nullptr, nullptr,
     Widget::Action, Group::Clock},
    {Kind::Screenshot, "screenshot", "screenshot", "write the frame to a PNG on the app's machine (P)",
     nullptr,
     "the page saves the frame it shows in the browser with its own screenshot button; a PNG on the app's "
     "machine is the panel's (P)",
     Widget::Action, Group::None},
    {Kind::PictureFit, "picture_fit", "picture fit",
     "how a picture (--attach, an array) lies in the frame: contain (letterboxed), stretch, cover (cropped) "
     "or "
     "actual (1:1, centred); back to it from a zoom",
     nullptr, nullptr, Widget::Choice, Group::Frame, names<kPictureFits>, "a fit"},
    {Kind::Zoom, "zoom", "zoom", "zoom about the cursor (the wheel over the frame)", kPictureTools, nullptr,
     Widget::Own, Group::None},
    {Kind::Pan, "pan", "pan", "move the picture (drag the frame)", kPictureTools, nullptr, Widget::Own,
     Group::None},
    {Kind::ActualSize, "actual_size", "1:1", "one pixel of the picture to one pixel of the frame (1)",
     kPictureTools, nullptr, Widget::Own, Group::None},
    {Kind::Fit, "fit", "fit", "the picture fitted to the frame again (F)", kPictureTools, nullptr,
     Widget::Own, Group::None},
    {Kind::Hover, "hover", "value under the cursor", "the array's value at the pixel under the cursor",
     kPictureTools, nullptr, Widget::Own, Group::None},
    {Kind::Index, "index", "frame", "which frame of a stack (N, H, W[, C]) is shown", nullptr, nullptr,
     Widget::Own, Group::None},
    {Kind::Control, "control", "your controls",
     "the sliders, checkboxes, buttons and choices the caller of an array source (a Python viewer) added",
     nullptr, nullptr, Widget::Own, Group::None},
}};

constexpr bool in_kind_order() {
  for (size_t i = 0; i < kControls.size(); ++i)
    if (static_cast<size_t>(kControls[i].kind) != i) return false;
  return true;
}
static_assert(in_kind_order(), "kControls lists every Command::Kind once, in Kind's order");

// A Number names its range, and a Choice or a Number what a refusal calls the value; the others neither.
// (That a Choice, and only a Choice, names its options is ServeProtocolTest's to check: GCC with the
// sanitizers does not take a function pointer's comparison with null as a constant.)
constexpr bool rows_complete() {
  for (const Control& control : kControls) {
    const bool choice = control.widget == Widget::Choice, number = control.widget == Widget::Number;
    if (number != (control.high > control.low)) return false;
    if ((choice || number) != (control.noun[0] != '\0')) return false;
  }
  return true;
}
static_assert(rows_complete(), "a Number row names its range, a Choice or a Number row its noun");

}  // namespace

const char* to_string(Widget widget) {
  switch (widget) {
    case Widget::Own:
      return "own";
    case Widget::Switch:
      return "switch";
    case Widget::Action:
      return "action";
    case Widget::Choice:
      return "choice";
    case Widget::Number:
      return "number";
  }
  return "own";
}

const char* to_string(Group group) {
  switch (group) {
    case Group::None:
      return "";
    case Group::Frame:
      return "frame";
    case Group::Clock:
      return "clock";
    case Group::Rate:
      return "rate";
    case Group::Split:
      return "split";
    case Group::Semaphores:
      return "semaphores";
  }
  return "";
}

const std::array<Control, kCommandKindCount>& all_controls() {
  return kControls;
}

const Control& control_of(Command::Kind kind) {
  const size_t index = static_cast<size_t>(kind);
  if (index >= kControls.size()) throw std::out_of_range("no control of this kind");
  return kControls[index];
}

std::optional<Command::Kind> control_named(const std::string& key) {
  for (const Control& control : kControls)
    if (key == control.key) return control.kind;
  return std::nullopt;
}

std::string control_keys() {
  std::string keys;
  for (const Control& control : kControls) keys += std::string(keys.empty() ? "" : ", ") + control.key;
  return keys;
}

bool takes_option(const Control& control, const std::string& text) {
  if (control.options == nullptr) return false;
  for (const std::string& option : control.options())
    if (option == text) return true;
  return false;
}

bool takes_number(const Control& control, double number) {
  if (!std::isfinite(number)) return false;
  return (number >= control.low && number <= control.high) || (control.zero != nullptr && number == 0.0);
}

std::string refusal_of(const Control& control, const std::string& sent) {
  std::string refusal = std::string(control.key) + ": " + sent + " is not " + control.noun;
  if (control.widget == Widget::Choice) {
    refusal += "; choose ";
    std::string options;
    for (const std::string& option : control.options()) options += (options.empty() ? "" : ", ") + option;
    return refusal + options;
  }
  refusal += " from " + number_text(control.low) + " to " + number_text(control.high);
  if (control.zero != nullptr) refusal += std::string(", or 0 for ") + control.zero;
  return refusal;
}

}  // namespace lab
