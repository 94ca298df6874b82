// app/vulkan/cuda_import.hpp — what Vulkan exports, imported into CUDA, with no Vulkan drawing: the
// semaphores of one frame's hand-overs (CudaSemaphores) and each resource's memory as the kernels take it
// (CudaImports), for the Vulkan modes (through the renderer: cuda_link.hpp) and for GL's external mode
// (through ExportMemory alone: export_memory.hpp).
//
// The frame's order, with the semaphores:
//
//   [draw_cubes]  graphics signals "graphics done"   (the postprocess scene's input is rendered)
//   CUDA          waits "graphics done" -> kernels -> signals "CUDA done"
//   [draw_frame]  graphics waits "CUDA done", draws; for scenes without draw_cubes it also signals
//                 "graphics done" for the next frame: its draw reads what CUDA overwrites next.
//
// Timeline: one exported timeline semaphore carries both directions, one increasing value per step (two
// per frame). Binary: two exported binary semaphores, one per direction. Both are imported into CUDA
// as interop::ExternalSemaphore.
//
// Ownership: each FD that Vulkan exports is handed to CUDA's import, which owns it from then on (never
// closed here); an FD whose import throws is closed here. Teardown: the device and the stream are idle
// first, then surface/texture objects, mapped buffers and arrays, the imported memory and semaphores, and
// only then the Vulkan semaphores and memory.
#pragma once

#include "app/scene/scene_compute.hpp"
#include "app/vulkan/device.hpp"
#include "app/vulkan/export_memory.hpp"
#include "app/vulkan/pass_sync.hpp"
#include "interop/external.hpp"
#include "interop/surface.hpp"

#include <cuda_runtime_api.h>
#include <vulkan/vulkan.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace lab::vulkan {

class Renderer;

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

// One resource's exported memory, as CudaImports imports it.
struct MemoryToImport {
  ResourceDesc desc;
  VkDeviceSize allocation_size = 0;  // what the import must be told
  bool dedicated = false;            // a dedicated allocation (cudaExternalMemoryDedicated)
  // An image whose texels live in a buffer of their own (Vulkan's buffer mode): imported as that buffer,
  // and the kernels write it through a pointer with its pitch.
  bool linear = false;
  std::function<int()> export_fd;  // a new FD of the memory, called once, just before its import
};

// ExportMemory's resources, each to be imported as it was made (buffers, optimal-tiled images).
std::vector<MemoryToImport> memory_to_import(const ExportMemory& memory);

// Every resource imported into the current CUDA device once, as the kernels take it: what CudaLink
// imports, each copy of the resources the benchmark's throughput rows use, and GL's external mode's
// memory. Each FD is handed to CUDA's import (see the top of this file); the imports are released in the
// safe order (surface/texture objects, mapped buffers and arrays, then the memory) when this goes, after
// the caller made the device and the stream idle.
class CudaImports {
 public:
  // Imports `memory` in its order. Throws interop::Error when CUDA refuses one.
  explicit CudaImports(const std::vector<MemoryToImport>& memory);
  // Imports renderer.resources(): each created exportable (Renderer::create_resources(descs, true)), or
  // an image shown from its exportable linear buffer (the buffer mode), which is imported as that buffer.
  // Throws std::logic_error for a resource created otherwise, interop::Error when CUDA refuses one.
  // Defined with the renderer (cuda_link.cpp, labvulkan).
  explicit CudaImports(Renderer& renderer);
  CudaImports(const CudaImports&) = delete;
  CudaImports& operator=(const CudaImports&) = delete;

  // views()[i] is the i-th resource as the kernels take it: buffers as `pointer`, Output images as
  // `surface`, Input images as `texture` (RGBA8 read as normalised float4), linear images as `pointer`
  // with their pitch.
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

}  // namespace lab::vulkan
