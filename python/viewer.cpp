// python/viewer.cpp — the C ABI of interop_lab.Viewer (python/interop_lab/viewer.py): the caller's arrays and
// points shown by the app's own frame loop (lab::gl::App, the GL backend), in a GLFW window or headless
// through EGL, with the array source pinned in place of a scene (app/scene/array_source.hpp). The loop makes
// every frame as interop-lab makes its own: the same modes (interop where it works, else staging, else cpu),
// per-phase timings, panel, keys, screenshot and browser desk. This file holds no loop, renderer or panel.
//
// What the viewer keeps between the loop's frames is the picture shown: show() converts the caller's array
// once, on the caller's stream, into memory of the viewer's own (device memory in the CUDA modes, host memory
// in cpu mode; app/scene/picture.hpp's conversion), so that no frame reads an array its caller may be
// writing, and redrawing a picture (a zoom, a served page's command) costs one copy on the GPU. frame()
// hands out that memory itself; points_frame() hands out the points' memory, which the loop's points kernel
// reads where it is (python/viewer_points.hpp). The loop's stream waits on the caller's for what the caller
// queued, and the caller's waits on the loop's before the viewer's memory is written again.
//
// Every call makes the viewer's context current and gives the caller's back (python/gl_context.hpp);
// functions return 0, or -1 with the reason in ilab_last_error(), as bridge.cpp's do.
#include "app/core/serve_address.hpp"
#include "app/gl/app/app.hpp"
#include "app/image/image_io.hpp"
#include "app/loop/commands.hpp"
#include "app/scene/array_source.hpp"
#include "app/scene/picture.hpp"
#include "app/scene/readout.hpp"
#include "app/scene/view.hpp"
#include "app/serve/desk.hpp"
#include "app/serve/protocol.hpp"
#include "interop/device.hpp"
#include "interop/error.hpp"
#include "interop/memory.hpp"
#include "interop/stream.hpp"
#include "kernels/convert.hpp"
#include "python/errors.hpp"
#include "python/gl_context.hpp"
#include "python/protocol_abi.hpp"
#include "python/viewer_points.hpp"

#include <cuda_runtime_api.h>
#include <glm/glm.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using ilab::guarded;
using Clock = std::chrono::steady_clock;

constexpr const char* kViewer = "this interop_lab.Viewer";

void require(bool condition, const std::string& message) {
  if (!condition) throw std::invalid_argument(message);
}

struct Stats {
  double update_ms = 0.0;  // host time of the last update (show, frame end, points end), not GPU time
  double draw_ms = 0.0;    // host time of the last frame the loop made
  double fps = 0.0;        // frames made a second, smoothed
  long long frames = 0;
  Clock::time_point last_frame{};
};

struct Viewer {
  std::unique_ptr<lab::gl::App> app;
  lab::ArraySource* source = nullptr;  // pinned to `app`, which owns it
  ilab::GlContext context;
  ilab::OwnerThread owner;
  std::string path_reason;  // why not interop, where "auto" asked for the best
  long long frame = 0;      // the loop's next frame

  // The picture shown, RGBA8 packed, top row first: device memory in the CUDA modes, else host memory.
  lab::Extent content;
  bool picture_on_device = false;
  interop::DeviceBuffer device_picture;
  std::vector<uint8_t> host_picture;
  lab::PictureBlit blit;                   // converts a CUDA array into the device picture
  interop::DeviceBuffer bounds_device;     // range="auto": kernels::find_value_bounds's
  interop::DeviceBuffer colormap_device;   // 256 x RGBA8, for the points' one value a point
  std::optional<interop::Event> ordering;  // orders the loop's stream and the caller's
  // What the next picture is made from, as Python says it before each show (set_source, set_colorbar,
  // set_range_text).
  lab::ArraySource::Origin origin;

  bool in_frame = false;  // between frame_begin and frame_end
  cudaStream_t frame_stream = nullptr;
  Clock::time_point frame_started{};

  std::unique_ptr<ilab::points::Cloud> points;
  cudaStream_t points_stream = nullptr;
  Clock::time_point points_started{};
  lab::orbit::Bounds points_bounds;  // of the points shown: a reset of the camera frames them

  long long steps_taken = 0;  // the loop's steps (App::steps) Python's poll() took
  Stats stats;

  bool cuda() const { return app->cuda_device() >= 0 && app->mode_id() != lab::ModeId::Cpu; }
};

// The loop's next frame, made as interop-lab makes its own (App::run_frame: the page's commands, the
// frame, the window's present, the desk's offer), timed for the stats.
void run_frame(Viewer& viewer, lab::Image* shown = nullptr) {
  const Clock::time_point start = Clock::now();
  if (viewer.app->run_frame(viewer.frame, shown)) ++viewer.frame;
  viewer.app->flush_desk();  // the page gets this frame now: the viewer may make no other for a while
  const Clock::time_point end = Clock::now();
  Stats& stats = viewer.stats;
  stats.draw_ms = std::chrono::duration<double, std::milli>(end - start).count();
  if (stats.frames > 0) {
    const double seconds = std::chrono::duration<double>(end - stats.last_frame).count();
    if (seconds > 0.0) stats.fps = stats.fps == 0.0 ? 1.0 / seconds : 0.9 * stats.fps + 0.1 / seconds;
  }
  stats.last_frame = end;
  ++stats.frames;
}

// The loop's CUDA device current for a scope, where it has one (CUDA allocates and registers on the current
// device: the viewer's, whatever the caller's is).
class OnCuda {
 public:
  explicit OnCuda(const Viewer& viewer) {
    if (viewer.app->cuda_device() >= 0) m_on.emplace(viewer.app->cuda_device());
  }

 private:
  std::optional<interop::ScopedDevice> m_on;
};

// `waits` starts what is queued on it from now on after what `recorded_on` has queued so far.
void order(Viewer& viewer, cudaStream_t recorded_on, cudaStream_t waits) {
  if (!viewer.ordering) viewer.ordering.emplace();
  viewer.ordering->order(recorded_on, waits);
}

// The stream's device must be the viewer's: the legacy default stream (0) belongs to whichever is current.
void require_stream_device(const Viewer& viewer, cudaStream_t stream) {
  if (stream == nullptr) return;
  int device = -1;
  INTEROP_CUDA_CHECK(cudaStreamGetDevice(stream, &device));
  const int mine = viewer.app->cuda_device();
  require(device == mine, "the stream is on CUDA device " + std::to_string(device) +
                              ", the viewer on device " + std::to_string(mine) + ": create the stream there");
}

void require_open(const Viewer& viewer) {
  require(!viewer.in_frame, "the viewer is inside a `with viewer.frame()` block: finish it first");
}

