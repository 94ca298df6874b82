// app/vulkan/app/bench.cpp — `interop-lab --bench --api vulkan`: every Vulkan mode that runs here (external
// and exported, each with a timeline semaphore and with binary semaphores, staging, cpu) x scene x size,
// headless, timed as
// the GL benchmark times its cases (lab::time_frames: warm-up, then up to 300 frames or 4 s). Each frame
// ends with the Vulkan queue idle and the CUDA stream synchronised, so it holds all of its own work.
// As in the GL benchmark, the parts are measured alone in the same run: the floor (the scene's kernels on
// plain cudaMalloc memory), the hand-off (the external semaphores' round trip alone, as GL's map + unmap)
// and the graphics (the Vulkan passes alone, no mode), and every mode is judged against their sum (x ref),
// against the bare loop (x bare: the external frame written with raw CUDA calls and nothing of the app,
// app/vulkan/app/bench_bare.hpp: what the app's own layers cost; the exported rows against the exported bare
// loop, CUDA's memory from raw cuMem* calls; the buffer row against the buffer bare loop, the images in
// storage buffers) and against the external (timeline) frame of the
// same scene and size (x external: what copying through host memory costs next to sharing the memory).
// Beside them, where the external mode is measured, the throughput rows (app/vulkan/app/bench_throughput.hpp:
// the external frame with raw calls, frames in flight and K frames per hand-off) of each scene and size.
// Which rows there are, and what judges each, is bench_rows.hpp's table. The ratios, the table, the JSON and
// the chart are app/bench's, the same as GL's.
#include "app/vulkan/app/bench.hpp"

#include "app/bench/report.hpp"

#include "app/cli/remedy.hpp"
#include "app/core/text.hpp"
#include "app/image/image_io.hpp"
#include "app/timing/bench_timing.hpp"
#include "app/timing/statistics.hpp"
#include "app/vulkan/app/app.hpp"
#include "app/vulkan/app/bench_bare.hpp"
#include "app/vulkan/app/bench_rows.hpp"
#include "app/vulkan/app/bench_throughput.hpp"
#include "interop/error.hpp"
#include "interop/memory.hpp"
#include "interop/stream.hpp"
#include "kernels/common.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace lab::vulkan {

namespace {

// A line of bench::SkipNotes, where it has something new to say.
void say(const std::string& note) {
  if (!note.empty()) std::fprintf(stderr, "bench: %s\n", note.c_str());
}

// A row of the table: the median and p90 of `wall`, one measured frame's time each.
bench::Result summarize(SceneId scene, const char* path, bench::Role role, Extent extent,
                        const std::vector<double>& wall) {
  bench::Result result;
  result.api = "vulkan";
  result.scene = to_string(scene);
  result.path = path;
  result.role = role;
  result.width = extent.width;
  result.height = extent.height;
  result.frames = static_cast<long long>(wall.size());
  result.median_ms = median(wall);
  result.p90_ms = percentile(wall, 0.9);
  return result;
}

// Whether CUDA has a device: the floor, the hand-off and the bare loops need one.
bool has_cuda_device() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) return true;
  cudaGetLastError();  // the failed probe leaves its error for the next call
  return false;
}

