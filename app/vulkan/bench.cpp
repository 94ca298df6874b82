// app/vulkan/bench.cpp — `interop-lab --bench --api vulkan`: every Vulkan mode that runs here (external
// and exported, each with a timeline semaphore and with binary semaphores, staging, cpu) x scene x size,
// headless, timed as
// the GL benchmark times its cases (lab::time_frames: warm-up, then up to 300 frames or 4 s). Each frame
// ends with the Vulkan queue idle and the CUDA stream synchronised, so it holds all of its own work.
// As in the GL benchmark, the parts are measured alone in the same run: the floor (the scene's kernels on
// plain cudaMalloc memory), the hand-off (the external semaphores' round trip alone, as GL's map + unmap)
// and the graphics (the Vulkan passes alone, no mode), and every mode is judged against their sum (x ref),
// against the bare loop (x bare: the external frame written with raw CUDA calls and nothing of the app,
// app/vulkan/bench_bare.hpp: what the app's own layers cost; the exported rows against the exported bare
// loop, CUDA's memory from raw cuMem* calls) and against the external (timeline) frame of the
// same scene and size (x external: what copying through host memory costs next to sharing the memory).
#include "app/vulkan/bench.hpp"

#include "app/core/text.hpp"
#include "app/image/image_io.hpp"
#include "app/timing/bench_timing.hpp"
#include "app/timing/statistics.hpp"
#include "app/vulkan/app.hpp"
#include "app/vulkan/bench_bare.hpp"
#include "interop/error.hpp"
#include "interop/memory.hpp"
#include "interop/stream.hpp"
#include "kernels/common.hpp"

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
                           {ModeId::Exported, interop::SemaphoreKind::Timeline, "exported (timeline)"},
                           {ModeId::Exported, interop::SemaphoreKind::Binary, "exported (binary)"},
                           {ModeId::Buffer, interop::SemaphoreKind::Timeline, "buffer"},
                           {ModeId::Staging, interop::SemaphoreKind::Timeline, "staging"},
                           {ModeId::Cpu, interop::SemaphoreKind::Timeline, "cpu"}};

struct Result {
  std::string scene, path;
  int width = 0, height = 0;
  long long frames = 0;
  double median_ms = 0.0, p90_ms = 0.0;
  double reference_ms = 0.0;  // modes: floor + hand-off + graphics of the same scene and size (0: none)
  double bare_ms = 0.0;       // CUDA modes: the bare loop of the same scene and size (0: none)
};

// A row of the table: the median and p90 of `wall`, one measured frame's time each.
Result summarize(SceneId scene, const char* path, Extent extent, const std::vector<double>& wall) {
  return {to_string(scene),
          path,
          extent.width,
          extent.height,
          static_cast<long long>(wall.size()),
          median(wall),
          percentile(wall, 0.9)};
}

// The scene's kernels alone on cudaMalloc memory of its resources' sizes, each frame waited for; 0 frames
// without a CUDA device.
std::vector<double> time_floor(const Options& options, SceneId scene, Extent extent) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();  // the failed probe leaves its error for the next call
    return {};
  }
  INTEROP_CUDA_CHECK(cudaSetDevice(options.device.value_or(0)));
  const std::unique_ptr<SceneCompute> compute = create_scene_compute(scene, options.filter);
  const interop::Stream stream;
  std::vector<interop::DeviceBuffer> memory;
  std::vector<CudaResourceView> views;
  for (const ResourceDesc& desc : compute->resources(extent)) {
    memory.emplace_back(desc.bytes);
    INTEROP_CUDA_CHECK(cudaMemsetAsync(memory.back().data(), 0, desc.bytes, stream.get()));
    views.push_back(linear_view(memory.back().data(), desc));
  }
  return time_frames(options.bench_frames, [&](long long index) {
    compute->compute_cuda({index, kernels::time_of_frame(index), extent}, views, stream.get());
    INTEROP_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  });
}

}  // namespace

