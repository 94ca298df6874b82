// app/vulkan/modes_copy.cpp — the Vulkan backend's copying modes: `cpu` (the CPU reference writes host
// memory, which Renderer::upload copies into the resources; no CUDA at all) and `staging` (the kernels
// write cudaMalloc memory, which comes to pinned host memory and is uploaded from there). What the
// kernels read comes the other way, Renderer::download after the cubes pass. The same hand-offs as the
// GL modes of the same names (app/gl/mode_cpu.cpp, app/gl/mode_staging.cpp), so their frames agree.
#include "app/out_of_memory.hpp"
#include "app/vulkan/modes.hpp"
#include "interop/error.hpp"
#include "interop/memory.hpp"

#include <cstdint>
#include <new>
#include <string>
#include <vector>

namespace lab::vulkan {
namespace {

std::vector<ResourceDesc> descs_of(const Renderer& renderer) {
  std::vector<ResourceDesc> descs;
  for (const Resource& resource : renderer.resources()) descs.push_back(resource.desc);
  return descs;
}

class CpuMode final : public Mode {
 public:
  ModeId id() const override { return ModeId::Cpu; }

  void attach(Renderer& renderer) override {
    detach();
    m_descs = descs_of(renderer);
    for (const ResourceDesc& desc : m_descs) {
      try {
        m_storage.emplace_back(desc.bytes);
      } catch (const std::bad_alloc&) {
        detach();
        throw_out_of_memory(std::string("the cpu mode's copy of the ") + desc.label, desc.bytes);
      }
      m_views.push_back({m_storage.back().data(), desc.bytes, linear_pitch(desc)});
    }
  }

  void detach() override {
    m_views.clear();
    m_storage.clear();
    m_descs.clear();
  }

  void produce(Renderer& renderer, SceneCompute& scene, const FrameInfo& frame, FrameTimers& timers) override {
    for (size_t i = 0; i < m_descs.size(); ++i) {
      if (m_descs[i].role != ResourceRole::Input) continue;
      GraphicsPhase phase(timers, Phase::VulkanCopy);
      renderer.download(static_cast<int>(i), m_storage[i].data());
    }
    {
      CpuPhase phase(timers, Phase::Kernel);
      scene.compute_cpu(frame, m_views);
    }
    // The uploads are copied into the resources at the start of the next pass: timed as part of its draw.
    for (size_t i = 0; i < m_descs.size(); ++i)
      if (m_descs[i].role == ResourceRole::Output) renderer.upload(static_cast<int>(i), m_storage[i].data());
  }

 private:
  std::vector<ResourceDesc> m_descs;
  std::vector<std::vector<uint8_t>> m_storage;
  std::vector<HostResourceView> m_views;
};

class StagingMode final : public Mode {
 public:
  explicit StagingMode(const CudaContext& cuda) : m_cuda(cuda) {}
  ~StagingMode() override { detach(); }
  StagingMode(const StagingMode&) = delete;
  StagingMode& operator=(const StagingMode&) = delete;

  ModeId id() const override { return ModeId::Staging; }

  void attach(Renderer& renderer) override {
    detach();
    m_descs = descs_of(renderer);
    try {
      for (const ResourceDesc& desc : m_descs) {
        m_device.emplace_back(desc.bytes);
        m_host.emplace_back(desc.bytes);
        m_views.push_back(linear_view(m_device.back().data(), desc));
      }
    } catch (...) {
      detach();
      throw;
    }
  }

  void detach() override {
    if (!m_device.empty()) INTEROP_CUDA_REPORT(cudaStreamSynchronize(m_cuda.stream));  // copies in flight
    m_views.clear();
    m_host.clear();
    m_device.clear();
    m_descs.clear();
  }

  void produce(Renderer& renderer, SceneCompute& scene, const FrameInfo& frame, FrameTimers& timers) override {
    for (size_t i = 0; i < m_descs.size(); ++i) {
      if (m_descs[i].role != ResourceRole::Input) continue;
      {
        GraphicsPhase phase(timers, Phase::VulkanCopy);
        renderer.download(static_cast<int>(i), m_host[i].data());
      }
      CudaPhase phase(timers, Phase::CudaCopy, m_cuda.stream);
      INTEROP_CUDA_CHECK(cudaMemcpyAsync(m_device[i].data(), m_host[i].data(), m_descs[i].bytes,
                                         cudaMemcpyHostToDevice, m_cuda.stream));
    }
    {
      CudaPhase phase(timers, Phase::Kernel, m_cuda.stream);
      scene.compute_cuda(frame, m_views, m_cuda.stream);
      INTEROP_CUDA_CHECK(cudaGetLastError());
    }
    {
      CudaPhase phase(timers, Phase::CudaCopy, m_cuda.stream);
      for (size_t i = 0; i < m_descs.size(); ++i)
        if (m_descs[i].role == ResourceRole::Output)
          INTEROP_CUDA_CHECK(cudaMemcpyAsync(m_host[i].data(), m_device[i].data(), m_descs[i].bytes,
                                             cudaMemcpyDeviceToHost, m_cuda.stream));
    }
    // Renderer::upload reads the host memory when it is called: the copies must be complete.
    INTEROP_CUDA_CHECK(cudaStreamSynchronize(m_cuda.stream));
    for (size_t i = 0; i < m_descs.size(); ++i)
      if (m_descs[i].role == ResourceRole::Output) renderer.upload(static_cast<int>(i), m_host[i].data());
  }

 private:
  CudaContext m_cuda;
  std::vector<ResourceDesc> m_descs;
  std::vector<interop::DeviceBuffer> m_device;
  std::vector<interop::PinnedHostBuffer> m_host;
  std::vector<CudaResourceView> m_views;
};

}  // namespace

std::unique_ptr<Mode> create_cpu_mode() {
  return std::make_unique<CpuMode>();
}
std::unique_ptr<Mode> create_staging_mode(const CudaContext& cuda) {
  return std::make_unique<StagingMode>(cuda);
}

}  // namespace lab::vulkan
