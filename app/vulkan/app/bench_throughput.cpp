// app/vulkan/app/bench_throughput.cpp — frames per second of the external frame with frames in flight and
// with K frames per hand-off (bench_throughput.hpp). Each copy of the scene's resources is a Renderer of its
// own on the one Context (its resources exportable, its own frame target), imported into CUDA with interop::
// types; each hand-off is one exported timeline semaphore imported into CUDA, one increasing value per
// step. A row's time is the wall time of all its frames, the last one finished, over their count
// (lab::ms_per_frame_issued): with frames in flight no single frame's time says it.
//
// Why one semaphore per copy with frames in flight: passes of different frames may finish out of order on
// the queue (a cubes pass waits on nothing, the frame pass before it waits on CUDA), and a timeline's
// signals must come in increasing order; within one copy every step waits on the one before. The K frames
// of one hand-off share one semaphore, signalled once by the last cubes pass (a signal covers everything
// submitted before it on the queue) and once by CUDA after the K kernels.
#include "app/vulkan/app/bench_throughput.hpp"

#include "app/cli/remedy.hpp"
#include "app/timing/bench_timing.hpp"
#include "app/vulkan/cuda_link.hpp"
#include "app/vulkan/device.hpp"
#include "app/vulkan/renderer.hpp"
#include "interop/error.hpp"
#include "interop/external.hpp"
#include "interop/stream.hpp"
#include "interop/surface.hpp"
#include "kernels/common.hpp"

#include <cuda_runtime_api.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace lab::vulkan {
namespace {

constexpr long long kDefaultThroughputFrames = 300;
constexpr const char* kPath = "external (timeline)";

// One copy of the scene's resources: a renderer of its own, its resources created exportable and imported
// into CUDA (buffers as pointers, Output images as surfaces, Input images as textures) by CudaImports, as
// the external mode's CudaLink imports them.
class Copy {
 public:
  Copy(Context& context, Extent extent, const std::vector<ResourceDesc>& descs)
      : m_renderer(context, extent) {
    m_renderer.create_resources(descs, true);
    m_imports.emplace(m_renderer);
  }
  // Neither side may still use the memory when the imports and then the renderer release it.
  ~Copy() {
    m_renderer.wait_idle();
    cudaDeviceSynchronize();
  }
  Copy(const Copy&) = delete;
  Copy& operator=(const Copy&) = delete;

  Renderer& renderer() { return m_renderer; }
  const std::vector<CudaResourceView>& views() const { return m_imports->views(); }
  long long drawn = -1;  // the index of the frame drawn into it last

 private:
  // Declaration order is teardown order reversed: CUDA's imports go before the renderer's memory.
  Renderer m_renderer;
  std::optional<CudaImports> m_imports;  // made once the renderer's resources are
};

// One hand-off's semaphore: a Vulkan timeline exported and imported into CUDA, which carries both
// directions, one increasing value per step.
struct HandOff {
  explicit HandOff(Context& context)
      : vulkan(context, interop::SemaphoreKind::Timeline), cuda(import_semaphore(vulkan)) {}
  // Declaration order is teardown order reversed: CUDA's import goes before the Vulkan semaphore.
  ExportableSemaphore vulkan;
  interop::ExternalSemaphore cuda;
  uint64_t value = 0;  // signalled last (0: nothing yet, which a wait finds reached)
};

// What one row draws with: its hand-offs, and its copies, which go first (each waits until neither side
// uses it any more, so no pass still waits on a semaphore when the hand-offs go).
struct Row {
  std::vector<std::unique_ptr<HandOff>> handoffs;
  std::vector<std::unique_ptr<Copy>> copies;
};

// The frames of one scene at one size.
class Frames {
 public:
  Frames(SceneCompute& scene, Extent extent, cudaStream_t stream)
      : m_scene(scene),
        m_plan(scene.draw_plan()),
        m_extent(extent),
        m_view_projection(wave_view_projection(extent)),
        m_stream(stream) {}

  // Frames first .. first + count - 1 into copies[0 .. count) through one hand-off: [cubes passes, the
  // last signals] -> CUDA waits once -> the kernels of each frame -> CUDA signals once -> the frame passes,
  // each waiting on it; in a scene without a cubes pass the last frame pass signals that Vulkan is done
  // with the copies (the next hand-off's CUDA wait), as the external mode's frame pass does.
  void issue(HandOff& handoff, std::unique_ptr<Copy>* copies, size_t count, long long first) {
    const bool cubes = m_plan.cubes_target >= 0;
    uint64_t graphics_done = handoff.value;
    if (cubes) {
      graphics_done = ++handoff.value;
      for (size_t i = 0; i < count; ++i) {
        PassSync sync;
        if (i + 1 == count) sync.signal.push_back({handoff.vulkan.get(), graphics_done});
        copies[i]->renderer().draw_cubes(m_plan.cubes_target, cubes_view(m_extent, frame(first, i).time),
                                         sync);
      }
    }
    handoff.cuda.wait(m_stream, graphics_done);
    for (size_t i = 0; i < count; ++i) m_scene.compute_cuda(frame(first, i), copies[i]->views(), m_stream);
    INTEROP_CUDA_CHECK(cudaGetLastError());
    const uint64_t cuda_done = ++handoff.value;
    handoff.cuda.signal(m_stream, cuda_done);
    for (size_t i = 0; i < count; ++i) {
      PassSync sync{{{handoff.vulkan.get(), cuda_done}}, {}};
      if (!cubes && i + 1 == count) sync.signal.push_back({handoff.vulkan.get(), ++handoff.value});
      copies[i]->renderer().draw_frame(m_plan, m_view_projection, sync);
      copies[i]->drawn = first + static_cast<long long>(i);
    }
  }

