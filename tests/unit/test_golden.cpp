// tests/unit/test_golden.cpp — the goldens' JSON: the committed ones parse and stay within the caps, every
// bad or too loose value is refused naming the key, the value and the cap, and the caps are tight enough
// that an all-black frame fails against every golden. Needs no GPU and no GL.
#include "app/image/golden.hpp"

#include "app/image/image_compare.hpp"
#include "app/image/image_io.hpp"
#include "tests/support/image_fixture.hpp"
#include "tests/support/scratch_dir.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

namespace {

const char* const kScenes[] = {"pattern", "postprocess", "wave"};

// The goldens by the GL tests' rule ($INTEROP_LAB_GOLDEN_DIR, else the source tree's), so a copy of the
// test binary run on another machine reads the goldens sent along with it.
std::string golden_path(const std::string& scene, const char* extension) {
  return labtest::golden_dir(INTEROP_LAB_GOLDEN_DIR) + "/" + scene + extension;
}

// A valid golden JSON with `tolerance` (the text of that object) in place of the usual one.
std::string golden_text(const std::string& tolerance = R"({ "max_diff": 1, "max_fraction": 0 })",
                        const std::string& width = "64") {
  return R"({ "scene": "pattern", "image": "pattern.png", "width": )" + width +
         R"(, "height": 48, "frame": 42, "mode": "cpu", "renderer": "llvmpipe", "tolerance": )" + tolerance +
         R"(, "other_renderer_tolerance": { "max_diff": 12, "max_fraction": 0.001 },
            "interop_lab_version": "0.1.0" })";
}

// The GoldenError message parse_golden_json gives for `text`, "" when it parses.
std::string refusal(const std::string& text) {
  try {
    lab::parse_golden_json(text);
  } catch (const lab::GoldenError& error) {
    return error.what();
  }
  return "";
}

TEST(GoldenJson, EveryCommittedGoldenParsesWithinTheCaps) {
  for (const std::string scene : kScenes) {
    SCOPED_TRACE(scene);
    const lab::GoldenRecord record = lab::read_golden_json(golden_path(scene, ".json"));
    EXPECT_EQ(record.scene, scene);
    EXPECT_EQ(record.image, scene + ".png");
    for (const lab::GoldenTolerance& tolerance : {record.same_renderer, record.other_renderer}) {
      EXPECT_LE(tolerance.max_diff, lab::kGoldenMaxDiffCap);
      EXPECT_LE(tolerance.max_fraction, lab::kGoldenMaxFractionCap);
    }
  }
}

TEST(GoldenJson, AValidGoldenReadsEveryField) {
  const lab::GoldenRecord record = lab::parse_golden_json(golden_text());
  EXPECT_EQ(record.width, 64);
  EXPECT_EQ(record.height, 48);
  EXPECT_EQ(record.frame, 42);
  EXPECT_EQ(record.renderer, "llvmpipe");
  EXPECT_EQ(record.filter, "");
  EXPECT_EQ(record.same_renderer.max_diff, 1);
  EXPECT_EQ(record.other_renderer.max_diff, 12);
  EXPECT_DOUBLE_EQ(record.other_renderer.max_fraction, 0.001);
  const lab::GoldenRecord at_caps =
      lab::parse_golden_json(golden_text(R"({ "max_diff": 16, "max_fraction": 0.01 })"));
  EXPECT_EQ(at_caps.same_renderer.max_diff, lab::kGoldenMaxDiffCap);
}

struct BadGolden {
  const char* name;
  std::string text;
  std::vector<std::string> message_parts;
};

void PrintTo(const BadGolden& input, std::ostream* out) {
  *out << input.name;
}

class GoldenJsonRefusal : public testing::TestWithParam<BadGolden> {};