// A picture's size as the C ABI takes it: each edge from 1 to lab::kMaxImageEdge, so that width * height * 4
// bytes fits every count computed from it.
void require_image_size(int width, int height) {
  require(width >= 1 && height >= 1 && width <= lab::kMaxImageEdge && height <= lab::kMaxImageEdge,
          "an image of " + std::to_string(width) + "x" + std::to_string(height) + ": each edge from 1 to " +
              std::to_string(lab::kMaxImageEdge));
}

// The caller's byte count of a width x height RGBA8 picture must be exactly what is read from its memory.
void require_rgba_bytes(int width, int height, uint64_t bytes) {
  const uint64_t needed = static_cast<uint64_t>(width) * static_cast<uint64_t>(height) * 4;
  require(bytes == needed, "an image of " + std::to_string(width) + "x" + std::to_string(height) + " needs " +
                               std::to_string(needed) + " bytes (width * height * 4), not " +
                               std::to_string(bytes));
}

// The picture's memory for `extent` in the loop's mode now: the picture shown kept where its size stays.
void ensure_picture(Viewer& viewer, lab::Extent extent) {
  require_image_size(extent.width, extent.height);
  const bool device = viewer.cuda();
  const size_t bytes = static_cast<size_t>(extent.width) * extent.height * 4;
  if (extent == viewer.content && device == viewer.picture_on_device) return;
  if (device) {
    const OnCuda on(viewer);
    if (viewer.device_picture.size() != bytes) viewer.device_picture = interop::DeviceBuffer(bytes);
    INTEROP_CUDA_CHECK(cudaMemset(viewer.device_picture.data(), 0, bytes));
    viewer.host_picture = {};
  } else {
    viewer.host_picture.assign(bytes, 0);
    viewer.device_picture = {};
  }
  viewer.picture_on_device = device;
  viewer.content = extent;
}

// The picture kept is the frame from the next frame on, made from what Python said (origin), and drawn.
void show_picture(Viewer& viewer, Clock::time_point started) {
  const void* pixels = viewer.picture_on_device ? viewer.device_picture.data()
                                                : static_cast<const void*>(viewer.host_picture.data());
  viewer.source->show(lab::PictureDesc::packed(pixels, viewer.picture_on_device, viewer.content.width,
                                               viewer.content.height, 4, kernels::ElementType::U8, 1,
                                               static_cast<long long>(viewer.content.width) * 4),
                      viewer.origin);
  viewer.stats.update_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  run_frame(viewer);
}

// The view's tools now: where the picture lies and its readout at the window's pointer.
lab::view::Size frame_size_of(const Viewer& viewer) {
  const lab::Extent extent = viewer.app->extent();
  return {extent.width, extent.height};
}

lab::Command view_command(lab::Command::Kind kind, double x = 0.0, double y = 0.0, double factor = 1.0) {
  lab::Command command;
  command.kind = kind;
  command.x = x;
  command.y = y;
  command.factor = factor;
  return command;
}

}  // namespace

#pragma GCC visibility push(default)
extern "C" {

struct ilab_viewer_info {
  char path[16];
  char reason[512];
  char description[256];
  int cuda_device;
  int window;
};

struct ilab_viewer_stats {
  double update_ms, draw_ms, fps;
  long long frames;
};

// What show_device converts: a CUDA array's memory and layout (kernels/convert.hpp). low and range are
// float32 values unless wide (computed in float64), which float64, int32 and uint32 arrays always are.
struct ilab_convert {
  uintptr_t data;
  int height, width, channels, type;
  long long row_stride, column_stride, channel_stride;  // bytes
  double low, range;
  int wide;
};

}  // extern "C"

namespace {

const char* const kTypeNames =
    "0 uint8, 1 float16, 2 float32, 3 float64, 4 bfloat16, 5 int8, 6 int16, 7 int32, 8 uint16, 9 uint32, 10 "
    "bool";

// A CUDA array handed to show_device or value_bounds, checked: its layout, its element type, and that it is
// device memory on the viewer's device (which is current, in a CUDA mode), as is the stream. A picture is an
// image of at most kMaxImageEdge a side; the points' values are one row of `width` (any length).
kernels::ConvertDesc device_array(const Viewer& viewer, const ilab_convert& array, cudaStream_t stream,
                                  bool picture = true) {
  require(array.channels == 1 || array.channels == 3 || array.channels == 4, "channels: 1, 3 or 4");
  require(array.type >= 0 && array.type < kernels::kElementTypeCount,
          "type " + std::to_string(array.type) + ": " + kTypeNames);
  if (picture)
    require_image_size(array.width, array.height);
  else
    require(array.width >= 1 && array.height >= 1, "an array of at least one element");
  require_stream_device(viewer, stream);
  const int device = viewer.app->cuda_device();
  cudaPointerAttributes attributes{};
  INTEROP_CUDA_CHECK(cudaPointerGetAttributes(&attributes, reinterpret_cast<void*>(array.data)));
  const bool device_memory =
      attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
  require(device_memory && attributes.device == device,
          device_memory ? "the array is on CUDA device " + std::to_string(attributes.device) +
                              ", the viewer on device " + std::to_string(device) +
                              ": move it there (e.g. x.to('cuda:" + std::to_string(device) + "'))"
                        : std::string("the array is not CUDA device memory: pass it as a NumPy array"));
  kernels::ConvertDesc desc;
  desc.source = reinterpret_cast<const void*>(array.data);
  desc.height = array.height;
  desc.width = array.width;
  desc.channels = array.channels;
  desc.row_stride = array.row_stride;
  desc.column_stride = array.column_stride;
  desc.channel_stride = array.channel_stride;
  desc.type = static_cast<kernels::ElementType>(array.type);
  desc.low = array.low;
  desc.range = array.range;
  // Values float32 cannot hold are always computed in float64 (kernels/convert.hpp).
  desc.wide = array.wide != 0 || kernels::always_wide(desc.type);
  return desc;
}

// The viewer of `handle`, on the thread that opened it.
Viewer& on_owner_thread(void* handle) {
  Viewer& viewer = *static_cast<Viewer*>(handle);
  viewer.owner.check(kViewer);
  return viewer;
}

// Why the mode "auto" chose is not interop, where it is not ("" where it is).
std::string why_not_interop(const lab::gl::App& app) {
  if (app.mode_id() == lab::ModeId::Interop) return "";
  if (app.cuda_device() < 0)
    return "no CUDA device: " +
           (app.cuda_devices().error.empty() ? std::string("none found") : app.cuda_devices().error);
  return "CUDA-GL interop is unavailable: " + app.availability(lab::ModeId::Interop).reason;
}

}  // namespace

