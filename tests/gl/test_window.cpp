// tests/gl/test_window.cpp — the app in a real GLFW window with its panel (Xvfb in CI): the scene
// region matches the kernel's frame pixel for pixel, the panel region was drawn over it, and the
// window resizes.
#include "tests/support/app_fixture.hpp"

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
  ASSERT_EQ(app.platform().framebuffer_extent(), (lab::Extent{1100, 700})) << "the X server did not resize the window";
  const lab::Image frame = labtest::render(app, 2);
  EXPECT_EQ(app.scene().resources().at(0).width, 1100);
  const lab::Image expected = labtest::expected_pattern_frame(1100, 700, 2);
  int mismatches = 0;  // right of the panel (see above)
  for (int y = 0; y < 700; ++y)
    for (int x = 700; x < 1100; ++x) mismatches += std::memcmp(frame.pixel(x, y), expected.pixel(x, y), 4) != 0;
  EXPECT_EQ(mismatches, 0);
}

}  // namespace
