// app/vulkan/mode_exported.cpp — the Vulkan `exported` mode: CUDA owns the scene's memory and Vulkan
// imports it, the other direction of the external mode. At attach, each resource gets a CUDA allocation
// that can be exported (interop::ExportableAllocation: cuMemCreate with a POSIX FD handle type, mapped
// and made accessible, its size rounded up to the granularity), whose FD the renderer imports as a
// buffer (Renderer::import_memory). The kernels write that memory through plain pointers (images as
// linear memory, row pitch width * 4); the wave scene's vertex buffer is drawn from it directly, and an
// image is copied from its buffer into the renderer's image inside the frame pass (the postprocess
// scene's input the other way, at the end of the cubes pass). Frames are ordered by semaphores Vulkan
// exports and CUDA imports (CudaSemaphores, as in the external mode), never by a host wait.
//
// Why a copy and not a shader reading the buffer: a ShowImage frame has no draw at all (read_frame and
// the window's blit read the image), and the cubes must render into an image; a copy of 33 MB at 4K is a
// transfer of a few tens of microseconds on the H200, where a full-screen pass that reads a buffer costs
// more than the texture path it replaces (DESIGN.md: 740 vs 608 us on GL) and a pipeline of its own. GL
// refuses CUDA's linear memory as an image, and Vulkan has no linear-tiled import that every driver takes.
//
// Teardown (ExportedLink's destructor): both sides idle, then the renderer's imports go (its buffers and
// memory: the importer first), then CUDA's allocations (unmap, free the range, release), then the
// semaphores (CUDA's imports before Vulkan's).
#include "app/vulkan/cuda_link.hpp"
#include "app/vulkan/modes.hpp"
#include "app/vulkan/semaphore_mode.hpp"
#include "interop/error.hpp"
#include "interop/vmm.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <exception>
#include <memory>
#include <vector>

namespace lab::vulkan {

namespace {

class ExportedLink {
 public:
  ExportedLink(Renderer& renderer, const CudaContext& cuda, interop::SemaphoreKind kind)
      : m_renderer(renderer), m_semaphores(renderer.context(), kind) {
    try {
      const std::vector<Resource>& resources = renderer.resources();
      m_allocations.reserve(resources.size());
      for (size_t index = 0; index < resources.size(); ++index) {
        const ResourceDesc& desc = resources[index].desc;
        interop::ExportableAllocationDesc allocation;
        allocation.size = desc.bytes;
        allocation.device = cuda.device;
        const interop::ExportableAllocation& memory = m_allocations.emplace_back(allocation);
        // Zeroed once, padding included: nothing either side reads is ever undefined (compute-sanitizer's
        // initcheck cannot see the copies Vulkan writes into an input).
        INTEROP_CUDA_CHECK(cudaMemsetAsync(memory.data(), 0, memory.allocation_size(), cuda.stream));
        INTEROP_CUDA_CHECK(cudaStreamSynchronize(cuda.stream));
        renderer.import_memory(static_cast<int>(index), memory.export_fd(), memory.allocation_size());
        m_views.push_back(linear_view(memory.data(), desc));
      }
    } catch (...) {
      release();
      throw;
    }
  }
  ~ExportedLink() { release(); }
  ExportedLink(const ExportedLink&) = delete;
  ExportedLink& operator=(const ExportedLink&) = delete;

  const std::vector<CudaResourceView>& views() const { return m_views; }
  PassSync cubes_pass() { return m_semaphores.cubes_pass(); }
  void cuda_acquire(cudaStream_t stream) { m_semaphores.cuda_acquire(stream); }
  void cuda_release(cudaStream_t stream) { m_semaphores.cuda_release(stream); }
  PassSync frame_pass(bool prepared) { return m_semaphores.frame_pass(prepared); }

 private:
  // Neither side may still use the memory: Vulkan's queue and every CUDA stream of the device go idle,
  // the renderer's imports go, then the allocations. Errors are reported, not thrown: a destructor runs it.
  void release() noexcept {
    try {
      m_renderer.wait_idle();
      INTEROP_CUDA_REPORT(cudaDeviceSynchronize());
      m_views.clear();
      if (!m_allocations.empty()) m_renderer.destroy_resources();
    } catch (const std::exception& error) {
      std::fprintf(stderr, "interop-lab: exported mode teardown: %s\n", error.what());
    }
    m_allocations.clear();
  }

  Renderer& m_renderer;
  CudaSemaphores m_semaphores;  // declared first: it goes last, after the memory
  std::vector<interop::ExportableAllocation> m_allocations;
  std::vector<CudaResourceView> m_views;
};

}  // namespace

std::unique_ptr<Mode> create_exported_mode(const CudaContext& cuda, interop::SemaphoreKind kind) {
  return std::make_unique<SemaphoreOrderedMode<ExportedLink>>(ModeId::Exported, cuda, kind);
}

}  // namespace lab::vulkan