TEST_P(GoldenJsonRefusal, NamesTheKeyTheValueAndWhatIsAccepted) {
  const std::string message = refusal(GetParam().text);
  ASSERT_NE(message, "") << "accepted";
  for (const std::string& part : GetParam().message_parts)
    EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' missing from: " << message;
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(
    Golden, GoldenJsonRefusal,
    testing::Values(
        BadGolden{"MaxDiffNegative", golden_text(R"({ "max_diff": -7, "max_fraction": 0 })"),
                  {"tolerance.max_diff: is -7; must be from 0 to 16"}},
        BadGolden{"MaxDiffOverTheCap", golden_text(R"({ "max_diff": 40, "max_fraction": 0 })"),
                  {"tolerance.max_diff: is 40; the cap is 16"}},
        BadGolden{"MaxDiffHuge", golden_text(R"({ "max_diff": 18446744073709551615, "max_fraction": 0 })"),
                  {"tolerance.max_diff: is 18446744073709551615; the cap is 16"}},
        BadGolden{"MaxDiffFraction", golden_text(R"({ "max_diff": 1.5, "max_fraction": 0 })"),
                  {"tolerance.max_diff: must be a whole number, not 1.5"}},
        BadGolden{"MaxFractionOverOne", golden_text(R"({ "max_diff": 1, "max_fraction": 9 })"),
                  {"tolerance.max_fraction: is 9; the cap is 0.01"}},
        BadGolden{"MaxFractionOverTheCap", golden_text(R"({ "max_diff": 1, "max_fraction": 0.02 })"),
                  {"tolerance.max_fraction: is 0.02; the cap is 0.01"}},
        BadGolden{"MaxFractionNegative", golden_text(R"({ "max_diff": 1, "max_fraction": -0.5 })"),
                  {"tolerance.max_fraction: is -0.5; must be from 0 to 0.01"}},
        BadGolden{"MaxFractionText", golden_text(R"({ "max_diff": 1, "max_fraction": "none" })"),
                  {"tolerance.max_fraction: must be a number"}},
        BadGolden{"ToleranceMissingKey", golden_text(R"({ "max_diff": 1 })"), {"tolerance.max_fraction: missing"}},
        BadGolden{"ToleranceNotAnObject", golden_text("[1, 0]"), {"tolerance: must be an object"}},
        BadGolden{"WidthZero", golden_text(R"({ "max_diff": 1, "max_fraction": 0 })", "0"),
                  {"width: is 0; must be from 1 to 16384"}},
        BadGolden{"WidthHugeFloat", golden_text(R"({ "max_diff": 1, "max_fraction": 0 })", "1e300"),
                  {"width: must be a whole number"}},
        BadGolden{"WidthText", golden_text(R"({ "max_diff": 1, "max_fraction": 0 })", "\"64\""),
                  {"width: must be a whole number, not \"64\""}},
        BadGolden{"MissingRenderer", R"({ "scene": "pattern", "image": "p.png", "width": 1, "height": 1, "frame": 0 })",
                  {"renderer: missing"}},
        BadGolden{"NotJson", "{ \"scene\": ", {"not valid JSON"}},
        BadGolden{"NotAnObject", "[1, 2, 3]", {"must be a JSON object, not array"}},
        BadGolden{"Empty", "", {"not valid JSON"}}),
    [](const testing::TestParamInfo<BadGolden>& param_info) { return std::string(param_info.param.name); });
// clang-format on

// What the caps are for: a frame that is all black (a mode that draws nothing) must fail against every
// golden even at the loosest tolerance a golden may state.
TEST(GoldenJson, AnAllBlackFrameFailsAgainstEveryGoldenAtTheCaps) {
  for (const std::string scene : kScenes) {
    SCOPED_TRACE(scene);
    const lab::Image golden = lab::read_png(golden_path(scene, ".png"));
    lab::Image black = golden;
    for (size_t i = 0; i < black.rgba.size(); i += 4)
      black.rgba[i] = black.rgba[i + 1] = black.rgba[i + 2] = 0;
    const lab::ImageDifference difference = lab::compare_images(black, golden, lab::kGoldenMaxDiffCap);
    EXPECT_GT(difference.fraction_over, lab::kGoldenMaxFractionCap)
        << lab::to_string(difference, lab::kGoldenMaxDiffCap);
  }
}

// The tests' loader goes through the same validation: a golden whose tolerance was edited past the cap
// is a failure naming the key, not a test that passes anything.
TEST(GoldenJson, TheTestLoaderRefusesATooLooseGolden) {
  labtest::ScratchDir scratch("golden");
  lab::Image image;
  image.width = 64;
  image.height = 48;
  image.rgba.assign(64 * 48 * 4, 255);
  lab::write_png(scratch.file("pattern.png"), image);
  std::ofstream(scratch.file("pattern.json")) << golden_text(R"({ "max_diff": -7, "max_fraction": 9 })");
  std::string problem;
  EXPECT_FALSE(labtest::load_golden(scratch.path().string(), lab::SceneId::Pattern, problem).has_value());
  EXPECT_NE(problem.find(scratch.file("pattern.json") + ": tolerance.max_diff: is -7"), std::string::npos)
      << problem;

  std::ofstream(scratch.file("pattern.json")) << golden_text(R"({ "max_diff": 1, "max_fraction": 9 })");
  EXPECT_FALSE(labtest::load_golden(scratch.path().string(), lab::SceneId::Pattern, problem).has_value());
  EXPECT_NE(problem.find("tolerance.max_fraction: is 9; the cap is 0.01"), std::string::npos) << problem;

  std::ofstream(scratch.file("pattern.json")) << golden_text();
  EXPECT_TRUE(labtest::load_golden(scratch.path().string(), lab::SceneId::Pattern, problem).has_value())
      << problem;
}

TEST(GoldenJson, AnUnreadableFileIsNamed) {
  try {
    lab::read_golden_json("/nonexistent-interop-lab/pattern.json");
    FAIL() << "expected GoldenError";
  } catch (const lab::GoldenError& error) {
    EXPECT_NE(std::string(error.what()).find("/nonexistent-interop-lab/pattern.json: cannot be opened"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
