// app/gl/mode_staging.cpp — the `staging` mode: what people do without interop. The kernels write plain
// cudaMalloc memory; cudaMemcpyAsync brings it to pinned host memory; after the stream is done, GL
// uploads it with glTextureSubImage2D / glNamedBufferSubData. What the kernels read goes the other
// way (glGetTextureImage into pinned memory, then to the device). Works on any CUDA device, even one
// that does not drive the GL context.
#include "app/gl/mode.hpp"

#include "interop/error.hpp"
#include "interop/memory.hpp"

#include <vector>

namespace lab {

// Host <-> GL transfers shared with the cpu mode (mode_cpu.cpp).
namespace {

class StagingMode final : public gl::Mode {
 public:
  explicit StagingMode(const CudaContext& cuda) : m_cuda(cuda) {}
  ~StagingMode() override { on_detach(); }
  StagingMode(const StagingMode&) = delete;
  StagingMode& operator=(const StagingMode&) = delete;

  ModeId id() const override { return ModeId::Staging; }

  void on_attach(Scene& scene) override {
    m_specs = scene.resources();
    try {
      for (const ResourceSpec& spec : m_specs) {
        m_device.emplace_back(spec.bytes);
        m_host.emplace_back(spec.bytes);
        m_views.push_back(linear_view(m_device.back().data(), spec));
      }
    } catch (...) {
      on_detach();
      throw;
    }
  }

  void on_detach() override {
    if (!m_device.empty()) INTEROP_CUDA_REPORT(cudaStreamSynchronize(m_cuda.stream));  // copies in flight
    m_views.clear();
    m_host.clear();
    m_device.clear();
    m_specs.clear();
  }

  void produce(Scene& scene, const FrameInfo& frame, FrameTimers& timers) override {
    copy_inputs_to_device(timers);
    {
      CudaPhase phase(timers, Phase::Kernel, m_cuda.stream);
      scene.compute_cuda(frame, m_views, m_cuda.stream);
      INTEROP_CUDA_CHECK(cudaGetLastError());
    }
    {
      CudaPhase phase(timers, Phase::CudaCopy, m_cuda.stream);
      for (size_t i = 0; i < m_specs.size(); ++i)
        if (m_specs[i].role == ResourceRole::Output)
          INTEROP_CUDA_CHECK(cudaMemcpyAsync(m_host[i].data(), m_device[i].data(), m_specs[i].bytes,
                                             cudaMemcpyDeviceToHost, m_cuda.stream));
    }
    // GL reads the host memory as soon as glTextureSubImage2D is called: the copy must be complete.
    INTEROP_CUDA_CHECK(cudaStreamSynchronize(m_cuda.stream));
    GlPhase phase(timers, Phase::GlCopy);
    for (size_t i = 0; i < m_specs.size(); ++i)
      if (m_specs[i].role == ResourceRole::Output) upload_to_gl(m_specs[i], m_host[i].data());
    INTEROP_GL_CHECK("staging mode upload");
  }

 private:
  void copy_inputs_to_device(FrameTimers& timers) {
    if (!has_role(m_specs, ResourceRole::Input)) return;
    {
      GlPhase phase(timers, Phase::GlCopy);
      for (size_t i = 0; i < m_specs.size(); ++i)
        if (m_specs[i].role == ResourceRole::Input) download_from_gl(m_specs[i], m_host[i].data());
    }
    CudaPhase phase(timers, Phase::CudaCopy, m_cuda.stream);
    for (size_t i = 0; i < m_specs.size(); ++i)
      if (m_specs[i].role == ResourceRole::Input)
        INTEROP_CUDA_CHECK(cudaMemcpyAsync(m_device[i].data(), m_host[i].data(), m_specs[i].bytes,
                                           cudaMemcpyHostToDevice, m_cuda.stream));
  }

  CudaContext m_cuda;
  std::vector<ResourceSpec> m_specs;
  std::vector<interop::DeviceBuffer> m_device;
  std::vector<interop::PinnedHostBuffer> m_host;
  std::vector<CudaResourceView> m_views;
};

}  // namespace

std::unique_ptr<gl::Mode> create_staging_mode(const CudaContext& cuda) {
  return std::make_unique<StagingMode>(cuda);
}

}  // namespace lab