extern "C" {

// window: 1 a GLFW window, 0 headless (EGL). mode: "auto" (interop where it works, else staging with
// CUDA, else cpu), or "interop" / "staging" / "cpu" forced (refused, with the reason, where impossible).
// panel: the window's panel. serve: null for no desk, else the address --serve takes ("[HOST:]PORT", 0: any
// free port): every frame the loop makes is served to the browser desk (ilab_viewer_url).
int ilab_viewer_open(int width, int height, const char* title, int window, const char* mode, int panel,
                     const char* serve, void** out) {
  return guarded([&] {
    *out = nullptr;
    const std::string mode_name = mode ? mode : "";
    require(mode_name == "auto" || mode_name == "interop" || mode_name == "staging" || mode_name == "cpu",
            "mode '" + mode_name + "': use auto, interop, staging or cpu");
    require(width >= 1 && height >= 1 && width <= lab::kMaxImageEdge && height <= lab::kMaxImageEdge,
            "size " + std::to_string(width) + "x" + std::to_string(height) + ": each edge from 1 to " +
                std::to_string(lab::kMaxImageEdge));
    lab::Options options;
    options.width = width;
    options.height = height;
    options.size_given = true;
    options.headless = window == 0;
    options.no_ui = window == 0;  // a window keeps its ImGui for the pointer, with the panel hidden or not
    options.vsync = false;        // show() returns without waiting for the display
    options.layout_file = "";     // a viewer keeps no layout file
    options.window_title = title ? title : "interop_lab";
    if (mode_name != "auto") {
      if (mode_name != "cpu") {
        const interop::CudaDevices cuda = interop::enumerate_cuda_devices();
        require(!cuda.devices.empty(), "mode='" + mode_name + "' needs a CUDA device: " + cuda.error +
                                           "; use mode='cpu' (or 'auto')");
      }
      options.mode = lab::mode_named(mode_name);
    }
    if (serve != nullptr) {
      lab::ServeAddress address;
      const std::string problem = lab::parse_serve_address(serve, address, true);
      require(problem.empty(), problem);
      options.serve = address;
    }
    const ilab::GlContext previous = ilab::GlContext::current();
    ilab::GlContext mine;
    const ilab::RestoreOnExit restore_on_exit(previous, mine);  // declared before the object it guards
    auto viewer = std::make_unique<Viewer>();
    try {
      viewer->app = std::make_unique<lab::gl::App>(options);
    } catch (const std::runtime_error& error) {
      const std::string what = error.what();
      if (mode_name == "interop" && what.find("unavailable") != std::string::npos)
        throw std::runtime_error(what + "; use mode='staging' or mode='cpu'");
      throw;
    }
    mine = viewer->context = ilab::GlContext::current();
    auto source = std::make_unique<lab::ArraySource>();
    viewer->source = source.get();
    viewer->app->pin_source(std::move(source));
    viewer->source->picture_view()->fit = lab::view::Fit::Contain;
    if (mode_name == "auto") viewer->path_reason = why_not_interop(*viewer->app);
    if (serve != nullptr) viewer->app->set_fps_cap(0.0);  // every frame the caller shows is served
    if (window != 0 && panel == 0) viewer->app->handle_hotkey(lab::Hotkey::TogglePanel);  // F1 shows it
    run_frame(*viewer);  // the first frame: black, so a new window shows no garbage
    *out = viewer.release();
  });
}

int ilab_viewer_describe(void* handle, ilab_viewer_info* info) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    std::memset(info, 0, sizeof *info);
    std::snprintf(info->path, sizeof info->path, "%s", lab::to_string(viewer.app->mode_id()));
    std::snprintf(info->reason, sizeof info->reason, "%s", viewer.path_reason.c_str());
    std::snprintf(info->description, sizeof info->description, "%s",
                  viewer.app->platform().description().c_str());
    info->cuda_device = viewer.app->cuda_device();
    info->window = viewer.app->windowed() ? 1 : 0;
  });
}

// The served desk's URL with its token ("" when not serving).
int ilab_viewer_url(void* handle, char* url, uint64_t url_size) {
  return guarded([&] { ilab::copy_text(static_cast<Viewer*>(handle)->app->desk_url(), url, url_size); });
}

// Destroys the viewer with its context current (the loop and its desk, then the context). From another
// thread it refuses and keeps the viewer, as ilab_close does.
int ilab_viewer_close(void* handle) {
  auto* viewer = static_cast<Viewer*>(handle);
  if (viewer == nullptr) return 0;
  return guarded([&] {
    {
      ilab::ScopedContext current(viewer->context, viewer->owner, kViewer);
      {
        const OnCuda on(*viewer);
        if (viewer->app->cuda_device() >= 0) cudaDeviceSynchronize();  // no queued update outlives its memory
        viewer->blit.release();  // device memory, with its device current
        viewer->device_picture = {};
        viewer->bounds_device = {};
        viewer->colormap_device = {};
        viewer->points.reset();
        viewer->ordering.reset();
      }
      current.forget_mine();
      viewer->app.reset();  // its desk's threads joined, its port free; its window and context gone
    }
    delete viewer;
  });
}

// *closed is 1 once the user closed the window (never headless).
int ilab_viewer_poll(void* handle, int* closed) {
  return guarded([&] { *closed = static_cast<Viewer*>(handle)->app->window_closed() ? 1 : 0; });
}

// The loop's next frame (the blocking show() loop; a window's input, a served page's commands).
int ilab_viewer_render(void* handle) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    require_open(viewer);
    run_frame(viewer);
  });
}

// Host RGBA8, `width` x `height`, rows top first and tightly packed: `bytes` (width * height * 4) of them,
// copied into the picture.
int ilab_viewer_show_host(void* handle, const uint8_t* rgba, uint64_t bytes, int width, int height) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    require_open(viewer);
    require_image_size(width, height);
    require_rgba_bytes(width, height, bytes);
    const Clock::time_point started = Clock::now();
    ensure_picture(viewer, {width, height});
    if (viewer.picture_on_device) {
      const OnCuda on(viewer);
      INTEROP_CUDA_CHECK(cudaStreamSynchronize(viewer.app->cuda_stream()));  // the last frame read it
      INTEROP_CUDA_CHECK(cudaMemcpy(viewer.device_picture.data(), rgba, bytes, cudaMemcpyHostToDevice));
    } else {
      std::memcpy(viewer.host_picture.data(), rgba, bytes);
    }
    show_picture(viewer, started);
  });
}

