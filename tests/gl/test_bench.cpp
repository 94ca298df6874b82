// tests/gl/test_bench.cpp — `--bench` end to end at small sizes: every available path of every scene is
// measured, what is unavailable is listed with its reason, and the JSON and SVG are written.
#include "tests/support/app_fixture.hpp"
#include "tests/support/scratch_dir.hpp"

#include "app/bench.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
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
  ASSERT_EQ(lab::run_bench(options), 0);

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
    }
  }
  EXPECT_TRUE(measured.count("cpu")) << "the cpu mode runs everywhere";
  for (const std::string path : {"interop", "reregister", "pbo", "split", "staging", "floor", "bare"})
    EXPECT_NE(measured.count(path) + skipped.count(path), 0u) << path << " is neither measured nor skipped";
  // 3 scenes x 2 sizes for every measured path.
  EXPECT_EQ(report.at("cases").size(), measured.size() * 3 * 2);
  EXPECT_FALSE(report.at("machine").at("gl_renderer").get<std::string>().empty());

  std::ifstream chart(options.chart);
  const std::string svg((std::istreambuf_iterator<char>(chart)), std::istreambuf_iterator<char>());
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("polyline"), std::string::npos);
}

}  // namespace
