// app/d3d12/mode_external.cpp — the Direct3D 12 `external` mode: the renderer creates the scene's
// resources as shared committed resources (D3D12_HEAP_FLAG_SHARED), CUDA imports each once through an NT
// handle (cudaExternalMemoryHandleTypeD3D12Resource, dedicated, the size GetResourceAllocationInfo gives)
// together with one shared fence (D3D12_FENCE_FLAG_SHARED, cudaExternalSemaphoreHandleTypeD3D12Fence),
// and each frame is ordered by fence values alone (app/d3d/d3d_handoff.hpp's FenceTimeline): the queue
// signals -> CUDA waits, runs the kernels, signals -> the queue waits before the frame pass. No register,
// no map/unmap, no copies, no host wait.
//
// The mode is app/modes/external_mode.hpp's; its CUDA side is FenceLink. Teardown (detach): CUDA's work is
// done first (the stream); the queue signals a last value that the host waits for, so it is past its
// last wait on the fence; then the surface/texture objects, mapped buffers and arrays, the imported
// memory and the semaphore go, then the fence; the renderer releases the resources after this. Needs the
// D3D12 device on the adapter whose LUID the CUDA device has (checked in attach).
#include "app/d3d/d3d_handoff.hpp"
#include "app/d3d12/cuda_modes.hpp"
#include "app/modes/external_mode.hpp"
#include "app/scene/cuda_views.hpp"
#include "interop/error.hpp"
#include "interop/external.hpp"

#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

namespace lab::d3d12 {
namespace {

// The CUDA side of the mode (app/modes/external_mode.hpp's Link): the resources and one shared fence
// imported.
class FenceLink {
 public:
  FenceLink(Renderer& renderer, const CudaContext& cuda) : m_renderer(renderer), m_stream(cuda.stream) {
    throw_if_unavailable(ModeId::External, d3d::cuda_mode_availability<Renderer>(ModeId::External, cuda, "",
                                                                                 &renderer.device()));
    LAB_D3D_CHECK(renderer.device().device->CreateFence(0, D3D12_FENCE_FLAG_SHARED, IID_PPV_ARGS(&m_fence)));
    {
      // CUDA does not take NT handles over: this one is closed at the end of the scope, after the
      // import, as the CUDA Runtime API reference asks (so are the resources' below).
      const d3d::SharedHandle handle = renderer.export_handle(m_fence.Get());
      interop::ExternalSemaphoreDesc fence;
      fence.type = interop::ExternalHandleType::D3D12Fence;
      fence.win32_handle = handle.get();
      m_cuda_fence = interop::ExternalSemaphore(fence);
    }
    const std::vector<Resource>& resources = renderer.resources();
    m_imported.resize(resources.size());
    m_views.resize(resources.size());
    for (size_t i = 0; i < resources.size(); ++i) import(renderer, resources[i], m_imported[i], m_views[i]);
  }

  ~FenceLink() {
    // CUDA may still wait on, compute in or signal: all of that is done first; then the queue.
    INTEROP_CUDA_REPORT(cudaStreamSynchronize(m_stream));
    wait_for_queue();
  }
  FenceLink(const FenceLink&) = delete;
  FenceLink& operator=(const FenceLink&) = delete;

  // One frame's values (FenceTimeline): the queue signals, CUDA waits ... CUDA signals, the queue waits.
  void acquire(Renderer& renderer) {
    m_values = m_timeline.next_frame();
    renderer.signal(m_fence.Get(), m_values.graphics_signal);
    m_cuda_fence.wait(m_stream, m_values.cuda_wait);
  }
  void release(Renderer& renderer) {
    m_cuda_fence.signal(m_stream, m_values.cuda_signal);
    renderer.wait(m_fence.Get(), m_values.graphics_wait);
  }
  const std::vector<CudaResourceView>& views() const { return m_views; }

 private:
  static void import(Renderer& renderer, const Resource& resource, ImportedResource& imported,
                     CudaResourceView& view) {
    if (!resource.shared)
      throw std::logic_error(std::string("the d3d12 external mode: \"") + resource.desc.label +
                             "\" was not created shared; call Renderer::create_resources(descs, true)");
    // A committed resource's allocation is larger than its data (alignment, a texture's layout): CUDA
    // needs the allocation's real size.
    const D3D12_RESOURCE_DESC desc = resource.resource->GetDesc();
    const D3D12_RESOURCE_ALLOCATION_INFO allocation =
        renderer.device().device->GetResourceAllocationInfo(0, 1, &desc);
    const d3d::SharedHandle handle = renderer.export_handle(resource.resource.Get());
    imported.memory = interop::ExternalMemory(shared_resource_import(
        interop::ExternalHandleType::D3D12Resource, handle.get(), allocation.SizeInBytes));
    map_imported(imported, resource.desc, view);
  }

  // Puts the queue past its last wait on the fence before the fence goes. Only when CUDA's last signal
  // landed: otherwise that wait never ends, and neither would a host wait behind it.
  void wait_for_queue() {
    try {
      if (m_fence->GetCompletedValue() < m_timeline.last()) {
        std::fprintf(stderr,
                     "interop-lab: the d3d12 external mode's teardown: CUDA did not signal fence value "
                     "%llu; the Direct3D 12 queue may still wait for it\n",
                     static_cast<unsigned long long>(m_timeline.last()));
        return;
      }
      const uint64_t last = m_timeline.next_teardown();
      m_renderer.signal(m_fence.Get(), last);
      LAB_D3D_CHECK(m_fence->SetEventOnCompletion(last, nullptr));  // no event: blocks until reached
    } catch (const std::exception& error) {
      std::fprintf(stderr, "interop-lab: the d3d12 external mode's teardown: %s\n", error.what());
    }
  }

  Renderer& m_renderer;
  cudaStream_t m_stream;
  // Declared in the order made; destroyed the other way round: CUDA's objects before the fence.
  ComPtr<ID3D12Fence> m_fence;
  interop::ExternalSemaphore m_cuda_fence;
  std::vector<ImportedResource> m_imported;
  std::vector<CudaResourceView> m_views;
  FenceTimeline m_timeline;
  FenceFrame m_values;  // this frame's
};

}  // namespace

std::unique_ptr<Mode> create_external_mode(const CudaContext& cuda) {
  return std::make_unique<ExternalMode<Renderer, FenceLink>>(cuda);
}

}  // namespace lab::d3d12
