// tests/vulkan/test_vulkan_throughput.cpp — the Vulkan benchmark's throughput rows (app/vulkan/
// bench_throughput.hpp): the external frame with raw calls, in every form (latency, 2 and 3 frames in
// flight, 2 and 4 frames per hand-off), draws what the app's cpu mode draws for the same frame, in every
// scene and in every copy of the resources; the bench writes the rows into its JSON beside the cases. These
// need a CUDA device whose GPU Vulkan also drives: they skip with the reason elsewhere, and fail instead
// where INTEROP_LAB_REQUIRE_GPUS says one must be there. What runs anywhere: a form that mixes both kinds is
// refused before any device is touched.
#include "tests/support/app_fixture.hpp"
#include "tests/support/scratch_dir.hpp"
#include "tests/support/vulkan_device.hpp"

#include "app/bench/report.hpp"
#include "app/vulkan/app/app.hpp"
#include "app/vulkan/app/bench.hpp"
#include "app/vulkan/app/bench_throughput.hpp"

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using lab::ModeId;
using lab::SceneId;

lab::Options vulkan_options(SceneId scene, int width, int height) {
  lab::Options options = labtest::app_options(scene, ModeId::Cpu, width, height);
  options.api = lab::GraphicsApi::Vulkan;
  options.headless = true;
  return options;
}

// Skips without a Vulkan driver, as every Vulkan test; without a CUDA device it skips, or fails where one
// is required.
#define NEEDS_CUDA_AND_VULKAN()                                                                       \
  do {                                                                                                \
    if (const std::string missing = labtest::vulkan_missing(); !missing.empty())                      \
      GTEST_SKIP() << "needs a Vulkan driver: " << missing;                                           \
    if (lab::vulkan::App(vulkan_options(SceneId::Pattern, 32, 32)).cuda_device() < 0)                 \
      LABTEST_NEEDS_GPUS(1,                                                                           \
                         "the throughput rows share memory with CUDA: needs a CUDA device whose GPU " \
                         "Vulkan drives");                                                            \
  } while (0)

TEST(VulkanThroughput, EveryFormDrawsTheCpuFrameInEveryCopy) {
  NEEDS_CUDA_AND_VULKAN();
  const lab::Extent extent{96, 64};
  const std::vector<lab::bench::ThroughputForm> forms = lab::bench::throughput_forms();
  for (const SceneId scene : lab::all_scenes()) {
    SCOPED_TRACE(lab::to_string(scene));
    lab::Options options = vulkan_options(scene, extent.width, extent.height);
    options.bench_frames = 6;
    std::vector<lab::vulkan::ThroughputFrame> frames;
    const std::vector<lab::bench::Throughput> rows =
        lab::vulkan::measure_throughput(options, scene, extent, forms, &frames);
    ASSERT_EQ(rows.size(), forms.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(rows[i].in_flight, forms[i].in_flight);
      EXPECT_EQ(rows[i].per_handoff, forms[i].per_handoff);
      EXPECT_EQ(rows[i].scene, lab::to_string(scene));
      EXPECT_EQ(rows[i].width, extent.width);
      EXPECT_EQ(rows[i].frames, lab::bench::throughput_frames(6, forms[i].per_handoff));
      EXPECT_GT(rows[i].ms_per_frame, 0.0);
    }

    // One frame per copy of the resources: N copies in flight, K per hand-off; each copy's last frame is
    // one of the last ones issued, a different one in each copy.
    std::map<std::pair<int, int>, std::set<long long>> indices;
    for (const lab::vulkan::ThroughputFrame& frame : frames)
      indices[{frame.form.in_flight, frame.form.per_handoff}].insert(frame.index);
    for (const lab::bench::ThroughputForm& form : forms) {
      const std::set<long long>& drawn = indices[{form.in_flight, form.per_handoff}];
      EXPECT_EQ(drawn.size(), static_cast<size_t>(form.in_flight * form.per_handoff))
          << form.in_flight << " in flight, " << form.per_handoff << " per hand-off";
      if (!drawn.empty()) {
        EXPECT_EQ(*drawn.rbegin() - *drawn.begin() + 1, static_cast<long long>(drawn.size()))
            << "consecutive frames";
      }
    }

    lab::vulkan::App reference(options);
    for (const lab::vulkan::ThroughputFrame& frame : frames) {
      ASSERT_GE(frame.index, 0);
      reference.render_frame(frame.index);
      const std::string difference = labtest::check_against(
          frame.image, reference.read_frame(), {1, 0.0},
          "vulkan-throughput-" + std::string(lab::to_string(scene)) + "-" +
              std::to_string(frame.form.in_flight) + "x" + std::to_string(frame.form.per_handoff) + "-frame" +
              std::to_string(frame.index),
          "the Vulkan cpu frame");
      EXPECT_TRUE(difference.empty()) << frame.form.in_flight << " in flight, " << frame.form.per_handoff
                                      << " per hand-off, frame " << frame.index << ": " << difference;
    }
  }
}

TEST(VulkanThroughput, TheBenchWritesTheRowsBesideTheCases) {
  NEEDS_CUDA_AND_VULKAN();
  const labtest::ScratchDir scratch("vulkan-bench-throughput");
  lab::Options options = vulkan_options(SceneId::Pattern, 96, 64);
  options.bench = true;
  options.bench_scene = SceneId::Pattern;
  options.mode = ModeId::External;
  options.bench_sizes = {{96, 64}};
  options.bench_frames = 6;
  options.json = (scratch.path() / "bench.json").string();
  ASSERT_EQ(lab::vulkan::run_bench(options), 0);
  std::ifstream file(options.json);
  const nlohmann::json report = nlohmann::json::parse(file);

  std::set<std::pair<int, int>> forms, expected;
  for (const lab::bench::ThroughputForm& form : lab::bench::throughput_forms())
    expected.insert({form.in_flight, form.per_handoff});
  double latency_ms = 0.0;
  for (const nlohmann::json& row : report.at("throughput"))
    if (row.at("frames_in_flight") == 1 && row.at("frames_per_handoff") == 1)
      latency_ms = row.at("ms_per_frame").get<double>();
  ASSERT_GT(latency_ms, 0.0) << report.at("throughput").dump();
  for (const nlohmann::json& row : report.at("throughput")) {
    EXPECT_EQ(row.at("api"), "vulkan");
    EXPECT_EQ(row.at("path"), "external (timeline)");
    forms.insert({row.at("frames_in_flight").get<int>(), row.at("frames_per_handoff").get<int>()});
    EXPECT_NEAR(row.at("ratio_to_latency").get<double>(), row.at("ms_per_frame").get<double>() / latency_ms,
                1e-9)
        << row.dump();
  }
  EXPECT_EQ(forms, expected);
  EXPECT_FALSE(report.at("cases").empty());
}

TEST(VulkanThroughput, AFormWithBothKindsIsRefusedBeforeAnyDevice) {
  const lab::Options options = vulkan_options(SceneId::Pattern, 32, 32);
  EXPECT_THROW(lab::vulkan::measure_throughput(options, SceneId::Pattern, {32, 32}, {{2, 2}}),
               std::invalid_argument);
  EXPECT_THROW(lab::vulkan::measure_throughput(options, SceneId::Pattern, {32, 32}, {{0, 1}}),
               std::invalid_argument);
}

}  // namespace
