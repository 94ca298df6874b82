// tests/window/test_window.cpp — the app in a real GLFW window with its panel (Xvfb in CI): the scene
// region matches the kernel's frame pixel for pixel, the panel region was drawn over it, and the
// window resizes.
#include "tests/support/app_fixture.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace {

class WindowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::getenv("DISPLAY") == nullptr) GTEST_SKIP() << "needs an X display: run under xvfb-run";
  }

  static lab::Options window_options(int width, int height) {
    lab::Options options = labtest::app_options(lab::SceneId::Pattern, lab::ModeId::Cpu, width, height);
    options.headless = false;
    options.no_ui = false;
    return options;
  }
};

TEST_F(WindowTest, ShowsTheSceneWithThePanelOverIt) {
  lab::App app(window_options(1280, 800));
  ASSERT_TRUE(app.platform().is_window());
  // ImGui sizes an auto-fitting window on its first frames and shows it from the next.
  for (long long warm_up : {10, 11}) {
    labtest::render(app, warm_up);
    app.present();
  }
  const lab::Image frame = labtest::render(app, 12);
  ASSERT_EQ(frame.width, 1280);
  const lab::Image expected = labtest::expected_pattern_frame(1280, 800, 12);
  // The panel sits at the top left (10, 10) and grows with its tables, to about 560 px wide with every
  // mode timed; from x = 700 on, the window shows the scene alone.
  int scene_mismatches = 0, panel_changes = 0, panel_pixels = 0;
  for (int y = 0; y < 800; ++y) {
    for (int x = 0; x < 1280; ++x) {
      const bool differs = std::memcmp(frame.pixel(x, y), expected.pixel(x, y), 4) != 0;
      if (x >= 700) scene_mismatches += differs;
      if (x >= 20 && x < 360 && y >= 20 && y < 120) {
        ++panel_pixels;
        panel_changes += differs;
      }
    }
  }
  EXPECT_EQ(scene_mismatches, 0);
  EXPECT_GT(panel_changes, panel_pixels * 9 / 10) << "the panel covers its corner";
  app.present();
}

TEST_F(WindowTest, ResizesAndReRegistersItsTexture) {
  lab::App app(window_options(640, 480));
  labtest::render(app, 1);
  app.present();
  app.resize({1100, 700});
  for (int i = 0; i < 200 && app.platform().framebuffer_extent() != lab::Extent{1100, 700}; ++i)
    app.platform().poll_events();
  ASSERT_EQ(app.platform().framebuffer_extent(), (lab::Extent{1100, 700}))
      << "the X server did not resize the window";
  const lab::Image frame = labtest::render(app, 2);
  EXPECT_EQ(app.scene().resources().at(0).width, 1100);
  const lab::Image expected = labtest::expected_pattern_frame(1100, 700, 2);
  int mismatches = 0;  // right of the panel (see above)
  for (int y = 0; y < 700; ++y)
    for (int x = 700; x < 1100; ++x)
      mismatches += std::memcmp(frame.pixel(x, y), expected.pixel(x, y), 4) != 0;
  EXPECT_EQ(mismatches, 0);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The desk: keys through GLFW's key callback (the panel's backend chained in front of the app's), the
// numbered screenshots, the layout file, vsync.

#include <GLFW/glfw3.h>

#include "app/gl/ui.hpp"
#include "tests/support/scratch_dir.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace {

// Presses `key` as the window system would: through the key callback GLFW holds for the window.
void press(lab::App& app, int key) {
  GLFWwindow* window = app.platform().glfw_window();
  const GLFWkeyfun callback = glfwSetKeyCallback(window, nullptr);
  glfwSetKeyCallback(window, callback);
  ASSERT_NE(callback, nullptr) << "no key callback on the window";
  callback(window, key, glfwGetKeyScancode(key), GLFW_PRESS, 0);
  callback(window, key, glfwGetKeyScancode(key), GLFW_RELEASE, 0);
  app.process_input();
}

class DeskWindowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::getenv("DISPLAY") == nullptr) GTEST_SKIP() << "needs an X display: run under xvfb-run";
  }
  lab::Options options() const {
    lab::Options options = labtest::app_options(lab::SceneId::Pattern, lab::ModeId::Cpu, 640, 480);
    options.headless = false;
    options.no_ui = false;
    options.screenshot_dir = m_dir.path().string();
    options.layout_file = (m_dir.path() / "config" / "imgui.ini").string();
    return options;
  }
  labtest::ScratchDir m_dir{"desk"};
};

