// app/modes/cpu_mode.hpp — the `cpu` mode of any backend whose renderer copies between host memory and its
// resources: no CUDA at all. The scene's CPU reference writes host memory, Renderer::upload copies it into
// the resources; what the reference reads (the postprocess scene's rendered cubes) comes the other way,
// Renderer::download after the cubes pass. Nothing here knows a graphics API: app/gl, app/vulkan, app/d3d11
// and app/d3d12 instantiate it with their Renderer (app/modes/mode.hpp says what it needs of it), so every
// API's frames are the same hand-offs. The reference is timed on the host as the kernel, and the downloads
// (and, where the renderer's uploads are done when upload returns, the uploads) as the backend's
// `graphics_copy` phase.
#pragma once

#include "app/modes/mode.hpp"
#include "app/os/out_of_memory.hpp"
#include "app/scene/scene_compute.hpp"
#include "app/timing/timing.hpp"

#include <cstdint>
#include <new>
#include <optional>
#include <string>
#include <vector>

namespace lab {

template <class Renderer>
class CpuMode final : public Mode<Renderer> {
 public:
  // `time_uploads`: the renderer's uploads reach the resources when upload returns (GL), so they are timed
  // as `graphics_copy` too; where they reach them at the next pass (Vulkan), they are timed with the draw.
  explicit CpuMode(Phase graphics_copy = Phase::GlCopy, bool time_uploads = false)
      : m_graphics_copy(graphics_copy), m_time_uploads(time_uploads) {}

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

  void produce(Renderer& renderer, FrameSource& scene, const FrameInfo& frame, FrameTimers& timers) override {
    download_inputs(renderer, timers);
    {
      const CpuPhase phase(timers, Phase::Kernel);
      scene.compute_cpu(frame, m_views);
    }
    end_frame(renderer, timers);
  }

  // The inputs downloaded into host memory; then the outputs uploaded from it.
  bool splits_frame() const override { return true; }
  FrameAccess begin_frame(Renderer& renderer, cudaStream_t, FrameTimers& timers) override {
    download_inputs(renderer, timers);
    return {{}, m_views};
  }
  void end_frame(Renderer& renderer, FrameTimers& timers) override {
    std::optional<GraphicsPhase> uploads;
    if (m_time_uploads) uploads.emplace(timers, m_graphics_copy);
    for (size_t i = 0; i < m_descs.size(); ++i)
      if (m_descs[i].role == ResourceRole::Output) renderer.upload(static_cast<int>(i), m_storage[i].data());
  }

 private:
  void download_inputs(Renderer& renderer, FrameTimers& timers) {
    for (size_t i = 0; i < m_descs.size(); ++i) {
      if (m_descs[i].role != ResourceRole::Input) continue;
      const GraphicsPhase phase(timers, m_graphics_copy);
      renderer.download(static_cast<int>(i), m_storage[i].data());
    }
  }

  Phase m_graphics_copy;  // what the downloads are timed as (the backend's own copy phase)
  bool m_time_uploads;
  std::vector<ResourceDesc> m_descs;
  std::vector<std::vector<uint8_t>> m_storage;
  std::vector<HostResourceView> m_views;
};

}  // namespace lab