int run_bench(const Options& options) {
  const std::vector<BenchSize> sizes = options.bench_sizes.empty()
                                           ? std::vector<BenchSize>{{1280, 720}, {1920, 1080}, {3840, 2160}}
                                           : options.bench_sizes;
  std::vector<Result> results;
  std::printf("\n%-12s %-10s %-20s %10s %9s %8s %8s %12s\n", "scene", "size", "path", "median ms", "p90 ms",
              "x ref", "x bare", "x external");
  const auto print = [](const Result& r, const char* to_reference, const char* to_bare,
                        const char* to_external) {
    std::printf("%-12s %-10s %-20s %10.3f %9.3f %8s %8s %12s\n", r.scene.c_str(),
                size_text(r.width, r.height).c_str(), r.path.c_str(), r.median_ms, r.p90_ms, to_reference,
                to_bare, to_external);
    std::fflush(stdout);
  };
  const auto ratio = [](double value, double to, char(&text)[32]) -> const char* {
    std::snprintf(text, sizeof text, "-");
    if (to > 0) std::snprintf(text, sizeof text, "%.3f", value / to);
    return text;
  };
  for (const SceneId scene : all_scenes()) {
    if (options.bench_scene && *options.bench_scene != scene) continue;
    for (const BenchSize& size : sizes) {
      const Extent extent{size.width, size.height};
      double external_ms = 0.0;
      // The parts alone: the kernels (floor) and the Vulkan passes (graphics, in a cpu-mode app whose
      // mode is never asked to produce).
      std::fprintf(stderr, "bench: vulkan %s %dx%d floor and graphics\n", to_string(scene), size.width,
                   size.height);
      const std::vector<double> floor_wall = time_floor(options, scene, extent);
      double reference_ms = 0.0;
      char none[32] = "-";
      if (!floor_wall.empty()) {
        Result floor = summarize(scene, "floor", extent, floor_wall);
        print(floor, none, none, none);
        results.push_back(floor);
        reference_ms += floor.median_ms;
        try {
          const std::vector<double> wall = time_handoff(options);
          Result handoff = summarize(scene, "hand-off", extent, wall);
          print(handoff, none, none, none);
          results.push_back(handoff);
          reference_ms += handoff.median_ms;
        } catch (const std::runtime_error& error) {
          std::fprintf(stderr, "bench: hand-off skipped: %s\n", error.what());
        }
      }
      {
        Options graphics_run = options;
        graphics_run.headless = true;
        graphics_run.scene = scene;
        graphics_run.mode = ModeId::Cpu;
        graphics_run.width = size.width;
        graphics_run.height = size.height;
        App app(graphics_run);
        app.set_timing(false);
        const std::vector<double> wall = time_frames(options.bench_frames, [&](long long index) {
          app.render_graphics_only(index);
          app.finish();
        });
        Result graphics = summarize(scene, "graphics", extent, wall);
        print(graphics, none, none, none);
        results.push_back(graphics);
        reference_ms += graphics.median_ms;
      }
      // Each sharing mode's own bare loop: external's (what the other modes are judged against too), and
      // exported's (CUDA's memory from raw cuMem* calls), each where a mode measured here is judged by it.
      double bare_ms = 0.0, exported_bare_ms = 0.0;
      const auto judges = [&](ModeId bare_mode) {
        if (!options.mode) return true;
        return (bare_mode == ModeId::Exported) == (*options.mode == ModeId::Exported);
      };
      for (const ModeId bare_mode : {ModeId::External, ModeId::Exported}) {
        if (floor_wall.empty() || !judges(bare_mode)) continue;
        const char* label = bare_mode == ModeId::External ? "bare" : "bare exported";
        std::fprintf(stderr, "bench: vulkan %s %dx%d %s loop\n", to_string(scene), size.width, size.height,
                     label);
        try {
          const std::vector<double> wall = time_bare_loop(options, scene, extent, nullptr, bare_mode);
          Result bare = summarize(scene, label, extent, wall);
          char to_reference[32];
          print(bare, ratio(bare.median_ms, reference_ms, to_reference), none, none);
          bare.reference_ms = reference_ms;
          results.push_back(bare);
          (bare_mode == ModeId::External ? bare_ms : exported_bare_ms) = bare.median_ms;
        } catch (const std::runtime_error& error) {
          std::fprintf(stderr, "bench: %s loop skipped: %s\n", label, error.what());
        }
      }
      for (const Case& c : kCases) {
        if (options.mode && *options.mode != c.mode) continue;
        Options run = options;
        run.headless = true;
        run.scene = scene;
        run.mode = c.mode;
        run.semaphores = c.semaphores;
        run.width = size.width;
        run.height = size.height;
        std::fprintf(stderr, "bench: vulkan %s %dx%d %s\n", to_string(scene), size.width, size.height,
                     c.path);
        std::optional<App> app;
        try {
          app.emplace(run);
          app->set_timing(false);  // wall time of the frame alone, as the GL benchmark's modes
        } catch (const std::runtime_error& error) {
          std::fprintf(stderr, "bench: %s skipped: %s\n", c.path, error.what());
          continue;
        }
        const std::vector<double> wall = time_frames(options.bench_frames, [&](long long index) {
          app->render_frame(index);
          app->finish();
        });
        Result result = summarize(scene, c.path, extent, wall);
        if (c.mode == ModeId::External && c.semaphores == interop::SemaphoreKind::Timeline)
          external_ms = result.median_ms;
        // The cpu mode runs no kernel on the GPU: the floor does not describe it. The exported mode is judged
        // against its own bare loop, every other CUDA mode against external's.
        const double own_bare_ms = c.mode == ModeId::Exported ? exported_bare_ms : bare_ms;
        char to_reference[32], to_bare[32], to_external[32];
        print(result, c.mode == ModeId::Cpu ? none : ratio(result.median_ms, reference_ms, to_reference),
              c.mode == ModeId::Cpu ? none : ratio(result.median_ms, own_bare_ms, to_bare),
              ratio(result.median_ms, external_ms, to_external));
        result.reference_ms = c.mode == ModeId::Cpu ? 0.0 : reference_ms;
        result.bare_ms = c.mode == ModeId::Cpu ? 0.0 : own_bare_ms;
        results.push_back(result);
      }
    }
  }
  if (!options.json.empty()) {
    nlohmann::json cases = nlohmann::json::array();
    for (const Result& r : results) {
      nlohmann::json entry = {{"api", "vulkan"},          {"scene", r.scene},   {"path", r.path},
                              {"width", r.width},         {"height", r.height}, {"frames", r.frames},
                              {"median_ms", r.median_ms}, {"p90_ms", r.p90_ms}};
      if (r.reference_ms > 0) {
        entry["reference_ms"] = r.reference_ms;
        entry["ratio_to_reference"] = r.median_ms / r.reference_ms;
      }
      if (r.bare_ms > 0) {
        entry["bare_ms"] = r.bare_ms;
        entry["ratio_to_bare"] = r.median_ms / r.bare_ms;
      }
      cases.push_back(entry);
    }
    write_text_file(options.json, nlohmann::json{{"cases", cases}}.dump(2) + "\n");
  }
  return 0;
}

}  // namespace lab::vulkan
