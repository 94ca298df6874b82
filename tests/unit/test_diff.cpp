// tests/unit/test_diff.cpp — `interop-lab diff` as a function: exit codes and verdicts for same, within
// tolerance, different and each input error, the messages naming the file under one prefix, and the heat
// map and its path. Needs no GPU; works in a temporary directory.
#include "app/image/diff.hpp"

#include "app/image/image_io.hpp"
#include "tests/support/crafted_png.hpp"
#include "tests/support/image_fixture.hpp"
#include "tests/support/scratch_dir.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

lab::Image checkerboard(int width, int height) {
  return labtest::synthetic_image(width, height, [](int x, int y) {
    const uint8_t v = ((x / 4 + y / 4) % 2) ? 200 : 40;
    return std::array<uint8_t, 4>{v, v, v, 255};
  });
}

class DiffTest : public ::testing::Test {
 protected:
  void SetUp() override { lab::write_png(path("a.png"), checkerboard(40, 30)); }

  std::string path(const std::string& name) const { return m_scratch.file(name); }

  lab::DiffOptions options(const std::string& b) const {
    lab::DiffOptions diff;
    diff.a = path("a.png");
    diff.b = path(b);
    diff.heatmap = path("heat.png");
    return diff;
  }

  // run_diff's exit code; its stderr in `errors`, its stdout in `output` where asked for.
  int run(const lab::DiffOptions& diff, std::string& errors, std::string* output = nullptr) {
    ::testing::internal::CaptureStdout();
    ::testing::internal::CaptureStderr();
    const int exit_code = lab::run_diff(diff);
    errors = ::testing::internal::GetCapturedStderr();
    const std::string printed = ::testing::internal::GetCapturedStdout();
    if (output) *output = printed;
    // One prefix for every message of the command, whichever part of it speaks.
    std::istringstream lines(errors);
    for (std::string line; std::getline(lines, line);)
      EXPECT_EQ(line.rfind("interop-lab diff: ", 0), 0u) << "a message without diff's prefix: " << line;
    return exit_code;
  }

  labtest::ScratchDir m_scratch{"diff"};
};

TEST_F(DiffTest, IdenticalImagesAreTheSameAndStillGetAHeatmap) {
  lab::write_png(path("b.png"), checkerboard(40, 30));
  std::string errors, output;
  EXPECT_EQ(run(options("b.png"), errors, &output), 0) << errors;
  EXPECT_EQ(output.rfind("same: max 0/255, 0 pixels", 0), 0u) << output;
  EXPECT_EQ(output.find("first at"), std::string::npos)
      << "no pixel differs, so none is the first: " << output;
  EXPECT_EQ(output.find("-1"), std::string::npos) << output;
  EXPECT_NE(errors.find("interop-lab diff: wrote the heat map to " + path("heat.png") + "\n"),
            std::string::npos)
      << errors;
  const lab::Image heatmap = lab::read_png(path("heat.png"));
  EXPECT_EQ(heatmap.width, 40);
  for (size_t i = 0; i < heatmap.rgba.size(); i += 4) ASSERT_EQ(heatmap.rgba[i], 0) << "pixel " << i / 4;
}

TEST_F(DiffTest, APerturbedPixelMakesThemDifferent) {
  lab::Image b = checkerboard(40, 30);
  b.rgba[(static_cast<size_t>(7) * 40 + 9) * 4] += 50;  // (9, 7), red +50
  lab::write_png(path("b.png"), b);
  std::string errors, output;
  EXPECT_EQ(run(options("b.png"), errors, &output), 1) << errors;
  EXPECT_EQ(output.rfind("different: max 50/255, 1 pixels", 0), 0u) << output;
  EXPECT_NE(output.find("first at (9, 7)"), std::string::npos) << output;
  EXPECT_NE(errors.find("wrote the heat map to " + path("heat.png")), std::string::npos) << errors;
  const lab::Image heatmap = lab::read_png(path("heat.png"));
  EXPECT_EQ(heatmap.pixel(9, 7)[0], 255) << "a difference of 50 saturates to red";
  EXPECT_EQ(heatmap.pixel(8, 7)[0], 0);

  // Not the same, but within what the tolerance allows: exit 0, and said as such.
  lab::DiffOptions tolerant = options("b.png");
  tolerant.max_fraction = 1.0 / (40 * 30);  // one pixel may differ
  EXPECT_EQ(run(tolerant, errors, &output), 0) << errors;
  EXPECT_EQ(output.rfind("within tolerance: max 50/255, 1 pixels", 0), 0u) << output;
  tolerant.max_fraction = 0.0;
  tolerant.max_diff = 50;
  EXPECT_EQ(run(tolerant, errors, &output), 0) << errors;
  EXPECT_EQ(output.rfind("within tolerance: max 50/255, 0 pixels", 0), 0u) << output;
  EXPECT_EQ(output.find("first at"), std::string::npos) << output;
}

// Most pixels apart, each by less than --max-diff: the images match, but they are not "the same".
TEST_F(DiffTest, ImagesApartEverywhereWithinTheToleranceAreNotCalledTheSame) {
  lab::Image b = checkerboard(40, 30);
  for (size_t i = 0; i < b.rgba.size(); i += 4) b.rgba[i] += 1;
  lab::write_png(path("b.png"), b);
  lab::DiffOptions diff = options("b.png");
  diff.heatmap.clear();
  std::string errors, output;
  EXPECT_EQ(run(diff, errors, &output), 0) << errors;
  EXPECT_EQ(output.rfind("within tolerance: max 1/255, 0 pixels (0.0000%) over 2", 0), 0u) << output;
  EXPECT_EQ(errors, "") << "no heat map asked for, none said";
}

