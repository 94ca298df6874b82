// app/gl/app/bench.cpp — `interop-lab --bench`. One headless App runs every available mode of every scene at
// every size (or the cases --scene, --mode and --size pick); each frame is timed end to end
// (render_frame + glFinish + stream sync, so every mode pays for all it queued) and per phase (CUDA
// events, GL timer queries). References measured in the same run, on the same GL objects: the floor
// (the scene's kernels writing plain cudaMalloc memory), the graphics (the GL work the frame needs,
// alone), the hand-off (map + unmap alone), and the bare loop (the minimal correct frame with raw CUDA
// calls: the scene's GL input -> map -> the same kernels -> unmap -> show). A mode is judged against
// floor + hand-off + graphics, against the bare loop, and against its own loop (bench_loops.hpp), which
// its row of the bench table names (bench_rows.hpp: what this file knows of each mode). Last, what per-phase
// timing costs with each choice of clocks, and 1, 4 and 16 textures of the same total size mapped one by one
// or in one call.
#include "app/gl/app/bench.hpp"

#include "app/bench/report.hpp"
#include "app/gl/app/bench_loops.hpp"
#include "app/gl/app/bench_rows.hpp"
#include "app/gl/app/bench_throughput.hpp"

#include "app/core/text.hpp"
#include "app/gl/app/app.hpp"
#include "app/gl/gl_external.hpp"
#include "app/gl/gl_objects.hpp"
#include "app/image/image_io.hpp"
#include "app/os/signals.hpp"
#include "app/timing/bench_timing.hpp"
#include "app/timing/statistics.hpp"
#include "app/vulkan/cuda_import.hpp"
#include "app/vulkan/device.hpp"
#include "interop/error.hpp"
#include "interop/gl.hpp"
#include "interop/memory.hpp"
#include "kernels/pattern.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace lab::gl {
namespace {

using Clock = std::chrono::steady_clock;

constexpr long long kDefaultFrames = 300;
constexpr long long kTimedFrames = 60;  // the pass with per-phase timing on
// The external modes' hand-off row: what their reference holds in place of map + unmap.
constexpr const char* kSemaphoreHandoff = "handoff (semaphores)";

const std::vector<BenchSize> kDefaultSizes = {{1280, 720}, {1920, 1080}, {3840, 2160}, {7680, 4320}};

// The mode whose frame the throughput rows and the timing cost measure (interop).
ModeId extras_mode() {
  for (const BenchRow& row : bench_rows())
    if (row.measures_extras) return row.mode;
  throw std::logic_error("the GL bench rows name no mode for the throughput rows and the timing cost");
}

// Whether the mode's own loop is measured beside it: it has one, and it can run here.
bool measures_own_loop(const BenchRow& row, bool cuda) {
  return (row.own_loop != nullptr || row.paired_loop != nullptr) && (!row.needs_cuda || cuda);
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Headless the offscreen target takes the size at once; a window gets it from the window system a few
// events later, or not at all when the screen is smaller.
void resize_and_wait(App& app, Extent extent) {
  app.resize(extent);
  const auto asked = Clock::now();
  while (app.platform().framebuffer_extent() != extent && seconds_since(asked) < 3.0)
    app.platform().poll_events();
  const Extent got = app.platform().framebuffer_extent();
  if (got != extent)
    throw std::runtime_error("--bench-window: the window could not be made " +
                             size_text(extent.width, extent.height) + " (it is " +
                             size_text(got.width, got.height) +
                             "): measure sizes that fit the screen, or run headless");
}

// The floor: the scene's own kernels (compute_cuda) on plain cudaMalloc memory of the same sizes,
// each frame waited for. No GL, no interop.
Measurement measure_floor(App& app, std::optional<long long> frames) {
  FrameSource& scene = app.scene();
  const cudaStream_t stream = app.cuda_stream();
  std::vector<interop::DeviceBuffer> memory;
  std::vector<CudaResourceView> views;
  for (const gl::Resource& spec : app.renderer().resources()) {
    memory.emplace_back(spec.desc.bytes);
    INTEROP_CUDA_CHECK(cudaMemsetAsync(memory.back().data(), 0, spec.desc.bytes, stream));
    views.push_back(linear_view(memory.back().data(), spec.desc));
  }
  const Extent extent = app.platform().framebuffer_extent();
  const std::vector<double> wall = time_frames(frames, [&](long long i) {
    scene.compute_cuda({i, kernels::time_of_frame(i), extent}, views, stream);
    INTEROP_CUDA_CHECK(cudaStreamSynchronize(stream));
  });
  return summarize("floor", bench::Role::Floor, wall);
}

// Whether a scene of draw plan `plan` has GL work of its own for the graphics row: the cubes its kernels
// read (postprocess) or a frame pass that draws (the wave mesh; in a window, every scene). A headless
// image scene has none: its image is the frame.
bool has_graphics_work(App& app, const DrawPlan& plan) {
  return plan.cubes_target >= 0 || app.renderer().draws_frame(plan);
}

// The GL work a frame cannot do without, alone (where has_graphics_work): the scene's own rendering of
// what the kernels read (postprocess: the cubes) and its draw or show pass (app.show: the wave mesh).
Measurement measure_graphics(App& app, std::optional<long long> frames) {
  const Extent extent = app.platform().framebuffer_extent();
  const std::vector<double> wall = time_frames(frames, [&](long long index) {
    const FrameInfo frame{index, kernels::time_of_frame(index), extent};
    draw_input(app, frame);
    app.show(frame);
    glFinish();
  });
  return summarize("graphics", bench::Role::Graphics, wall);
}

// The hand-off alone: map and unmap the scene's registered objects, no kernel, no GL work.
Measurement measure_handoff(App& app, std::optional<long long> frames) {
  RawRegistrations raw(app.renderer().resources(), app.cuda_stream());
  const std::vector<double> wall = time_frames(frames, [&](long long) {
    raw.map();
    raw.unmap();
    finish_frame(app);
  });
  return summarize("handoff", bench::Role::Handoff, wall);
}

// The external modes' hand-off alone, GL's own (as Vulkan's bench measures its): semaphores that a headless
// Vulkan device on the same GPU exports, imported by GL and CUDA as the external mode imports them; each
// frame GL signals "graphics done", CUDA waits for it and signals "CUDA done", and GL waits for that, with
// no kernel and no GL work, then GL and CUDA finish.
Measurement measure_semaphore_handoff(App& app, interop::SemaphoreKind kind,
                                      std::optional<long long> frames) {
  const vulkan::Uuid uuid = vulkan::cuda_device_uuid(app.cuda_device());
  // Declared in teardown order reversed: GL's imports go first, then CUDA's and Vulkan's semaphores, then the
  // device.
  std::unique_ptr<vulkan::Context> context =
      vulkan::on_own_thread([&uuid] { return std::make_unique<vulkan::Context>(&uuid); });
  // The device and instance go off GL's thread too, once all made from them is gone: destroyed on GL's,
  // they left it without its context, and every GL registration after this measurement failed.
  struct OffGlThread {
    std::unique_ptr<vulkan::Context>& context;
    ~OffGlThread() {
      vulkan::on_own_thread([this] {
        context.reset();
        return 0;
      });
    }
  } off_gl_thread{context};
  vulkan::CudaSemaphores semaphores(*context, kind);
  const bool timeline = kind == interop::SemaphoreKind::Timeline;
  std::vector<std::pair<VkSemaphore, GlSemaphore>> imported;
  imported.emplace_back(semaphores.graphics_done().get(),
                        import_semaphore_fd(semaphores.graphics_done().export_fd(), timeline));
  if (const vulkan::ExportableSemaphore* cuda_done = semaphores.cuda_done())
    imported.emplace_back(cuda_done->get(), import_semaphore_fd(cuda_done->export_fd(), timeline));
  const auto gl_of = [&](VkSemaphore semaphore) -> const GlSemaphore& {
    for (const auto& [vulkan_semaphore, gl] : imported)
      if (vulkan_semaphore == semaphore) return gl;
    throw std::logic_error("measure_semaphore_handoff: a semaphore GL never imported");
  };
  const cudaStream_t stream = app.cuda_stream();
  const std::vector<double> wall = time_frames(frames, [&](long long) {
    for (const vulkan::SemaphoreSignal& signal : semaphores.cubes_pass().signal)
      signal_semaphore(gl_of(signal.semaphore), signal.value, {}, {}, GL_LAYOUT_GENERAL_EXT);
    semaphores.cuda_acquire(stream);
    semaphores.cuda_release(stream);
    for (const vulkan::SemaphoreSignal& wait : semaphores.frame_pass(/*prepared=*/true).wait)
      wait_semaphore(gl_of(wait.semaphore), wait.value, {}, {}, GL_LAYOUT_GENERAL_EXT);
    finish_frame(app);
  });
  finish_frame(app);
  return summarize(kSemaphoreHandoff, bench::Role::Handoff, wall);
}

// The show pass alone, drawing an image scene's frame from its texture or from a buffer (the buffer mode's
// show), headless too (into the offscreen framebuffer, which a headless frame otherwise skips): what it
// costs to show an image from linear memory. The parking mode is attached while the image moves.
Measurement measure_show_pass(App& app, bool from_buffer, std::optional<long long> frames) {
  app.request_mode(parking_mode());
  app.render_frame();
  gl::Renderer& renderer = app.renderer();
  if (from_buffer) renderer.place_resources({nullptr, /*linear_images=*/true});
  const Extent extent = app.platform().framebuffer_extent();
  const std::vector<double> wall = time_frames(frames, [&](long long) {
    renderer.show_image(app.plan(), extent);
    glFinish();
  });
  if (from_buffer) renderer.place_resources({});
  return summarize(from_buffer ? "show buffer" : "show texture", bench::Role::Show, wall);
}

// The frame's own cost is measured with the app's timing off (events and timer queries cost GPU time
// of their own); a second, shorter pass with timing on gives the phases and what timing adds. With `own`, the
// mode's row has a paired loop (bench_loops.hpp): in the first pass a frame of the loop runs beside each of
// the mode's, in pairs that take turns going first (time_frame_pairs), and `own` receives the loop's row.
Measurement measure_mode(App& app, ModeId mode, std::optional<long long> frames, Measurement* own = nullptr) {
  app.request_mode(mode);
  app.render_frame();  // attaches the mode
  finish_frame(app);
  std::vector<double> host;
  const auto run = [&](long long i) {
    app.set_frame_index(i);
    const auto issued = std::chrono::steady_clock::now();
    app.render_frame();
    host.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - issued).count());
    finish_frame(app);
  };
  app.set_timing(false);
  std::vector<double> wall;
  if (own != nullptr) {
    const BenchRow& row = bench_row(mode);
    const LoopWork work = row.paired_loop(app);
    const Extent extent = app.platform().framebuffer_extent();
    std::vector<double> loop_wall;
    std::tie(wall, loop_wall) = time_frame_pairs(frames, run, [&](long long i) {
      own_frame(app, work, {i, kernels::time_of_frame(i), extent});
    });
    *own = summarize(row.own_path, bench::Role::Own, loop_wall);
  } else {
    wall = time_frames(frames, run);
  }
  const double host_median = median(host);
  app.set_timing(true);
  const std::vector<double> timed_wall = frames
                                             ? time_frames(std::min(kTimedFrames, *frames), run, kTimedFrames)
                                             : time_frames(std::nullopt, run, kTimedFrames);
  app.timers().flush();
  Measurement m = summarize(to_string(mode), bench::Role::Mode, wall);
  m.bare_path = "bare";
  m.own_path = bench_row(mode).own_path;
  if (uses_semaphores(mode)) m.handoff_path = kSemaphoreHandoff;
  m.timed_median_ms = median(timed_wall);
  m.host_median_ms = host_median;
  for (const Phase phase : all_phases()) {
    if (phase == Phase::Frame || !app.timers().has(static_cast<int>(mode), phase)) continue;
    const PhaseStats& stats = app.timers().stats(static_cast<int>(mode), phase);
    m.phases[to_string(phase)] = {stats.median_ms, stats.p90_ms};
  }
  return m;
}

