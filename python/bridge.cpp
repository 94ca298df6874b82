// python/bridge.cpp — the C ABI of the Python package (python/interop_lab): one headless interop-lab
// context with a scene, whose GL objects Python code writes between map and unmap. A C ABI, loaded with
// ctypes, keeps the package independent of the Python version: the same shared library serves
// Debian's Python 3.11 and a GPU server's 3.12.
//
// Every function returns 0 on success, or -1 and leaves the reason in ilab_last_error() (one message per
// thread). Nothing here throws across the ABI.
//
// A frame:  ilab_map (the scene's GL input is rendered first; then the app's running mode begins its frame,
//           app/modes/mode.hpp's begin_frame: the interop mode maps every resource in one call on the
//           caller's stream, the cpu mode reads inputs into host memory) -> the caller writes -> ilab_unmap
//           (the mode's end_frame: the unmap is queued on the same stream, after the caller's work; the cpu
//           mode uploads its host memory) -> ilab_read_frame. The Lab runs the app's own modes, not copies.
#include "app/cli/remedy.hpp"
#include "app/gl/app/app.hpp"
#include "app/image/image_compare.hpp"
#include "app/image/image_io.hpp"
#include "app/timing/timing.hpp"
#include "interop/error.hpp"
#include "kernels/common.hpp"
#include "python/errors.hpp"
#include "python/gl_context.hpp"
#include "python/protocol_abi.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace {

using ilab::guarded;

thread_local std::string g_last_error;  // per thread, as errno: the only state outside a context

struct Bridge {
  std::unique_ptr<lab::gl::App> app;
  bool cuda = false;  // the app runs the interop mode (else the cpu mode: host memory)
  std::vector<lab::gl::Resource> specs;
  // The mode's halves record their phases here, a frame per map block; the Lab reports none (clocks off).
  lab::FrameTimers timers;
  lab::FrameAccess access;  // where the mode's begin_frame put the resources, until ilab_unmap
  cudaStream_t stream = nullptr;
  long long frame = 0;
  bool is_mapped = false;
  lab::Image last_frame;    // what ilab_read_frame returned last, for ilab_compare_png / ilab_write_png
  ilab::GlContext context;  // the app's, made current for every call (python/gl_context.hpp)
  ilab::OwnerThread owner;  // the thread that opened the lab: the only one whose calls it takes
};

constexpr const char* kLab = "this interop_lab.Lab";

void require(bool condition, const std::string& message) {
  if (!condition) throw std::invalid_argument(message);
}

const lab::gl::Resource& spec_of(const Bridge& bridge, int index) {
  require(index >= 0 && index < static_cast<int>(bridge.specs.size()),
          "resource " + std::to_string(index) + " does not exist: the scene has " +
              std::to_string(bridge.specs.size()));
  return bridge.specs[static_cast<size_t>(index)];
}

void require_mapped(const Bridge& bridge, const char* what) {
  require(bridge.is_mapped, std::string(what) + " outside a map block: use it inside `with lab.map(): ...`");
}

// `reason` without the command line's remedy for `condition` that the app ended it with (app/cli/remedy.hpp:
// "; until then, use --mode cpu"): a Python caller gets the package's own remedy instead.
std::string without_command_line_remedy(const std::string& reason, interop::Condition condition,
                                        int gl_device = -1) {
  const std::string remedy = "; " + lab::command_line_remedy(condition, gl_device);
  if (remedy.size() > 2 && reason.size() >= remedy.size() &&
      reason.compare(reason.size() - remedy.size(), remedy.size(), remedy) == 0)
    return reason.substr(0, reason.size() - remedy.size());
  return reason;
}

// Why mode='interop' cannot open here, in the lab's terms (the app's verdict names its command-line options).
std::string interop_refusal(const lab::gl::App& app, const std::string& verdict) {
  if (app.cuda_device() < 0) {
    const interop::CudaDevices& cuda = app.cuda_devices();
    return "no CUDA device: " + (cuda.error.empty()
                                     ? std::string("none is visible to this process (check nvidia-smi and "
                                                   "CUDA_VISIBLE_DEVICES)")
                                     : without_command_line_remedy(cuda.error, cuda.condition));
  }
  const interop::InteropSupport& support = app.interop_support();
  if (!support.usable && !support.reason.empty())
    return without_command_line_remedy(support.reason, support.condition, support.gl_device);
  return verdict;
}

