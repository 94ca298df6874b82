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
  lab::App app(window_options(800, 600));
  ASSERT_TRUE(app.platform().is_window());
  // ImGui sizes an auto-fitting window on its first frames and shows it from the next.
  for (long long warm_up : {10, 11}) {
    labtest::render(app, warm_up);
    app.present();
  }
  const lab::Image frame = labtest::render(app, 12);
  ASSERT_EQ(frame.width, 800);
  const lab::Image expected = labtest::expected_pattern_frame(800, 600, 12);
  // The panel sits at the top left (10, 10) and is 360 px wide; the right half is pure scene.
  int scene_mismatches = 0, panel_changes = 0, panel_pixels = 0;
  for (int y = 0; y < 600; ++y) {
    for (int x = 0; x < 800; ++x) {
      const bool differs = std::memcmp(frame.pixel(x, y), expected.pixel(x, y), 4) != 0;
      if (x >= 400) scene_mismatches += differs;
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
  app.resize({500, 300});
  for (int i = 0; i < 200 && app.platform().framebuffer_extent() != lab::Extent{500, 300}; ++i)
    app.platform().poll_events();
  ASSERT_EQ(app.platform().framebuffer_extent(), (lab::Extent{500, 300})) << "the X server did not resize the window";
  const lab::Image frame = labtest::render(app, 2);
  EXPECT_EQ(app.scene().resources().at(0).width, 500);
  const lab::Image expected = labtest::expected_pattern_frame(500, 300, 2);
  int mismatches = 0;
  for (int y = 0; y < 300; ++y)
    for (int x = 400; x < 500; ++x) mismatches += std::memcmp(frame.pixel(x, y), expected.pixel(x, y), 4) != 0;
  EXPECT_EQ(mismatches, 0);
}

}  // namespace
