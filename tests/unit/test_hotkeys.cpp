// tests/unit/test_hotkeys.cpp — the window's keys, screenshot numbering and the vsync-bound test.
// No window, no GL.
#include "app/core/hotkeys.hpp"
#include "app/image/screenshots.hpp"
#include "tests/support/scratch_dir.hpp"

#define GLFW_INCLUDE_NONE  // the key codes, no GL header
#include <GLFW/glfw3.h>
#include <gtest/gtest.h>

#include <fstream>

namespace {

TEST(HotkeysTest, EachListedHotkeyHasItsKeys) {
  EXPECT_EQ(lab::hotkey_for(GLFW_KEY_F1, 0), lab::Hotkey::TogglePanel);
  EXPECT_EQ(lab::hotkey_for(GLFW_KEY_TAB, 0), lab::Hotkey::TogglePanel);
  EXPECT_EQ(lab::hotkey_for(GLFW_KEY_F12, 0), lab::Hotkey::Screenshot);
  EXPECT_EQ(lab::hotkey_for(GLFW_KEY_F11, 0), lab::Hotkey::Fullscreen);
  EXPECT_EQ(lab::hotkey_for(GLFW_KEY_S, 0), lab::Hotkey::NextScene);
  EXPECT_EQ(lab::hotkey_for(GLFW_KEY_M, GLFW_MOD_SHIFT), lab::Hotkey::NextMode);
  EXPECT_EQ(lab::hotkey_for(GLFW_KEY_ESCAPE, 0), lab::Hotkey::Quit);
  EXPECT_EQ(lab::hotkey_for(GLFW_KEY_Q, 0), lab::Hotkey::Quit);
  EXPECT_FALSE(lab::hotkey_for(GLFW_KEY_Q, GLFW_MOD_CONTROL).has_value());
  EXPECT_FALSE(lab::hotkey_for(GLFW_KEY_A, 0).has_value());
  EXPECT_EQ(lab::hotkey_for(GLFW_KEY_SPACE, 0), lab::Hotkey::Pause);
  EXPECT_EQ(lab::hotkey_for(GLFW_KEY_PERIOD, 0), lab::Hotkey::Step);
  EXPECT_EQ(lab::hotkey_for(GLFW_KEY_1, 0), lab::Hotkey::ActualSize);
  EXPECT_EQ(lab::hotkey_for(GLFW_KEY_F, 0), lab::Hotkey::Fit);
  EXPECT_EQ(lab::hotkey_list().size(), 13u);
}

TEST(HotkeysTest, ScreenshotsAreNumberedPastTheHighestAndNeverOverwrite) {
  labtest::ScratchDir dir("shots");
  const std::string folder = dir.path().string();
  EXPECT_EQ(lab::next_screenshot_path(folder), folder + "/interop-lab-0001.png");
  std::ofstream(folder + "/interop-lab-0001.png") << "x";
  EXPECT_EQ(lab::next_screenshot_path(folder), folder + "/interop-lab-0002.png");
  std::ofstream(folder + "/interop-lab-0007.png") << "x";
  std::ofstream(folder + "/interop-lab-0009.png.tmp") << "x";  // not a screenshot
  std::ofstream(folder + "/other-0042.png") << "x";
  EXPECT_EQ(lab::next_screenshot_path(folder), folder + "/interop-lab-0008.png");
  std::ofstream(folder + "/interop-lab-9999.png") << "x";
  EXPECT_EQ(lab::next_screenshot_path(folder), folder + "/interop-lab-10000.png");
}

TEST(HotkeysTest, VsyncBoundIsAFrameTimeOnAMultipleOfTheRefreshInterval) {
  EXPECT_EQ(lab::vsync_multiple(16.67, 60.0), 1);
  EXPECT_EQ(lab::vsync_multiple(33.2, 60.0), 2);
  EXPECT_EQ(lab::vsync_multiple(6.94, 144.0), 1);
  EXPECT_EQ(lab::vsync_multiple(12.0, 60.0), 0);  // between intervals: not waiting for vsync
  EXPECT_EQ(lab::vsync_multiple(3.0, 60.0), 0);   // faster than the display: vsync is off in effect
  EXPECT_EQ(lab::vsync_multiple(16.67, 0.0), 0);  // refresh rate unknown
}

}  // namespace

namespace {

TEST(HotkeyPicks, NextSceneWrapsAroundEveryScene) {
  const std::vector<lab::SceneId>& scenes = lab::all_scenes();
  for (size_t i = 0; i < scenes.size(); ++i)
    EXPECT_EQ(lab::scene_after(scenes[i]), scenes[(i + 1) % scenes.size()]);
}

TEST(HotkeyPicks, NextModeIsTheFirstThatRunsAfterTheCurrentOneWrapping) {
  using lab::ModeId;
  const std::vector<ModeId> modes = {ModeId::External, ModeId::Staging, ModeId::Cpu};
  const auto runs_but_staging = [](ModeId mode) { return mode != ModeId::Staging; };
  EXPECT_EQ(lab::mode_after(ModeId::External, modes, runs_but_staging), ModeId::Cpu);
  EXPECT_EQ(lab::mode_after(ModeId::Cpu, modes, runs_but_staging), ModeId::External);
  EXPECT_EQ(lab::mode_after(ModeId::Cpu, modes, [](ModeId) { return false; }), std::nullopt)
      << "with no other mode running, the running one stays";
  std::vector<ModeId> asked;
  lab::mode_after(ModeId::Staging, modes, [&](ModeId mode) {
    asked.push_back(mode);
    return false;
  });
  EXPECT_EQ(asked, (std::vector<ModeId>{ModeId::Cpu, ModeId::External})) << "each other mode once, in order";
}

TEST(HotkeyPicks, ANumberedScreenshotThatCannotBeWrittenSaysWhyAndDoesNotThrow) {
  lab::Image image;
  image.width = 2;
  image.height = 1;
  image.rgba.assign(8, 255);
  const std::string shown = lab::take_numbered_screenshot("/nonexistent-interop-lab-folder/deeper", image);
  EXPECT_EQ(shown.rfind("not written: ", 0), 0u) << shown;
}

}  // namespace
