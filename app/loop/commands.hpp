// app/loop/commands.hpp — one command's path: every Command (app/controls/controls.hpp) the panel returns,
// the desk's page sends or Python asks for reaches the frame loop through apply_command, which calls the
// loop's own verbs (request_scene, request_mode, resize, set_fps_cap, request_map_access /
// request_register_access, request_device, request_compute_device, request_split_copy, request_semaphores,
// request_graph, set_timing, set_vsync, set_paused, step, request_screenshot, request_source, move_view,
// hover, the scene's set_filter and set_blur_radius). A template over the loop, so that the unit tests drive
// it with stand-in loops.
#pragma once

#include "app/controls/controls.hpp"
#include "app/core/tables.hpp"
#include "app/serve/desk.hpp"

#include <algorithm>
#include <optional>
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

}  // namespace detail

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
      loop.request_scene(command.scene);
      return "";
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
      if constexpr (detail::HasPictureTools<Loop>::value) return loop.move_view(command);
      [[fallthrough]];
    case Command::Kind::Hover:
      if constexpr (detail::HasPictureTools<Loop>::value) return loop.hover(command);
      [[fallthrough]];
    case Command::Kind::Index:
    case Command::Kind::Control:
      return std::string(control_of(command.kind).key) + " refused: it is " +
             control_of(command.kind).not_on_panel;
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