// A CUDA array, converted on `stream` into the picture. colormap: 256 x RGBA8 host bytes, for one channel.
// Nothing waits on the host: the loop's frame is queued after the conversion, and the next conversion
// after the loop's frames.
int ilab_viewer_show_device(void* handle, const ilab_convert* array, const uint8_t* colormap,
                            uintptr_t stream) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    require_open(viewer);
    require(viewer.cuda(), "this viewer has no CUDA (path cpu" +
                               (viewer.path_reason.empty() ? std::string() : ": " + viewer.path_reason) +
                               "): pass a NumPy array (e.g. cupy.asnumpy(x) / x.cpu().numpy())");
    const Clock::time_point started = Clock::now();
    const OnCuda on_device(viewer);
    auto* on = reinterpret_cast<cudaStream_t>(stream);
    const kernels::ConvertDesc desc = device_array(viewer, *array, on);
    const lab::PictureDesc picture = lab::PictureDesc::mapped(desc, true, colormap);
    lab::PictureBlit::check_mapping(picture);
    require(desc.channels != 1 || colormap != nullptr, "a one-channel array needs a colormap");
    ensure_picture(viewer, {array->width, array->height});
    order(viewer, viewer.app->cuda_stream(), on);  // the frames before have read the picture
    viewer.blit.convert_cuda(picture, viewer.device_picture.data(), static_cast<size_t>(desc.width) * 4, on);
    order(viewer, on, viewer.app->cuda_stream());  // the next frame reads it converted
    show_picture(viewer, started);
  });
}

// The range the next picture's values are mapped through, for the panel and the page ("0..1 (auto)"; "":
// none).
int ilab_viewer_set_range_text(void* handle, const char* text) {
  return guarded([&] { on_owner_thread(handle).origin.range = text ? text : ""; });
}

// range="auto" of a CUDA array: the smallest and largest finite value of its every channel, and how many are
// finite (0: *low and *high are 0), found on `stream` by a reduction kernel; the host waits for those 24
// bytes only, never copies the array.
int ilab_viewer_value_bounds(void* handle, const ilab_convert* array, uintptr_t stream, double* low,
                             double* high, long long* finite) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    require_open(viewer);
    require(viewer.cuda(), "this viewer has no CUDA (path cpu: " + viewer.path_reason + ")");
    const OnCuda on_device(viewer);
    auto* on = reinterpret_cast<cudaStream_t>(stream);
    const kernels::ConvertDesc desc = device_array(viewer, *array, on, false);  // a picture's, or points'
    if (viewer.bounds_device.size() == 0)
      viewer.bounds_device = interop::DeviceBuffer(kernels::kValueBoundsBytes);
    INTEROP_CUDA_CHECK(kernels::find_value_bounds(desc, viewer.bounds_device.data(), on));
    std::array<unsigned char, kernels::kValueBoundsBytes> bounds{};
    INTEROP_CUDA_CHECK(cudaMemcpyAsync(bounds.data(), viewer.bounds_device.data(), bounds.size(),
                                       cudaMemcpyDeviceToHost, on));
    INTEROP_CUDA_CHECK(cudaStreamSynchronize(on));
    kernels::read_value_bounds(bounds.data(), low, high, finite);
  });
}

// `with viewer.frame()`: the picture's own memory, width x height RGBA8, `pitch` bytes a row, holding the
// picture shown (where its size stays): device memory written on `stream` in the CUDA modes (*on_device 1),
// else host memory (*on_device 0). ilab_viewer_frame_end shows it.
int ilab_viewer_frame_begin(void* handle, int width, int height, uintptr_t stream, uintptr_t* pointer,
                            uint64_t* pitch, int* on_device) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    require_open(viewer);
    viewer.frame_started = Clock::now();
    auto* on = reinterpret_cast<cudaStream_t>(stream);
    const OnCuda on_cuda_device(viewer);
    if (viewer.cuda()) require_stream_device(viewer, on);
    ensure_picture(viewer, {width, height});
    *pitch = static_cast<uint64_t>(width) * 4;
    if (viewer.picture_on_device) {
      order(viewer, viewer.app->cuda_stream(), on);  // the frames before have read it
      *pointer = reinterpret_cast<uintptr_t>(viewer.device_picture.data());
    } else {
      *pointer = reinterpret_cast<uintptr_t>(viewer.host_picture.data());
    }
    *on_device = viewer.picture_on_device ? 1 : 0;
    viewer.frame_stream = on;
    viewer.in_frame = true;
  });
}

int ilab_viewer_frame_end(void* handle) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    require(viewer.in_frame, "frame_end without frame_begin");
    viewer.in_frame = false;
    if (viewer.picture_on_device) {
      const OnCuda on(viewer);
      order(viewer, viewer.frame_stream, viewer.app->cuda_stream());  // after what the caller queued
    }
    show_picture(viewer, viewer.frame_started);
  });
}

// The frame as the loop made it, without the panel (top row first, RGBA8), made again now; rgba null: a
// size query.
int ilab_viewer_read_frame(void* handle, uint8_t* rgba, uint64_t bytes, int* width, int* height) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    require_open(viewer);
    const lab::Extent extent = viewer.app->extent();
    require(!extent.empty(), "the window is minimised: there is no frame to read; restore it first");
    *width = extent.width;
    *height = extent.height;
    if (rgba == nullptr) return;
    require(bytes == static_cast<size_t>(extent.width) * 4 * extent.height,
            "the frame needs width * height * 4 bytes");
    viewer.app->request_capture();
    run_frame(viewer);
    const lab::Image frame = viewer.app->take_captured();
    require(frame.width == extent.width && frame.height == extent.height,
            "the window changed size while it was read: read it again");
    std::memcpy(rgba, frame.rgba.data(), frame.rgba.size());
  });
}

// Headless: a new frame size; a window: asks the window manager (0x0 minimises it).
int ilab_viewer_resize(void* handle, int width, int height) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    require_open(viewer);
    require(width >= 0 && height >= 0 && width <= lab::kMaxImageEdge && height <= lab::kMaxImageEdge,
            "size " + std::to_string(width) + "x" + std::to_string(height) + ": each edge from 0 to " +
                std::to_string(lab::kMaxImageEdge));
    viewer.app->resize({width, height});
    if (width > 0 && height > 0) run_frame(viewer);
  });
}

// Judges a serve address as the command line's --serve does (app/core/serve_address.hpp), port 0 allowed
// (any free port): 0 with "HOST:PORT" in `authority`, or -1 with what is wrong (Python's ValueError).
int ilab_check_serve_address(const char* text, char* authority, uint64_t bytes) {
  return guarded([&] {
    lab::ServeAddress address;
    const std::string problem = lab::parse_serve_address(text ? text : "", address, true);
    require(problem.empty(), problem);
    std::snprintf(authority, bytes, "%s", address.authority().c_str());
  });
}