// What per-phase timing costs an interop frame with each choice of clocks (TimingClocks), against the
// same frames with timing off, measured back to back.
struct TimingCost {
  std::string scene;
  std::string clocks;  // "off", "cuda + gl", ...
  double median_ms = 0.0;
};

std::vector<TimingCost> measure_timing_cost(App& app, std::optional<long long> frames) {
  struct Choice {
    const char* name;
    bool on;
    TimingClocks clocks;
  };
  const Choice choices[] = {
      {"off", false, {}},
      {"default: kernel events + gl queries, map on the host", true, TimingClocks{true, true, false}},
      {"map events + kernel events + gl queries", true, TimingClocks{true, true, true}},
      {"map events + kernel events", true, TimingClocks{true, false, true}},
      {"kernel events only", true, TimingClocks{true, false, false}},
      {"gl queries only", true, TimingClocks{false, true, false}},
  };
  std::vector<TimingCost> costs;
  app.request_mode(extras_mode());
  const TimingClocks before = app.timers().clocks();
  for (const Choice& choice : choices) {
    app.set_timing(choice.on);
    app.timers().set_clocks(choice.clocks);
    const std::vector<double> wall = time_frames(frames, [&](long long i) {
      app.set_frame_index(i);
      app.render_frame();
      finish_frame(app);
    });
    costs.push_back({app.source().name(), choice.name, median(wall)});
  }
  app.timers().set_clocks(before);
  app.set_timing(true);
  return costs;
}