TEST_F(DeskWindowTest, TheScreenshotKeyWritesNumberedFilesOfTheScene) {
  lab::App app(options());
  labtest::render(app, 1);
  app.present();
  press(app, GLFW_KEY_F12);
  labtest::render(app, 2);
  app.present();
  const std::filesystem::path first = m_dir.path() / "interop-lab-0001.png";
  ASSERT_TRUE(std::filesystem::exists(first)) << "no screenshot after F12";
  EXPECT_EQ(app.last_screenshot(), first.string());
  // The scene alone, without the panel drawn over it.
  const lab::Image shot = lab::read_png(first.string());
  const lab::Image expected = labtest::expected_pattern_frame(640, 480, 2);
  ASSERT_EQ(shot.width, 640);
  int mismatches = 0;
  for (int y = 0; y < 480; ++y)
    for (int x = 0; x < 640; ++x) mismatches += std::memcmp(shot.pixel(x, y), expected.pixel(x, y), 4) != 0;
  EXPECT_EQ(mismatches, 0);

  press(app, GLFW_KEY_P);
  labtest::render(app, 3);
  app.present();
  EXPECT_TRUE(std::filesystem::exists(m_dir.path() / "interop-lab-0002.png"));
  EXPECT_EQ(app.last_screenshot(), (m_dir.path() / "interop-lab-0002.png").string());
}

TEST_F(DeskWindowTest, KeysHideThePanelCycleTheSceneAndQuit) {
  lab::App app(options());
  labtest::render(app, 1);
  EXPECT_TRUE(app.panel_visible());
  press(app, GLFW_KEY_F1);
  EXPECT_FALSE(app.panel_visible());
  // Hidden, the whole window is the scene.
  const lab::Image frame = labtest::render(app, 2);
  const lab::Image expected = labtest::expected_pattern_frame(640, 480, 2);
  int mismatches = 0;
  for (int y = 0; y < 480; ++y)
    for (int x = 0; x < 640; ++x) mismatches += std::memcmp(frame.pixel(x, y), expected.pixel(x, y), 4) != 0;
  EXPECT_EQ(mismatches, 0);
  press(app, GLFW_KEY_TAB);
  EXPECT_TRUE(app.panel_visible());

  press(app, GLFW_KEY_S);
  labtest::render(app, 3);
  EXPECT_EQ(app.scene_id(), lab::SceneId::Postprocess);  // pattern -> postprocess
  // From cpu the key goes to the next of --list's modes that works here, wrapping around: external on a
  // GPU whose GL imports Vulkan memory, else interop where CUDA drives GL, cpu itself on a machine without.
  const std::vector<lab::ModeId>& modes = lab::all_modes();
  const size_t cpu =
      static_cast<size_t>(std::find(modes.begin(), modes.end(), lab::ModeId::Cpu) - modes.begin());
  lab::ModeId next = lab::ModeId::Cpu;
  for (size_t step = 1; step <= modes.size(); ++step) {
    const lab::ModeId mode = modes[(cpu + step) % modes.size()];
    if (app.availability(mode).available) {
      next = mode;
      break;
    }
  }
  press(app, GLFW_KEY_M);
  labtest::render(app, 4);
  EXPECT_EQ(app.mode_id(), next) << "the next mode that works here after cpu, wrapping around";

  EXPECT_TRUE(app.platform().vsync() == false) << "--frames runs with vsync off";
  press(app, GLFW_KEY_V);
  EXPECT_TRUE(app.platform().vsync());

  EXPECT_TRUE(app.platform().keep_running());
  press(app, GLFW_KEY_ESCAPE);
  EXPECT_FALSE(app.platform().keep_running());
}

TEST_F(DeskWindowTest, TheLayoutIsWrittenOnExitAndReadOnStart) {
  const std::filesystem::path layout = m_dir.path() / "config" / "imgui.ini";
  {
    lab::App app(options());
    for (long long i = 0; i < 3; ++i) {
      labtest::render(app, i);
      app.present();
    }
    ASSERT_NE(app.panel(), nullptr);
    EXPECT_FLOAT_EQ(app.panel()->x(), 10.0f);  // the first run: where the code puts it
  }
  ASSERT_TRUE(std::filesystem::exists(layout)) << "no layout written on exit";
  std::stringstream text;
  text << std::ifstream(layout).rdbuf();
  ASSERT_NE(text.str().find("[Window][interop-lab]"), std::string::npos) << text.str();

  // As if the user had dragged the panel: the next start reads where it was.
  std::string moved = text.str();
  const size_t at = moved.find("Pos=", moved.find("[Window][interop-lab]"));
  ASSERT_NE(at, std::string::npos);
  moved.replace(at, moved.find('\n', at) - at, "Pos=200,150");
  std::ofstream(layout) << moved;
  lab::App app(options());
  for (long long i = 0; i < 2; ++i) {
    labtest::render(app, i);
    app.present();
  }
  EXPECT_FLOAT_EQ(app.panel()->x(), 200.0f);
  EXPECT_FLOAT_EQ(app.panel()->y(), 150.0f);
}

TEST_F(DeskWindowTest, VsyncOptionWins) {
  lab::Options with_vsync = options();
  with_vsync.vsync = true;
  lab::App app(with_vsync);
  EXPECT_TRUE(app.platform().vsync()) << "--vsync on with --frames";
}

}  // namespace