// The largest edge of a picture, window or frame the library takes: what Python checks a size against
// before it computes or copies anything of that size.
int ilab_max_image_edge() {
  return lab::kMaxImageEdge;
}

int ilab_viewer_get_stats(void* handle, ilab_viewer_stats* stats) {
  return guarded([&] {
    const Stats& kept = static_cast<Viewer*>(handle)->stats;
    stats->update_ms = kept.update_ms;
    stats->draw_ms = kept.draw_ms;
    stats->fps = kept.fps;
    stats->frames = kept.frames;
  });
}

// RGBA8 rows (top first), `bytes` (width * height * 4) of them, as a PNG, written atomically as the app's
// screenshots are.
int ilab_write_rgba_png(const char* path, const uint8_t* rgba, uint64_t bytes, int width, int height) {
  return guarded([&] {
    require_image_size(width, height);
    require_rgba_bytes(width, height, bytes);
    lab::Image image;
    image.width = width;
    image.height = height;
    image.rgba.assign(rgba, rgba + static_cast<size_t>(width) * height * 4);
    lab::write_png(path ? path : "", image);
  });
}

// A PNG as RGBA8 rows (top first); rgba null: a size query.
int ilab_read_rgba_png(const char* path, uint8_t* rgba, uint64_t bytes, int* width, int* height) {
  return guarded([&] {
    const lab::Image image = lab::read_png(path ? path : "");
    *width = image.width;
    *height = image.height;
    if (rgba == nullptr) return;
    require(bytes == image.rgba.size(), "the image needs width * height * 4 bytes");
    std::memcpy(rgba, image.rgba.data(), image.rgba.size());
  });
}

struct ilab_viewer_view {
  char fit[16];
  int free;                                     // zoomed or panned away from the fit
  double origin_x, origin_y, scale_x, scale_y;  // image point = (framebuffer point - origin) / scale
};

// The fit ("contain", "stretch", "cover", "actual"): the view goes back to it, and the frame is made again.
int ilab_viewer_set_fit(void* handle, const char* fit) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    require_open(viewer);
    const std::string name = fit ? fit : "";
    const std::optional<lab::view::Fit> chosen = lab::view::fit_named(name);
    require(chosen.has_value(), "fit '" + name + "': use contain, stretch, cover or actual");
    const std::string refused = viewer.app->set_picture_fit(*chosen);
    require(refused.empty(), refused);
    run_frame(viewer);
  });
}

int ilab_viewer_get_view(void* handle, ilab_viewer_view* out) {
  return guarded([&] {
    Viewer& viewer = on_owner_thread(handle);
    const lab::view::View& view = *viewer.source->picture_view();
    const lab::view::Transform t =
        lab::view::transform_of(view, {viewer.content.width, viewer.content.height}, frame_size_of(viewer));
    std::snprintf(out->fit, sizeof out->fit, "%s", lab::view::fit_name(view.fit));
    out->free = view.free ? 1 : 0;
    out->origin_x = t.origin_x;
    out->origin_y = t.origin_y;
    out->scale_x = t.scale_x;
    out->scale_y = t.scale_y;
  });
}

// Zooms by `factor` about framebuffer point (x, y) (top row 0), as the wheel does, or, factor 0, shows the
// picture 1:1 there (the 1 key); then pans by (dx, dy) as a drag does; and makes the frame again. Points
// shown: the camera moves instead (app/scene/array_source.hpp).
int ilab_viewer_move_view(void* handle, double x, double y, double factor, double dx, double dy) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    require_open(viewer);
    require(!viewer.content.empty() || viewer.source->showing_points(),
            "nothing is shown yet: show() a picture first");
    require(std::isfinite(factor) && factor >= 0.0 && std::isfinite(x) && std::isfinite(y) &&
                std::isfinite(dx) && std::isfinite(dy),
            "zoom: a finite factor above 0, and a finite point and offset");
    using Kind = lab::Command::Kind;
    std::vector<lab::Command> commands;
    if (factor == 0.0)
      commands.push_back(view_command(Kind::ActualSize, x, y));
    else if (factor != 1.0)
      commands.push_back(view_command(Kind::Zoom, x, y, factor));
    if (dx != 0.0 || dy != 0.0) commands.push_back(view_command(Kind::Pan, dx, dy));
    const std::string refused = lab::loop::apply_commands(*viewer.app, commands);
    require(refused.empty(), refused);
    run_frame(viewer);
  });
}

// The caller's array the picture shows (the frame of a stack shown), for the readout and value_at: its
// memory (host or CUDA, kept alive by the caller until the next call) and layout in bytes; data 0: none (a
// frame() block's pixels). frame_index of frame_count: the stack's frame shown.
struct ilab_source {
  uintptr_t data;
  int on_device, type, height, width, channels;
  long long row_stride, column_stride, channel_stride;
  int frame_index, frame_count;
};

int ilab_viewer_set_source(void* handle, const ilab_source* source) {
  return guarded([&] {
    Viewer& viewer = on_owner_thread(handle);
    require(source->type >= 0 && source->type < kernels::kElementTypeCount,
            "type " + std::to_string(source->type) + ": " + kTypeNames);
    require(source->data == 0 || (source->channels >= 1 && source->channels <= 4), "channels: 1 to 4");
    require(source->frame_count >= 1 && source->frame_index >= 0 && source->frame_index < source->frame_count,
            "frame " + std::to_string(source->frame_index) + " of " + std::to_string(source->frame_count));
    lab::readout::Source& kept = viewer.origin.values;
    kept = {};
    kept.data = reinterpret_cast<const unsigned char*>(source->data);
    kept.on_device = source->on_device != 0;
    kept.type = static_cast<kernels::ElementType>(source->type);
    kept.height = source->height;
    kept.width = source->width;
    kept.channels = source->channels;
    kept.row_stride = source->row_stride;
    kept.column_stride = source->column_stride;
    kept.channel_stride = source->channel_stride;
    *viewer.source->stack() = {source->frame_index, source->frame_count};
  });
}

// The values of pixel (x, y) of the array shown, as doubles (exact for every dtype shown): a copy of that
// pixel's elements alone.
int ilab_viewer_value_at(void* handle, int x, int y, double* values, int* channels) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    const lab::readout::Source& source = viewer.origin.values;
    require(source.data != nullptr, "the picture shown came from a frame() block: it has no array to read");
    std::optional<interop::ScopedDevice> on;  // a device array is read on the viewer's device
    if (source.on_device) on.emplace(viewer.app->cuda_device());
    const std::array<double, 4> read = lab::readout::read_values(source, 0, x, y);
    std::copy(read.begin(), read.end(), values);
    *channels = source.channels;
  });
}

