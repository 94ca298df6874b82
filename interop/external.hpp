// interop/external.hpp — CUDA's external resource interop: memory and semaphores that another API
// (Vulkan, Direct3D 12, OpenGL through GL_EXT_memory_object) allocated and exported as OS handles,
// imported into CUDA once (cudaImportExternalMemory / cudaImportExternalSemaphore) and then used every
// frame without map/unmap: the two sides order their work with semaphore waits and signals on streams
// and queues instead.
//
//   ExternalMemory           the imported allocation (cudaExternalMemory_t)
//   ExternalBuffer           a linear range of it as a device pointer (cudaExternalMemoryGetMappedBuffer)
//   ExternalMipmappedArray   an image in it as a cudaMipmappedArray (...GetMappedMipmappedArray): format
//                            and extent must match the exporting API's image exactly
//   ExternalSemaphore        a binary or timeline semaphore; wait/signal queued on a stream
//
// Handle ownership, as the CUDA Runtime API states it: an opaque FD (memory or semaphore) belongs to the
// CUDA driver once its import succeeds: never close it, and duplicate it (dup) first when a second
// importer needs it. If the import fails it stays the caller's. Win32 NT handles are not taken: the
// caller closes them after the import. Nothing here knows Vulkan or Direct3D beyond these handle types.
//
// Teardown order: wait until neither side uses the memory, free the mapped buffers and arrays, destroy
// the ExternalMemory / ExternalSemaphore, and only then free the exporting API's memory and semaphores.
#pragma once

#include "interop/owner.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

namespace interop {

// What kind of OS handle another API exported.
enum class ExternalHandleType {
  OpaqueFd,  // Vulkan / GL on Linux: VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT (memory, binary semaphores)
  TimelineFd,       // semaphores only: a Vulkan timeline semaphore exported as an opaque FD
  OpaqueWin32,      // Vulkan on Windows, NT handle
  D3D12Resource,    // a committed resource created with D3D12_HEAP_FLAG_SHARED (NT handle); dedicated
  D3D12Fence,       // semaphores only: a shared ID3D12Fence (NT handle)
  D3D11Resource,    // a shared D3D11 resource (NT handle)
  D3D11KeyedMutex,  // semaphores only: the keyed mutex of a shared D3D11 resource
};
// "opaque fd", "timeline fd", ... for messages.
const char* to_string(ExternalHandleType type);
// Whether this build's platform has the handle type (FDs on Linux, NT handles on Windows).
bool handle_type_available(ExternalHandleType type);

// Import desc of memory. Zero means default where a default exists.
struct ExternalMemoryDesc {
  ExternalHandleType type = ExternalHandleType::OpaqueFd;
  int fd = -1;                   // FD types
  void* win32_handle = nullptr;  // NT handle types (borrowed: the caller closes it after the import)
  uint64_t size = 0;       // the allocation's real size (vkGetMemoryRequirements / GetResourceAllocationInfo)
  bool dedicated = false;  // a dedicated allocation (Vulkan images, D3D12 committed resources)
};

// "" when `desc` can be imported here, else what is wrong and what works, naming the field
// ("ExternalMemoryDesc.size is 0: pass the allocation's size from vkGetMemoryRequirements").
std::string validate(const ExternalMemoryDesc& desc);

namespace detail {
struct ExternalMemoryTraits {
  using Handle = cudaExternalMemory_t;
  static void destroy(Handle memory) noexcept;  // cudaDestroyExternalMemory
};
struct ExternalBufferTraits {
  using Handle = void*;
  static void destroy(Handle pointer) noexcept;  // cudaFree
};
struct MipmappedArrayTraits {
  using Handle = cudaMipmappedArray_t;
  static void destroy(Handle array) noexcept;  // cudaFreeMipmappedArray
};
struct ExternalSemaphoreTraits {
  using Handle = cudaExternalSemaphore_t;
  static void destroy(Handle semaphore) noexcept;  // cudaDestroyExternalSemaphore
};
}  // namespace detail

// A linear range of imported memory as a device pointer. Move-only.
class ExternalBuffer {
 public:
  ExternalBuffer() = default;
  void* data() const { return m_pointer.get(); }
  uint64_t size() const { return m_size; }

 private:
  friend class ExternalMemory;
  ExternalBuffer(void* pointer, uint64_t size) : m_pointer(pointer), m_size(size) {}
  Owner<detail::ExternalBufferTraits> m_pointer;
  uint64_t m_size = 0;
};

// An image in imported memory as a CUDA mipmapped array; level(0) is what surface and texture
// objects take. Move-only.
class ExternalMipmappedArray {
 public:
  ExternalMipmappedArray() = default;
  cudaMipmappedArray_t get() const { return m_array.get(); }
  cudaArray_t level(unsigned int level) const;

 private:
  friend class ExternalMemory;
  explicit ExternalMipmappedArray(cudaMipmappedArray_t array) : m_array(array) {}
  Owner<detail::MipmappedArrayTraits> m_array;
};

// Where and what the image is: its offset in the allocation, texel format, extent (depth 0 for 2D),
// mip levels, and cudaArray* flags (cudaArraySurfaceLoadStore to write it through surfaces).
struct MipmappedArrayDesc {
  uint64_t offset = 0;
  cudaChannelFormatDesc format{};
  cudaExtent extent{0, 0, 0};
  unsigned int levels = 1;
  unsigned int flags = 0;
};
std::string validate(const MipmappedArrayDesc& desc, uint64_t memory_size);

// Memory another API exported, imported into the current CUDA device. Move-only.
class ExternalMemory {
 public:
  ExternalMemory() = default;
  // Validates, then imports. On success an FD belongs to CUDA (see the top of this file); on a throw
  // it is still the caller's.
  explicit ExternalMemory(const ExternalMemoryDesc& desc);

  cudaExternalMemory_t get() const { return m_memory.get(); }
  uint64_t size() const { return m_size; }

  // [offset, offset + size) as a device pointer; size 0: to the end.
  ExternalBuffer map_buffer(uint64_t offset = 0, uint64_t size = 0) const;
  ExternalMipmappedArray map_mipmapped_array(const MipmappedArrayDesc& desc) const;

 private:
  Owner<detail::ExternalMemoryTraits> m_memory;
  uint64_t m_size = 0;
};

enum class SemaphoreKind { Binary, Timeline };

struct ExternalSemaphoreDesc {
  ExternalHandleType type = ExternalHandleType::OpaqueFd;  // OpaqueFd (binary), TimelineFd, D3D12Fence, ...
  int fd = -1;
  void* win32_handle = nullptr;
};
std::string validate(const ExternalSemaphoreDesc& desc);

// A semaphore another API exported, imported into CUDA. Waits and signals are queued on a stream and
// never block the host. A timeline semaphore waits for / signals `value` (one increasing value per
// frame); a binary one ignores it; a D3D11 keyed mutex takes it as the key to acquire / release.
// Move-only.
class ExternalSemaphore {
 public:
  ExternalSemaphore() = default;
  explicit ExternalSemaphore(const ExternalSemaphoreDesc& desc);

  SemaphoreKind kind() const { return m_kind; }
  cudaExternalSemaphore_t get() const { return m_semaphore.get(); }
  void wait(cudaStream_t stream, uint64_t value = 0) const;
  void signal(cudaStream_t stream, uint64_t value = 0) const;

 private:
  Owner<detail::ExternalSemaphoreTraits> m_semaphore;
  SemaphoreKind m_kind = SemaphoreKind::Binary;
  bool m_keyed_mutex = false;
};

}  // namespace interop
