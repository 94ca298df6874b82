// tests/gl/test_bench.cpp — `--bench` end to end at small sizes: every available path of every scene is
// measured, what is unavailable is listed with its reason, and the JSON and SVG are written.
#include "tests/support/app_fixture.hpp"
#include "tests/support/scratch_dir.hpp"

#include "app/gl/app/bench.hpp"
#include "app/gl/app/bench_rows.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace {

TEST(Bench, MeasuresEveryAvailablePathAndWritesJsonAndChart) {
  const labtest::ScratchDir scratch("bench");
  const std::filesystem::path& dir = scratch.path();
  lab::Options options;
  options.bench = true;
  options.bench_sizes = {{160, 90}, {320, 180}};
  options.bench_frames = 10;
  options.json = (dir / "bench.json").string();
  options.chart = (dir / "bench.svg").string();
  ASSERT_EQ(lab::gl::run_bench(options), 0);

  std::ifstream file(options.json);
  const nlohmann::json report = nlohmann::json::parse(file);
  std::set<std::string> skipped;
  for (const auto& entry : report.at("skipped")) {
    skipped.insert(entry.at("path").get<std::string>());
    EXPECT_FALSE(entry.at("reason").get<std::string>().empty()) << entry.dump();
  }
  std::set<std::string> measured;
  for (const auto& entry : report.at("cases")) {
    const std::string path = entry.at("path");
    measured.insert(path);
    EXPECT_EQ(entry.at("frames").get<long long>(), 10) << entry.dump();
    EXPECT_GT(entry.at("median_ms").get<double>(), 0.0) << entry.dump();
    EXPECT_GE(entry.at("p90_ms").get<double>(), entry.at("median_ms").get<double>()) << entry.dump();
    if (path == "interop") {
      EXPECT_TRUE(entry.contains("ratio_to_bare_loop")) << entry.dump();
      // The reference is the sum of the parts measured alone, and the frame is judged against it.
      const double reference = entry.at("floor_ms").get<double>() + entry.at("handoff_ms").get<double>() +
                               entry.at("graphics_ms").get<double>();
      EXPECT_NEAR(entry.at("reference_ms").get<double>(), reference, 1e-9) << entry.dump();
      EXPECT_NEAR(entry.at("ratio_to_reference").get<double>(),
                  entry.at("median_ms").get<double>() / reference, 1e-9);
    }
    // Every mode is judged against its own minimal loop, measured beside it (interop's is the bare loop).
    const bool reference = entry.at("role") != "mode";
    EXPECT_EQ(reference, path == "floor" || path == "handoff" || path == "handoff (semaphores)" ||
                             path == "graphics" || path == "bare" || path == "show texture" ||
                             path == "show buffer" || path.find(" ref") != std::string::npos)
        << entry.dump();
    // A mode as a CUDA graph (--graph) is judged against the same references as the mode, not a loop of
    // its own.
    const bool graph = path.size() > 6 && path.compare(path.size() - 6, 6, " graph") == 0;
    if (graph) {
      EXPECT_FALSE(entry.contains("ratio_to_own_reference")) << entry.dump();
    } else if (!reference) {
      EXPECT_TRUE(entry.contains("ratio_to_own_reference")) << entry.dump();
      EXPECT_TRUE(entry.contains("own_reference_ms")) << entry.dump();
    }
    // Headless, the pattern image is the frame: there is no GL work to measure alone.
    if (path == "graphics") {
      EXPECT_NE(entry.at("scene"), "pattern") << entry.dump();
    }
  }
  EXPECT_TRUE(measured.count("cpu")) << "the cpu mode runs everywhere";
  for (const std::string path :
       {"interop", "reregister", "pbo", "split", "buffer", "staging", "floor", "handoff", "bare"})
    EXPECT_NE(measured.count(path) + skipped.count(path), 0u) << path << " is neither measured nor skipped";
  // 3 scenes x 2 sizes for every measured path but in the scenes that refuse its mode (eglstream carries
  // CUDA's images, not postprocess's GL input; GL's exported refuses postprocess), which the report lists
  // with the reason; graphics for the two scenes that have GL work headless, the show pass from a texture
  // and from a buffer for the two image scenes (where the buffer mode runs).
  std::map<std::string, std::set<std::string>> refused;  // mode -> the scenes that refuse it
  for (const auto& entry : report.at("refused_in_scene")) {
    EXPECT_FALSE(entry.at("reason").get<std::string>().empty()) << entry.dump();
    EXPECT_TRUE(refused[entry.at("path")].insert(entry.at("scene")).second) << "said twice: " << entry.dump();
  }
  const size_t show_passes = measured.count("show texture") + measured.count("show buffer");
  EXPECT_EQ(show_passes, measured.count("buffer") ? 2u : 0u);
  size_t expected_cases = 0;
  for (const std::string& path : measured) {
    if (path == "graphics" || path == "show texture" || path == "show buffer") {
      expected_cases += 2 * 2;
      continue;
    }
    const std::string mode = path.substr(0, path.find(' '));  // "exported graph", "exported ref": exported
    expected_cases += (3 - refused[mode].size()) * 2;
  }
  EXPECT_EQ(report.at("cases").size(), expected_cases);
  if (measured.count("eglstream")) {
    EXPECT_EQ(refused["eglstream"].size(), 2u) << "eglstream: pattern alone";
  }
  if (measured.count("interop")) {
    // Every choice of clocks for every scene, at the larger size, and "off" among them.
    EXPECT_EQ(report.at("timing_cost").size(), 3u * 6u);
    EXPECT_EQ(report.at("timing_cost").at(0).at("clocks"), "off");
    EXPECT_EQ(report.at("timing_cost").at(0).at("width"), 320);
  } else {
    EXPECT_TRUE(report.at("timing_cost").empty());
  }
  EXPECT_FALSE(report.at("machine").at("gl_renderer").get<std::string>().empty());

  std::ifstream chart(options.chart);
  const std::string svg((std::istreambuf_iterator<char>(chart)), std::istreambuf_iterator<char>());
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("polyline"), std::string::npos);
}

}  // namespace