struct ScalingResult {
  int textures = 0;
  bool one_call = false;
  double median_ms = 0.0, p90_ms = 0.0;
};

// n textures tiling width x height, written by the pattern kernel through surfaces; mapped in one
// cudaGraphicsMapResources call or one call each.
std::vector<ScalingResult> measure_scaling(App& app, int width, int height, std::optional<long long> frames,
                                           const std::function<void(const std::string&)>& progress) {
  std::vector<ScalingResult> results;
  const cudaStream_t stream = app.cuda_stream();
  for (const int tiles_per_side : {1, 2, 4}) {
    const int count = tiles_per_side * tiles_per_side;
    const int tile_width = width / tiles_per_side, tile_height = height / tiles_per_side;
    std::vector<GlTexture> textures;
    std::vector<interop::GlTextureRegistration> registrations;
    std::vector<cudaGraphicsResource_t> resources;
    for (int i = 0; i < count; ++i) {
      textures.push_back(create_texture_2d(GL_RGBA8, tile_width, tile_height));
      interop::TextureRegistrationDesc desc;
      desc.texture = textures.back().get();
      desc.internal_format = GL_RGBA8;
      desc.access = interop::Access::WriteDiscard;
      desc.surface_load_store = true;
      registrations.emplace_back(desc);
      resources.push_back(registrations.back().resource());
    }
    std::vector<cudaArray_t> arrays(resources.size(), nullptr);
    std::vector<cudaSurfaceObject_t> surfaces(resources.size(), 0);
    const auto write_tile = [&](size_t i, long long index) {
      cudaArray_t array = nullptr;
      INTEROP_CUDA_CHECK(cudaGraphicsSubResourceGetMappedArray(&array, resources[i], 0, 0));
      if (array != arrays[i]) {
        if (surfaces[i]) INTEROP_CUDA_CHECK(cudaDestroySurfaceObject(surfaces[i]));
        cudaResourceDesc resource{};
        resource.resType = cudaResourceTypeArray;
        resource.res.array.array = array;
        INTEROP_CUDA_CHECK(cudaCreateSurfaceObject(&surfaces[i], &resource));
        arrays[i] = array;
      }
      kernels::ImageTarget target;
      target.surface = surfaces[i];
      target.width = tile_width;
      target.height = tile_height;
      kernels::pattern_cuda(target, {tile_width, tile_height, kernels::time_of_frame(index)}, stream);
    };
    for (const bool one_call : {true, false}) {
      progress(std::to_string(count) + " texture(s), " + (one_call ? "one map call" : "one map call each"));
      const std::vector<double> wall = time_frames(frames, [&](long long index) {
        if (one_call) {
          INTEROP_CUDA_CHECK(cudaGraphicsMapResources(count, resources.data(), stream));
          for (size_t i = 0; i < resources.size(); ++i) write_tile(i, index);
          INTEROP_CUDA_CHECK(cudaGraphicsUnmapResources(count, resources.data(), stream));
        } else {
          for (size_t i = 0; i < resources.size(); ++i) {
            INTEROP_CUDA_CHECK(cudaGraphicsMapResources(1, &resources[i], stream));
            write_tile(i, index);
            INTEROP_CUDA_CHECK(cudaGraphicsUnmapResources(1, &resources[i], stream));
          }
        }
        glFinish();
      });
      results.push_back({count, one_call, median(wall), percentile(wall, 0.9)});
    }
    INTEROP_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (cudaSurfaceObject_t surface : surfaces)
      if (surface) INTEROP_CUDA_CHECK(cudaDestroySurfaceObject(surface));
  }
  return results;
}

