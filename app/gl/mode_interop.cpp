// app/gl/mode_interop.cpp — the modes that hand CUDA the GL objects themselves:
//   interop     registers each GL object once (on attach); every frame maps all of them in one
//               cudaGraphicsMapResources call on the frame's stream, runs the kernels on the mapped
//               pointers / arrays, and unmaps. Unmapping orders the CUDA work before GL's next use;
//               nothing waits on the CPU. This is the right way.
//   reregister  the same, but registers before and unregisters after every frame: the anti-pattern,
//               kept to measure what it costs.
#include "app/gl/mode_detail.hpp"
#include "app/scene/cuda_views.hpp"

#include "interop/error.hpp"

#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace lab::gl {
namespace {

class GraphicsMode final : public gl::Mode {
 public:
  GraphicsMode(ModeId id, const CudaContext& cuda, const AccessSettings& access)
      : m_id(id), m_cuda(cuda), m_access(access) {
    if (cuda.graph) m_graph.emplace();
  }
  ~GraphicsMode() override { detach(); }
  GraphicsMode(const GraphicsMode&) = delete;
  GraphicsMode& operator=(const GraphicsMode&) = delete;

  ModeId id() const override { return m_id; }
  bool reregisters() const { return m_id == ModeId::Reregister; }

  void attach(gl::Renderer& renderer) override {
    m_renderer = &renderer;
    m_resources.take(renderer);
    m_mapped.resize(m_resources.objects.size());
    if (reregisters()) return;  // registers in produce()
    try {
      m_registrations.register_all(m_resources.objects, m_access, true);
    } catch (...) {
      detach();  // a failure halfway leaves nothing registered
      throw;
    }
  }

  void detach() override {
    if (m_renderer != nullptr) m_renderer->clear_cuda_sources();  // they name the registrations going now
    m_renderer = nullptr;
    m_frame_map.reset();            // a frame begun and not ended: unmapped first
    m_mapped.clear(m_cuda.stream);  // waits for the kernels that may still use its objects
    m_registrations.clear();        // before the renderer may delete the GL objects
    m_resources.clear();
  }

  void produce(gl::Renderer& renderer, FrameSource& scene, const FrameInfo& frame,
               FrameTimers& timers) override {
    if (reregisters()) {
      CpuPhase phase(timers, Phase::Register);
      m_registrations.register_all(m_resources.objects, m_access, true);
    }
    // Both modes map, compute and unmap as the halves do (the reregister mode on this frame's registrations).
    map_frame(m_cuda.stream, timers);
    try {
      detail::compute(scene, frame, m_mapped.views(), m_cuda.stream, timers, m_graph ? &*m_graph : nullptr);
    } catch (...) {
      m_frame_map.reset();  // unmapped: the next frame maps again
      throw;
    }
    unmap_frame(timers);
    // The desk reads the frame through the registrations; the reregister mode's end with the frame, so
    // only a frame GL draws is read by CUDA there (through the read-back's own registration).
    if (reregisters())
      renderer.set_cuda_frame_stream(m_cuda.stream, m_cuda.device);
    else
      m_registrations.expose_images(renderer, m_resources.descs, false, m_cuda.stream, m_cuda.device);
    if (reregisters()) {
      // The arrays die with their registrations, and their surface/texture objects must outlive the
      // kernels that use them: wait first (outside the timed phase, so it times the calls alone).
      INTEROP_CUDA_CHECK(cudaStreamSynchronize(m_cuda.stream));
      CpuPhase phase(timers, Phase::Unregister);
      m_mapped.forget_arrays();
      m_registrations.clear();
    }
  }

  // The interop mode's halves: map every resource in one call on `stream`, and unmap (the reregister mode's
  // registrations live for one frame: it has none).
  bool splits_frame() const override { return !reregisters(); }
  FrameAccess begin_frame(gl::Renderer&, cudaStream_t stream, FrameTimers& timers) override {
    if (reregisters())
      throw std::logic_error(
          "the reregister mode makes a frame in one piece (produce): it has no begin_frame");
    if (m_frame_map) throw std::logic_error("gl interop mode: begin_frame twice without end_frame");
    map_frame(stream, timers);
    return {m_mapped.views(), {}};
  }
  void end_frame(gl::Renderer&, FrameTimers& timers) override {
    if (!m_frame_map) throw std::logic_error("gl interop mode: end_frame without begin_frame");
    unmap_frame(timers);
  }

  void apply_access(const AccessSettings& access) override {
    detail::apply_access(m_registrations, m_resources.objects, true, m_access, access, [this] {
      // The surface/texture objects name the arrays of the registrations about to go.
      INTEROP_CUDA_CHECK(cudaStreamSynchronize(m_cuda.stream));
      m_mapped.forget_arrays();
    });
  }

  std::vector<RegisteredFlags> registered_flags() const override {
    return lab::registered_flags(m_resources.descs, m_access);
  }

 private:
  // Maps every resource in one call on `stream`, the views bound to the mapped objects (begin_frame's half).
  void map_frame(cudaStream_t stream, FrameTimers& timers) {
    detail::timed_map(m_frame_map, m_registrations.resources(), stream, timers);
    m_mapped.bind(*m_frame_map, m_resources.descs, stream);
  }
  // Unmaps what map_frame mapped (end_frame's half); the map is gone even when the unmap throws.
  void unmap_frame(FrameTimers& timers) {
    std::optional<interop::ScopedMap> mapped = std::move(m_frame_map);
    m_frame_map.reset();
    detail::timed_unmap(*mapped, timers);
  }

  ModeId m_id;
  CudaContext m_cuda;
  AccessSettings m_access;
  gl::SceneResources m_resources;  // the renderer's, from attach to detach
  gl::SceneRegistrations m_registrations;
  MappedViews m_mapped;
  std::optional<interop::ScopedMap> m_frame_map;  // between begin_frame and end_frame
  std::optional<FrameGraph> m_graph;              // --graph
  gl::Renderer* m_renderer = nullptr;  // attached to: told the frame's CUDA sources, cleared at detach
};

}  // namespace

std::unique_ptr<gl::Mode> create_interop_mode(const CudaContext& cuda, const AccessSettings& access) {
  return std::make_unique<GraphicsMode>(ModeId::Interop, cuda, access);
}

std::unique_ptr<gl::Mode> create_reregister_mode(const CudaContext& cuda, const AccessSettings& access) {
  return std::make_unique<GraphicsMode>(ModeId::Reregister, cuda, access);
}

}  // namespace lab::gl