// Whether a Lab takes a command of `kind`: the ones that change what it hands out (the scene, its filter and
// blur, the size, the mode, the flags). The others are the app's own frames' (the clock, a frame-rate cap,
// timing, a screenshot, a picture's tools), and a Lab's frames are its caller's.
bool lab_takes(lab::Command::Kind kind) {
  using Kind = lab::Command::Kind;
  return kind == Kind::Scene || kind == Kind::Filter || kind == Kind::BlurRadius || kind == Kind::Size ||
         kind == Kind::Mode || kind == Kind::MapFlags || kind == Kind::RegisterFlags;
}

// The page's commands that a Lab takes, applied now (not at a next frame the Lab never renders): "" or why
// the last refused one was refused. The objects it hands out are the new scene's, size's and mode's
// afterwards.
std::string apply_lab_commands(Bridge& bridge, const std::vector<lab::Command>& commands) {
  const lab::ModeId interop = lab::mode_named("interop"), cpu = lab::mode_named("cpu");
  std::string why;
  for (const lab::Command& command : commands) {
    std::string refusal;
    const std::string key = lab::control_of(command.kind).key;
    if (!lab_takes(command.kind))
      refusal =
          key +
          " refused: a Lab's frames are its caller's (lab.map); it takes scene, filter, blur_radius, size, "
          "mode (interop or cpu), map_flags and register_flags";
    else if (command.kind == lab::Command::Kind::Mode && command.mode != interop && command.mode != cpu)
      refusal = std::string("mode ") + lab::to_string(command.mode) +
                " refused: a Lab maps through interop or cpu, the modes whose frames a caller writes between "
                "map and unmap";
    else
      refusal = lab::loop::apply_command(*bridge.app, command);
    if (!refusal.empty() && command.kind == lab::Command::Kind::Mode && command.mode == interop)
      refusal = "mode interop is unavailable: " +
                interop_refusal(*bridge.app, bridge.app->availability(interop).reason);  // Python's remedy
    if (!refusal.empty()) why = std::move(refusal);
  }
  bridge.app->apply_requests();
  bridge.cuda = bridge.app->mode_id() == interop;
  bridge.specs = bridge.app->renderer().resources();
  return why;
}

}  // namespace

namespace ilab {
void set_last_error(const std::string& message) {  // python/errors.hpp: every guarded() reports through it
  g_last_error = message;
}
}  // namespace ilab

