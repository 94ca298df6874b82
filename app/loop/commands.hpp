// app/loop/commands.hpp — one command's path: every Command (app/controls/controls.hpp) the panel returns,
// the desk's page sends or Python asks for reaches the frame loop through apply_command, which calls the
// loop's own verbs (request_scene, request_mode, resize, set_fps_cap, request_map_access /
// request_register_access, request_device, request_compute_device, request_split_copy, request_semaphores,
// request_graph, set_timing, set_vsync, set_paused, step, request_screenshot, request_source, move_view,
// hover, caller_command, the scene's set_filter and set_blur_radius). A template over the loop, so that the
// unit tests drive it with stand-in loops.
#pragma once

#include "app/controls/controls.hpp"
#include "app/core/tables.hpp"
#include "app/scene/caller_controls.hpp"
#include "app/serve/desk.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace lab::loop {

namespace detail {

// Whether a loop has GL's live flags and device switches (request_map_access, request_register_access,
// request_device); the others answer those commands with why not.
template <class Loop, class = void>
struct HasAccessSwitches : std::false_type {};
template <class Loop>
struct HasAccessSwitches<Loop,
                         std::void_t<decltype(std::declval<Loop&>().request_map_access(std::nullopt)),
                                     decltype(std::declval<Loop&>().request_register_access(std::nullopt))>>
    : std::true_type {};
template <class Loop, class = void>
struct HasDeviceSwitch : std::false_type {};
template <class Loop>
struct HasDeviceSwitch<Loop, std::void_t<decltype(std::declval<Loop&>().request_device(0))>>
    : std::true_type {};
// Whether a loop switches between publishers live (request_source: app/loop/app.hpp's).
template <class Loop, class = void>
struct HasSourceSwitch : std::false_type {};
template <class Loop>
struct HasSourceSwitch<Loop, std::void_t<decltype(std::declval<Loop&>().request_source(std::string()))>>
    : std::true_type {};
// Whether a loop has a picture source's tools: its view's moves and the page's cursor (move_view, hover:
// app/loop/app.hpp's).
template <class Loop, class = void>
struct HasPictureTools : std::false_type {};
template <class Loop>
struct HasPictureTools<Loop,
                       std::void_t<decltype(std::declval<Loop&>().move_view(std::declval<const Command&>())),
                                   decltype(std::declval<Loop&>().hover(std::declval<const Command&>()))>>
    : std::true_type {};

// Whether a loop takes the caller's tools of its source: a stack's frame and the caller's controls
// (caller_command: app/loop/app.hpp's).
template <class Loop, class = void>
struct HasCallerTools : std::false_type {};
template <class Loop>
struct HasCallerTools<
    Loop, std::void_t<decltype(std::declval<Loop&>().caller_command(std::declval<const Command&>()))>>
    : std::true_type {};

}  // namespace detail