// The scene's kernels alone on cudaMalloc memory of its resources' sizes, each frame waited for.
std::vector<double> time_floor(const Options& options, SceneId scene, Extent extent) {
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

// The parts alone at one scene and size: the kernels (floor), the hand-off (the semaphores' round trip) and
// the Vulkan passes (graphics: graphics_app's passes, its mode asked for no more frames). No floor and no
// hand-off without a CUDA device (`cuda`), and then none announced.
void measure_parts(const Options& options, SceneId scene, Extent extent, bool cuda,
                   std::vector<bench::Result>& results, bench::SkipNotes& skips) {
  std::fprintf(stderr, "bench: vulkan %s %dx%d %s\n", to_string(scene), extent.width, extent.height,
               cuda ? "floor, hand-off and graphics" : "graphics");
  if (cuda) {
    results.push_back(
        summarize(scene, "floor", bench::Role::Floor, extent, time_floor(options, scene, extent)));
    try {
      results.push_back(summarize(scene, "hand-off", bench::Role::Handoff, extent, time_handoff(options)));
    } catch (const std::runtime_error& error) {
      say(skips.note("hand-off", std::string(error.what()) + " (so is x ref, which needs it)"));
    }
  }
  const std::unique_ptr<App> app = graphics_app(options, scene, extent);
  const std::vector<double> wall = time_frames(options.bench_frames, [&](long long index) {
    app->render_graphics_only(index);
    app->finish();
  });
  results.push_back(summarize(scene, "graphics", bench::Role::Graphics, extent, wall));
}

// Each sharing mode's own bare loop (bench_rows.hpp): external's (what the copying modes are judged against
// too), exported's (CUDA's memory from raw cuMem* calls) and buffer's (the images in storage buffers), each
// where a mode measured here is judged by it.
void measure_bare_loops(const Options& options, SceneId scene, Extent extent,
                        std::vector<bench::Result>& results, bench::SkipNotes& skips) {
  for (const BareRow& bare : bare_rows()) {
    if (!asks_for(options, bare)) continue;
    const char* label = bare.path;
    std::fprintf(stderr, "bench: vulkan %s %dx%d %s loop\n", to_string(scene), extent.width, extent.height,
                 label);
    try {
      const std::vector<double> wall = time_bare_loop(options, scene, extent, nullptr, bare.loop);
      results.push_back(summarize(scene, label, bench::Role::Bare, extent, wall));
    } catch (const std::runtime_error& error) {
      say(skips.note(std::string(label) + " loop", error.what()));
    }
  }
}

// create_mode's "--mode staging is unavailable: no CUDA device" without its first words, which differ from
// mode to mode where the reason does not: the skip's line names the row already.
std::string skip_reason(const BenchRow& row, const std::string& error) {
  const std::string refusal = std::string("--mode ") + to_string(row.mode) + " is unavailable: ";
  return error.rfind(refusal, 0) == 0 ? error.substr(refusal.size()) : error;
}

// Every row of bench_rows() that --mode asks for and that runs here, each in an app of its own, timing off;
// a row announced only where its app could be made, and why it is skipped said once (bench::SkipNotes).
void measure_modes(const Options& options, SceneId scene, Extent extent, std::vector<bench::Result>& results,
                   bench::SkipNotes& skips) {
  for (const BenchRow& c : bench_rows()) {
    if (!asks_for(options, c)) continue;
    Options run = options;
    run.headless = true;
    run.scene = scene;
    run.mode = c.mode;
    run.semaphores = c.semaphores;
    run.width = extent.width;
    run.height = extent.height;
    std::optional<App> app;
    try {
      app.emplace(run);
      app->set_timing(false);  // wall time of the frame alone, as the GL benchmark's modes
    } catch (const std::runtime_error& error) {
      say(skips.note(c.path, skip_reason(c, error.what())));
      continue;
    }
    std::fprintf(stderr, "bench: vulkan %s %dx%d %s\n", to_string(scene), extent.width, extent.height,
                 c.path);
    const std::vector<double> wall = time_frames(options.bench_frames, [&](long long index) {
      app->render_frame(index);
      app->finish();
    });
    bench::Result result = summarize(scene, c.path, bench::Role::Mode, extent, wall);
    // The cpu mode runs no kernel on the GPU: neither the parts nor a bare loop describe it. The sharing
    // modes are judged against their own bare loops, the copying ones against external's; every mode
    // against the external (timeline) frame (x external: what copying costs next to sharing).
    result.judged_by_reference = c.judged_by_reference;
    result.bare_path = c.bare_path;
    result.external_path = bench_rows().front().path;
    results.push_back(std::move(result));
  }
}

// The throughput rows, as GL's benchmark plans them (bench::plan_throughput): asked for by no --mode or
// --mode external, measured where CUDA has the device; a failure of the first measurement (a Vulkan driver
// without semaphore export) skips the rest for the same reason.
class ThroughputRows {
 public:
  explicit ThroughputRows(const Options& options) : m_options(options) {
    const interop::CudaDevices cuda = probe_cuda_devices();
    const std::string unavailable = cuda.devices.empty() ? no_cuda_device_reason(cuda.error)
                                                         : device_refusal(options.device.value_or(0), cuda);
    const bench::ThroughputPlan plan = bench::plan_throughput(asks_for_throughput(options), unavailable);
    m_forms = plan.forms;
    m_skipped = plan.skipped;
  }

  void measure(SceneId scene, Extent extent) {
    if (m_forms.empty()) return;
    std::fprintf(stderr,
                 "bench: vulkan %s %dx%d throughput (external: frames in flight, K frames per hand-off)\n",
                 to_string(scene), extent.width, extent.height);
    try {
      for (bench::Throughput& row : measure_throughput(m_options, scene, extent, m_forms))
        m_rows.push_back(std::move(row));
    } catch (const std::runtime_error& error) {
      std::fprintf(stderr, "bench: throughput skipped: %s\n", error.what());
      m_skipped = error.what();
      m_forms.clear();
    }
  }

  // Into the report: the rows, or why there are none.
  void fill(bench::Report& report) const {
    report.throughput = m_rows;
    report.throughput_skipped = m_rows.empty() ? m_skipped : "";
  }

 private:
  const Options& m_options;
  std::vector<bench::ThroughputForm> m_forms;
  std::string m_skipped;
  std::vector<bench::Throughput> m_rows;
};

// Each case of `runs` (the same cases, run after run; a case a run skipped is combined from the others),
// combined over the runs in the order the first run that has it measured it.
std::vector<bench::Result> combine_turns(std::vector<std::vector<bench::Result>> runs) {
  std::vector<std::vector<bench::Result>> cases;  // each case's runs, in the order first measured
  for (std::vector<bench::Result>& run : runs)
    for (bench::Result& result : run) {
      auto of_case = std::find_if(
          cases.begin(), cases.end(),
          [&](const std::vector<bench::Result>& measured) { return measured.front().path == result.path; });
      if (of_case == cases.end()) of_case = cases.insert(cases.end(), std::vector<bench::Result>{});
      of_case->push_back(std::move(result));
    }
  std::vector<bench::Result> combined;
  for (std::vector<bench::Result>& of_case : cases)
    combined.push_back(bench::combine_runs(std::move(of_case)));
  return combined;
}

// The table on stdout, --json and --chart: app/bench's writers, as GL's benchmark's.
void report(const Options& options, const std::vector<BenchSize>& sizes,
            const std::vector<std::string>& scenes, std::vector<bench::Result> results,
            const ThroughputRows& throughput) {
  bench::Report report;
  report.results = std::move(results);
  report.repeat = options.bench_repeat > 1;
  throughput.fill(report);
  std::fputs(bench::format_table(report).c_str(), stdout);
  std::fputs(bench::format_throughput(report).c_str(), stdout);
  std::fflush(stdout);
  if (!options.json.empty())
    write_text_file(options.json, nlohmann::json{{"cases", bench::cases_json(report)},
                                                 {"throughput", bench::throughput_json(report)}}
                                          .dump(2) +
                                      "\n");
  if (!options.chart.empty()) {
    std::vector<std::pair<int, int>> chart_sizes;
    for (const BenchSize& size : sizes) chart_sizes.emplace_back(size.width, size.height);
    std::vector<std::string> paths = {"floor"};
    for (const BareRow& bare : bare_rows()) paths.emplace_back(bare.path);
    for (const BenchRow& c : bench_rows()) paths.emplace_back(c.path);
    write_text_file(options.chart, bench::svg_chart(report.results, chart_sizes, scenes, paths,
                                                    "interop-lab --bench --api vulkan"));
  }
}

}  // namespace

