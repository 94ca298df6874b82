// app/vulkan/bench.cpp — `interop-lab --bench --api vulkan`: every Vulkan mode that runs here (external
// with a timeline semaphore and with binary semaphores, staging, cpu) x scene x size, headless, timed as
// the GL benchmark times its cases (lab::time_frames: warm-up, then up to 300 frames or 4 s). Each frame
// ends with the Vulkan queue idle and the CUDA stream synchronised, so it holds all of its own work. The
// table gives each case's median and p90, and its ratio to the external (timeline) frame of the same
// scene and size: what copying through host memory costs next to sharing the memory.
#include "app/vulkan/bench.hpp"

#include "app/gl/bench.hpp"
#include "app/image_io.hpp"
#include "app/statistics.hpp"
#include "app/text.hpp"
#include "app/vulkan/app.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace lab::vulkan {

namespace {

struct Case {
  ModeId mode;
  interop::SemaphoreKind semaphores;
  const char* path;
};
constexpr Case kCases[] = {{ModeId::External, interop::SemaphoreKind::Timeline, "external (timeline)"},
                           {ModeId::External, interop::SemaphoreKind::Binary, "external (binary)"},
                           {ModeId::Staging, interop::SemaphoreKind::Timeline, "staging"},
                           {ModeId::Cpu, interop::SemaphoreKind::Timeline, "cpu"}};

struct Result {
  std::string scene, path;
  int width = 0, height = 0;
  long long frames = 0;
  double median_ms = 0.0, p90_ms = 0.0;
};

}  // namespace

int run_bench(const Options& options) {
  const std::vector<BenchSize> sizes =
      options.bench_sizes.empty() ? std::vector<BenchSize>{{1280, 720}, {1920, 1080}, {3840, 2160}} : options.bench_sizes;
  std::vector<Result> results;
  std::printf("\n%-12s %-10s %-20s %10s %9s %12s\n", "scene", "size", "path", "median ms", "p90 ms", "x external");
  for (const SceneId scene : all_scenes()) {
    if (options.bench_scene && *options.bench_scene != scene) continue;
    for (const BenchSize& size : sizes) {
      double external_ms = 0.0;
      for (const Case& c : kCases) {
        if (options.mode && *options.mode != c.mode) continue;
        Options run = options;
        run.headless = true;
        run.scene = scene;
        run.mode = c.mode;
        run.semaphores = c.semaphores;
        run.width = size.width;
        run.height = size.height;
        std::fprintf(stderr, "bench: vulkan %s %dx%d %s\n", to_string(scene), size.width, size.height, c.path);
        std::optional<App> app;
        try {
          app.emplace(run);
        } catch (const std::runtime_error& error) {
          std::fprintf(stderr, "bench: %s skipped: %s\n", c.path, error.what());
          continue;
        }
        const std::vector<double> wall = time_frames(options.bench_frames, [&](long long index) {
          app->render_frame(index);
          app->finish();
        });
        Result result{to_string(scene), c.path, size.width, size.height, static_cast<long long>(wall.size()),
                      median(wall), percentile(wall, 0.9)};
        if (c.mode == ModeId::External && c.semaphores == interop::SemaphoreKind::Timeline)
          external_ms = result.median_ms;
        char ratio[32] = "-";
        if (external_ms > 0) std::snprintf(ratio, sizeof ratio, "%.3f", result.median_ms / external_ms);
        std::printf("%-12s %-10s %-20s %10.3f %9.3f %12s\n", result.scene.c_str(),
                    size_text(size.width, size.height).c_str(), c.path, result.median_ms, result.p90_ms,
                    ratio);
        std::fflush(stdout);
        results.push_back(result);
      }
    }
  }
  if (!options.json.empty()) {
    nlohmann::json cases = nlohmann::json::array();
    for (const Result& r : results)
      cases.push_back({{"api", "vulkan"}, {"scene", r.scene}, {"path", r.path}, {"width", r.width},
                       {"height", r.height}, {"frames", r.frames}, {"median_ms", r.median_ms}, {"p90_ms", r.p90_ms}});
    write_text_file(options.json, nlohmann::json{{"cases", cases}}.dump(2) + "\n");
  }
  return 0;
}

}  // namespace lab::vulkan