  // Everything queued done: the Vulkan queue (every copy's passes) and the stream.
  void finish(Row& row) {
    for (const std::unique_ptr<Copy>& copy : row.copies) copy->renderer().wait_idle();
    INTEROP_CUDA_CHECK(cudaStreamSynchronize(m_stream));
  }

  const DrawPlan& plan() const { return m_plan; }

 private:
  FrameInfo frame(long long first, size_t i) const {
    const long long index = first + static_cast<long long>(i);
    return {index, kernels::time_of_frame(index), m_extent};
  }

  SceneCompute& m_scene;
  DrawPlan m_plan;
  Extent m_extent;
  glm::mat4 m_view_projection;
  cudaStream_t m_stream;
};

// The CUDA device the rows run on (--device, else 0), made current; throws with the reason where there is
// none, as the mode table says it.
int select_cuda_device(const Options& options) {
  const interop::CudaDevices cuda = probe_cuda_devices();
  if (cuda.devices.empty()) throw std::runtime_error(no_cuda_device_reason(cuda.error));
  const int device = options.device.value_or(0);
  if (const std::string refusal = device_refusal(device, cuda); !refusal.empty())
    throw std::runtime_error(refusal);
  INTEROP_CUDA_CHECK(cudaSetDevice(device));
  return device;
}

}  // namespace

std::vector<bench::Throughput> measure_throughput(const Options& options, SceneId scene_id, Extent extent,
                                                  const std::vector<bench::ThroughputForm>& forms,
                                                  std::vector<ThroughputFrame>* frames) {
  for (const bench::ThroughputForm& form : forms)
    if (form.in_flight < 1 || form.per_handoff < 1 || (form.in_flight > 1 && form.per_handoff > 1))
      throw std::invalid_argument(
          "measure_throughput: a form is " + std::to_string(form.in_flight) + " in flight, " +
          std::to_string(form.per_handoff) +
          " per hand-off; give frames in flight or frames per hand-off (>= 1), not both");
  const long long count = options.bench_frames.value_or(kDefaultThroughputFrames);
  const Uuid uuid = cuda_device_uuid(select_cuda_device(options));
  Context context(&uuid);
  const std::unique_ptr<SceneCompute> scene = create_scene_compute(scene_id, options.filter);
  const interop::Stream stream;
  Frames loop(*scene, extent, stream.get());
  std::vector<bench::Throughput> rows;
  for (const bench::ThroughputForm& form : forms) {
    // N copies in turn, one hand-off each; or K copies through one hand-off.
    const size_t copies = static_cast<size_t>(form.in_flight > 1 ? form.in_flight : form.per_handoff);
    const size_t handoffs = form.in_flight > 1 ? copies : 1;
    Row row;
    for (size_t i = 0; i < handoffs; ++i) row.handoffs.push_back(std::make_unique<HandOff>(context));
    for (size_t i = 0; i < copies; ++i)
      row.copies.push_back(std::make_unique<Copy>(context, extent, scene->resources(extent)));
    const auto issue = [&](long long index) {
      if (form.per_handoff > 1) {
        loop.issue(*row.handoffs[0], row.copies.data(), copies, index);
        loop.finish(row);  // once per K frames
        return;
      }
      const size_t slot = static_cast<size_t>(index % form.in_flight);
      if (form.in_flight > 1) row.copies[slot]->renderer().wait_idle();  // the frame N back, only
      loop.issue(*row.handoffs[slot], &row.copies[slot], 1, index);
      if (form.in_flight == 1) loop.finish(row);
    };
    const double ms = ms_per_frame_issued(count, form.per_handoff, issue, [&] { loop.finish(row); });

    bench::Throughput t;
    t.api = "vulkan";
    t.scene = to_string(scene_id);
    t.path = kPath;
    t.width = extent.width;
    t.height = extent.height;
    t.in_flight = form.in_flight;
    t.per_handoff = form.per_handoff;
    t.frames = bench::throughput_frames(count, form.per_handoff);
    t.ms_per_frame = ms;
    rows.push_back(t);
    if (frames)
      for (const std::unique_ptr<Copy>& copy : row.copies)
        frames->push_back({form, copy->drawn, copy->renderer().read_frame(loop.plan())});
  }
  return rows;
}

}  // namespace lab::vulkan
