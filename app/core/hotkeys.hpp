// app/core/hotkeys.hpp — the window's keys (one table, which the panel and the README list), and the
// vsync-bound test the panel shows (the screenshot key's numbered files: app/image/screenshots.hpp). Pure
// functions: no window, no GL; the unit tests drive them.
#pragma once

#include "app/core/vocabulary.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace lab {

enum class Hotkey {
  TogglePanel,
  Screenshot,
  Fullscreen,
  NextScene,
  NextMode,
  ToggleVsync,
  Pause,
  Step,
  ActualSize,
  Fit,
  PreviousFrame,
  NextFrame,
  Quit
};

struct HotkeyInfo {
  Hotkey hotkey;
  const char* keys;  // "F1 or Tab"
  const char* what;  // "hide / show the panel"
};

// Every hotkey, in the order the panel lists them.
const std::vector<HotkeyInfo>& hotkey_list();
// The hotkey a GLFW key press (GLFW_KEY_*) means, if any. Modifier combinations are left to others.
std::optional<Hotkey> hotkey_for(int glfw_key, int glfw_mods);

// NextScene: the scene after `scene` in all_scenes(), wrapping.
SceneId scene_after(SceneId scene);
// NextMode: the first mode after `mode` in `modes` (wrapping) for which `runs` is true; none when no
// other does (the running mode stays).
std::optional<ModeId> mode_after(ModeId mode, const std::vector<ModeId>& modes,
                                 const std::function<bool(ModeId)>& runs);
// How many refresh intervals a frame time spans when it sits on a multiple of the display's interval
// (within 6 %), i.e. the frame waited for vsync; 0 when it does not, or when `refresh_hz` is unknown.
int vsync_multiple(double frame_ms, double refresh_hz);

}  // namespace lab