// The caller's control `command.name` set to the command's value, typed as the control's kind asks (a
// slider's number within its range, a checkbox's true or false, a button's true, a choice's option), taken
// as the user's change (the caller sees it counted). Returns "" or why it was refused; `owner` says whose
// controls they are in that reason ("the viewer").
inline std::string apply_caller_control(caller::Registry& controls, const Command& command,
                                        const std::string& owner) {
  const int id = controls.find_named(command.name);
  if (id < 0) {
    std::string names;
    for (const caller::Control& control : controls.all()) names += (names.empty() ? "" : ", ") + control.name;
    return "control '" + command.name + "': no such control; " +
           (names.empty() ? owner + " has none" : owner + " has " + names);
  }
  const caller::Control& control = controls.at(id);
  using Value = Command::Value;
  double value = 0.0;
  switch (control.kind) {
    case caller::Kind::Slider:
      if (command.value != Value::Number)
        return "slider '" + control.name + "': pass a number from its range, not true, false or text";
      value = command.number;
      break;
    case caller::Kind::Checkbox:
      if (command.value != Value::Boolean) return "checkbox '" + control.name + "': pass true or false";
      value = command.on ? 1.0 : 0.0;
      break;
    case caller::Kind::Button:
      if (command.value != Value::Boolean || !command.on)
        return "button '" + control.name + "': pass true (a press)";
      controls.change(id, 1.0);
      return "";
    case caller::Kind::Choice: {
      const auto& options = control.options;
      const auto found = std::find(options.begin(), options.end(), command.text);
      if (command.value != Value::Text || found == options.end()) {
        std::string names;
        for (const std::string& option : options) names += (names.empty() ? "" : ", ") + option;
        return "choice '" + control.name + "': pass one of its options: " + names;
      }
      value = static_cast<double>(found - options.begin());
      break;
    }
  }
  try {
    controls.check(id, value);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  controls.change(id, value);
  return "";
}

// The stack's frame `command.index` asked for (the caller shows it when it next reads stack.index). Returns
// "" or why not: an index past the stack's last frame.
inline std::string pick_stack_frame(caller::Stack& stack, const Command& command) {
  if (command.index < 0 || command.index >= stack.frames)
    return "index " + std::to_string(command.index) + ": the array shown has " +
           std::to_string(stack.frames) + (stack.frames == 1 ? " frame" : " frames") +
           ": pass one from 0 to " + std::to_string(stack.frames - 1);
  stack.index = command.index;
  return "";
}

// Applies `command` through the loop's own calls. Returns "" or why it was refused, for the loop's notice: a
// mode that cannot run here, flags that do not suit the scene, a device that is not there, a filter or a
// radius outside the postprocess scene, a name nothing publishes, vsync without a window, and a switch the
// loop does not have.
template <class Loop>
std::string apply_command(Loop& loop, const Command& command) {
  using serve::kBestAccess;
  using serve::kNoDeviceSwitch;
  using serve::kNoFlags;
  switch (command.kind) {
    case Command::Kind::Scene:
      return loop.request_scene(command.scene);
    case Command::Kind::Mode:
      if (const ModeAvailability runs = loop.request_mode(command.mode); !runs.available)
        return std::string("mode ") + to_string(command.mode) + " is unavailable: " + runs.reason;
      return "";
    case Command::Kind::Size:
      loop.resize(command.size);
      return "";
    case Command::Kind::Fps:
      loop.set_fps_cap(command.number);
      return "";
    case Command::Kind::MapFlags:
    case Command::Kind::RegisterFlags: {
      const bool map = command.kind == Command::Kind::MapFlags;
      const char* what = map ? "map flags " : "register flags ";
      const std::string named = command.access ? interop::to_string(*command.access) : kBestAccess;
      if constexpr (detail::HasAccessSwitches<Loop>::value) {
        const std::string refusal =
            map ? loop.request_map_access(command.access) : loop.request_register_access(command.access);
        if (!refusal.empty()) return what + named + " refused: " + refusal;
        return "";
      } else {
        return what + named + " refused: " + kNoFlags;
      }
    }
    case Command::Kind::Device:
      if constexpr (detail::HasDeviceSwitch<Loop>::value) {
        return loop.request_device(command.device);
      } else {
        return "CUDA device " + std::to_string(command.device) + " refused: " + kNoDeviceSwitch;
      }
    case Command::Kind::ComputeDevice:
      return loop.request_compute_device(command.device);
    case Command::Kind::SplitCopy:
      if (const auto copy = value_named(kSplitCopies, command.text)) {
        loop.request_split_copy(*copy);
        return "";
      }
      break;
    case Command::Kind::Semaphores:
      if (const auto kind = value_named(kSemaphoreKinds, command.text)) {
        loop.request_semaphores(*kind);
        return "";
      }
      break;
    case Command::Kind::Graph:
      loop.request_graph(command.on);
      return "";
    case Command::Kind::Timing:
      loop.set_timing(command.on);
      return "";
    case Command::Kind::Vsync:
      return loop.set_vsync(command.on);
    case Command::Kind::Pause:
      loop.set_paused(command.on);
      return "";
    case Command::Kind::Step:
      loop.step();
      return "";
    case Command::Kind::Screenshot:
      loop.request_screenshot();
      return "";
    case Command::Kind::Filter:
      if (!loop.scene().set_filter(command.filter))
        return std::string("filter ") + kernels::to_string(command.filter) + " refused: the " +
               loop.scene().name() + (loop.scene().scene() ? " scene" : " source") +
               " has no filter; the postprocess scene has";
      return "";
    case Command::Kind::BlurRadius:
      if (!loop.scene().set_blur_radius(command.blur_radius))
        return "blur_radius " + std::to_string(command.blur_radius) + " refused: the " + loop.scene().name() +
               (loop.scene().scene() ? " scene" : " source") + " has no blur; the postprocess scene has";
      return "";
    case Command::Kind::Source:
      if constexpr (detail::HasSourceSwitch<Loop>::value) {
        return loop.request_source(command.source);
      } else {
        return "source " + command.source + " refused: this app shows no published frames";
      }
    case Command::Kind::PictureFit:
      if (const auto fit = value_named(kPictureFits, command.text)) {
        if constexpr (detail::HasPictureTools<Loop>::value) return loop.set_picture_fit(*fit);
        return "picture_fit refused: this app shows no picture";
      }
      break;
    case Command::Kind::Zoom:
    case Command::Kind::Pan:
    case Command::Kind::ActualSize:
    case Command::Kind::Fit:
    case Command::Kind::Hover:
      if constexpr (detail::HasPictureTools<Loop>::value)
        return command.kind == Command::Kind::Hover ? loop.hover(command) : loop.move_view(command);
      return std::string(control_of(command.kind).key) + " refused: it is " +
             control_of(command.kind).not_on_panel;
    case Command::Kind::Index:
    case Command::Kind::Control:
      if constexpr (detail::HasCallerTools<Loop>::value) return loop.caller_command(command);
      return std::string(control_of(command.kind).key) + " refused: this app's source has no " +
             (command.kind == Command::Kind::Index ? "stack" : "caller's controls");
  }
  // A Choice whose option is none of the table's (the page's are checked before they get here).
  return refusal_of(control_of(command.kind), "\"" + command.text + "\"");
}

// Applies `commands` in order (the page's of one frame, the panel's of one draw). Returns why the last
// refused one was refused ("" when none was).
template <class Loop>
std::string apply_commands(Loop& loop, const std::vector<Command>& commands) {
  std::string refused;
  for (const Command& command : commands)
    if (std::string refusal = apply_command(loop, command); !refusal.empty()) refused = std::move(refusal);
  return refused;
}

// apply_commands for the commands of Desk::begin_frame: applies them and tells the desk how they went. Hovers
// alone, taken, leave the notice: the cursor moves on while the page shows why a command was refused.
template <class Loop>
std::string apply_commands(Loop& loop, const serve::FrameCommands& taken) {
  std::string refused = apply_commands(loop, taken.commands);
  const bool only_hovers =
      std::all_of(taken.commands.begin(), taken.commands.end(),
                  [](const Command& command) { return command.kind == Command::Kind::Hover; });
  if (taken.desk && !taken.commands.empty() && (!refused.empty() || !only_hovers))
    taken.desk->commands_applied(refused);
  return refused;
}

}  // namespace lab::loop