TEST(DiffVerdict, SameOnlyForIdenticalImages) {
  lab::ImageDifference difference;
  EXPECT_STREQ(lab::verdict(difference, 0.0), "same");
  difference.max_difference = 1;  // apart, but no pixel over the threshold
  EXPECT_STREQ(lab::verdict(difference, 0.0), "within tolerance");
  difference.max_difference = 9;
  difference.pixels_over = 71;
  difference.fraction_over = 0.71;
  EXPECT_STREQ(lab::verdict(difference, 0.75), "within tolerance");
  EXPECT_STREQ(lab::verdict(difference, 0.5), "different");
}

TEST_F(DiffTest, ACorruptInputIsAnErrorNamingIt) {
  std::ofstream(path("b.png"), std::ios::binary) << "\x89PNG\r\n\x1a\n and then not a PNG at all";
  std::string errors;
  EXPECT_EQ(run(options("b.png"), errors), 2);
  EXPECT_NE(errors.find(path("b.png")), std::string::npos) << errors;
  EXPECT_NE(errors.find("corrupt input"), std::string::npos) << errors;
  EXPECT_FALSE(fs::exists(path("heat.png"))) << "no heat map without two images";
}

TEST_F(DiffTest, ImagesOfDifferentSizesAreAnErrorNamingBothSizes) {
  lab::write_png(path("b.png"), checkerboard(41, 30));
  std::string errors;
  EXPECT_EQ(run(options("b.png"), errors), 2);
  EXPECT_NE(errors.find(path("a.png") + " is 40x30 but " + path("b.png") + " is 41x30"), std::string::npos)
      << errors;
}

TEST_F(DiffTest, AMissingInputIsAnErrorNamingIt) {
  std::string errors;
  lab::DiffOptions diff = options("absent.png");
  EXPECT_EQ(run(diff, errors), 2);
  EXPECT_NE(errors.find(path("absent.png")), std::string::npos) << errors;
  EXPECT_NE(errors.find("missing input"), std::string::npos) << errors;

  std::swap(diff.a, diff.b);  // the first input missing reads the same
  EXPECT_EQ(run(diff, errors), 2);
  EXPECT_NE(errors.find(path("absent.png")), std::string::npos) << errors;
}

std::string file_bytes(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// `--heatmap mine.png` with mine.png an input would replace the input with the heat map.
TEST_F(DiffTest, AHeatmapThatIsAnInputIsRefusedAndTheInputKept) {
  lab::Image b = checkerboard(40, 30);
  b.rgba[0] += 50;
  lab::write_png(path("b.png"), b);
  fs::create_symlink(path("b.png"), path("link-to-b.png"));
  fs::create_hard_link(path("a.png"), path("hard-link-to-a.png"));
  const std::string a_before = file_bytes(path("a.png"));
  const std::string b_before = file_bytes(path("b.png"));
  for (const std::string& heatmap : {path("a.png"), path("b.png"), path("link-to-b.png"),
                                     path("hard-link-to-a.png"), m_scratch.path().string() + "/./a.png"}) {
    lab::DiffOptions diff = options("b.png");
    diff.heatmap = heatmap;
    std::string errors;
    EXPECT_EQ(run(diff, errors), 2) << heatmap;
    EXPECT_NE(errors.find("--heatmap " + heatmap + " is the input "), std::string::npos) << errors;
    EXPECT_NE(errors.find("give another path"), std::string::npos) << errors;
    EXPECT_EQ(file_bytes(path("a.png")), a_before) << heatmap;
    EXPECT_EQ(file_bytes(path("b.png")), b_before) << heatmap;
    EXPECT_TRUE(fs::is_symlink(path("link-to-b.png")));
  }
}

TEST_F(DiffTest, AnInputThatIsAFifoIsAnErrorNotAHang) {
  ASSERT_EQ(mkfifo(path("pipe.png").c_str(), 0600), 0);
  std::string errors;
  EXPECT_EQ(run(options("pipe.png"), errors), 2);
  EXPECT_NE(errors.find(path("pipe.png") + ": it is a FIFO"), std::string::npos) << errors;
  EXPECT_FALSE(fs::exists(path("heat.png")));
}

TEST_F(DiffTest, AnInputWhoseHeaderClaimsGigabytesIsAnErrorAtOnce) {
  const std::vector<uint8_t> bytes = labtest::png_claiming_size(40000, 40000);
  std::ofstream(path("huge.png"), std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  std::string errors;
  EXPECT_EQ(run(options("huge.png"), errors), 2);
  EXPECT_NE(errors.find("input too large: " + path("huge.png") + ": the header says 40000x40000"),
            std::string::npos)
      << errors;
  EXPECT_FALSE(fs::exists(path("heat.png")));
}

TEST_F(DiffTest, AHeatmapThatCannotBeWrittenIsAnError) {
  lab::write_png(path("b.png"), checkerboard(40, 30));
  lab::DiffOptions diff = options("b.png");
  diff.heatmap = path("missing/heat.png");
  std::string errors;
  EXPECT_EQ(run(diff, errors), 2);
  EXPECT_NE(errors.find(diff.heatmap), std::string::npos) << errors;
}

}  // namespace
