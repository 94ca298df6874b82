// app/modes/staging_mode.hpp — the `staging` mode of any backend whose renderer copies between host memory
// and its resources: the kernels write cudaMalloc memory, which comes to pinned host memory and goes to the
// graphics API with Renderer::upload; what the kernels read comes the other way (Renderer::download after
// the cubes pass, then to the device). Works with any CUDA device, even one that does not drive the
// graphics device. Nothing here knows a graphics API: the backend's Renderer is the template parameter,
// so each backend (app/vulkan, app/d3d11, app/d3d12) instantiates it rather than copying it.
//
// What it needs of the Renderer (app/modes/mode.hpp): resources(), upload(int, const void*) that has read
// the host memory when it returns, and download(int, void*) that waits for the copy. The downloads are
// timed as the backend's `graphics_copy` phase, the copies and the kernels on CUDA events.
#pragma once

#include "app/modes/mode.hpp"
#include "app/scene/scene_compute.hpp"
#include "app/timing/timing.hpp"
#include "interop/error.hpp"
#include "interop/memory.hpp"

#include <cuda_runtime_api.h>

#include <optional>
#include <vector>

namespace lab {

template <class Renderer>
class StagingMode final : public Mode<Renderer> {
 public:
  // `time_uploads` as for CpuMode (app/modes/cpu_mode.hpp).
  explicit StagingMode(cudaStream_t stream, Phase graphics_copy = Phase::GlCopy, bool time_uploads = false)
      : m_stream(stream), m_graphics_copy(graphics_copy), m_time_uploads(time_uploads) {}
  ~StagingMode() override { detach(); }
  StagingMode(const StagingMode&) = delete;
  StagingMode& operator=(const StagingMode&) = delete;

  ModeId id() const override { return ModeId::Staging; }

  void attach(Renderer& renderer) override {
    detach();
    try {
      for (const auto& resource : renderer.resources()) {
        m_descs.push_back(resource.desc);
        m_device.emplace_back(resource.desc.bytes);
        m_host.emplace_back(resource.desc.bytes);
        m_views.push_back(linear_view(m_device.back().data(), resource.desc));
      }
    } catch (...) {
      detach();  // a failure halfway keeps nothing
      throw;
    }
  }

  void detach() override {
    if (!m_device.empty()) INTEROP_CUDA_REPORT(cudaStreamSynchronize(m_stream));  // copies in flight
    m_views.clear();
    m_host.clear();
    m_device.clear();
    m_descs.clear();
  }

  void produce(Renderer& renderer, FrameSource& scene, const FrameInfo& frame, FrameTimers& timers) override {
    for (int i : indices_of(ResourceRole::Input)) {
      {
        const GraphicsPhase phase(timers, m_graphics_copy);
        renderer.download(i, host(i));
      }
      const CudaPhase phase(timers, Phase::CudaCopy, m_stream);
      INTEROP_CUDA_CHECK(cudaMemcpyAsync(device(i), host(i), bytes(i), cudaMemcpyHostToDevice, m_stream));
    }
    {
      const CudaPhase phase(timers, Phase::Kernel, m_stream);
      scene.compute_cuda(frame, m_views, m_stream);
      INTEROP_CUDA_CHECK(cudaGetLastError());  // a failed launch, reported at its frame
    }
    {
      const CudaPhase phase(timers, Phase::CudaCopy, m_stream);
      for (int i : indices_of(ResourceRole::Output))
        INTEROP_CUDA_CHECK(cudaMemcpyAsync(host(i), device(i), bytes(i), cudaMemcpyDeviceToHost, m_stream));
    }
    // The renderer reads the host memory when upload is called: the copies must be complete.
    INTEROP_CUDA_CHECK(cudaStreamSynchronize(m_stream));
    std::optional<GraphicsPhase> uploads;
    if (m_time_uploads) uploads.emplace(timers, m_graphics_copy);
    for (int i : indices_of(ResourceRole::Output)) renderer.upload(i, host(i));
  }

 private:
  std::vector<int> indices_of(ResourceRole role) const {
    std::vector<int> indices;
    for (size_t i = 0; i < m_descs.size(); ++i)
      if (m_descs[i].role == role) indices.push_back(static_cast<int>(i));
    return indices;
  }
  void* host(int i) { return m_host[static_cast<size_t>(i)].data(); }
  void* device(int i) { return m_device[static_cast<size_t>(i)].data(); }
  size_t bytes(int i) const { return m_descs[static_cast<size_t>(i)].bytes; }

  cudaStream_t m_stream;
  Phase m_graphics_copy;  // what the downloads are timed as (the backend's own copy phase)
  bool m_time_uploads;
  std::vector<ResourceDesc> m_descs;
  std::vector<interop::DeviceBuffer> m_device;
  std::vector<interop::PinnedHostBuffer> m_host;
  std::vector<CudaResourceView> m_views;
};

}  // namespace lab