// The colorbar of a one-channel picture: its 256 x RGBA8 colormap and the range its ends stand for; table
// null: none (three or four channels, a frame() block's pixels).
int ilab_viewer_set_colorbar(void* handle, const uint8_t* table, double low, double high) {
  return guarded([&] {
    Viewer& viewer = on_owner_thread(handle);
    viewer.origin.colorbar = std::nullopt;
    if (table == nullptr) return;
    std::memcpy(viewer.origin.colours.data(), table, viewer.origin.colours.size());
    viewer.origin.colorbar = std::array<double, 2>{low, high};
  });
}

struct ilab_viewer_state {
  int paused;
  int steps;  // asked for and not yet taken
  int frame_index, frame_count;
  int has_cursor, cursor_x, cursor_y;  // the image pixel under the cursor (a window's)
  char readout[256];
};

int ilab_viewer_get_state(void* handle, ilab_viewer_state* state) {
  return guarded([&] {
    Viewer& viewer = on_owner_thread(handle);
    std::memset(state, 0, sizeof *state);
    state->paused = viewer.app->paused() ? 1 : 0;
    state->steps = static_cast<int>(viewer.app->steps() - viewer.steps_taken);
    state->frame_index = viewer.source->stack()->index;
    state->frame_count = viewer.source->stack()->frames;
    std::string readout;
    if (viewer.source->showing_points()) {
      readout = viewer.source->status() + " (drag turns, wheel zooms, F frames)";
    } else if (const std::optional<lab::serve::ViewerTools> tools = viewer.app->window_tools()) {
      if (tools->cursor) {
        state->has_cursor = 1;
        state->cursor_x = (*tools->cursor)[0];
        state->cursor_y = (*tools->cursor)[1];
        readout = tools->readout;
      }
    }
    std::snprintf(state->readout, sizeof state->readout, "%s", readout.c_str());
  });
}

// paused: 0 or 1 sets it (-1 keeps it); step: 1 asks for a step (as period does); take: 1 takes one asked
// for, *taken saying whether there was one.
int ilab_viewer_time(void* handle, int paused, int step_once, int take, int* taken) {
  return guarded([&] {
    Viewer& viewer = on_owner_thread(handle);
    if (paused >= 0) viewer.app->set_paused(paused != 0);
    if (step_once) viewer.app->step();
    *taken = 0;
    if (take && viewer.app->steps() > viewer.steps_taken) {
      ++viewer.steps_taken;
      *taken = 1;
    }
  });
}

// Input as GLFW hands it to the window, for tests and scripted sessions: kind 0 moves the cursor to window
// point (x, y); 1 presses the left button, 2 releases it; 3 turns the wheel by y notches; 4 presses the key
// of GLFW key code x. It takes effect at the next frame made (App::inject_*); a window's only.
int ilab_viewer_inject(void* handle, int kind, double x, double y) {
  return guarded([&] {
    Viewer& viewer = on_owner_thread(handle);
    require(viewer.app->windowed(), "input goes to a window: this viewer is headless");
    switch (kind) {
      case 0:
        viewer.app->inject_pointer(static_cast<float>(x), static_cast<float>(y));
        break;
      case 1:
      case 2:
        viewer.app->inject_button(kind == 1);
        break;
      case 3:
        viewer.app->inject_wheel(static_cast<float>(y));
        break;
      case 4:
        require(x >= 0 && x < 512, "key code " + std::to_string(x) + ": GLFW's, 0 to 511");
        viewer.app->inject_key(static_cast<int>(x));
        break;
      default:
        throw std::invalid_argument("input kind " + std::to_string(kind) +
                                    ": 0 move, 1 press, 2 release, 3 wheel, 4 key");
    }
  });
}

// What the window shows (picture, panel and all, top row first, RGBA8), made now; rgba null: a size query.
int ilab_viewer_read_window(void* handle, uint8_t* rgba, uint64_t bytes, int* width, int* height) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    require_open(viewer);
    require(viewer.app->windowed(), "read_window: this viewer is headless: use read_frame");
    const lab::Extent extent = viewer.app->extent();
    require(!extent.empty(), "the window is minimised: there is no frame to read; restore it first");
    *width = extent.width;
    *height = extent.height;
    if (rgba == nullptr) return;
    require(bytes == static_cast<size_t>(extent.width) * 4 * extent.height,
            "the frame needs width * height * 4 bytes");
    lab::Image shown;
    run_frame(viewer, &shown);
    require(shown.width == extent.width && shown.height == extent.height,
            "the window changed size while it was read: read it again");
    std::memcpy(rgba, shown.rgba.data(), shown.rgba.size());
  });
}

// The caller's controls (app/scene/caller_controls.hpp). kind: 0 slider, 1 checkbox, 2 button, 3 choice;
// options: a choice's, one a line.
int ilab_viewer_control_add(void* handle, int kind, const char* name, double low, double high, double value,
                            const char* options, int* id) {
  return guarded([&] {
    Viewer& viewer = on_owner_thread(handle);
    require(kind >= 0 && kind <= 3,
            "control kind " + std::to_string(kind) + ": 0 slider, 1 checkbox, 2 button, 3 choice");
    lab::caller::Control control;
    control.kind = static_cast<lab::caller::Kind>(kind);
    control.name = name ? name : "";
    control.low = low;
    control.high = high;
    control.value = value;
    if (options != nullptr && *options != '\0') {
      const std::string all = options;
      for (size_t from = 0;;) {
        const size_t end = all.find('\n', from);
        control.options.push_back(
            all.substr(from, end == std::string::npos ? std::string::npos : end - from));
        if (end == std::string::npos) break;
        from = end + 1;
      }
    }
    *id = viewer.source->caller_controls()->add(std::move(control));
  });
}

// value: the control's; changes: the user's changes so far (a button's presses).
int ilab_viewer_control_get(void* handle, int id, double* value, long long* changes) {
  return guarded([&] {
    const lab::caller::Control& control = on_owner_thread(handle).source->caller_controls()->at(id);
    *value = control.value;
    *changes = control.changes;
  });
}

// user 0: the program sets the value (no change counted); 1: the user's change, as the panel makes it.
int ilab_viewer_control_set(void* handle, int id, double value, int user) {
  return guarded([&] {
    Viewer& viewer = on_owner_thread(handle);
    lab::caller::Registry& controls = *viewer.source->caller_controls();
    if (user)
      controls.change(id, value);
    else
      controls.set(id, value);
    // A served page shows the new value now, not at the next picture shown.
    if (viewer.app->desk() != nullptr && !viewer.in_frame) {
      const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
      run_frame(viewer);
    }
  });
}

