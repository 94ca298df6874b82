// app/vulkan/modes_copy.cpp — the Vulkan backend's copying modes: `cpu` (the CPU reference writes host
// memory, which Renderer::upload copies into the resources; no CUDA at all) and `staging` (the kernels
// write cudaMalloc memory, which comes to pinned host memory and is uploaded from there:
// app/staging_mode.hpp, shared with the Direct3D backends). What the
// kernels read comes the other way, Renderer::download after the cubes pass. The same hand-offs as the
// GL modes of the same names (app/gl/mode_cpu.cpp, app/gl/mode_staging.cpp), so their frames agree.
#include "app/out_of_memory.hpp"
#include "app/staging_mode.hpp"
#include "app/vulkan/modes.hpp"

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

}  // namespace

std::unique_ptr<Mode> create_cpu_mode() {
  return std::make_unique<CpuMode>();
}
std::unique_ptr<Mode> create_staging_mode(const CudaContext& cuda) {
  return std::make_unique<StagingMode<Mode, Renderer, FrameTimers>>(cuda.stream, Phase::VulkanCopy);
}

}  // namespace lab::vulkan
