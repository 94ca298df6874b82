// app/vulkan/cuda_link.hpp — the CUDA half of the Vulkan `external` mode: every resource the Vulkan
// renderer created exportable is imported into CUDA once (buffers as device pointers, images as
// mipmapped arrays with a surface object to write or a texture object to read), and a pair of
// semaphores orders each frame without map/unmap:
//
//   [draw_cubes]  Vulkan signals "graphics done"      (the postprocess scene's input is rendered)
//   CUDA          waits "graphics done" -> kernels -> signals "CUDA done"
//   [draw_frame]  Vulkan waits "CUDA done", draws; for scenes without draw_cubes it also signals
//                 "graphics done" for the next frame: its draw reads what CUDA overwrites next.
//
// Timeline: one exported timeline semaphore carries both directions, one increasing value per step (two
// per frame). Binary: two exported binary semaphores, one per direction. Both are imported into CUDA
// as interop::ExternalSemaphore.
//
// Ownership: each FD that Vulkan exports is handed to CUDA's import, which owns it from then on (never
// closed here); an FD whose import throws is closed here. Teardown (the destructor): the device and the
// stream are idle first (the caller's wait_idle + cudaStreamSynchronize), then surface/texture objects,
// mapped buffers and arrays, the imported memory and semaphores, and only then the Vulkan semaphores;
// the renderer frees the Vulkan memory after this object is gone.
#pragma once

#include "app/scene/scene_compute.hpp"
#include "app/vulkan/renderer.hpp"
#include "interop/external.hpp"
#include "interop/surface.hpp"

#include <cuda_runtime_api.h>
#include <vulkan/vulkan.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace lab::vulkan {

// The UUID of CUDA device `device` (cudaDeviceProp::uuid): the Vulkan device that is the same GPU has it
// as its deviceUUID (Context's `uuid`; matched by UUID, never by ordinal).
Uuid cuda_device_uuid(int device);

// `semaphore` imported into the current CUDA device (a timeline as a timeline, a binary one as an opaque
// FD); the FD it exports is CUDA's once the import succeeds, and closed if it throws.
interop::ExternalSemaphore import_semaphore(const ExportableSemaphore& semaphore);

// The semaphores of one frame's hand-overs (see the top of this file), exported by Vulkan and imported
// into CUDA: what CudaLink orders the external mode with, and the exported mode alone (its memory is
// CUDA's own). Throws std::runtime_error naming what the device lacks (semaphore export, timelines).
class CudaSemaphores {
 public:
  CudaSemaphores(Context& context, interop::SemaphoreKind kind);
  CudaSemaphores(const CudaSemaphores&) = delete;
  CudaSemaphores& operator=(const CudaSemaphores&) = delete;

  interop::SemaphoreKind kind() const { return m_kind; }
  // One frame, in this order; cubes_pass only for a scene that renders its input with draw_cubes
  // (`prepared`).
  PassSync cubes_pass();                   // what draw_cubes waits on and signals
  void cuda_acquire(cudaStream_t stream);  // CUDA waits until graphics is done with the resources
  void cuda_release(cudaStream_t stream);  // CUDA signals that the kernels are done
  PassSync frame_pass(bool prepared);      // what draw_frame waits on and signals

  const ExportableSemaphore& graphics_done() const { return m_graphics_done; }
  const ExportableSemaphore* cuda_done() const { return m_cuda_done ? &*m_cuda_done : nullptr; }
  uint64_t timeline_value() const { return m_value; }

 private:
  // Declaration order is teardown order reversed: CUDA's imports go before the Vulkan semaphores.
  interop::SemaphoreKind m_kind;
  ExportableSemaphore m_graphics_done;              // timeline: the only semaphore; binary: graphics -> CUDA
  std::optional<ExportableSemaphore> m_cuda_done;   // binary only: CUDA -> graphics
  interop::ExternalSemaphore m_cuda_graphics_done;  // the imports of the two above
  interop::ExternalSemaphore m_cuda_cuda_done;
  uint64_t m_value = 0;               // timeline: the value signalled last
  uint64_t m_graphics_value = 0;      // timeline: what CUDA waits for this frame
  bool m_graphics_signalled = false;  // binary: a signal of m_graphics_done is pending for CUDA
};

// Every resource of a renderer imported into the current CUDA device once, as the kernels take it: what
// CudaLink imports, and each copy of the resources the benchmark's throughput rows use. Each FD the renderer
// exports is handed to CUDA's import (see the top of this file); the imports are released in the safe
// order (surface/texture objects, mapped buffers and arrays, then the memory) when this goes, after the
// caller made the device and the stream idle.
class CudaImports {
 public:
  // Imports renderer.resources(): each created exportable (Renderer::create_resources(descs, true)), or
  // an image shown from its exportable linear buffer (the buffer mode), which is imported as that buffer.
  // Throws std::logic_error for a resource created otherwise, interop::Error when CUDA refuses one.
  explicit CudaImports(Renderer& renderer);
  CudaImports(const CudaImports&) = delete;
  CudaImports& operator=(const CudaImports&) = delete;

  // views()[i] is renderer.resources()[i] as the kernels take it: buffers as `pointer`, Output images
  // as `surface`, Input images as `texture` (RGBA8 read as normalised float4), linear images as
  // `pointer` with their pitch.
  const std::vector<CudaResourceView>& views() const { return m_views; }

 private:
  struct Imported {
    interop::ExternalMemory memory;
    interop::ExternalBuffer buffer;
    interop::ExternalMipmappedArray array;
    interop::SurfaceObject surface;
    interop::TextureObject texture;
  };
  std::vector<Imported> m_imported;
  std::vector<CudaResourceView> m_views;
};

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