std::string today() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

// The NVIDIA kernel module's version ("580.65.06") from /proc/driver/nvidia/version; "" elsewhere.
std::string nvidia_driver_version() {
  std::FILE* file = std::fopen("/proc/driver/nvidia/version", "r");
  if (file == nullptr) return "";
  char line[512] = {};
  const bool read = std::fgets(line, sizeof line, file) != nullptr;
  std::fclose(file);
  if (!read) return "";
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 ..." : the first word with dots.
  std::istringstream words(line);
  for (std::string word; words >> word;)
    if (word.find('.') != std::string::npos && std::isdigit(static_cast<unsigned char>(word[0]))) return word;
  return "";
}

// "1m 05s" / "12s": what the progress lines show as the time left.
std::string duration_text(double seconds) {
  const long whole = std::lround(std::max(0.0, seconds));
  char text[32];
  if (whole >= 60)
    std::snprintf(text, sizeof text, "%ldm %02lds", whole / 60, whole % 60);
  else
    std::snprintf(text, sizeof text, "%lds", whole);
  return text;
}

// What the run measures, decided before anything is: the sizes, scenes and modes, what is skipped and why,
// which references and extras the cases need, and how many steps the progress lines count.
struct Plan {
  std::vector<BenchSize> sizes;
  std::vector<SceneId> scenes;
  std::vector<ModeId> modes;
  nlohmann::json skipped = nlohmann::json::array();
  bool cuda = false;
  bool wants_floor = false;
  bool wants_interop_references = false;
  bool wants_extras = false;  // the timing cost and the hand-off scaling: the full run's
  bool wants_show_passes = false;
  bool wants_throughput = false;         // frames in flight and K frames per hand-off, for the interop mode
  bool wants_semaphore_handoff = false;  // the external modes' hand-off alone
  BenchSize timing_size;  // where the timing cost is measured: 3840x2160 when asked for, else the largest
  int scaling_width = 0, scaling_height = 0;
  size_t total = 0;  // the progress lines' steps
};