namespace {

// --scene, --mode and --size pick one case: it alone is measured (with the references it is judged by).
TEST(Bench, FiltersToTheCasesAskedFor) {
  const labtest::ScratchDir scratch("bench-filter");
  const lab::ParseResult parsed = [&] {
    const std::string json = (scratch.path() / "one.json").string();
    const char* argv[] = {"interop-lab", "--bench", "--scene",        "pattern", "--mode", "cpu",
                          "--size",      "64x48",   "--bench-frames", "10",      "--json", json.c_str()};
    return lab::parse_command_line(static_cast<int>(std::size(argv)), argv);
  }();
  ASSERT_FALSE(parsed.exit_code) << parsed.output;
  ASSERT_EQ(lab::gl::run_bench(parsed.options), 0);
  std::ifstream file(parsed.options.json);
  const nlohmann::json report = nlohmann::json::parse(file);
  // The cpu mode and its own reference loop, nothing else.
  ASSERT_EQ(report.at("cases").size(), 2u) << report.at("cases").dump();
  EXPECT_EQ(report.at("cases").at(0).at("path"), "cpu ref");
  const nlohmann::json& only = report.at("cases").at(1);
  EXPECT_TRUE(only.contains("ratio_to_own_reference")) << only.dump();
  EXPECT_EQ(only.at("scene"), "pattern");
  EXPECT_EQ(only.at("path"), "cpu");
  EXPECT_EQ(only.at("width"), 64);
  EXPECT_EQ(only.at("height"), 48);
  EXPECT_TRUE(report.at("scaling").empty());
  EXPECT_TRUE(report.at("timing_cost").empty());
}

}  // namespace

namespace {

// What the benchmark knows of a mode is its row: every GL mode has exactly one (bench_row throws for a mode
// without), each own loop's label names its mode, and the mode it parks on runs without CUDA (the bench
// parks between cases on every machine).
TEST(Bench, EveryGlModeHasOneRowAndItsOwnLoopIsLabelledByIt) {
  for (const lab::ModeId mode : lab::modes_of(lab::GraphicsApi::Gl)) {
    size_t rows = 0;
    for (const lab::gl::BenchRow& row : lab::gl::bench_rows()) rows += row.mode == mode ? 1 : 0;
    EXPECT_EQ(rows, 1u) << lab::to_string(mode);
    const lab::gl::BenchRow& row = lab::gl::bench_row(mode);
    if (row.own_loop != nullptr || row.paired_loop != nullptr) {
      EXPECT_EQ(std::string(row.own_path), std::string(lab::to_string(mode)) + " ref");
      EXPECT_TRUE(row.own_loop == nullptr || row.paired_loop == nullptr)
          << lab::to_string(mode) << ": one loop, measured alone or beside the mode";
    }
  }
  EXPECT_EQ(lab::gl::bench_rows().size(), lab::modes_of(lab::GraphicsApi::Gl).size());
  const lab::gl::BenchRow& parking = lab::gl::bench_row(lab::gl::parking_mode());
  EXPECT_FALSE(parking.needs_cuda);
  EXPECT_TRUE(parking.own_loop != nullptr || parking.paired_loop != nullptr);
}

}  // namespace
