// tests/gl/test_golden.cpp — the screenshot regression suite: every scene, rendered at its golden's size
// and frame in every mode this machine offers (CI: cpu on Mesa llvmpipe), against tests/golden/<scene>.png
// at the tolerance its <scene>.json records. Where CUDA modes run, each is also compared with the cpu
// frame of the same run. A failure leaves actual.png, heatmap.png and metrics.json in a folder it names.
// Only scripts/update-goldens.sh writes goldens; a missing one fails here and says so.
#include "tests/support/app_fixture.hpp"
#include "tests/support/scratch_dir.hpp"

#include "interop/error.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#ifndef INTEROP_LAB_GOLDEN_DIR
#error "the gl_tests target defines INTEROP_LAB_GOLDEN_DIR (the source tree's tests/golden)"
#endif

namespace fs = std::filesystem;

namespace {

using lab::ModeId;
using lab::SceneId;

// cpu first: the CUDA modes are compared with its frame too.
std::vector<ModeId> modes_cpu_first() {
  std::vector<ModeId> modes{ModeId::Cpu};
  for (const ModeId mode : lab::all_modes())
    if (mode != ModeId::Cpu) modes.push_back(mode);
  return modes;
}

class GoldenImage : public ::testing::TestWithParam<SceneId> {};

TEST_P(GoldenImage, EveryAvailableModeRendersTheGolden) {
  const SceneId scene = GetParam();
  std::string problem;
  const std::optional<labtest::Golden> golden =
      labtest::load_golden(labtest::golden_dir(INTEROP_LAB_GOLDEN_DIR), scene, problem);
  ASSERT_TRUE(golden) << problem;

  lab::Options options = labtest::app_options(scene, ModeId::Cpu, golden->width, golden->height);
  options.filter = golden->filter;
  lab::gl::App app(options);
  const std::string renderer = interop::current_gl_renderer();
  const labtest::Tolerance& tolerance = golden->tolerance_for(renderer);
  const std::string golden_label =
      "the golden " + golden->png_path + " (rendered by " + golden->renderer + "; this run by " +
      (renderer == golden->renderer ? std::string("the same")
                                    : renderer + ", so at the other-renderer tolerance") +
      ")";

  lab::Image cpu_frame;
  std::map<std::string, std::string> not_run;  // reason -> the modes it keeps from running
  for (const ModeId mode : modes_cpu_first()) {
    const std::string mode_name = lab::to_string(mode);
    SCOPED_TRACE(mode_name);
    const lab::ModeAvailability availability = app.request_mode(mode);
    if (!availability.available) {
      ASSERT_NE(mode, ModeId::Cpu) << "the cpu mode works everywhere";
      std::string& modes = not_run[availability.reason];
      modes += (modes.empty() ? "" : ", ") + mode_name;
      continue;
    }
    const lab::Image frame = labtest::render(app, golden->frame);
    ASSERT_EQ(app.mode_id(), mode) << "the mode fell back during the frame";
    const std::string name = std::string(lab::to_string(scene)) + "-" + mode_name;
    const std::string against_golden =
        labtest::check_against(frame, golden->image, tolerance, name, golden_label);
    EXPECT_TRUE(against_golden.empty()) << against_golden;
    if (mode == ModeId::Cpu) {
      cpu_frame = frame;
    } else {
      const std::string against_cpu = labtest::check_against(
          frame, cpu_frame, golden->same_renderer, name + "-vs-cpu", "the cpu frame of the same run");
      EXPECT_TRUE(against_cpu.empty()) << against_cpu;
    }
  }
  std::string not_compared;
  for (const auto& [reason, modes] : not_run) {
    std::printf("[   NOTE   ] %s: not compared in %s: %s\n", lab::to_string(scene), modes.c_str(),
                reason.c_str());
    not_compared += (not_compared.empty() ? "" : "; ") + modes + ": " + reason;
  }
  if (!not_compared.empty()) RecordProperty("not_compared", not_compared);
}

INSTANTIATE_TEST_SUITE_P(Scenes, GoldenImage,
                         ::testing::Values(SceneId::Wave, SceneId::Pattern, SceneId::Postprocess),
                         [](const ::testing::TestParamInfo<SceneId>& scene) {
                           return std::string(lab::to_string(scene.param));
                         });

class GoldenFiles : public ::testing::Test {
 protected:
  void TearDown() override { unsetenv("INTEROP_LAB_TEST_RESULTS"); }
  labtest::ScratchDir m_scratch{"golden"};
  const fs::path& m_dir = m_scratch.path();
};

TEST_F(GoldenFiles, AMissingGoldenFailsAndSaysHowToCreateIt) {
  std::string problem;
  EXPECT_FALSE(labtest::load_golden(m_dir.string(), SceneId::Pattern, problem));
  EXPECT_NE(problem.find((m_dir / "pattern.json").string()), std::string::npos) << problem;
  EXPECT_NE(problem.find("run scripts/update-goldens.sh to create it"), std::string::npos) << problem;

  std::ofstream(m_dir / "pattern.json") << "{}";  // the JSON alone is not a golden either
  EXPECT_FALSE(labtest::load_golden(m_dir.string(), SceneId::Pattern, problem));
  EXPECT_NE(problem.find((m_dir / "pattern.png").string()), std::string::npos) << problem;
}

TEST_F(GoldenFiles, AFailureLeavesActualHeatmapAndMetricsInTheFolderItNames) {
  ASSERT_EQ(setenv("INTEROP_LAB_TEST_RESULTS", m_dir.c_str(), 1), 0);
  const lab::Image expected = labtest::expected_pattern_frame(64, 32, 3);
  lab::Image actual = expected;
  for (int x = 0; x < 8; ++x) actual.rgba[static_cast<size_t>(x) * 4] ^= 0x80;  // 8 pixels of the top row

  EXPECT_EQ(labtest::check_against(actual, expected, {1, 8.0 / (64 * 32)}, "within", "the expected frame"),
            "");
  EXPECT_FALSE(fs::exists(m_dir / "within")) << "a pass writes nothing";

  const std::string message =
      labtest::check_against(actual, expected, {1, 0.0}, "pattern-cpu", "the expected frame");
  const fs::path folder = m_dir / "pattern-cpu";
  EXPECT_NE(message.find(folder.string()), std::string::npos) << message;
  EXPECT_NE(message.find("8 pixels"), std::string::npos) << message;
  EXPECT_EQ(lab::read_png((folder / "actual.png").string()).rgba, actual.rgba);
  const lab::Image heatmap = lab::read_png((folder / "heatmap.png").string());
  EXPECT_EQ(heatmap.pixel(0, 0)[0], 255) << "a difference of 128 is red";
  EXPECT_EQ(heatmap.pixel(8, 0)[0], 0) << "no difference is black";
  std::ifstream metrics_file(folder / "metrics.json");
  const nlohmann::json metrics = nlohmann::json::parse(metrics_file);
  EXPECT_EQ(metrics.at("pixels_over").get<int>(), 8);
  EXPECT_FALSE(metrics.at("passed").get<bool>());
  EXPECT_EQ(metrics.at("compared_with").get<std::string>(), "the expected frame");
}

}  // namespace