Plan plan_bench(const Options& options, App& app) {
  Plan plan;
  plan.sizes = options.bench_sizes.empty() ? kDefaultSizes : options.bench_sizes;
  plan.scenes = options.bench_scene ? std::vector<SceneId>{*options.bench_scene} : all_scenes();
  for (const ModeId mode : all_modes()) {
    if (options.mode && mode != *options.mode) continue;
    ModeAvailability availability = app.availability(mode);
    // eglstream runs the image scenes alone: judged by the GL context here, by the scene in the loop below.
    const BenchRow& row = bench_row(mode);
    if (row.context_availability && !options.mode && app.cuda_device() >= 0)
      availability = row.context_availability();
    if (availability.available) {
      plan.modes.push_back(mode);
    } else if (options.mode) {
      throw std::runtime_error(std::string("--mode ") + to_string(mode) +
                               " is unavailable: " + availability.reason);
    } else {
      plan.skipped.push_back({{"path", to_string(mode)}, {"reason", availability.reason}});
    }
  }
  // Each reason once, with the modes it rules out ("skipping interop, pbo and staging: no CUDA device").
  std::vector<std::pair<std::string, std::vector<std::string>>> reasons;
  for (const nlohmann::json& skip : plan.skipped) {
    const std::string reason = skip["reason"].get<std::string>();
    auto at = std::find_if(reasons.begin(), reasons.end(),
                           [&](const auto& entry) { return entry.first == reason; });
    if (at == reasons.end()) at = reasons.insert(reasons.end(), {reason, {}});
    at->second.push_back(skip["path"].get<std::string>());
  }
  for (const auto& [reason, paths] : reasons) {
    std::string names;
    for (size_t i = 0; i < paths.size(); ++i)
      names += (i == 0 ? "" : i + 1 == paths.size() ? " and " : ", ") + paths[i];
    std::fprintf(stderr, "bench: skipping %s: %s\n", names.c_str(), reason.c_str());
  }
  plan.cuda = app.cuda_device() >= 0;
  const bool interop = app.interop_support().usable;
  // With --mode, only that mode's references: the floor for any CUDA mode, the interop ones for a mode
  // that maps GL objects. The hand-off scaling and the timing cost belong to the full run.
  const bool one_mode = options.mode.has_value();
  plan.wants_floor = plan.cuda && (!one_mode || bench_row(*options.mode).needs_cuda);
  plan.wants_interop_references = interop && (!one_mode || bench_row(*options.mode).maps_gl_objects);
  plan.wants_extras = interop && !one_mode && !options.bench_scene;
  const auto asked = [&plan](bool BenchRow::*flag) {
    return std::any_of(plan.modes.begin(), plan.modes.end(),
                       [flag](ModeId mode) { return bench_row(mode).*flag; });
  };
  plan.wants_throughput = asked(&BenchRow::measures_extras);
  plan.wants_semaphore_handoff = std::any_of(plan.modes.begin(), plan.modes.end(), uses_semaphores);
  if (!plan.cuda) plan.skipped.push_back({{"path", "floor"}, {"reason", "no CUDA device"}});
  if (!interop)
    for (const char* path : {"handoff", "bare", "scaling", "timing cost", "throughput"})
      plan.skipped.push_back({{"path", path}, {"reason", app.interop_support().reason}});

  const size_t graph_forms =
      plan.cuda ? static_cast<size_t>(std::count_if(plan.modes.begin(), plan.modes.end(), has_graph_form))
                : 0;
  // A mode and its own loop, taking turns, are one step; the graphics row one where the scene has GL work.
  const size_t per_size = plan.modes.size() + graph_forms + (plan.wants_floor ? 1 : 0) +
                          (plan.wants_interop_references ? 2 : 0) + (plan.wants_semaphore_handoff ? 1 : 0);
  const size_t graphics_scenes =
      static_cast<size_t>(std::count_if(plan.scenes.begin(), plan.scenes.end(), [&app](SceneId scene) {
        return has_graphics_work(app, create_scene_compute(scene, kernels::Filter::Sobel)->draw_plan());
      }));
  // The show pass from a texture and from a buffer, for each image scene at each size.
  plan.wants_show_passes = plan.cuda && asked(&BenchRow::asks_show_passes);
  const size_t image_scenes =
      static_cast<size_t>(std::count_if(plan.scenes.begin(), plan.scenes.end(), [](SceneId scene) {
        return create_scene_compute(scene, kernels::Filter::Sobel)->draw_plan().draw == SceneDraw::ShowImage;
      }));
  plan.total = plan.scenes.size() * plan.sizes.size() * per_size + graphics_scenes * plan.sizes.size() +
               (plan.wants_extras ? 6 + plan.scenes.size() : 0) +
               (plan.wants_show_passes ? image_scenes * plan.sizes.size() : 0) +
               (plan.wants_throughput ? plan.sizes.size() : 0);

  plan.timing_size = plan.sizes.front();
  int largest_width = 0, largest_height = 0;
  for (const BenchSize& size : plan.sizes) {
    if (size.width * size.height > plan.timing_size.width * plan.timing_size.height) plan.timing_size = size;
    largest_width = std::max(largest_width, size.width);
    largest_height = std::max(largest_height, size.height);
  }
  for (const BenchSize& size : plan.sizes)
    if (size.width == 3840 && size.height == 2160) plan.timing_size = size;
  plan.scaling_width = std::min(largest_width, 3840);
  plan.scaling_height = std::min(largest_height, 2160);
  return plan;
}

// What the run measured.
struct Measured {
  std::vector<Measurement> results;
  std::vector<bench::Throughput> throughput;
  std::vector<TimingCost> timing_costs;
  std::vector<ScalingResult> scaling;
  // The modes a scene refuses ({path, scene, reason}), once a scene: none of their rows are in that scene.
  nlohmann::json refused_in_scene = nlohmann::json::array();
};

