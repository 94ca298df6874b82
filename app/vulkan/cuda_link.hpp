// app/vulkan/cuda_link.hpp — the CUDA half of the Vulkan `external` mode: every resource the Vulkan
// renderer created exportable is imported into CUDA once (buffers as device pointers, images as
// mipmapped arrays with a surface object to write or a texture object to read: CudaImports), and a pair
// of semaphores orders each frame without map/unmap (CudaSemaphores; cuda_import.hpp says the order).
//
// Ownership: each FD that Vulkan exports is handed to CUDA's import, which owns it from then on (never
// closed here); an FD whose import throws is closed here. Teardown (the destructor): the device and the
// stream are idle first (the caller's wait_idle + cudaStreamSynchronize), then surface/texture objects,
// mapped buffers and arrays, the imported memory and semaphores, and only then the Vulkan semaphores;
// the renderer frees the Vulkan memory after this object is gone.
#pragma once

#include "app/scene/scene_compute.hpp"
#include "app/vulkan/cuda_import.hpp"
#include "app/vulkan/renderer.hpp"
#include "interop/external.hpp"
#include "interop/surface.hpp"

#include <cuda_runtime_api.h>
#include <vulkan/vulkan.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace lab::vulkan {

// The renderer's resources as CudaImports imports them: each created exportable, or an image shown from
// its exportable linear buffer (the buffer mode), as that buffer. Throws std::logic_error for a resource
// created otherwise.
std::vector<MemoryToImport> memory_to_import(Renderer& renderer);

class CudaLink {
 public:
  // Imports renderer.resources() (created with exportable = true) into the current CUDA device and
  // creates the semaphores of `kind`. Throws interop::Error or std::runtime_error naming what failed.
  CudaLink(Renderer& renderer, interop::SemaphoreKind kind);
  ~CudaLink();
  CudaLink(const CudaLink&) = delete;
  CudaLink& operator=(const CudaLink&) = delete;

  // views()[i] is renderer.resources()[i] as the kernels take it: buffers as `pointer`, Output images
  // as `surface`, Input images as `texture` (RGBA8 read as normalised float4).
  const std::vector<CudaResourceView>& views() const { return m_imports.views(); }
  interop::SemaphoreKind kind() const { return m_semaphores.kind(); }

  // One frame: CudaSemaphores' steps.
  PassSync cubes_pass() { return m_semaphores.cubes_pass(); }
  void cuda_acquire(cudaStream_t stream) { m_semaphores.cuda_acquire(stream); }
  void cuda_release(cudaStream_t stream) { m_semaphores.cuda_release(stream); }
  PassSync frame_pass(bool prepared) { return m_semaphores.frame_pass(prepared); }

  // The Vulkan semaphores behind the frame's waits and signals, for a third party that imports them too
  // (GL, in the GL external mode): "graphics done" (the timeline itself), and "CUDA done" (binary only;
  // null for a timeline).
  const ExportableSemaphore& graphics_done() const { return m_semaphores.graphics_done(); }
  const ExportableSemaphore* cuda_done() const { return m_semaphores.cuda_done(); }

  // The timeline's last value used (0 before the first frame; binary: 0).
  uint64_t timeline_value() const { return m_semaphores.timeline_value(); }

 private:
  // Declaration order is teardown order reversed: the CUDA objects go before the Vulkan semaphores.
  Renderer& m_renderer;
  CudaSemaphores m_semaphores;
  CudaImports m_imports;
};

}  // namespace lab::vulkan