std::unique_ptr<App> graphics_app(const Options& options, SceneId scene, Extent extent) {
  Options graphics_run = options;
  graphics_run.headless = true;
  graphics_run.scene = scene;
  graphics_run.mode = graphics_only_mode();
  graphics_run.width = extent.width;
  graphics_run.height = extent.height;
  auto app = std::make_unique<App>(graphics_run);
  app->set_timing(false);
  // One frame of the mode first, as GL's graphics row draws after its parking frame: it fills what the
  // passes read (the wave's vertex buffer) with a real frame. Without it the wave's mesh was all at the
  // origin and its draw shaded no pixel (graphics 1.31 ms on an H200 at 4K, where the external frame, which
  // shades the whole screen, sat 0.6 ms over floor + hand-off + graphics).
  app->render_frame(0);
  app->finish();
  return app;
}

int run_bench(const Options& options) {
  const WithoutValidationLayer without_validation;
  if (WithoutValidationLayer::layer_installed()) std::fprintf(stderr, "bench: %s\n", kWithoutValidationNote);
  const std::vector<BenchSize> sizes = options.bench_sizes.empty()
                                           ? std::vector<BenchSize>{{1280, 720}, {1920, 1080}, {3840, 2160}}
                                           : options.bench_sizes;
  std::vector<bench::Result> results;
  std::vector<std::string> scenes;
  ThroughputRows throughput(options);
  const bool cuda = has_cuda_device();
  bench::SkipNotes skips;
  for (const SceneId scene : all_scenes()) {
    if (options.bench_scene && *options.bench_scene != scene) continue;
    scenes.emplace_back(to_string(scene));
    for (const BenchSize& size : sizes) {
      const Extent extent{size.width, size.height};
      // --bench-repeat: the parts, the bare loops and the modes again, in turns (loops, modes, loops,
      // modes, ...), so that a drift of the host reaches a mode and the loop it is judged by alike; each
      // case is then the median of its runs' medians (bench::combine_runs).
      std::vector<std::vector<bench::Result>> runs;
      for (int run = 0; run < options.bench_repeat; ++run) {
        if (options.bench_repeat > 1)
          std::fprintf(stderr, "bench: vulkan %s %dx%d run %d of %d\n", to_string(scene), extent.width,
                       extent.height, run + 1, options.bench_repeat);
        std::vector<bench::Result>& measured = runs.emplace_back();
        measure_parts(options, scene, extent, cuda, measured, skips);
        if (cuda) measure_bare_loops(options, scene, extent, measured, skips);
        measure_modes(options, scene, extent, measured, skips);
      }
      for (bench::Result& combined : combine_turns(std::move(runs))) results.push_back(std::move(combined));
      throughput.measure(scene, extent);
    }
  }
  report(options, sizes, scenes, std::move(results), throughput);
  return 0;
}

}  // namespace lab::vulkan