// "bench [3/12] pattern 64x64 cpu (about 20s left)": the estimate assumes the cases left take as long
// as those done, on average (they grow with the size, so early estimates run short).
class Progress {
 public:
  Progress(size_t total, int repeat) : m_total(total), m_repeat(repeat) {}
  void operator()(const std::string& what) {
    std::string left;
    if (m_done > 0)
      left = " (about " +
             duration_text(seconds_since(m_started) / static_cast<double>(m_done) *
                           static_cast<double>(m_total - std::min(m_done, m_total))) +
             " left)";
    ++m_done;
    const std::string runs = m_repeat > 1 ? " x" + std::to_string(m_repeat) : "";
    std::fprintf(stderr, "bench [%zu/%zu] %s%s%s\n", m_done, m_total, what.c_str(), runs.c_str(),
                 left.c_str());
  }

 private:
  size_t m_total;
  int m_repeat;
  size_t m_done = 0;
  Clock::time_point m_started = Clock::now();
};

Measured measure_cases(const Options& options, const Plan& plan, App& app) {
  Progress progress(plan.total, options.bench_repeat);
  // Each case measured --bench-repeat times, back to back.
  const auto repeated = [&](const std::function<Measurement()>& measure) {
    std::vector<Measurement> runs;
    for (int run = 0; run < options.bench_repeat; ++run) runs.push_back(measure());
    return bench::combine_runs(std::move(runs));
  };
  Measured measured;
  for (const SceneId scene : plan.scenes) {
    app.request_scene(scene);
    for (const BenchSize& size : plan.sizes) {
      resize_and_wait(app, {size.width, size.height});
      park(app);  // the scene at this size, its resources re-created
      const auto record = [&](Measurement m) {
        m.scene = to_string(scene);
        m.width = size.width;
        m.height = size.height;
        if (m.frames == 0) return;  // nothing measured
        std::string spread;
        if (m.runs > 1) {
          char text[80];
          std::snprintf(text, sizeof text, ", %d runs %.3f-%.3f ms", m.runs, m.min_median_ms,
                        m.max_median_ms);
          spread = text;
        }
        std::fprintf(stderr, "      %s %s %-10s median %.3f ms, p90 %.3f ms (%lld frames%s)\n",
                     m.scene.c_str(), size_text(m.width, m.height).c_str(), m.path.c_str(), m.median_ms,
                     m.p90_ms, m.frames, spread.c_str());
        measured.results.push_back(std::move(m));
      };
      const std::string where =
          std::string(to_string(scene)) + " " + size_text(size.width, size.height) + " ";
      if (plan.wants_floor) {
        progress(where + "floor (kernels alone)");
        record(repeated([&] { return measure_floor(app, options.bench_frames); }));
      }
      // Announced only where it is measured: a headless image scene has no GL work of its own.
      if (has_graphics_work(app, app.plan())) {
        progress(where + "graphics (GL work alone)");
        record(repeated([&] { return measure_graphics(app, options.bench_frames); }));
      }
      if (plan.wants_interop_references) {
        progress(where + "hand-off (map + unmap alone)");
        record(repeated([&] { return measure_handoff(app, options.bench_frames); }));
        progress(where + "bare loop");
        record(repeated([&] { return measure_bare_loop(app, options.bench_frames); }));
      }
      if (plan.wants_semaphore_handoff) {
        progress(where + "hand-off (the external modes' semaphores alone)");
        record(repeated(
            [&] { return measure_semaphore_handoff(app, options.semaphores, options.bench_frames); }));
      }
      if (plan.wants_show_passes && app.plan().draw == SceneDraw::ShowImage) {
        progress(where + "show pass from a texture and from a buffer");
        record(repeated([&] { return measure_show_pass(app, false, options.bench_frames); }));
        record(repeated([&] { return measure_show_pass(app, true, options.bench_frames); }));
      }
      for (const ModeId mode : plan.modes) {
        // A mode that cannot run this scene (eglstream carries images alone; GL's exported refuses the
        // postprocess scene) is left out of it, saying why, as the app refuses it.
        const BenchRow& row = bench_row(mode);
        if (const ModeAvailability here = app.availability(mode); !here.available) {
          if (&size == &plan.sizes.front())
            measured.refused_in_scene.push_back(
                {{"path", to_string(mode)}, {"scene", to_string(scene)}, {"reason", here.reason}});
          if (!row.context_availability)  // eglstream's image-only rule: said once in the plan
            std::fprintf(stderr, "      %s skips %s: %s\n", where.c_str(), to_string(mode),
                         here.reason.c_str());
          continue;
        }
        if (measures_own_loop(row, plan.cuda)) {
          // The mode and its own loop take turns, frame by frame where the loop can run beside the mode, else
          // run by run: what drifts on the host (clocks, memory placement, other work, the driver's state)
          // then reaches both alike, and x own compares frames, or runs, of the same moment.
          progress(where + to_string(mode) +
                   (row.paired_loop ? " beside its own reference loop, frame by frame"
                                    : " and its own reference loop, in turns"));
          std::vector<Measurement> own_runs, mode_runs;
          for (int run = 0; run < options.bench_repeat; ++run) {
            if (row.paired_loop) {
              Measurement own;
              mode_runs.push_back(measure_mode(app, mode, options.bench_frames, &own));
              own_runs.push_back(std::move(own));
              continue;
            }
            if (std::optional<Measurement> own = row.own_loop(app, options.bench_frames))
              own_runs.push_back(std::move(*own));
            mode_runs.push_back(measure_mode(app, mode, options.bench_frames));
          }
          if (!own_runs.empty()) record(bench::combine_runs(std::move(own_runs)));
          record(bench::combine_runs(std::move(mode_runs)));
        } else {
          progress(where + to_string(mode));
          record(repeated([&] { return measure_mode(app, mode, options.bench_frames); }));
        }
        if (plan.cuda && has_graph_form(mode)) {
          progress(where + to_string(mode) + " as a CUDA graph (--graph)");
          record(repeated([&] {
            app.request_graph(true);
            Measurement graph = measure_mode(app, mode, options.bench_frames);
            app.request_graph(false);
            graph.path += " graph";
            graph.own_path.clear();  // judged by the mode's references, not a loop of its own
            return graph;
          }));
        }
      }
      // Once a size: the rows run the pattern kernel on textures of their own, whatever the scene.
      if (plan.wants_throughput && scene == plan.scenes.front()) {
        progress(size_text(size.width, size.height) +
                 " throughput (interop: frames in flight, K frames per hand-off)");
        for (bench::Throughput& row : measure_throughput(app, options.bench_frames)) {
          row.scene = to_string(SceneId::Pattern);
          measured.throughput.push_back(std::move(row));
        }
        park(app);
      }
      if (plan.wants_extras && size.width == plan.timing_size.width &&
          size.height == plan.timing_size.height) {
        progress(where + "timing cost (interop, each choice of clocks)");
        for (TimingCost& cost : measure_timing_cost(app, options.bench_frames))
          measured.timing_costs.push_back(cost);
      }
    }
  }
  app.request_mode(parking_mode());
  app.render_frame();
  if (plan.wants_extras)
    measured.scaling = measure_scaling(app, plan.scaling_width, plan.scaling_height, options.bench_frames,
                                       [&](const std::string& what) { progress("scaling " + what); });
  return measured;
}