// A served viewer's page commands (viewer.poll(), show(serve=)'s wait): where any came, the loop's next
// frame, which takes them and serves the frame with its state (*taken 1). None, not served, or inside a
// frame() block: no frame (*taken 0).
int ilab_viewer_take_page_commands(void* handle, int* taken) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    *taken = 0;
    const lab::serve::Desk* desk = viewer.app->desk();
    if (desk == nullptr || viewer.in_frame || desk->server().counts().commands_queued == 0) return;
    run_frame(viewer);
    *taken = 1;
  });
}

// One message of the page's protocol ({"zoom": [x, y, 1.25]}, {"hover": [x, y]}, {"index": 2}, {"control":
// {"name": "gain", "value": 0.5}}, {"pause": true}, {"mode": "cpu"}), applied as the page's and the panel's
// commands are (app/loop/commands.hpp), and the frame made again. 0: taken, `refused` saying why the last
// refused one was refused ("" when none was); 1: a message the protocol does not take (what is wrong in
// ilab_last_error()), nothing applied; -1: another failure (inside a frame() block).
int ilab_viewer_command(void* handle, const char* message, char* refused, uint64_t refused_size) {
  return ilab::protocol_command(message, refused, refused_size,
                                [&](const std::vector<lab::Command>& commands) {
                                  Viewer& viewer = *static_cast<Viewer*>(handle);
                                  const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
                                  require_open(viewer);
                                  std::string why = lab::loop::apply_commands(*viewer.app, commands);
                                  run_frame(viewer);
                                  return why;
                                });
}

// The state the page is sent about the frame made last (app/serve/protocol.hpp's state_json, the desk's own
// numbers aside), its tools reading the cursor a {"hover": ...} command put there: *size gets its bytes plus
// one; `out` null asks for the size alone.
int ilab_viewer_page_state(void* handle, char* out, uint64_t out_size, uint64_t* size) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    ilab::protocol_state(lab::serve::state_json(viewer.app->app_state(std::max(0LL, viewer.frame - 1)),
                                                lab::serve::DeskStats{}),
                         out, out_size, size);
  });
}

// Where the panel drew the control last (window coordinates: x0, y0, x1, y1); all 0 before it did.
int ilab_viewer_control_rect(void* handle, int id, float* rect) {
  return guarded([&] {
    Viewer& viewer = on_owner_thread(handle);
    viewer.source->caller_controls()->at(id);
    std::array<float, 4> kept{};
    if (const lab::panel::PanelPlace* place = viewer.app->panel();
        place != nullptr && static_cast<size_t>(id) < place->caller_controls.size())
      kept = place->caller_controls[static_cast<size_t>(id)];
    std::copy(kept.begin(), kept.end(), rect);
  });
}

// Points (Viewer.points, Viewer.points_frame): begin hands out where the next n points go (*xyz: n x 3
// float32; *rgba: n x RGBA8), the memory the loop draws them from: device memory written on `stream` in
// the CUDA modes (*on_device 1), else host memory (*on_device 0). xyz and colours fill them from the
// caller's arrays; end shows them (or, show 0, gives the update up).
int ilab_viewer_points_begin(void* handle, long long n, uintptr_t stream, uintptr_t* xyz, uintptr_t* rgba,
                             int* on_device) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    require_open(viewer);
    auto* on = reinterpret_cast<cudaStream_t>(stream);
    const OnCuda on_device_now(viewer);
    if (viewer.cuda()) require_stream_device(viewer, on);
    if (!viewer.points || viewer.points->on_device() != viewer.cuda()) {
      if (viewer.source->showing_points()) {  // the loop reads the memory that goes: the frames stop first
        INTEROP_CUDA_CHECK(cudaDeviceSynchronize());
      }
      viewer.points = std::make_unique<ilab::points::Cloud>(viewer.cuda());
    }
    viewer.points_started = Clock::now();
    if (viewer.points->on_device()) order(viewer, viewer.app->cuda_stream(), on);  // the frames have read it
    const ilab::points::Targets targets = viewer.points->begin(n, on);
    viewer.points_stream = on;
    *xyz = reinterpret_cast<uintptr_t>(targets.xyz);
    *rgba = reinterpret_cast<uintptr_t>(targets.rgba);
    *on_device = targets.on_device ? 1 : 0;
  });
}

}  // extern "C"

namespace {

ilab::points::Cloud& open_points(Viewer& viewer) {
  require(viewer.points && viewer.points->in_update(), "no points update is open: call points_begin first");
  return *viewer.points;
}

// `width` bytes a row, `rows` rows, from `source` (CUDA memory where source_on_device, else the host's; rows
// `source_pitch` bytes apart) into `target` (the update's memory, device or host; packed), on the update's
// stream.
void copy_into(Viewer& viewer, void* target, const void* source, bool source_on_device, size_t width,
               size_t source_pitch, size_t rows) {
  const bool target_on_device = viewer.points->on_device();
  if (!target_on_device && !source_on_device) {
    if (source_pitch == width) {
      std::memcpy(target, source, width * rows);
      return;
    }
    for (size_t row = 0; row < rows; ++row)
      std::memcpy(static_cast<unsigned char*>(target) + row * width,
                  static_cast<const unsigned char*>(source) + row * source_pitch, width);
    return;
  }
  require(target_on_device, "CUDA memory, and this viewer runs the cpu path: pass a NumPy array");
  const OnCuda on(viewer);
  const cudaMemcpyKind kind = source_on_device ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice;
  if (source_pitch == width)  // packed: one copy, not a row per point
    INTEROP_CUDA_CHECK(cudaMemcpyAsync(target, source, width * rows, kind, viewer.points_stream));
  else
    INTEROP_CUDA_CHECK(
        cudaMemcpy2DAsync(target, width, source, source_pitch, width, rows, kind, viewer.points_stream));
}

}  // namespace

extern "C" {

// The positions: the update's n rows of x, y, z float32 (12 bytes, packed within a row) from `source`, rows
// `row_stride` bytes apart (CUDA memory where on_device, else host memory).
int ilab_viewer_points_xyz(void* handle, uintptr_t source, int on_device, long long row_stride) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    ilab::points::Cloud& cloud = open_points(viewer);
    require(row_stride >= 12, "the positions' rows: at least 12 bytes apart (x, y, z float32)");
    copy_into(viewer, cloud.targets().xyz, reinterpret_cast<const void*>(source), on_device != 0, 12,
              static_cast<size_t>(row_stride), static_cast<size_t>(cloud.count()));
  });
}

