// app/vulkan/semaphore_mode.hpp — the Vulkan modes whose frames are ordered by semaphores alone
// (external, exported, buffer's CUDA form): a Link made at attach holds what CUDA shares with the renderer
// and the semaphores, and each frame is [cubes pass signals] -> CUDA waits, runs the kernels on the shared
// memory, signals -> the frame pass waits. No copies through the host, no map/unmap, no host wait.
//
// What it needs of Link: Link(Renderer&, const CudaContext&, interop::SemaphoreKind) that makes
// everything or throws having released what it did; a destructor that waits until neither side uses
// the memory, then releases it in the safe order; views() for FrameSource::compute_cuda; and
// CudaSemaphores' four steps (cubes_pass, cuda_acquire, cuda_release, frame_pass).
#pragma once

#include "app/scene/frame_graph.hpp"
#include "app/vulkan/modes.hpp"
#include "interop/error.hpp"

#include <optional>

namespace lab::vulkan {

template <class Link>
class SemaphoreOrderedMode final : public Mode {
 public:
  SemaphoreOrderedMode(ModeId id, const CudaContext& cuda, interop::SemaphoreKind kind)
      : m_id(id), m_cuda(cuda), m_kind(kind) {
    if (cuda.graph) m_graph.emplace();
  }
  ~SemaphoreOrderedMode() override { detach(); }
  SemaphoreOrderedMode(const SemaphoreOrderedMode&) = delete;
  SemaphoreOrderedMode& operator=(const SemaphoreOrderedMode&) = delete;

  ModeId id() const override { return m_id; }
  // The external and buffer modes' memory is the renderer's, exported (the buffer mode's images' in the
  // linear buffers it places, its buffers' as they are); the exported mode's is CUDA's, imported by the
  // renderer at attach (its resources are created plain first).
  bool needs_importable_resources() const override { return m_id != ModeId::Exported; }

  void attach(Renderer& renderer) override {
    detach();
    m_link.emplace(renderer, m_cuda, m_kind);
  }

  // The link's destructor waits for both sides before it releases anything.
  void detach() override { m_link.reset(); }

  PassSync cubes_sync(const FrameInfo&) override {
    m_prepared = true;
    return m_link->cubes_pass();
  }

  // Wait and signal are timed with CUDA events on the stream: the wait's time is how long the stream stood
  // until Vulkan's signal (the cubes pass, or the previous frame's pass) arrived.
  void produce(Renderer&, FrameSource& scene, const FrameInfo& frame, FrameTimers& timers) override {
    if (m_graph) {
      // One launch: the semaphore wait, the kernels and the signal, timed together as the kernel phase.
      CudaPhase phase(timers, Phase::Kernel, m_cuda.stream);
      m_graph->launch(m_cuda.stream, [&] {
        m_link->cuda_acquire(m_cuda.stream);
        scene.compute_cuda(frame, m_link->views(), m_cuda.stream);
        INTEROP_CUDA_CHECK(cudaGetLastError());
        m_link->cuda_release(m_cuda.stream);
      });
      return;
    }
    {
      CudaPhase phase(timers, Phase::Wait, m_cuda.stream);
      m_link->cuda_acquire(m_cuda.stream);
    }
    {
      CudaPhase phase(timers, Phase::Kernel, m_cuda.stream);
      scene.compute_cuda(frame, m_link->views(), m_cuda.stream);
      INTEROP_CUDA_CHECK(cudaGetLastError());
    }
    CudaPhase phase(timers, Phase::Signal, m_cuda.stream);
    m_link->cuda_release(m_cuda.stream);
  }

  PassSync frame_sync(const FrameInfo&) override {
    const bool prepared = m_prepared;
    m_prepared = false;
    return m_link->frame_pass(prepared);
  }

 private:
  ModeId m_id;
  CudaContext m_cuda;
  interop::SemaphoreKind m_kind;
  std::optional<Link> m_link;
  bool m_prepared = false;            // the cubes pass ran this frame
  std::optional<FrameGraph> m_graph;  // --graph
};

}  // namespace lab::vulkan
