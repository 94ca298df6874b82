// app/gl/app/bench_throughput.cpp — frames per second of the map/unmap frame with frames in flight and with K
// frames per hand-off (bench_throughput.hpp). Raw calls on textures of their own, as the bare loop: the
// pattern kernel writes each mapped texture through a surface object, and GL shows it with a blit into an
// offscreen target, the least GL work that reads what CUDA wrote. A row's time is the wall time of all its
// frames, the last one finished, over their count: with frames in flight no single frame's time says it.
#include "app/gl/app/bench_throughput.hpp"

#include "app/gl/app/app.hpp"
#include "app/gl/gl_objects.hpp"
#include "app/timing/bench_timing.hpp"
#include "interop/error.hpp"
#include "interop/gl.hpp"
#include "kernels/pattern.hpp"

#include <utility>

namespace lab::gl {
namespace {

constexpr long long kDefaultThroughputFrames = 300;

// One fence per texture: the GL work that last read it; waited for before CUDA writes it again.
class FenceRing {
 public:
  explicit FenceRing(size_t count) : m_fences(count, nullptr) {}
  ~FenceRing() {
    for (GLsync fence : m_fences)
      if (fence) glDeleteSync(fence);
  }
  FenceRing(const FenceRing&) = delete;
  FenceRing& operator=(const FenceRing&) = delete;

  void wait(size_t slot) {
    if (GLsync fence = std::exchange(m_fences[slot], nullptr)) {
      glClientWaitSync(fence, GL_SYNC_FLUSH_COMMANDS_BIT, GL_TIMEOUT_IGNORED);
      glDeleteSync(fence);
    }
  }
  void place(size_t slot) {
    if (m_fences[slot]) glDeleteSync(m_fences[slot]);
    m_fences[slot] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  }

 private:
  std::vector<GLsync> m_fences;
};

// `count` RGBA8 textures of the frame's size, registered for surface writes, each with a framebuffer to
// blit from, and the target they are shown into.
class Textures {
 public:
  Textures(size_t count, Extent extent, cudaStream_t stream)
      : m_extent(extent), m_stream(stream), m_target(create_offscreen_target(extent.width, extent.height)) {
    for (size_t i = 0; i < count; ++i) {
      m_sources.push_back(create_offscreen_target(create_texture_2d(GL_RGBA8, extent.width, extent.height),
                                                  extent.width, extent.height));
      interop::TextureRegistrationDesc desc;
      desc.texture = m_sources.back().color.get();
      desc.internal_format = GL_RGBA8;
      desc.access = interop::Access::WriteDiscard;
      desc.surface_load_store = true;
      m_registrations.emplace_back(desc);
      m_resources.push_back(m_registrations.back().resource());
    }
    m_arrays.assign(count, nullptr);
    m_surfaces.assign(count, 0);
  }
  ~Textures() {
    cudaStreamSynchronize(m_stream);
    for (cudaSurfaceObject_t surface : m_surfaces)
      if (surface) cudaDestroySurfaceObject(surface);
  }
  Textures(const Textures&) = delete;
  Textures& operator=(const Textures&) = delete;