// The library hides everything it links (the app's code) but the C ABI below.
#pragma GCC visibility push(default)
extern "C" {

struct ilab_resource {
  char label[64];
  int kind;  // 0 buffer, 1 2D texture (RGBA8)
  int role;  // 0 written by the caller (output), 1 read (input)
  uint64_t bytes;
  int width, height;
};

const char* ilab_last_error() {
  return g_last_error.c_str();
}

// The project's version (CMake's project(VERSION)): interop_lab.__version__.
const char* ilab_version() {
  return INTEROP_LAB_VERSION;
}

// mode: "interop" (register once, map every frame) or "cpu" (host memory, no CUDA).
int ilab_open(const char* scene, const char* mode, int width, int height, long long frame, void** out) {
  return guarded([&] {
    *out = nullptr;
    const std::optional<lab::SceneId> scene_id = lab::scene_from_string(scene ? scene : "");
    require(scene_id.has_value(),
            std::string("scene '") + (scene ? scene : "") + "': use wave, pattern or postprocess");
    const std::string mode_name = mode ? mode : "";
    require(mode_name == "interop" || mode_name == "cpu", "mode '" + mode_name + "': use interop or cpu");
    require(width >= 1 && height >= 1 && width <= lab::kMaxImageEdge && height <= lab::kMaxImageEdge,
            "size " + std::to_string(width) + "x" + std::to_string(height) + ": each edge from 1 to " +
                std::to_string(lab::kMaxImageEdge));
    lab::Options options;
    options.scene = *scene_id;
    options.mode = lab::mode_named("cpu");  // the app's own mode stays idle: the caller produces the frames
    options.headless = true;
    options.no_ui = true;
    options.frames = 1;
    options.width = width;
    options.height = height;
    // Every exit gives the caller its context back: declared before the bridge, this runs after a failed
    // open destroyed the app with its own context current.
    const ilab::GlContext previous = ilab::GlContext::current();
    ilab::GlContext mine;
    const ilab::RestoreOnExit restore_on_exit(previous, mine);  // declared before the object it guards
    auto bridge = std::make_unique<Bridge>();
    bridge->app = std::make_unique<lab::gl::App>(options);  // creates its context and makes it current
    mine = bridge->context = ilab::GlContext::current();
    bridge->frame = frame;
    bridge->timers.set_clocks({/*cuda=*/false, /*graphics=*/false, /*map_on_gpu=*/false});
    if (mode_name == "interop") {
      const lab::ModeId interop_id = lab::mode_named(mode_name);
      const lab::ModeAvailability interop = bridge->app->availability(interop_id);
      require(interop.available,
              "interop is unavailable here: " + interop_refusal(*bridge->app, interop.reason) +
                  "; open the lab with mode='cpu'");
      // The app's interop mode registers every object (each one's best flags for its role, surfaces for
      // what the caller writes) and maps them at each ilab_map.
      bridge->app->request_mode(interop_id);
      bridge->app->apply_requests();
      require(bridge->app->mode_id() == interop_id,
              "interop did not start: " + bridge->app->notice() + "; open the lab with mode='cpu'");
      bridge->cuda = true;
    }
    bridge->specs = bridge->app->renderer().resources();
    *out = bridge.release();
  });
}

// Unregisters and destroys the lab with its own context current. From another thread it refuses (-1)
// and keeps the lab: destroying it there would delete GL objects in whatever context that thread has.
int ilab_close(void* handle) {
  auto* bridge = static_cast<Bridge*>(handle);
  if (bridge == nullptr) return 0;
  return guarded([&] {
    {
      ilab::ScopedContext current(bridge->context, bridge->owner, kLab);
      if (bridge->cuda && bridge->stream != nullptr) cudaStreamSynchronize(bridge->stream);
      bridge->access = {};
      current.forget_mine();  // the app's mode detaches (unmapped, unregistered) before its GL objects go
      bridge->app.reset();
    }
    delete bridge;
  });
}

int ilab_uses_cuda(void* handle) {
  return static_cast<Bridge*>(handle)->cuda ? 1 : 0;
}

int ilab_resource_count(void* handle) {
  return static_cast<int>(static_cast<Bridge*>(handle)->specs.size());
}

int ilab_resource_info(void* handle, int index, ilab_resource* info) {
  return guarded([&] {
    const lab::ResourceDesc& spec = spec_of(*static_cast<Bridge*>(handle), index).desc;
    std::memset(info, 0, sizeof *info);
    std::strncpy(info->label, spec.label, sizeof info->label - 1);
    info->kind = spec.kind == lab::ResourceKind::Buffer ? 0 : 1;
    info->role = spec.role == lab::ResourceRole::Output ? 0 : 1;
    info->bytes = spec.bytes;
    info->width = spec.width;
    info->height = spec.height;
  });
}

// Renders the scene's GL input for frame `frame` (postprocess: the cubes), then makes every resource
// available: mapped on `stream` (CUDA), or in host memory with inputs read back (cpu).
int ilab_map(void* handle, long long frame, uintptr_t stream) {
  return guarded([&] {
    Bridge& bridge = *static_cast<Bridge*>(handle);
    const ilab::ScopedContext current(bridge.context, bridge.owner, kLab);
    require(!bridge.is_mapped, "the lab is mapped already: leave the current `with lab.map()` block first");
    bridge.frame = frame;
    const lab::Extent extent = bridge.app->extent();
    if (const lab::DrawPlan& plan = bridge.app->plan(); plan.cubes_target >= 0)
      bridge.app->renderer().draw_cubes(plan.cubes_target,
                                        lab::cubes_view(extent, kernels::time_of_frame(frame)));
    if (bridge.cuda) {
      bridge.stream = reinterpret_cast<cudaStream_t>(stream);
      if (bridge.stream != nullptr) {  // the legacy default stream belongs to whichever device is current
        int stream_device = -1;
        INTEROP_CUDA_CHECK(cudaStreamGetDevice(bridge.stream, &stream_device));
        require(stream_device == bridge.app->cuda_device(),
                "the stream is on CUDA device " + std::to_string(stream_device) + ", the lab on device " +
                    std::to_string(bridge.app->cuda_device()) +
                    ": create the stream there (e.g. with "
                    "cupy.cuda.Device(" +
                    std::to_string(bridge.app->cuda_device()) + "): ...)");
      }
    }
    bridge.timers.begin_frame(0, frame);
    bridge.access = bridge.app->mode().begin_frame(bridge.app->renderer(), bridge.stream, bridge.timers);
    if (!bridge.cuda) INTEROP_GL_CHECK("reading the scene's input");
    bridge.is_mapped = true;
  });
}

// Unmaps on the stream given to ilab_map, after everything queued there; the cpu path uploads.
int ilab_unmap(void* handle) {
  return guarded([&] {
    Bridge& bridge = *static_cast<Bridge*>(handle);
    const ilab::ScopedContext current(bridge.context, bridge.owner, kLab);
    require(bridge.is_mapped, "unmap without map");
    bridge.is_mapped = false;
    bridge.access = {};
    bridge.app->mode().end_frame(bridge.app->renderer(), bridge.timers);
    bridge.timers.end_frame();
    if (!bridge.cuda) INTEROP_GL_CHECK("uploading the frame");
  });
}

// A buffer's device pointer (CUDA) or any resource's host memory (cpu), valid until ilab_unmap.
int ilab_pointer(void* handle, int index, uintptr_t* pointer, uint64_t* bytes) {
  return guarded([&] {
    Bridge& bridge = *static_cast<Bridge*>(handle);
    const ilab::ScopedContext current(bridge.context, bridge.owner, kLab);
    const lab::ResourceDesc& spec = spec_of(bridge, index).desc;
    require_mapped(bridge, "a resource's memory");
    if (!bridge.cuda) {
      *pointer = reinterpret_cast<uintptr_t>(bridge.access.host[static_cast<size_t>(index)].pointer);
      *bytes = spec.bytes;
      return;
    }
    require(spec.kind == lab::ResourceKind::Buffer,
            std::string(spec.label) +
                " is a texture: its cudaArray is not linear memory; use copy_to/copy_from "
                "or its surface object");
    const lab::CudaResourceView& mapped = bridge.access.cuda[static_cast<size_t>(index)];
    *pointer = reinterpret_cast<uintptr_t>(mapped.pointer);
    *bytes = mapped.bytes;
  });
}

// A written texture's surface object (for the caller's kernels: surf2Dwrite), valid until ilab_unmap.
int ilab_surface(void* handle, int index, unsigned long long* surface) {
  return guarded([&] {
    Bridge& bridge = *static_cast<Bridge*>(handle);
    const ilab::ScopedContext current(bridge.context, bridge.owner, kLab);
    const lab::ResourceDesc& spec = spec_of(bridge, index).desc;
    require_mapped(bridge, "a surface object");
    require(bridge.cuda, "surface objects need CUDA: open the lab with mode='interop'");
    require(spec.kind == lab::ResourceKind::Texture2D && spec.role == lab::ResourceRole::Output,
            std::string(spec.label) + " is no texture the caller writes: surface objects are for those");
    // The interop mode's own, kept while the mapped array stays the same (app/scene/cuda_views.hpp).
    *surface = bridge.access.cuda[static_cast<size_t>(index)].surface;
  });
}

// Copies between a mapped texture and linear device memory (`pitch` bytes a row) on `stream`.
int ilab_copy_texture(void* handle, int index, uintptr_t device_pointer, uint64_t pitch, int to_texture,
                      uintptr_t stream) {
  return guarded([&] {
    Bridge& bridge = *static_cast<Bridge*>(handle);
    const ilab::ScopedContext current(bridge.context, bridge.owner, kLab);
    const lab::ResourceDesc& spec = spec_of(bridge, index).desc;
    require_mapped(bridge, "copy_to/copy_from");
    require(bridge.cuda, "texture copies through CUDA need mode='interop'");
    require(spec.kind == lab::ResourceKind::Texture2D,
            std::string(spec.label) + " is a buffer: use its array view");
    const size_t row = static_cast<size_t>(spec.width) * 4;
    require(pitch >= row, "rows of " + std::to_string(pitch) + " bytes are shorter than the texture's " +
                              std::to_string(row));
    cudaArray_t array = bridge.access.cuda[static_cast<size_t>(index)].array;
    void* pointer = reinterpret_cast<void*>(device_pointer);
    auto* on = reinterpret_cast<cudaStream_t>(stream);
    if (to_texture) {
      INTEROP_CUDA_CHECK(cudaMemcpy2DToArrayAsync(
          array, 0, 0, pointer, pitch, row, static_cast<size_t>(spec.height), cudaMemcpyDeviceToDevice, on));
    } else {
      INTEROP_CUDA_CHECK(cudaMemcpy2DFromArrayAsync(
          pointer, pitch, array, 0, 0, row, static_cast<size_t>(spec.height), cudaMemcpyDeviceToDevice, on));
    }
  });
}

// Makes `consumer` wait for what is queued on `producer` so far (an event; nothing waits on the host).
int ilab_order_streams(uintptr_t producer, uintptr_t consumer) {
  return guarded([&] {
    if (producer == consumer) return;
    cudaEvent_t event = nullptr;
    INTEROP_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    const cudaError_t recorded = cudaEventRecord(event, reinterpret_cast<cudaStream_t>(producer));
    const cudaError_t waited = recorded == cudaSuccess
                                   ? cudaStreamWaitEvent(reinterpret_cast<cudaStream_t>(consumer), event, 0)
                                   : recorded;
    cudaEventDestroy(event);  // released once the wait is satisfied
    INTEROP_CUDA_CHECK(waited);
  });
}

// The device of a pointer (-1: host memory), so Python can refuse another device's arrays.
int ilab_pointer_device(uintptr_t pointer, int* device) {
  return guarded([&] {
    cudaPointerAttributes attributes{};
    INTEROP_CUDA_CHECK(cudaPointerGetAttributes(&attributes, reinterpret_cast<void*>(pointer)));
    *device = attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged
                  ? attributes.device
                  : -1;
  });
}

int ilab_cuda_device(void* handle) {
  return static_cast<Bridge*>(handle)->app->cuda_device();
}

// One message of the page's protocol ({"scene": "pattern"}, {"size": [640, 360]}, {"mode": "cpu"},
// {"filter": "blur"}), applied now as the page's and the panel's commands are (app/loop/commands.hpp), those
// a Lab takes (lab_takes). 0: applied, `refused` saying why the last refused one was refused ("" when none
// was); 1: a message the protocol does not take (what is wrong in ilab_last_error()), nothing applied; -1:
// another failure (inside a map block).
int ilab_command(void* handle, const char* message, char* refused, uint64_t refused_size) {
  return ilab::protocol_command(
      message, refused, refused_size, [&](const std::vector<lab::Command>& commands) {
        Bridge& bridge = *static_cast<Bridge*>(handle);
        const ilab::ScopedContext current(bridge.context, bridge.owner, kLab);
        require(!bridge.is_mapped,
                "a command inside a map block: what it changes is mapped now; send it after the block");
        return apply_lab_commands(bridge, commands);
      });
}

// The state the page is sent (app/serve/protocol.hpp's state_json) about the lab now: the scene, the modes,
// the size, the flags, the settings. *size gets its bytes plus one; `out` null asks for the size alone.
int ilab_state(void* handle, char* out, uint64_t out_size, uint64_t* size) {
  return guarded([&] {
    Bridge& bridge = *static_cast<Bridge*>(handle);
    const ilab::ScopedContext current(bridge.context, bridge.owner, kLab);
    ilab::protocol_state(lab::serve::state_json(bridge.app->app_state(bridge.frame), lab::serve::DeskStats{}),
                         out, out_size, size);
  });
}

// The frame as it would be shown (top row first, RGBA8): `bytes` must be width * height * 4.
int ilab_read_frame(void* handle, uint8_t* rgba, uint64_t bytes, int* width, int* height) {
  return guarded([&] {
    Bridge& bridge = *static_cast<Bridge*>(handle);
    const ilab::ScopedContext current(bridge.context, bridge.owner, kLab);
    require(!bridge.is_mapped,
            "read_frame inside a map block: GL may not touch mapped resources; read after it");
    const lab::Extent extent = bridge.app->extent();
    *width = extent.width;
    *height = extent.height;
    if (rgba == nullptr) return;  // a size query
    require(bytes == static_cast<uint64_t>(extent.width) * extent.height * 4,
            "the frame needs width * height * 4 bytes");
    const lab::FrameInfo frame{bridge.frame, kernels::time_of_frame(bridge.frame), extent};
    bridge.app->show(frame);
    bridge.last_frame = bridge.app->read_frame();
    std::memcpy(rgba, bridge.last_frame.rgba.data(), bridge.last_frame.rgba.size());
  });
}

// Compares the frame read last (ilab_read_frame) with the PNG at `path` by the goldens' rule: a pixel
// differs when a channel is more than `max_diff` apart; they match while at most `max_fraction` of the
// pixels differ. Writes the comparer's summary into `report`; *matches is 1 or 0.
int ilab_compare_png(void* handle, const char* path, int max_diff, double max_fraction, int* matches,
                     char* report, uint64_t report_size) {
  return guarded([&] {
    Bridge& bridge = *static_cast<Bridge*>(handle);
    require(!bridge.last_frame.rgba.empty(), "no frame read yet: call read_frame first");
    require(max_diff >= 0 && max_diff <= 255, "max_diff " + std::to_string(max_diff) + ": from 0 to 255");
    require(max_fraction >= 0.0 && max_fraction <= 1.0, "max_fraction: from 0 to 1");
    const lab::Image expected = lab::read_png(path ? path : "");
    require(expected.width == bridge.last_frame.width && expected.height == bridge.last_frame.height,
            std::string(path) + " is " + std::to_string(expected.width) + "x" +
                std::to_string(expected.height) + ", the frame " + std::to_string(bridge.last_frame.width) +
                "x" + std::to_string(bridge.last_frame.height));
    const lab::ImageDifference difference = lab::compare_images(bridge.last_frame, expected, max_diff);
    *matches = difference.fraction_over <= max_fraction ? 1 : 0;
    const std::string text = lab::to_string(difference, max_diff);
    std::snprintf(report, report_size, "%s", text.c_str());
  });
}

// Writes the frame read last as a PNG (atomically, as the app's screenshots).
int ilab_write_png(void* handle, const char* path) {
  return guarded([&] {
    Bridge& bridge = *static_cast<Bridge*>(handle);
    require(!bridge.last_frame.rgba.empty(), "no frame read yet: call read_frame first");
    lab::write_png(path ? path : "", bridge.last_frame);
  });
}

// The benchmark's C++ side (python -m interop_lab.bench): `frames` frames of what a Python texture frame
// does (ilab_map on `stream`, ilab_copy_texture of `device_pointer` into resource `index`, ilab_unmap),
// each finished on the host before the next, without Python between the calls; and as many of the
// hand-off alone (map, unmap). Medians of the host clock, in milliseconds.
int ilab_time_texture_frames(void* handle, int index, uintptr_t device_pointer, uint64_t pitch,
                             uintptr_t stream, int frames, double* handoff_ms, double* frame_ms) {
  const auto median_of = [&](bool copy, double* median) {
    std::vector<double> samples;
    for (int i = 0; i < frames; ++i) {
      const auto start = std::chrono::steady_clock::now();
      if (ilab_map(handle, 0, stream) != 0) return -1;
      if (copy && ilab_copy_texture(handle, index, device_pointer, pitch, 1, stream) != 0) {
        ilab_unmap(handle);
        return -1;
      }
      if (ilab_unmap(handle) != 0) return -1;
      const cudaError_t synced = cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(stream));
      if (synced != cudaSuccess) {
        ilab::set_last_error(std::string("cudaStreamSynchronize: ") + cudaGetErrorString(synced));
        return -1;
      }
      samples.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    std::nth_element(samples.begin(), samples.begin() + static_cast<long>(samples.size() / 2), samples.end());
    *median = samples[samples.size() / 2];
    return 0;
  };
  if (frames < 1) {
    ilab::set_last_error("ilab_time_texture_frames: frames must be at least 1");
    return -1;
  }
  if (median_of(false, handoff_ms) != 0) return -1;
  return median_of(true, frame_ms);
}

}  // extern "C"
#pragma GCC visibility pop
