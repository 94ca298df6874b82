// app/modes/external_mode.hpp — the `external` mode of a backend whose CUDA side is a link object: the
// renderer creates the scene's resources shared (needs_importable_resources), the Link imports them and the
// backend's semaphores into CUDA once, and each frame is: the link hands the resources to CUDA (acquire), the
// kernels run on the imported memory, the link hands them back (release). No register, no map/unmap, no
// copies. Nothing here knows a graphics API: app/d3d11 (keyed mutexes) and app/d3d12 (a shared fence)
// instantiate it with their links.
//
// What it needs of Link: a constructor Link(Renderer&, const CudaContext&) that imports everything or
// throws having released what it did (its members are RAII), with the reason where the mode cannot run;
// a destructor that waits until neither side uses the resources, then releases CUDA's objects before the
// backend's; acquire(Renderer&) and release(Renderer&) that queue the hand-overs on the context's stream;
// views() for FrameSource::compute_cuda.
#pragma once

#include "app/modes/mode.hpp"
#include "app/scene/frame_graph.hpp"
#include "app/scene/scene_compute.hpp"
#include "interop/error.hpp"

#include <optional>

namespace lab {

template <class Renderer, class Link>
class ExternalMode final : public Mode<Renderer> {
 public:
  explicit ExternalMode(const CudaContext& cuda) : m_cuda(cuda) {
    if (cuda.graph) m_graph.emplace();
  }
  ~ExternalMode() override { detach(); }
  ExternalMode(const ExternalMode&) = delete;
  ExternalMode& operator=(const ExternalMode&) = delete;

  ModeId id() const override { return ModeId::External; }
  bool needs_importable_resources() const override { return true; }

  void attach(Renderer& renderer) override {
    detach();
    m_link.emplace(renderer, m_cuda);
  }

  // The link's destructor waits for both sides before it releases anything.
  void detach() override { m_link.reset(); }

  void produce(Renderer& renderer, FrameSource& scene, const FrameInfo& frame, FrameTimers& timers) override {
    if (m_graph) {
      // One launch: the semaphore wait, the kernels and the signal, timed together as the kernel phase.
      const CudaPhase phase(timers, Phase::Kernel, m_cuda.stream);
      m_graph->launch(m_cuda.stream, [&] {
        m_link->acquire(renderer);
        scene.compute_cuda(frame, m_link->views(), m_cuda.stream);
        INTEROP_CUDA_CHECK(cudaGetLastError());
        m_link->release(renderer);
      });
      return;
    }
    m_link->acquire(renderer);
    {
      const CudaPhase phase(timers, Phase::Kernel, m_cuda.stream);
      scene.compute_cuda(frame, m_link->views(), m_cuda.stream);
      INTEROP_CUDA_CHECK(cudaGetLastError());  // a failed launch, reported at its frame
    }
    m_link->release(renderer);
  }

 private:
  CudaContext m_cuda;
  std::optional<Link> m_link;
  std::optional<FrameGraph> m_graph;  // --graph
};

}  // namespace lab
