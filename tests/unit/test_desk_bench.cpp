// tests/unit/test_desk_bench.cpp — --bench --serve's breakdown of the read-back (app/serve/desk_bench.hpp):
// each frame's steps summed into rows of median, p90 and largest, the time in no step, the hand-over to the
// server, and the table they print as. cli.bench_serve_gl_steps runs them through bench_desk with GL's
// read-back.
#include "app/serve/desk_bench.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace {

using lab::StepTime;
using lab::serve::StepStats;

TEST(DeskBenchStepsTest, EachStepIsARowInTheOrderItFirstRanAndTheRestIsOutsideTheSteps) {
  // Three frames: the map flags set in the second only; a frame with no steps (Vulkan's) counts for nothing.
  const std::vector<std::pair<double, std::vector<StepTime>>> frames = {
      {1.0, {{"wait", 0.25}, {"map", 0.5}}},
      {2.0, {{"wait", 0.5}, {"flags", 0.25}, {"map", 1.0}}},
      {9.0, {}},
      {1.5, {{"wait", 0.75}, {"map", 0.5}}},
  };
  const std::vector<StepStats> rows = lab::serve::step_stats(frames);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].name, "wait");
  EXPECT_EQ(rows[1].name, "map");
  EXPECT_EQ(rows[2].name, "flags");
  EXPECT_EQ(rows[3].name, lab::serve::kOutsideSteps);
  EXPECT_EQ(rows[0].frames, 3u);
  EXPECT_DOUBLE_EQ(rows[0].median_ms, 0.5);
  EXPECT_DOUBLE_EQ(rows[0].max_ms, 0.75);
  EXPECT_DOUBLE_EQ(rows[0].p90_ms, 0.7);  // 0.5 + 0.8 * (0.75 - 0.5): statistics.hpp's interpolation
  EXPECT_EQ(rows[2].frames, 1u);
  EXPECT_DOUBLE_EQ(rows[2].median_ms, 0.25);
  // Each frame's read-back less its steps: 0.25, 0.25, 0.25.
  EXPECT_EQ(rows[3].frames, 3u);
  EXPECT_DOUBLE_EQ(rows[3].median_ms, 0.25);
  EXPECT_DOUBLE_EQ(rows[3].max_ms, 0.25);
  EXPECT_TRUE(lab::serve::step_stats({{1.0, {}}}).empty()) << "rows for a read-back that says no steps";
}

TEST(DeskBenchStepsTest, TheTableHasAColumnPerSizeAndADashWhereASizeDidNotRunAStep) {
  lab::serve::DeskBenchCase small;
  small.size = {1920, 1080};
  small.read_back_way = "CUDA";
  small.read_back_ms = 1.24;
  small.read_back_steps = {{"end: wait", 0.1, 0.2, 0.3, 10},
                           {lab::serve::kOutsideSteps, 0.01, 0.02, 0.03, 10},
                           {lab::serve::kOfferStep, 0.004, 0.005, 0.006, 10}};
  lab::serve::DeskBenchCase large = small;
  large.size = {3840, 2160};
  large.read_back_ms = 2.87;
  large.read_back_steps.insert(large.read_back_steps.begin() + 1,
                               StepStats{"begin: map", 1.5, 1.75, 2.5, 10});
  lab::serve::DeskBenchCase untimed;  // Vulkan's: no steps, no column
  untimed.size = {640, 480};
  const std::string table = lab::serve::desk_bench_table({small, large, untimed}, "OpenGL");
  const size_t steps = table.find("read-back steps on the loop's thread");
  ASSERT_NE(steps, std::string::npos) << table;
  const std::string below = table.substr(steps);
  EXPECT_NE(below.find("1920x1080 (CUDA)"), std::string::npos) << below;
  EXPECT_NE(below.find("3840x2160 (CUDA)"), std::string::npos) << below;
  EXPECT_EQ(below.find("640x480"), std::string::npos) << "a column for a size without steps\n" << below;
  // One line per step; the map ran at 4K only; the rows bench_desk adds come last, then read ms.
  const auto line_of = [&](const std::string& label) {
    const size_t at = below.find("\n" + label);
    if (at == std::string::npos) return std::string();
    return below.substr(at + 1, below.find('\n', at + 1) - at - 1);
  };
  const std::string map = line_of("begin: map");
  ASSERT_FALSE(map.empty()) << below;
  EXPECT_NE(map.find(" - "), std::string::npos) << map;
  EXPECT_NE(map.find("1.500 / 1.750 / 2.500"), std::string::npos) << map;
  EXPECT_NE(line_of("end: wait").find("0.100 / 0.200 / 0.300"), std::string::npos) << below;
  EXPECT_LT(below.find("begin: map"), below.find(lab::serve::kOutsideSteps)) << below;
  EXPECT_LT(below.find(lab::serve::kOutsideSteps), below.find(lab::serve::kOfferStep)) << below;
  const std::string read_ms = line_of("read ms (the table's median)");
  EXPECT_NE(read_ms.find("1.240"), std::string::npos) << below;
  EXPECT_NE(read_ms.find("2.870"), std::string::npos) << below;

  untimed.size = {64, 48};
  EXPECT_EQ(lab::serve::desk_bench_table({untimed}, "Vulkan").find("read-back steps"), std::string::npos)
      << "a steps table without steps";
}

}  // namespace
