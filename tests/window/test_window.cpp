// tests/window/test_window.cpp — the app in a real GLFW window with its panel (Xvfb in CI): the scene
// region matches the kernel's frame pixel for pixel, the panel region was drawn over it, and the
// window resizes.
#include "tests/support/app_fixture.hpp"

#include "app/scene/array_source.hpp"

#include <GLFW/glfw3.h>

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
  lab::gl::App app(window_options(1280, 800));
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
  lab::gl::App app(window_options(640, 480));
  labtest::render(app, 1);
  app.present();
  app.resize({1100, 700});
  for (int i = 0; i < 200 && app.platform().framebuffer_extent() != lab::Extent{1100, 700}; ++i)
    app.platform().poll_events();
  ASSERT_EQ(app.platform().framebuffer_extent(), (lab::Extent{1100, 700}))
      << "the X server did not resize the window";
  const lab::Image frame = labtest::render(app, 2);
  EXPECT_EQ(app.renderer().resources().at(0).desc.width, 1100);
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

#include "app/glfw/panel_layout.hpp"
#include "app/panel/panel.hpp"
#include "tests/support/layout_file.hpp"
#include "tests/support/scratch_dir.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace {

// Presses `key` as the window system would: through the key callback GLFW holds for the window.
void press(lab::gl::App& app, int key) {
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
  lab::gl::App app(options());
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
  lab::gl::App app(options());
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

// M where no other mode runs here (a machine without CUDA): the mode stays, and the panel's notice line
// says why, each other mode with its reason, rather than nothing happening.
TEST_F(DeskWindowTest, TheModeKeyWithNoOtherModeSaysWhyInThePanel) {
  lab::gl::App app(options());
  labtest::render(app, 1);
  app.present();
  for (const lab::ModeId mode : lab::modes_of(lab::GraphicsApi::Gl))
    if (mode != lab::ModeId::Cpu && app.availability(mode).available)
      GTEST_SKIP() << to_string(mode)
                   << " runs here: M switches to it (KeysHideThePanelCycleTheSceneAndQuit)";
  press(app, GLFW_KEY_M);
  labtest::render(app, 2);
  app.present();
  EXPECT_EQ(app.mode_id(), lab::ModeId::Cpu);
  EXPECT_NE(app.notice().find("M: no other mode runs here; cpu stays."), std::string::npos) << app.notice();
  EXPECT_NE(app.notice().find(app.availability(lab::ModeId::Interop).reason), std::string::npos)
      << app.notice();
}

TEST_F(DeskWindowTest, TheLayoutIsWrittenOnExitAndReadOnStart) {
  const std::filesystem::path layout = m_dir.path() / "config" / "imgui.ini";
  lab::Options large = options();  // room to move the panel in: its size depends on the machine's rows
  large.width = 1280;
  large.height = 800;
  {
    lab::gl::App app(large);
    for (long long i = 0; i < 3; ++i) {
      labtest::render(app, i);
      app.present();
    }
    ASSERT_NE(app.panel(), nullptr);
    EXPECT_FLOAT_EQ(app.panel()->x, 10.0f);  // the first run: where the code puts it
  }
  ASSERT_TRUE(std::filesystem::exists(layout)) << "no layout written on exit";
  const std::optional<lab::PanelRect> saved = labtest::read_layout(layout.string());
  ASSERT_TRUE(saved.has_value()) << "no panel in the layout written on exit";

  // As if the user had dragged the panel: the next start reads where it was (a place where the whole panel
  // stays inside the window; ASavedLayoutNeverHidesThePanel has the others).
  const lab::PanelRect moved{std::min(200.0f, 1280.0f - saved->width),
                             std::min(150.0f, 800.0f - saved->height), saved->width, saved->height};
  ASSERT_GT(moved.x, 10.0f) << "the panel (" << saved->width << " wide) leaves no room to move it";
  ASSERT_GT(moved.y, 10.0f) << "the panel (" << saved->height << " tall) leaves no room to move it";
  labtest::write_layout(layout.string(), moved);
  lab::gl::App app(large);
  for (long long i = 0; i < 2; ++i) {
    labtest::render(app, i);
    app.present();
  }
  EXPECT_FLOAT_EQ(app.panel()->x, moved.x);
  EXPECT_FLOAT_EQ(app.panel()->y, moved.y);
}

// A layout that an earlier run saved with the panel outside the window (what a window resized very small
// left in imgui.ini) must not hide the panel: it is inside the window from the first frame drawn, it stays
// inside through 200 resizes down to 1x1, and what the app saves is inside the last window.
TEST_F(DeskWindowTest, ASavedLayoutNeverHidesThePanel) {
  const std::filesystem::path layout = m_dir.path() / "config" / "imgui.ini";
  std::filesystem::create_directories(layout.parent_path());
  labtest::write_layout(layout.string(), {-18.0f, -13.0f, 300.0f, 200.0f});
  const lab::Extent last{1200, 900};  // larger than the panel, which grows to about 560 x 600
  {
    lab::gl::App app(options());
    labtest::render(app, 0);
    app.present();
    const std::optional<lab::PanelRect> start = lab::glfw::window_rect("interop-lab");
    ASSERT_TRUE(start.has_value());
    EXPECT_EQ(start->x, 0.0f) << "the saved Pos=-18,-13 came back cut off";
    EXPECT_EQ(start->y, 0.0f);
    const std::vector<lab::Extent> sizes = labtest::resize_sequence(200, last);
    for (int i = 0; i < static_cast<int>(sizes.size()); ++i) {
      app.resize(sizes[static_cast<size_t>(i)]);
      labtest::render(app, i + 1);
      app.present();
      const std::optional<lab::PanelRect> now = lab::glfw::window_rect("interop-lab");
      ASSERT_TRUE(now.has_value());
      EXPECT_GE(now->x, 0.0f) << "after resize " << i;
      EXPECT_GE(now->y, 0.0f) << "after resize " << i;
    }
    for (long long i = 201; i < 204; ++i) {  // the X server's pace: the last size reaches the framebuffer
      labtest::render(app, i);
      app.present();
    }
    ASSERT_EQ(app.platform().framebuffer_extent(), last);
    const std::optional<lab::PanelRect> end = lab::glfw::window_rect("interop-lab");
    ASSERT_TRUE(end.has_value());
    EXPECT_TRUE(labtest::inside(*end, last.width, last.height))
        << end->x << "," << end->y << " " << end->width << "x" << end->height;
  }
  const std::optional<lab::PanelRect> saved = labtest::read_layout(layout.string());
  ASSERT_TRUE(saved.has_value()) << "no panel in the layout written on exit";
  EXPECT_TRUE(labtest::inside(*saved, last.width, last.height))
      << "saved Pos=" << saved->x << "," << saved->y << " Size=" << saved->width << "," << saved->height;
}

// A caller's pictures in a window (the Python viewer's): input handed in as GLFW would hand it (a test's, a
// script's) takes the window's way: the wheel zooms the picture at the pointer, the panel reads the value
// under it, the arrow keys pick a stack's frame. Two loops in one process each keep their own panel.
TEST_F(DeskWindowTest, InjectedInputZoomsReadsAndPicksTheStacksFrameAndTwoLoopsKeepTheirOwnPanels) {
  lab::Options viewer = options();
  viewer.layout_file = "";
  lab::gl::App app(viewer);
  auto made = std::make_unique<lab::ArraySource>();
  lab::ArraySource& source = *made;
  app.pin_source(std::move(made));
  std::vector<float> values(64 * 48);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 64) / 64.0f;
  source.show(
      lab::PictureDesc::packed(values.data(), false, 64, 48, 1, kernels::ElementType::F32, 4, 64 * 4));
  source.stack()->frames = 3;
  long long index = 0;
  ASSERT_TRUE(app.render_frame(index++));
  // The picture fills the 640x480 frame (stretch): 10 window pixels a picture pixel. Point at (605, 245),
  // picture pixel (60, 24), clear of the panel on the left.
  app.inject_pointer(605.0f, 245.0f);
  ASSERT_TRUE(app.render_frame(index++));
  std::optional<lab::serve::ViewerTools> tools = app.window_tools();
  ASSERT_TRUE(tools) << "the pointer is over the picture";
  ASSERT_TRUE(tools->cursor);
  EXPECT_EQ(*tools->cursor, (std::array<int, 2>{60, 24}));
  EXPECT_EQ(tools->readout, "x 60  y 24  0.9375");
  app.inject_wheel(1.0f);
  ASSERT_TRUE(app.render_frame(index++));
  tools = app.window_tools();
  ASSERT_TRUE(tools);
  EXPECT_TRUE(tools->free) << "the wheel zoomed";
  EXPECT_GT(tools->scale_x, 10.0);
  EXPECT_EQ(*tools->cursor, (std::array<int, 2>{60, 24})) << "about the pointer";
  app.inject_key(GLFW_KEY_RIGHT);
  app.inject_key(GLFW_KEY_RIGHT);
  app.inject_key(GLFW_KEY_RIGHT);
  ASSERT_TRUE(app.render_frame(index++));
  EXPECT_EQ(source.stack()->index, 2) << "Right twice moved on, the third stopped at the last frame";
  app.inject_key(GLFW_KEY_LEFT);
  app.inject_key(GLFW_KEY_PERIOD);
  ASSERT_TRUE(app.render_frame(index++));
  EXPECT_EQ(source.stack()->index, 1);
  EXPECT_TRUE(app.paused());
  EXPECT_EQ(app.steps(), 1);

  // A second loop with its panel: each draws its own, and the first still takes its input. Each loop draws
  // on its window's GL context, which its caller makes current (the Python viewer does at every call).
  const auto on = [](lab::gl::App& loop) { glfwMakeContextCurrent(loop.platform().glfw_window()); };
  lab::gl::App other(viewer);
  ASSERT_TRUE(other.render_frame(0));
  on(app);
  app.inject_key(GLFW_KEY_F);
  ASSERT_TRUE(app.render_frame(index++));
  ASSERT_TRUE(app.window_tools());
  EXPECT_FALSE(app.window_tools()->free) << "F fitted the picture again";
  on(other);
  ASSERT_TRUE(other.render_frame(1));
  on(app);
  app.inject_wheel(-1.0f);
  ASSERT_TRUE(app.render_frame(index++));
  ASSERT_TRUE(app.window_tools()) << "the pointer still read in the first loop's panel";
  EXPECT_LT(app.window_tools()->scale_x, 10.0) << "the wheel zoomed out";

  // The panel hidden (F1): the pointer still moves the picture.
  app.inject_key(GLFW_KEY_F1);
  app.inject_key(GLFW_KEY_F);
  ASSERT_TRUE(app.render_frame(index++));
  EXPECT_FALSE(app.panel_visible());
  app.inject_wheel(1.0f);
  ASSERT_TRUE(app.render_frame(index++));
  ASSERT_TRUE(app.window_tools());
  EXPECT_TRUE(app.window_tools()->free) << "the wheel zoomed with the panel hidden";
}

TEST_F(DeskWindowTest, VsyncOptionWins) {
  lab::Options with_vsync = options();
  with_vsync.vsync = true;
  lab::gl::App app(with_vsync);
  EXPECT_TRUE(app.platform().vsync()) << "--vsync on with --frames";
}

}  // namespace
