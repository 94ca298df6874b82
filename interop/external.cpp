// interop/external.cpp — imports of external memory and semaphores (see external.hpp for ownership and
// teardown), with their descs validated before CUDA sees them.
#include "interop/external.hpp"

#include "interop/error.hpp"

#include <utility>

namespace interop {

namespace {

bool is_fd(ExternalHandleType type) {
  return type == ExternalHandleType::OpaqueFd || type == ExternalHandleType::TimelineFd;
}

bool memory_type(ExternalHandleType type) {
  return type == ExternalHandleType::OpaqueFd || type == ExternalHandleType::OpaqueWin32 ||
         type == ExternalHandleType::D3D12Resource || type == ExternalHandleType::D3D11Resource;
}

void throw_invalid_desc(const char* call, const std::string& message) {
  detail::throw_invalid_desc(call, message, __FILE__, __LINE__);
}

std::string handle_problem(const char* desc, ExternalHandleType type, int fd, const void* win32_handle) {
  const std::string prefix = std::string(desc) + ".type " + to_string(type) + ": ";
  if (!handle_type_available(type))
    return prefix + (is_fd(type)
                         ? "file descriptors are POSIX handles; on Windows export an NT handle (OpaqueWin32)"
                         : "NT handles exist on Windows only; on Linux export an opaque FD (OpaqueFd)");
  if (is_fd(type) && fd < 0)
    return std::string(desc) + ".fd is " + std::to_string(fd) +
           ": pass the descriptor the exporting API returned (vkGetMemoryFdKHR / vkGetSemaphoreFdKHR)";
  if (!is_fd(type) && win32_handle == nullptr)
    return std::string(desc) +
           ".win32_handle is null: pass the NT handle the exporting API returned "
           "(vkGetMemoryWin32HandleKHR / ID3D12Device::CreateSharedHandle)";
  return "";
}

}  // namespace

const char* to_string(ExternalHandleType type) {
  switch (type) {
    case ExternalHandleType::OpaqueFd:
      return "opaque fd";
    case ExternalHandleType::TimelineFd:
      return "timeline fd";
    case ExternalHandleType::OpaqueWin32:
      return "opaque win32";
    case ExternalHandleType::D3D12Resource:
      return "d3d12 resource";
    case ExternalHandleType::D3D12Fence:
      return "d3d12 fence";
    case ExternalHandleType::D3D11Resource:
      return "d3d11 resource";
    case ExternalHandleType::D3D11KeyedMutex:
      return "d3d11 keyed mutex";
  }
  return "?";
}

bool handle_type_available(ExternalHandleType type) {
#ifdef _WIN32
  return !is_fd(type);
#else
  return is_fd(type);
#endif
}

std::string validate(const ExternalMemoryDesc& desc) {
  if (!memory_type(desc.type))
    return std::string("ExternalMemoryDesc.type ") + to_string(desc.type) +
           " is a semaphore handle: import it as an ExternalSemaphore";
  if (std::string problem = handle_problem("ExternalMemoryDesc", desc.type, desc.fd, desc.win32_handle);
      !problem.empty())
    return problem;
  if (desc.size == 0)
    return "ExternalMemoryDesc.size is 0: pass the allocation's size (vkGetMemoryRequirements, "
           "ID3D12Device::GetResourceAllocationInfo), not the image's bytes";
  if (desc.type == ExternalHandleType::D3D12Resource && !desc.dedicated)
    return "ExternalMemoryDesc.dedicated is false for a D3D12 resource: committed resources are dedicated "
           "allocations; set it";
  return "";
}

std::string validate(const MipmappedArrayDesc& desc, uint64_t memory_size) {
  if (desc.extent.width == 0 || desc.extent.height == 0)
    return "MipmappedArrayDesc.extent is " + std::to_string(desc.extent.width) + "x" +
           std::to_string(desc.extent.height) + ": give the exporting API's image extent";
  if (desc.levels == 0) return "MipmappedArrayDesc.levels is 0: an image has at least one level";
  const int bits = desc.format.x + desc.format.y + desc.format.z + desc.format.w;
  if (bits == 0)
    return "MipmappedArrayDesc.format has no channels: use e.g. cudaCreateChannelDesc<uchar4>() for RGBA8";
  if (desc.offset >= memory_size)
    return "MipmappedArrayDesc.offset " + std::to_string(desc.offset) + " lies past the allocation's " +
           std::to_string(memory_size) + " bytes";
  return "";
}

std::string validate(const ExternalSemaphoreDesc& desc) {
  if (memory_type(desc.type) && desc.type != ExternalHandleType::OpaqueFd &&
      desc.type != ExternalHandleType::OpaqueWin32)
    return std::string("ExternalSemaphoreDesc.type ") + to_string(desc.type) +
           " is a memory handle: import it as ExternalMemory";
  return handle_problem("ExternalSemaphoreDesc", desc.type, desc.fd, desc.win32_handle);
}

// ---- memory

namespace detail {
void ExternalMemoryTraits::destroy(Handle memory) noexcept {
  INTEROP_CUDA_REPORT(cudaDestroyExternalMemory(memory));
}
void ExternalBufferTraits::destroy(Handle pointer) noexcept {
  INTEROP_CUDA_REPORT(cudaFree(pointer));
}
void MipmappedArrayTraits::destroy(Handle array) noexcept {
  INTEROP_CUDA_REPORT(cudaFreeMipmappedArray(array));
}
void ExternalSemaphoreTraits::destroy(Handle semaphore) noexcept {
  INTEROP_CUDA_REPORT(cudaDestroyExternalSemaphore(semaphore));
}
}  // namespace detail

ExternalMemory::ExternalMemory(const ExternalMemoryDesc& desc) {
  if (std::string problem = validate(desc); !problem.empty()) throw_invalid_desc("ExternalMemory", problem);
  cudaExternalMemoryHandleDesc handle{};
  switch (desc.type) {
    case ExternalHandleType::OpaqueFd:
      handle.type = cudaExternalMemoryHandleTypeOpaqueFd;
      handle.handle.fd = desc.fd;
      break;
    case ExternalHandleType::OpaqueWin32:
      handle.type = cudaExternalMemoryHandleTypeOpaqueWin32;
      break;
    case ExternalHandleType::D3D12Resource:
      handle.type = cudaExternalMemoryHandleTypeD3D12Resource;
      break;
    case ExternalHandleType::D3D11Resource:
      handle.type = cudaExternalMemoryHandleTypeD3D11Resource;
      break;
    default:
      break;  // refused by validate
  }
  if (!is_fd(desc.type)) handle.handle.win32.handle = desc.win32_handle;
  handle.size = desc.size;
  handle.flags = desc.dedicated ? cudaExternalMemoryDedicated : 0;
  cudaExternalMemory_t memory = nullptr;
  INTEROP_CUDA_CHECK(cudaImportExternalMemory(&memory, &handle));  // from here on CUDA owns an FD
  m_memory = Owner<detail::ExternalMemoryTraits>(memory);
  m_size = desc.size;
}

ExternalBuffer ExternalMemory::map_buffer(uint64_t offset, uint64_t size) const {
  if (offset >= m_size || (size != 0 && offset + size > m_size))
    throw_invalid_desc("ExternalMemory::map_buffer", "range " + std::to_string(offset) + " + " +
                                                         std::to_string(size) + " lies outside the " +
                                                         std::to_string(m_size) + " bytes imported");
  cudaExternalMemoryBufferDesc desc{};
  desc.offset = offset;
  desc.size = size == 0 ? m_size - offset : size;
  void* pointer = nullptr;
  INTEROP_CUDA_CHECK(cudaExternalMemoryGetMappedBuffer(&pointer, m_memory.get(), &desc));
  return ExternalBuffer(pointer, desc.size);
}

ExternalMipmappedArray ExternalMemory::map_mipmapped_array(const MipmappedArrayDesc& desc) const {
  if (std::string problem = validate(desc, m_size); !problem.empty())
    throw_invalid_desc("ExternalMemory::map_mipmapped_array", problem);
  cudaExternalMemoryMipmappedArrayDesc array{};
  array.offset = desc.offset;
  array.formatDesc = desc.format;
  array.extent = desc.extent;
  array.flags = desc.flags;
  array.numLevels = desc.levels;
  cudaMipmappedArray_t mipmapped = nullptr;
  INTEROP_CUDA_CHECK(cudaExternalMemoryGetMappedMipmappedArray(&mipmapped, m_memory.get(), &array));
  return ExternalMipmappedArray(mipmapped);
}

cudaArray_t ExternalMipmappedArray::level(unsigned int level) const {
  cudaArray_t array = nullptr;
  INTEROP_CUDA_CHECK(cudaGetMipmappedArrayLevel(&array, m_array.get(), level));
  return array;
}

// ---- semaphores

ExternalSemaphore::ExternalSemaphore(const ExternalSemaphoreDesc& desc) {
  if (std::string problem = validate(desc); !problem.empty())
    throw_invalid_desc("ExternalSemaphore", problem);
  cudaExternalSemaphoreHandleDesc handle{};
  m_kind = SemaphoreKind::Binary;
  switch (desc.type) {
    case ExternalHandleType::OpaqueFd:
      handle.type = cudaExternalSemaphoreHandleTypeOpaqueFd;
      break;
    case ExternalHandleType::TimelineFd:
      handle.type = cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd;
      m_kind = SemaphoreKind::Timeline;
      break;
    case ExternalHandleType::OpaqueWin32:
      handle.type = cudaExternalSemaphoreHandleTypeOpaqueWin32;
      break;
    case ExternalHandleType::D3D12Fence:
      handle.type = cudaExternalSemaphoreHandleTypeD3D12Fence;
      m_kind = SemaphoreKind::Timeline;  // a fence value per frame
      break;
    case ExternalHandleType::D3D11KeyedMutex:
      handle.type = cudaExternalSemaphoreHandleTypeKeyedMutex;
      break;
    default:
      break;  // refused by validate
  }
  if (is_fd(desc.type)) {
    handle.handle.fd = desc.fd;
  } else {
    handle.handle.win32.handle = desc.win32_handle;
  }
  cudaExternalSemaphore_t semaphore = nullptr;
  INTEROP_CUDA_CHECK(cudaImportExternalSemaphore(&semaphore, &handle));  // from here on CUDA owns an FD
  m_semaphore = Owner<detail::ExternalSemaphoreTraits>(semaphore);
  m_keyed_mutex = desc.type == ExternalHandleType::D3D11KeyedMutex;
}

void ExternalSemaphore::wait(cudaStream_t stream, uint64_t value) const {
  cudaExternalSemaphoreWaitParams params{};
  params.params.fence.value = m_kind == SemaphoreKind::Timeline ? value : 0;
  if (m_keyed_mutex) {
    params.params.keyedMutex.key = value;  // acquire the key the other side released
    params.params.keyedMutex.timeoutMs = 0xFFFFFFFFu;
  }
  const cudaExternalSemaphore_t semaphore = m_semaphore.get();
  INTEROP_CUDA_CHECK(cudaWaitExternalSemaphoresAsync(&semaphore, &params, 1, stream));
}

void ExternalSemaphore::signal(cudaStream_t stream, uint64_t value) const {
  cudaExternalSemaphoreSignalParams params{};
  params.params.fence.value = m_kind == SemaphoreKind::Timeline ? value : 0;
  if (m_keyed_mutex) params.params.keyedMutex.key = value;  // release with the key the other side acquires
  const cudaExternalSemaphore_t semaphore = m_semaphore.get();
  INTEROP_CUDA_CHECK(cudaSignalExternalSemaphoresAsync(&semaphore, &params, 1, stream));
}

}  // namespace interop
