// interop/vmm.hpp — device memory that CUDA owns and another API imports: the other direction of
// interop/external.hpp. CUDA's virtual memory management (the driver API's cuMem* calls) creates a
// physical allocation with an exportable handle type (cuMemCreate), reserves an address range for it
// (cuMemAddressReserve), maps it there (cuMemMap), makes it readable and writable by the device
// (cuMemSetAccess), and exports it as an OS handle (cuMemExportToShareableHandle) that Vulkan
// (VkImportMemoryFdInfoKHR) or OpenGL (glImportMemoryFdEXT) imports as a buffer.
//
//   ExportableAllocation   the allocation, mapped into CUDA's address space; export_fd() per importer
//   FileDescriptor         an owned POSIX file descriptor (closed by its destructor)
//   probe_vmm_export       whether a device can do all of this, and why not
//
// Sizes: CUDA maps whole multiples of the allocation granularity (cuMemGetAllocationGranularity, 2 MiB
// on current GPUs); the allocation is the asked size rounded up to it, and an importer must be told that
// rounded size (allocation_size()).
//
// Handle ownership: export_fd() returns a new descriptor each call, owned by the FileDescriptor. A
// Vulkan or GL import that succeeds takes the descriptor over (call FileDescriptor::release() right
// after it); one that fails does not (the FileDescriptor closes it). CUDA's own
// cuMemImportFromShareableHandle does not take it: close it after the import.
//
// Teardown: once neither side uses the memory, the importer's objects go first, then the
// ExportableAllocation: unmap, free the address range, release the handle, in that order. (An import
// keeps the physical memory alive on its own; the order is the one external memory has too, exporter
// last, so no API ever holds memory whose owner is gone.)
//
// The driver API is reached through the CUDA runtime's entry-point query (cudaGetDriverEntryPoint*), so
// the library links no libcuda of its own: without a driver, the constructor and the probe say so.
// POSIX file descriptors only: on Windows an NT handle export (CU_MEM_HANDLE_TYPE_WIN32) is the path,
// which validate() names.
#pragma once

#include "interop/owner.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace interop {

namespace detail {
struct FdHandle {
  int fd = -1;
  bool operator==(const FdHandle& other) const { return fd == other.fd; }
};
struct FileDescriptorTraits {
  using Handle = FdHandle;
  static void destroy(Handle handle) noexcept;  // close()
};
struct CountedDeviceBytesTraits {
  using Handle = size_t;
  static void destroy(Handle bytes) noexcept;  // takes them off live_device_bytes()
};
struct VmmHandleTraits {
  using Handle = unsigned long long;            // CUmemGenericAllocationHandle
  static void destroy(Handle handle) noexcept;  // cuMemRelease
};
struct VmmRange {
  unsigned long long address = 0;  // CUdeviceptr
  size_t size = 0;
  bool operator==(const VmmRange& other) const { return address == other.address && size == other.size; }
};
struct VmmReservationTraits {
  using Handle = VmmRange;
  static void destroy(Handle range) noexcept;  // cuMemAddressFree
};
struct VmmMappingTraits {
  using Handle = VmmRange;
  static void destroy(Handle range) noexcept;  // cuMemUnmap
};
}  // namespace detail

// A POSIX file descriptor with one owner. Move-only; a move leaves the source empty (-1).
class FileDescriptor {
 public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) : m_fd(detail::FdHandle{fd}) {}
  int get() const { return m_fd.get().fd; }
  explicit operator bool() const { return get() >= 0; }
  // Gives the descriptor up without closing it (to an import that took it over); -1 afterwards.
  int release() { return m_fd.release().fd; }

 private:
  Owner<detail::FileDescriptorTraits> m_fd;
};

// Which OS handle the allocation is exported as.
enum class ExportHandleType {
  PosixFd,  // CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR: Vulkan's and GL's opaque FD (Linux)
  Win32,    // CU_MEM_HANDLE_TYPE_WIN32: an NT handle (Windows; not built yet)
};
const char* to_string(ExportHandleType type);

// What to allocate. Zero means default where a default exists.
struct ExportableAllocationDesc {
  size_t size = 0;  // bytes the caller uses; the allocation is this rounded up to the granularity
  int device = -1;  // CUDA device ordinal; -1: the current device
  ExportHandleType handle_type = ExportHandleType::PosixFd;
};

// "" when `desc` can be allocated here, else what is wrong and what works, naming the field.
std::string validate(const ExportableAllocationDesc& desc);

// `bytes` rounded up to a whole multiple of `granularity` (a power of two or not); 0 when the rounded
// size does not fit in size_t or granularity is 0.
size_t round_up_to_granularity(size_t bytes, size_t granularity);

// Whether `device` (-1: the current one) can create allocations exportable as `type` and map them (the two
// device attributes CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED and
// ..._HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED), the granularity it maps in, and when not, why (the call
// and the error, or the attribute that is 0).
struct VmmExportSupport {
  bool supported = false;
  size_t granularity = 0;  // cuMemGetAllocationGranularity (minimum); 0 when unknown
  std::string reason;      // "" when supported
};
VmmExportSupport probe_vmm_export(int device, ExportHandleType type = ExportHandleType::PosixFd);

// Device memory CUDA allocated exportable and mapped into its address space. Move-only; a move leaves
// the source empty. A throw halfway through the constructor releases what was made (each step is an
// RAII member). Counted in live_device_bytes() (its allocation_size) until it is destroyed.
class ExportableAllocation {
 public:
  ExportableAllocation() = default;
  // Validates, then creates, reserves, maps and sets access on desc.device. Throws interop::Error.
  explicit ExportableAllocation(const ExportableAllocationDesc& desc);
  ~ExportableAllocation();
  ExportableAllocation(ExportableAllocation&& other) noexcept;
  ExportableAllocation& operator=(ExportableAllocation&& other) noexcept;
  ExportableAllocation(const ExportableAllocation&) = delete;
  ExportableAllocation& operator=(const ExportableAllocation&) = delete;

  // CUDA's pointer to the memory (cuMemMap'ed, readable and writable on device()).
  void* data() const { return reinterpret_cast<void*>(static_cast<uintptr_t>(m_mapping.get().address)); }
  size_t size() const { return m_size; }  // what was asked
  // What was allocated (size() rounded up to the granularity): what an importer must be told.
  size_t allocation_size() const { return m_mapping.get().size; }
  size_t granularity() const { return m_granularity; }
  int device() const { return m_device; }
  ExportHandleType handle_type() const { return m_type; }

  // A new descriptor of the allocation each call (cuMemExportToShareableHandle); see the top of this
  // file for who closes it.
  FileDescriptor export_fd() const;

 private:
  // Declaration order is creation order: destroyed in reverse (unmap, free the range, release, and
  // only then off the count).
  Owner<detail::CountedDeviceBytesTraits> m_counted;
  Owner<detail::VmmHandleTraits> m_handle;
  Owner<detail::VmmReservationTraits> m_reservation;
  Owner<detail::VmmMappingTraits> m_mapping;
  size_t m_size = 0;
  size_t m_granularity = 0;
  int m_device = -1;
  ExportHandleType m_type = ExportHandleType::PosixFd;
};

}  // namespace interop
