// app/vulkan/mode_external.cpp — the Vulkan `external` mode: the renderer allocates the scene's
// resources exportable, CUDA imports them once (CudaLink), and each frame is ordered by semaphores
// alone: [cubes pass signals] -> CUDA waits, runs the kernels on the imported memory, signals -> the
// frame pass waits. No copies, no map/unmap, no host wait. Timeline semaphores by default (one value per
// step); binary semaphores as the switch (--semaphores binary).
#include "app/vulkan/cuda_link.hpp"
#include "app/vulkan/modes.hpp"
#include "interop/error.hpp"

#include <memory>
#include <optional>

namespace lab::vulkan {

namespace {

class ExternalMode final : public Mode {
 public:
  ExternalMode(const CudaContext& cuda, interop::SemaphoreKind kind) : m_cuda(cuda), m_kind(kind) {}
  ~ExternalMode() override { detach(); }
  ExternalMode(const ExternalMode&) = delete;
  ExternalMode& operator=(const ExternalMode&) = delete;

  ModeId id() const override { return ModeId::External; }
  bool needs_importable_resources() const override { return true; }

  void attach(Renderer& renderer) override {
    detach();
    m_link.emplace(renderer, m_kind);
  }

  // CudaLink's destructor waits for both sides before it releases anything.
  void detach() override { m_link.reset(); }

  PassSync cubes_sync(const FrameInfo&) override {
    m_prepared = true;
    return m_link->cubes_pass();
  }

  // Wait and signal are timed with CUDA events on the stream: the wait's time is how long the stream stood
  // until Vulkan's signal (the cubes pass, or the previous frame's pass) arrived.
  void produce(Renderer&, SceneCompute& scene, const FrameInfo& frame, FrameTimers& timers) override {
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
  CudaContext m_cuda;
  interop::SemaphoreKind m_kind;
  std::optional<CudaLink> m_link;
  bool m_prepared = false;  // the cubes pass ran this frame
};

}  // namespace

std::unique_ptr<Mode> create_external_mode(const CudaContext& cuda, interop::SemaphoreKind kind) {
  return std::make_unique<ExternalMode>(cuda, kind);
}

}  // namespace lab::vulkan
