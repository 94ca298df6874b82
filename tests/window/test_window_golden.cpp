// tests/window/test_window_golden.cpp — the pattern golden through the real path a user sees: a GLFW window
// (Xvfb in CI) with the panel drawn over the scene. Right of the panel the window must show the golden
// within its tolerance; where the panel is, it must not.
#include "tests/support/app_fixture.hpp"

#include "interop/error.hpp"

#include <cstdlib>

#ifndef INTEROP_LAB_GOLDEN_DIR
#error "the window_tests target defines INTEROP_LAB_GOLDEN_DIR (the source tree's tests/golden)"
#endif

namespace {

// The panel sits at the top left (10, 10) and grows to about 560 px wide with every mode timed; from
// x = 700 on, the window shows the scene alone.
constexpr int kSceneFromX = 700;

lab::Image crop(const lab::Image& image, int x0, int y0, int x1, int y1) {
  lab::Image part;
  part.width = x1 - x0;
  part.height = y1 - y0;
  for (int y = y0; y < y1; ++y)
    part.rgba.insert(part.rgba.end(), image.pixel(x0, y), image.pixel(x1 - 1, y) + 4);
  return part;
}

TEST(WindowGolden, PatternRightOfThePanelIsTheGolden) {
  if (std::getenv("DISPLAY") == nullptr) GTEST_SKIP() << "needs an X display: run under xvfb-run";
  std::string problem;
  const std::optional<labtest::Golden> golden =
      labtest::load_golden(labtest::golden_dir(INTEROP_LAB_GOLDEN_DIR), lab::SceneId::Pattern, problem);
  ASSERT_TRUE(golden) << problem;
  ASSERT_GT(golden->width, kSceneFromX + 100) << "the pattern golden must be wider than the panel's region";

  lab::Options options =
      labtest::app_options(lab::SceneId::Pattern, lab::ModeId::Cpu, golden->width, golden->height);
  options.headless = false;
  options.no_ui = false;
  lab::gl::App app(options);
  ASSERT_TRUE(app.platform().is_window());
  // ImGui sizes an auto-fitting window on its first frames and shows it from the next.
  for (const long long warm_up : {golden->frame - 2, golden->frame - 1}) {
    labtest::render(app, warm_up);
    app.present();
  }
  const lab::Image frame = labtest::render(app, golden->frame);
  ASSERT_EQ(frame.width, golden->width);
  ASSERT_EQ(frame.height, golden->height);
  const labtest::Tolerance& tolerance = golden->tolerance_for(interop::current_gl_renderer());

  const int w = golden->width, h = golden->height;
  const std::string scene_region = labtest::check_against(
      crop(frame, kSceneFromX, 0, w, h), crop(golden->image, kSceneFromX, 0, w, h), tolerance,
      "pattern-window", "the golden " + golden->png_path + " right of x = " + std::to_string(kSceneFromX));
  EXPECT_TRUE(scene_region.empty()) << scene_region;

  // Not vacuous: the panel is there, and the frame read back is the window's, panel included.
  const lab::ImageDifference panel = lab::compare_images(
      crop(frame, 20, 20, 200, 100), crop(golden->image, 20, 20, 200, 100), tolerance.max_diff);
  EXPECT_GT(panel.fraction_over, 0.9)
      << "the panel covers its corner of the golden: " << lab::to_string(panel, tolerance.max_diff);
  app.present();
}

}  // namespace
