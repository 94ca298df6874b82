// app/d3d11/mode_cpu.hpp — the cpu mode of both Direct3D backends (app/d3d11/mode_cpu.cpp and
// app/d3d12/mode_cpu.cpp make it for their Renderer): no CUDA at all. The scene's CPU reference writes host
// memory, Renderer::upload copies it into the resources; what the reference reads (the postprocess scene's
// rendered cubes) comes the other way, Renderer::download after the cubes pass. The same hand-offs as the
// GL and Vulkan cpu modes (app/gl/mode_cpu.cpp, app/vulkan/modes_copy.cpp), so their frames agree.
// Also: cpu_only_availability, the mode judgement of a build without CUDA (app/d3d11/cpu_only.cpp).
#pragma once

#include "app/out_of_memory.hpp"
#include "app/scene_compute.hpp"
#include "app/vocabulary.hpp"

#include <cstdint>
#include <new>
#include <string>
#include <vector>

namespace lab::d3d {

// ModeBase: the backend's Mode interface; Renderer: its renderer (resources(), upload, download).
template <class ModeBase, class Renderer>
class CpuMode final : public ModeBase {
 public:
  ModeId id() const override { return ModeId::Cpu; }

  void attach(Renderer& renderer) override {
    detach();
    for (const auto& resource : renderer.resources()) {
      const ResourceDesc& desc = resource.desc;
      m_descs.push_back(desc);
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

  void produce(Renderer& renderer, SceneCompute& scene, const FrameInfo& frame) override {
    for (size_t i = 0; i < m_descs.size(); ++i)
      if (m_descs[i].role == ResourceRole::Input) renderer.download(static_cast<int>(i), m_storage[i].data());
    scene.compute_cpu(frame, m_views);
    for (size_t i = 0; i < m_descs.size(); ++i)
      if (m_descs[i].role == ResourceRole::Output) renderer.upload(static_cast<int>(i), m_storage[i].data());
  }

 private:
  std::vector<ResourceDesc> m_descs;
  std::vector<std::vector<uint8_t>> m_storage;
  std::vector<HostResourceView> m_views;
};

// What a build without CUDA says of `mode` on `api`: cpu runs; the API's other modes need a build with
// CUDA; a mode the API lacks is not its mode.
ModeAvailability cpu_only_availability(GraphicsApi api, ModeId mode);

}  // namespace lab::d3d
