// tests/gpu/test_bench_throughput.cpp — the benchmark's throughput rows on a GPU whose GL interop works
// (app/gl/app/bench_throughput.hpp): every form is measured (1, 2, 3 frames in flight; 2 and 4 frames per
// hand-off), leaves nothing mapped, and reaches the JSON beside the cases, whose x ref holds the hand-off.
// Skips with the reason elsewhere; fails instead where INTEROP_LAB_REQUIRE_GPUS says a GPU must be there.
#include "tests/support/app_fixture.hpp"
#include "tests/support/scratch_dir.hpp"

#include "app/gl/app/bench.hpp"
#include "app/gl/app/bench_throughput.hpp"
#include "interop/gl.hpp"

#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <utility>

namespace {

using lab::ModeId;
using lab::SceneId;

const std::set<std::pair<int, int>> kForms = {{1, 1}, {2, 1}, {3, 1}, {1, 2}, {1, 4}};

TEST(BenchThroughput, EveryFormIsMeasuredAndLeavesNothingMapped) {
  lab::gl::App app(labtest::app_options(SceneId::Pattern, ModeId::Cpu, 320, 180));
  if (!app.interop_support().usable)
    LABTEST_NEEDS_GPUS(1, "needs a CUDA device whose GL interop works: " << app.interop_support().reason);
  const std::vector<lab::bench::Throughput> rows = lab::gl::measure_throughput(app, 12);
  std::set<std::pair<int, int>> forms;
  for (const lab::bench::Throughput& row : rows) {
    forms.insert({row.in_flight, row.per_handoff});
    EXPECT_EQ(row.width, 320);
    EXPECT_EQ(row.height, 180);
    EXPECT_GE(row.frames, 12) << row.in_flight << " in flight, " << row.per_handoff << " per hand-off";
    EXPECT_EQ(row.frames % row.per_handoff, 0);
    EXPECT_GT(row.ms_per_frame, 0.0);
  }
  EXPECT_EQ(forms, kForms);
  EXPECT_EQ(interop::live_mappings(), 0);
  EXPECT_EQ(interop::live_registrations(), 0) << "the rows' textures are unregistered when they are done";
}

TEST(BenchThroughput, TheBenchWritesTheRowsBesideTheCases) {
  if (labtest::use_window())
    GTEST_SKIP() << "the benchmark runs headless (EGL), and the NVIDIA driver serves CUDA-GL interop through "
                    "one window system a process: this binary's headless run covers it";
  {
    lab::gl::App probe(labtest::app_options(SceneId::Pattern, ModeId::Cpu, 64, 64));
    if (!probe.interop_support().usable)
      LABTEST_NEEDS_GPUS(1, "needs a CUDA device whose GL interop works: " << probe.interop_support().reason);
  }
  const labtest::ScratchDir scratch("bench-throughput");
  lab::Options options;
  options.bench = true;
  options.bench_scene = SceneId::Pattern;
  options.mode = ModeId::Interop;
  options.bench_sizes = {{320, 180}};
  options.bench_frames = 10;
  options.json = (scratch.path() / "bench.json").string();
  ASSERT_EQ(lab::gl::run_bench(options), 0);
  std::ifstream file(options.json);
  const nlohmann::json report = nlohmann::json::parse(file);

  double latency_ms = 0.0;
  for (const nlohmann::json& row : report.at("throughput"))
    if (row.at("frames_in_flight") == 1 && row.at("frames_per_handoff") == 1)
      latency_ms = row.at("ms_per_frame").get<double>();
  ASSERT_GT(latency_ms, 0.0) << report.at("throughput").dump();
  std::set<std::pair<int, int>> forms;
  for (const nlohmann::json& row : report.at("throughput")) {
    forms.insert({row.at("frames_in_flight").get<int>(), row.at("frames_per_handoff").get<int>()});
    EXPECT_NEAR(row.at("frames_per_second").get<double>(), 1000.0 / row.at("ms_per_frame").get<double>(),
                1e-6)
        << row.dump();
    EXPECT_NEAR(row.at("ratio_to_latency").get<double>(), row.at("ms_per_frame").get<double>() / latency_ms,
                1e-9)
        << row.dump();
  }
  EXPECT_EQ(forms, kForms);
  bool judged = false;
  for (const nlohmann::json& entry : report.at("cases")) {
    if (entry.at("path") != "interop") continue;
    judged = true;
    const double reference = entry.at("floor_ms").get<double>() + entry.at("handoff_ms").get<double>() +
                             entry.at("graphics_ms").get<double>();
    EXPECT_NEAR(entry.at("reference_ms").get<double>(), reference, 1e-9) << entry.dump();
  }
  EXPECT_TRUE(judged) << "the interop case is in the report";
}

}  // namespace