// The colours: host RGBA8 (n x 4 bytes, packed) where host_rgba is given, else `array` (a CUDA array of one
// row of n points, 1, 3 or 4 channels) converted on the GPU as show() converts a picture (colormap: 256 x
// RGBA8 for one channel).
int ilab_viewer_points_colours(void* handle, const ilab_convert* array, const uint8_t* colormap,
                               const uint8_t* host_rgba) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    ilab::points::Cloud& cloud = open_points(viewer);
    const ilab::points::Targets targets = cloud.targets();
    const auto n = static_cast<size_t>(cloud.count());
    if (host_rgba != nullptr) {
      copy_into(viewer, targets.rgba, host_rgba, false, n * 4, n * 4, 1);
      return;
    }
    require(cloud.on_device(), "this viewer has no CUDA (path cpu): pass NumPy colours");
    const OnCuda on(viewer);
    kernels::ConvertDesc desc = device_array(viewer, *array, viewer.points_stream, false);
    require(desc.height == 1 && static_cast<size_t>(desc.width) == n,
            "the colours are of " + std::to_string(desc.width) + " points, the positions of " +
                std::to_string(n));
    if (desc.channels == 1) {
      require(colormap != nullptr, "one value a point needs a colormap");
      if (viewer.colormap_device.size() == 0) viewer.colormap_device = interop::DeviceBuffer(1024);
      // Synchronous: the host table may change as soon as this returns, and a copy still queued on another
      // stream may not be overwritten under it.
      INTEROP_CUDA_CHECK(cudaStreamSynchronize(viewer.points_stream));
      INTEROP_CUDA_CHECK(cudaMemcpy(viewer.colormap_device.data(), colormap, 1024, cudaMemcpyHostToDevice));
      desc.colormap = static_cast<const uint8_t*>(viewer.colormap_device.data());
    }
    INTEROP_CUDA_CHECK(kernels::convert_to_rgba8(desc, targets.rgba, n * 4, viewer.points_stream));
  });
}

// The finite bounds, per axis, of the positions held (inside an update: the ones written so far).
int ilab_viewer_points_bounds(void* handle, double* low, double* high, int* empty) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    require(viewer.points != nullptr, "no points were shown");
    const OnCuda on(viewer);
    const lab::orbit::Bounds bounds =
        viewer.points->bounds(viewer.points->in_update() ? viewer.points_stream : viewer.app->cuda_stream());
    for (int axis = 0; axis < 3; ++axis) {
      low[axis] = bounds.low[axis];
      high[axis] = bounds.high[axis];
    }
    *empty = bounds.empty ? 1 : 0;
  });
}

// Ends the update: show 1 shows the points as squares of `size` frame pixels (the camera frames their
// bounds on the first set); show 0 gives the update up (an error in the caller's block) and shows nothing
// new.
int ilab_viewer_points_end(void* handle, int show, double size) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    ilab::points::Cloud& cloud = open_points(viewer);
    const OnCuda on(viewer);
    if (!show) {
      cloud.abandon();
      return;
    }
    if (!(size >= lab::kMinPointSize && size <= lab::kMaxPointSize)) {
      cloud.abandon();
      require(false, "size " + std::to_string(size) + ": a point's edge from 1 to 64 frame pixels");
    }
    viewer.points_bounds = cloud.bounds(viewer.points_stream);
    cloud.end();
    if (cloud.on_device()) order(viewer, viewer.points_stream, viewer.app->cuda_stream());
    lab::PointsPicture points;
    points.xyz = cloud.targets().xyz;
    points.rgba = cloud.targets().rgba;
    points.count = cloud.count();
    points.on_device = cloud.on_device();
    points.size = static_cast<float>(size);
    points.bounds = viewer.points_bounds;
    viewer.source->show_points(points);
    viewer.origin.values = {};  // no array to read under the cursor
    viewer.stats.update_ms =
        std::chrono::duration<double, std::milli>(Clock::now() - viewer.points_started).count();
    run_frame(viewer);
  });
}

struct ilab_points_camera {
  double target[3];
  double yaw, pitch, distance, radius, fov_y;
};

// The points' camera: reset 1 frames the points' bounds again (F); set 1 takes *camera (refused unless
// finite, distance and radius above 0, fov_y in (0, pi), pitch within +-kMaxPitch). Then *camera and, where
// matrix is given, its view_projection for the frame now (16 floats, column-major) come back.
int ilab_viewer_points_camera(void* handle, ilab_points_camera* camera, int set, int reset, float* matrix) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    lab::orbit::Orbit orbit = viewer.source->camera();
    if (reset) {
      require(viewer.points != nullptr, "no points were shown: there are no bounds to frame");
      const lab::view::Size frame = frame_size_of(viewer);
      orbit = lab::orbit::framing(viewer.points_bounds, frame.width, frame.height);
      viewer.source->set_camera(orbit);
    }
    if (set) {
      const ilab_points_camera& c = *camera;
      bool finite = std::isfinite(c.yaw) && std::isfinite(c.pitch) && std::isfinite(c.distance) &&
                    std::isfinite(c.radius) && std::isfinite(c.fov_y);
      for (double t : c.target) finite = finite && std::isfinite(t);
      require(finite, "camera: every number finite");
      require(c.distance > 0.0 && c.radius > 0.0, "camera: distance and radius above 0");
      require(c.fov_y > 0.0 && c.fov_y < 3.14159, "camera: fov_y (radians) between 0 and pi");
      require(std::abs(c.pitch) <= lab::orbit::kMaxPitch,
              "camera: pitch within +-" + std::to_string(lab::orbit::kMaxPitch) + " radians");
      orbit.target = glm::vec3(static_cast<float>(c.target[0]), static_cast<float>(c.target[1]),
                               static_cast<float>(c.target[2]));
      orbit.yaw = c.yaw;
      orbit.pitch = c.pitch;
      orbit.distance = c.distance;
      orbit.radius = static_cast<float>(c.radius);
      orbit.fov_y = c.fov_y;
      viewer.source->set_camera(orbit);
    }
    for (int axis = 0; axis < 3; ++axis) camera->target[axis] = orbit.target[axis];
    camera->yaw = orbit.yaw;
    camera->pitch = orbit.pitch;
    camera->distance = orbit.distance;
    camera->radius = orbit.radius;
    camera->fov_y = orbit.fov_y;
    if (matrix != nullptr) {
      const glm::mat4 m = viewer.source->view_projection(viewer.app->extent());
      std::memcpy(matrix, &m[0][0], 16 * sizeof(float));
    }
  });
}

}  // extern "C"
#pragma GCC visibility pop