  // Maps `count` textures from `first` in one call.
  void map(size_t first, size_t count) {
    INTEROP_CUDA_CHECK(cudaGraphicsMapResources(static_cast<int>(count), &m_resources[first], m_stream));
  }
  void unmap(size_t first, size_t count) {
    INTEROP_CUDA_CHECK(cudaGraphicsUnmapResources(static_cast<int>(count), &m_resources[first], m_stream));
  }
  // While mapped: the pattern kernel writes texture `i` for frame `index`.
  void write(size_t i, long long index) {
    cudaArray_t array = nullptr;
    INTEROP_CUDA_CHECK(cudaGraphicsSubResourceGetMappedArray(&array, m_resources[i], 0, 0));
    if (array != m_arrays[i]) {
      if (m_surfaces[i]) INTEROP_CUDA_CHECK(cudaDestroySurfaceObject(m_surfaces[i]));
      cudaResourceDesc resource{};
      resource.resType = cudaResourceTypeArray;
      resource.res.array.array = array;
      INTEROP_CUDA_CHECK(cudaCreateSurfaceObject(&m_surfaces[i], &resource));
      m_arrays[i] = array;
    }
    kernels::ImageTarget target;
    target.surface = m_surfaces[i];
    target.width = m_extent.width;
    target.height = m_extent.height;
    kernels::pattern_cuda(target, {m_extent.width, m_extent.height, kernels::time_of_frame(index)}, m_stream);
  }
  // After unmap: GL shows texture `i`.
  void show(size_t i) {
    glBlitNamedFramebuffer(m_sources[i].framebuffer.get(), m_target.framebuffer.get(), 0, 0, m_extent.width,
                           m_extent.height, 0, 0, m_extent.width, m_extent.height, GL_COLOR_BUFFER_BIT,
                           GL_NEAREST);
  }
  void finish() {
    glFinish();
    INTEROP_CUDA_CHECK(cudaStreamSynchronize(m_stream));
  }

 private:
  Extent m_extent;
  cudaStream_t m_stream;
  OffscreenTarget m_target;
  std::vector<OffscreenTarget> m_sources;
  std::vector<interop::GlTextureRegistration> m_registrations;
  std::vector<cudaGraphicsResource_t> m_resources;
  std::vector<cudaArray_t> m_arrays;
  std::vector<cudaSurfaceObject_t> m_surfaces;
};

}  // namespace

std::vector<bench::Throughput> measure_throughput(App& app, std::optional<long long> frames) {
  const long long count = frames.value_or(kDefaultThroughputFrames);
  const Extent extent = app.platform().framebuffer_extent();
  const cudaStream_t stream = app.cuda_stream();
  std::vector<bench::Throughput> rows;
  const auto row = [&](int in_flight, int per_handoff, double ms) {
    bench::Throughput t;
    t.api = "gl";
    t.path = "interop";
    t.width = extent.width;
    t.height = extent.height;
    t.in_flight = in_flight;
    t.per_handoff = per_handoff;
    t.frames = bench::throughput_frames(count, per_handoff);
    t.ms_per_frame = ms;
    rows.push_back(t);
  };
  // Frames in flight: N = 1 finishes each frame (the latency row, as every case of the table); N = 2 and 3
  // issue frames back to back, CUDA writing a texture once the fence after its last blit has passed.
  for (const int in_flight : {1, 2, 3}) {
    Textures textures(static_cast<size_t>(in_flight), extent, stream);
    FenceRing fences(static_cast<size_t>(in_flight));
    const double ms = ms_per_frame_issued(
        count, 1,
        [&](long long index) {
          const size_t slot = static_cast<size_t>(index % in_flight);
          if (in_flight > 1) fences.wait(slot);
          textures.map(slot, 1);
          textures.write(slot, index);
          textures.unmap(slot, 1);
          textures.show(slot);
          if (in_flight > 1)
            fences.place(slot);
          else
            textures.finish();
        },
        [&] { textures.finish(); });
    row(in_flight, 1, ms);
  }
  // K frames per hand-off: one map of K textures, K kernels, one unmap, K blits, then finished.
  for (const int per_handoff : {2, 4}) {
    Textures textures(static_cast<size_t>(per_handoff), extent, stream);
    const size_t k = static_cast<size_t>(per_handoff);
    const double ms = ms_per_frame_issued(
        count, per_handoff,
        [&](long long index) {
          textures.map(0, k);
          for (size_t i = 0; i < k; ++i) textures.write(i, index + static_cast<long long>(i));
          textures.unmap(0, k);
          for (size_t i = 0; i < k; ++i) textures.show(i);
          textures.finish();
        },
        [&] { textures.finish(); });
    row(1, per_handoff, ms);
  }
  return rows;
}

}  // namespace lab::gl