// GL's own sections under the table: what per-phase timing costs, and the hand-off's scaling.
nlohmann::json print_timing_cost(const Plan& plan, const std::vector<TimingCost>& costs) {
  nlohmann::json rows = nlohmann::json::array();
  if (costs.empty()) return rows;
  std::printf("\nper-phase timing cost, interop at %s, median ms per frame (x: against timing off)\n",
              size_text(plan.timing_size.width, plan.timing_size.height).c_str());
  double off_ms = 0.0;
  for (const TimingCost& cost : costs) {
    if (cost.clocks == "off") off_ms = cost.median_ms;
    const double ratio = off_ms > 0 ? cost.median_ms / off_ms : 0.0;
    std::printf("  %-12s %-55s %8.3f ms  x%.3f\n", cost.scene.c_str(), cost.clocks.c_str(), cost.median_ms,
                ratio);
    rows.push_back({{"scene", cost.scene},
                    {"width", plan.timing_size.width},
                    {"height", plan.timing_size.height},
                    {"clocks", cost.clocks},
                    {"median_ms", cost.median_ms},
                    {"ratio_to_timing_off", ratio}});
  }
  return rows;
}

nlohmann::json print_scaling(const Plan& plan, const std::vector<ScalingResult>& scaling) {
  nlohmann::json rows = nlohmann::json::array();
  if (scaling.empty()) return rows;
  std::printf("\nhand-off scaling: %s in 1, 4 or 16 textures, pattern kernel, median ms per frame\n",
              size_text(plan.scaling_width, plan.scaling_height).c_str());
  for (const ScalingResult& s : scaling) {
    std::printf("  %2d texture(s), %-18s %8.3f ms (p90 %.3f)\n", s.textures,
                s.one_call ? "one map call:" : "one call each:", s.median_ms, s.p90_ms);
    rows.push_back({{"textures", s.textures},
                    {"map", s.one_call ? "one call" : "one call each"},
                    {"median_ms", s.median_ms},
                    {"p90_ms", s.p90_ms}});
  }
  return rows;
}

// The machine the run measured, and its line under the tables.
nlohmann::json machine_of(App& app) {
  const interop::CudaDevices& devices = app.cuda_devices();
  nlohmann::json machine = {{"gl_renderer", gl_string(GL_RENDERER)},
                            {"gl_version", gl_string(GL_VERSION)},
                            {"platform", app.platform().description()},
                            {"cuda_driver", cuda_version_text(devices.driver_version)},
                            {"cuda_runtime", cuda_version_text(devices.runtime_version)},
                            {"nvidia_driver", nvidia_driver_version()},
                            {"date", today()}};
  if (app.cuda_device() >= 0) machine["gpu"] = devices.devices[static_cast<size_t>(app.cuda_device())].name;
  return machine;
}

