// app/gl/app/bench_loops.hpp — the GL benchmark's loops written with raw calls: the scene's GL objects
// registered with raw CUDA calls (RawRegistrations), the bare loop (the interop frame), and each mode's own
// minimal loop (its "<mode> ref" row: the GL and CUDA work the mode does for a frame, in the same order,
// with nothing of the app around it). The modes name their own loop in the bench rows (bench_rows.hpp);
// app/gl/app/bench.cpp measures them beside the modes. A loop that runs alone begins with the parking mode
// attached (it holds no GL object and leaves the images in textures), so no other mode's registrations or
// placement shape what the loop measures; a loop whose mode keeps nothing of the scene's GL objects between
// frames runs beside the attached mode instead, their frames taking turns (PairedLoop, below).
#pragma once

#include "app/bench/report.hpp"
#include "app/gl/renderer.hpp"
#include "app/image/image_io.hpp"
#include "app/scene/scene_compute.hpp"

#include <cuda_runtime_api.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace lab::gl {

class App;

using Measurement = bench::Result;

// A GL row of the table: the median and p90 of `wall`.
Measurement summarize(std::string path, bench::Role role, const std::vector<double>& wall);
// Every frame of the benchmark ends with all its work finished, GL's and CUDA's.
void finish_frame(App& app);
// The GL rendering of what the kernels read, if the scene has one (postprocess: the cubes).
void draw_input(App& app, const FrameInfo& frame);
// Attaches the parking mode (bench_rows.hpp: the cpu mode) and renders one frame with it, finished.
void park(App& app);

// The scene's GL objects registered with raw CUDA calls (no interop:: types), and per frame one
// cudaGraphicsMapResources of all of them with views for the kernels: what a hand-written sample does.
class RawRegistrations {
 public:
  // `surfaces`: output textures are written through surface objects (else only copied into).
  RawRegistrations(const std::vector<gl::Resource>& specs, cudaStream_t stream, bool surfaces = true);
  ~RawRegistrations();
  RawRegistrations(const RawRegistrations&) = delete;
  RawRegistrations& operator=(const RawRegistrations&) = delete;

  void map();
  void unmap();
  // After map(): resource `i`'s mapped array (a texture).
  cudaArray_t array(size_t i) const;
  // After map(): the mapped pointers, and surface / texture objects of the mapped arrays (kept while
  // the array stays the same).
  const std::vector<CudaResourceView>& views();

 private:
  void release();

  std::vector<gl::Resource> m_specs;
  cudaStream_t m_stream;
  std::vector<cudaGraphicsResource_t> m_resources;
  std::vector<cudaArray_t> m_arrays;
  std::vector<CudaResourceView> m_views;
};

// The bare loop, the minimal correct frame: the scene's GL rendering of its input (if any) -> map ->
// the same kernels -> unmap -> show, with raw CUDA calls. Labelled "bare".
Measurement measure_bare_loop(App& app, std::optional<long long> frames);

// The modes' own loops (none: the mode has no loop of its own here). Each labelled "<mode> ref".
using OwnLoop = std::optional<Measurement> (*)(App& app, std::optional<long long> frames);
// None while the kernels run on another device than GL's (--compute-device).
std::optional<Measurement> split_loop(App& app, std::optional<long long> frames);
std::optional<Measurement> buffer_loop(App& app, std::optional<long long> frames);

// The own loops that run beside their mode, frame by frame: the mode keeps nothing of the scene's GL objects
// between its frames (no registration, no other placement), nor the loop, so one's frames leave the other's
// as they were. Each makes the loop's own resources for the current scene and size and returns its frame's
// work between the rendering of the scene's input and the show pass (own_frame runs the whole frame); the
// resources live as long as the function. app/gl/app/bench.cpp alternates such a loop's frames with its
// mode's.
using LoopWork = std::function<void(const FrameInfo&)>;
using PairedLoop = LoopWork (*)(App& app);
LoopWork reregister_work(App& app);
LoopWork pbo_work(App& app);
LoopWork staging_work(App& app);
LoopWork cpu_work(App& app);
// One whole frame of such a loop: the scene's input rendered, `work`, the show pass, everything finished.
void own_frame(App& app, const LoopWork& work, const FrameInfo& frame);
// app/gl/app/bench_external.cpp: the semaphore-ordered frame with the memory made by raw Vulkan calls
// (external) or raw cuMem* calls (exported), with the app's --semaphores kind.
// `last`, when given, receives the frame drawn last (App::read_frame, before the memory goes) and its index:
// the tests hold it against the cpu frame.
struct LoopFrame {
  long long index = -1;
  Image image;
};
std::optional<Measurement> external_loop(App& app, std::optional<long long> frames,
                                         LoopFrame* last = nullptr);
std::optional<Measurement> exported_loop(App& app, std::optional<long long> frames,
                                         LoopFrame* last = nullptr);
// app/gl/app/bench_eglstream.cpp: raw EGLStream calls (none on Windows, which has no EGL). `last_index`, when
// given, receives the index of the frame drawn last (the warm-up's length varies): the tests hold the
// scene's texture, which the loop draws into as the mode does, against the cpu frame of that index.
std::optional<Measurement> eglstream_loop(App& app, std::optional<long long> frames,
                                          long long* last_index = nullptr);

}  // namespace lab::gl
