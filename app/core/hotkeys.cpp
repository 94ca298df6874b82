// app/core/hotkeys.cpp — the key table, what the keys pick next, numbered screenshots and the vsync-bound
// test.
#include "app/core/hotkeys.hpp"

// GLFW's key codes only: GLFW_INCLUDE_NONE keeps its header from including a GL header, so this file
// needs no GL and no GLFW library (labcore: app/CMakeLists.txt).
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <system_error>

namespace lab {

const std::vector<HotkeyInfo>& hotkey_list() {
  static const std::vector<HotkeyInfo> list = {
      {Hotkey::TogglePanel, "F1 or Tab", "hide / show the panel"},
      {Hotkey::Screenshot, "F12 or P", "screenshot: interop-lab-0001.png, -0002.png, ... (--screenshot-dir)"},
      {Hotkey::Fullscreen, "F11", "fullscreen on the window's monitor / back"},
      {Hotkey::NextScene, "S or F2", "next scene"},
      {Hotkey::NextMode, "M or F3", "next mode that works here"},
      {Hotkey::ToggleVsync, "V", "vsync on / off"},
      {Hotkey::Pause, "Space", "pause / resume the animation clock (the frames go on)"},
      {Hotkey::Step, "period", "the animation clock one frame on, paused after"},
      {Hotkey::ActualSize, "1",
       "a picture (--attach) 1:1 at the pointer; the wheel zooms it, a drag pans it"},
      {Hotkey::Fit, "F", "the picture fitted to the frame again"},
      {Hotkey::PreviousFrame, "Left", "a stack's frame before (a Python viewer's stack of pictures)"},
      {Hotkey::NextFrame, "Right", "a stack's frame after"},
      {Hotkey::Quit, "Esc or Q", "quit"},
  };
  return list;
}

std::optional<Hotkey> hotkey_for(int glfw_key, int glfw_mods) {
  if ((glfw_mods & (GLFW_MOD_CONTROL | GLFW_MOD_ALT | GLFW_MOD_SUPER)) != 0) return std::nullopt;
  switch (glfw_key) {
    case GLFW_KEY_F1:
    case GLFW_KEY_TAB:
      return Hotkey::TogglePanel;
    case GLFW_KEY_F12:
    case GLFW_KEY_P:
      return Hotkey::Screenshot;
    case GLFW_KEY_F11:
      return Hotkey::Fullscreen;
    case GLFW_KEY_S:
    case GLFW_KEY_F2:
      return Hotkey::NextScene;
    case GLFW_KEY_M:
    case GLFW_KEY_F3:
      return Hotkey::NextMode;
    case GLFW_KEY_V:
      return Hotkey::ToggleVsync;
    case GLFW_KEY_SPACE:
      return Hotkey::Pause;
    case GLFW_KEY_PERIOD:
      return Hotkey::Step;
    case GLFW_KEY_1:
      return Hotkey::ActualSize;
    case GLFW_KEY_F:
      return Hotkey::Fit;
    case GLFW_KEY_LEFT:
      return Hotkey::PreviousFrame;
    case GLFW_KEY_RIGHT:
      return Hotkey::NextFrame;
    case GLFW_KEY_ESCAPE:
    case GLFW_KEY_Q:
      return Hotkey::Quit;
    default:
      return std::nullopt;
  }
}

int vsync_multiple(double frame_ms, double refresh_hz) {
  if (refresh_hz <= 0.0 || frame_ms <= 0.0) return 0;
  const double interval_ms = 1000.0 / refresh_hz;
  const double intervals = frame_ms / interval_ms;
  const long nearest = std::lround(intervals);
  if (nearest < 1) return 0;
  return std::fabs(intervals - static_cast<double>(nearest)) <= 0.06 * static_cast<double>(nearest)
             ? static_cast<int>(nearest)
             : 0;
}

SceneId scene_after(SceneId scene) {
  const std::vector<SceneId>& scenes = all_scenes();
  const auto at = std::find(scenes.begin(), scenes.end(), scene);
  return at == scenes.end() || at + 1 == scenes.end() ? scenes.front() : *(at + 1);
}

std::optional<ModeId> mode_after(ModeId mode, const std::vector<ModeId>& modes,
                                 const std::function<bool(ModeId)>& runs) {
  const size_t count = modes.size();
  const size_t at = static_cast<size_t>(std::find(modes.begin(), modes.end(), mode) - modes.begin());
  for (size_t step = 1; step < count; ++step)
    if (const ModeId next = modes[(at + step) % count]; runs(next)) return next;
  return std::nullopt;
}

}  // namespace lab