std::string method_text() {
  std::string paired_modes;
  for (const BenchRow& row : bench_rows())
    if (row.paired_loop != nullptr)
      paired_modes += (paired_modes.empty() ? "" : ", ") + std::string(to_string(row.mode));
  return "wall time per frame = render_frame + glFinish + cudaStreamSynchronize with per-phase timing off "
         "(floor: kernels + stream sync; graphics: the scene's GL work alone; handoff: map + unmap alone, "
         "and "
         "for the external modes the semaphores' round trip alone; "
         "bare: the minimal loop with raw CUDA calls; '<mode> ref': the mode's own loop with raw calls, its "
         "frames paired with the mode's where it can run beside it (" +
         paired_modes +
         ": one frame each, the order swapped every pair), else run by run in turns); "
         "reference_ms = floor + handoff + graphics; phases: a "
         "second pass of up to " +
         std::to_string(kTimedFrames) +
         " frames (or --bench-frames, if fewer; "
         "without --bench-frames a slow case stops after " +
         std::to_string(static_cast<int>(kBenchCaseSeconds)) + " s once " + std::to_string(kMinBenchFrames) +
         " frames are in) with CUDA events / GL timer queries on, "
         "medians (interpolated between the two middle frames, app/timing/statistics.hpp); throughput: "
         "raw map/unmap frames of the scene's size, ms per frame = the wall time of all frames, finished, "
         "over their count, with N frames in flight (fences N frames back, textures N-buffered) or K frames "
         "per hand-off (one map of K textures)";
}

}  // namespace

int run_bench(const Options& options) {
  // The external modes' memory and semaphores, and their own loops', come from Vulkan contexts.
  const vulkan::WithoutValidationLayer without_validation;
  if (vulkan::WithoutValidationLayer::layer_installed())
    std::fprintf(stderr, "bench: %s\n", vulkan::kWithoutValidationNote);
  Options app_options = options;
  app_options.headless = !options.bench_window;
  app_options.no_ui = true;
  app_options.mode = parking_mode();
  app_options.frames = 1;  // animation time from the frame index
  app_options.scene = options.bench_scene.value_or(all_scenes().front());
  const BenchSize first = options.bench_sizes.empty() ? kDefaultSizes.front() : options.bench_sizes.front();
  app_options.width = first.width;
  app_options.height = first.height;
  App app(app_options);

  const Plan plan = plan_bench(options, app);
  const Measured measured = measure_cases(options, plan, app);

  bench::Report report;
  report.results = measured.results;
  report.throughput = measured.throughput;
  if (!plan.wants_throughput)
    report.throughput_skipped = app.interop_support().usable ? "" : app.interop_support().reason;
  report.repeat = options.bench_repeat > 1;
  std::fputs(bench::format_table(report).c_str(), stdout);
  std::fputs(bench::format_throughput(report).c_str(), stdout);
  const nlohmann::json timing_json = print_timing_cost(plan, measured.timing_costs);
  const nlohmann::json scaling_json = print_scaling(plan, measured.scaling);

  const nlohmann::json machine = machine_of(app);
  const interop::CudaDevices& devices = app.cuda_devices();
  const std::string gpu_name =
      machine.contains("gpu") ? machine["gpu"].get<std::string>() : gl_string(GL_RENDERER);
  const std::string nvidia = machine["nvidia_driver"].get<std::string>();
  const std::string driver = devices.driver_version > 0
                                 ? "driver supports CUDA " + cuda_version_text(devices.driver_version)
                                 : std::string("no CUDA driver");
  std::printf("\n%s, GL %s, CUDA %s (runtime), %s%s, %s\n", gpu_name.c_str(), gl_string(GL_VERSION).c_str(),
              cuda_version_text(devices.runtime_version).c_str(), driver.c_str(),
              nvidia.empty() ? "" : (", NVIDIA driver " + nvidia).c_str(),
              machine["date"].get<std::string>().c_str());

  if (!options.json.empty()) {
    const nlohmann::json document = {{"machine", machine},
                                     {"cases", bench::cases_json(report)},
                                     {"throughput", bench::throughput_json(report)},
                                     {"timing_cost", timing_json},
                                     {"scaling", scaling_json},
                                     {"skipped", plan.skipped},
                                     {"refused_in_scene", measured.refused_in_scene},
                                     {"method", method_text()}};
    write_text_file(options.json, document.dump(2) + "\n");
    std::fprintf(stderr, "bench: wrote %s\n", options.json.c_str());
  }
  if (!options.chart.empty()) {
    std::vector<std::pair<int, int>> sizes;
    for (const BenchSize& size : plan.sizes) sizes.emplace_back(size.width, size.height);
    std::vector<std::string> scenes;
    for (const SceneId scene : plan.scenes) scenes.emplace_back(to_string(scene));
    const std::vector<std::string> paths = {"floor", "bare",  "interop", "reregister",
                                            "pbo",   "split", "staging", "cpu"};
    write_text_file(options.chart, bench::svg_chart(measured.results, sizes, scenes, paths,
                                                    "interop-lab --bench: " + gpu_name + ", " + today()));
    std::fprintf(stderr, "bench: wrote %s\n", options.chart.c_str());
  }
  return 0;
}

}  // namespace lab::gl
