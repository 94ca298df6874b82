// interop/vmm.cpp — CUDA-owned exportable allocations (vmm.hpp): the driver API's cuMem* calls, reached
// through the CUDA runtime's entry-point query, each acquired handle in an RAII member, and driver
// errors as interop::Error in the library's words.
#include "interop/vmm.hpp"

#include "interop/error.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdio>
#include <limits>
#include <mutex>
#include <utility>

#ifndef _WIN32
#include <unistd.h>
#endif

namespace interop {

namespace detail {
std::atomic<size_t>& device_bytes();  // memory.cpp: the count behind live_device_bytes()
}  // namespace detail

namespace {

// The driver entry points this file calls, looked up once (cudaGetDriverEntryPoint*), by the ABI of
// CUDA 12.0: the oldest runtime the library builds with has them all.
struct Driver {
  cudaError_t status = cudaSuccess;  // why they could not be looked up
  std::string missing;               // the first symbol the driver lacks
  CUresult(CUDAAPI* get_error_name)(CUresult, const char**) = nullptr;
  CUresult(CUDAAPI* device_get_attribute)(int*, CUdevice_attribute, CUdevice) = nullptr;
  CUresult(CUDAAPI* device_get)(CUdevice*, int) = nullptr;
  CUresult(CUDAAPI* get_granularity)(size_t*, const CUmemAllocationProp*,
                                     CUmemAllocationGranularity_flags) = nullptr;
  CUresult(CUDAAPI* create)(CUmemGenericAllocationHandle*, size_t, const CUmemAllocationProp*,
                            unsigned long long) = nullptr;
  CUresult(CUDAAPI* release)(CUmemGenericAllocationHandle) = nullptr;
  CUresult(CUDAAPI* address_reserve)(CUdeviceptr*, size_t, size_t, CUdeviceptr, unsigned long long) = nullptr;
  CUresult(CUDAAPI* address_free)(CUdeviceptr, size_t) = nullptr;
  CUresult(CUDAAPI* map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle,
                         unsigned long long) = nullptr;
  CUresult(CUDAAPI* unmap)(CUdeviceptr, size_t) = nullptr;
  CUresult(CUDAAPI* set_access)(CUdeviceptr, size_t, const CUmemAccessDesc*, size_t) = nullptr;
  CUresult(CUDAAPI* export_handle)(void*, CUmemGenericAllocationHandle, CUmemAllocationHandleType,
                                   unsigned long long) = nullptr;
};

template <class Function>
bool look_up(Driver& driver, const char* symbol, Function& function) {
  void* pointer = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSuccess;
#if CUDART_VERSION >= 12050
  const cudaError_t error =
      cudaGetDriverEntryPointByVersion(symbol, &pointer, 12000, cudaEnableDefault, &found);
#else
  const cudaError_t error = cudaGetDriverEntryPoint(symbol, &pointer, cudaEnableDefault, &found);
#endif
  if (error != cudaSuccess) {
    cudaGetLastError();
    driver.status = error;
    return false;
  }
  if (found != cudaDriverEntryPointSuccess || pointer == nullptr) {
    driver.missing = symbol;
    return false;
  }
  function = reinterpret_cast<Function>(pointer);
  return true;
}

const Driver& driver() {
  static const Driver loaded = [] {
    Driver d;
    // && stops at the first failure: its reason is the one kept.
    (void)(look_up(d, "cuGetErrorName", d.get_error_name) &&
           look_up(d, "cuDeviceGetAttribute", d.device_get_attribute) &&
           look_up(d, "cuDeviceGet", d.device_get) &&
           look_up(d, "cuMemGetAllocationGranularity", d.get_granularity) &&
           look_up(d, "cuMemCreate", d.create) && look_up(d, "cuMemRelease", d.release) &&
           look_up(d, "cuMemAddressReserve", d.address_reserve) &&
           look_up(d, "cuMemAddressFree", d.address_free) && look_up(d, "cuMemMap", d.map) &&
           look_up(d, "cuMemUnmap", d.unmap) && look_up(d, "cuMemSetAccess", d.set_access) &&
           look_up(d, "cuMemExportToShareableHandle", d.export_handle));
    return d;
  }();
  return loaded;
}

// The call whose failure means there is no driver API to reach, as errors name it.
constexpr const char* kEntryPointCall = "cudaGetDriverEntryPointByVersion(\"cuMemCreate\", ...)";

// "" when the driver's entry points are there, else why not.
std::string driver_problem() {
  const Driver& d = driver();
  if (d.status != cudaSuccess) return describe_cuda_error(d.status, kEntryPointCall);
  if (!d.missing.empty())
    return "the CUDA driver has no " + d.missing +
           ": update the NVIDIA driver (virtual memory management needs CUDA 10.2 or later)";
  return "";
}

// Throws what driver_problem() says, as the runtime's error where there is one.
void require_driver(const char* call) {
  const Driver& d = driver();
  if (d.status != cudaSuccess) detail::throw_cuda_error(d.status, call, __FILE__, __LINE__);
  if (!d.missing.empty()) {
    ErrorInfo info;
    info.source = ErrorSource::CudaDriver;
    info.call = call;
    info.file = __FILE__;
    info.line = __LINE__;
    info.code = CUDA_ERROR_NOT_FOUND;
    info.error_name = "CUDA_ERROR_NOT_FOUND";
    info.condition = Condition::CudaDriverMissing;
    info.advice = driver_problem();
    throw Error(std::move(info));
  }
}

std::string driver_error_name(CUresult result) {
  const char* name = nullptr;
  if (driver().get_error_name && driver().get_error_name(result, &name) == CUDA_SUCCESS && name) return name;
  return "CUresult " + std::to_string(static_cast<int>(result));
}

Condition driver_error_condition(CUresult result) {
  switch (result) {
    case CUDA_ERROR_NO_DEVICE:
      return Condition::NoCudaDevice;
    case CUDA_ERROR_INVALID_DEVICE:
      return Condition::InvalidCudaDevice;
    case CUDA_ERROR_OUT_OF_MEMORY:
      return Condition::OutOfMemory;
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
      return Condition::ContextCorrupt;
    default:
      return Condition::None;
  }
}

std::string driver_error_advice(CUresult result) {
  switch (driver_error_condition(result)) {
    case Condition::NoCudaDevice:
      return "none is visible to this process: check nvidia-smi and CUDA_VISIBLE_DEVICES";
    case Condition::InvalidCudaDevice:
      return "use an ordinal below cudaGetDeviceCount";
    case Condition::OutOfMemory:
      return "the device has too little free memory for this allocation: allocate less, or free memory "
             "(other GPU programs)";
    case Condition::ContextCorrupt:
      return "the CUDA context is corrupt after this error; the process must restart to use CUDA again";
    default:
      break;
  }
  if (result == CUDA_ERROR_NOT_SUPPORTED || result == CUDA_ERROR_INVALID_VALUE)
    return "the device or driver cannot create or export this allocation: interop::probe_vmm_export says "
           "what it lacks";
  if (result == CUDA_ERROR_INVALID_CONTEXT)
    return "no CUDA context is current: make one current (any CUDA runtime call on the device does) first";
  return "";
}

[[noreturn]] void throw_driver_error(CUresult result, const char* call, const char* file, int line) {
  ErrorInfo info;
  info.source = ErrorSource::CudaDriver;
  info.call = call;
  info.file = file;
  info.line = line;
  info.code = static_cast<int>(result);
  info.error_name = driver_error_name(result);
  info.condition = driver_error_condition(result);
  info.advice = driver_error_advice(result);
  info.sticky = info.condition == Condition::ContextCorrupt;
  throw Error(std::move(info));
}

void report_driver_error(CUresult result, const char* call, const char* file, int line) {
  std::fprintf(stderr, "interop: %s: %s (%s:%d)\n", call, driver_error_name(result).c_str(), file, line);
}

#define INTEROP_CU_CHECK(call)                                                                           \
  do {                                                                                                   \
    const CUresult interop_result_ = (call);                                                             \
    if (interop_result_ != CUDA_SUCCESS) throw_driver_error(interop_result_, #call, __FILE__, __LINE__); \
  } while (0)

#define INTEROP_CU_REPORT(call)                                                                           \
  do {                                                                                                    \
    const CUresult interop_result_ = (call);                                                              \
    if (interop_result_ != CUDA_SUCCESS) report_driver_error(interop_result_, #call, __FILE__, __LINE__); \
  } while (0)

CUmemAllocationHandleType cu_handle_type(ExportHandleType type) {
  return type == ExportHandleType::Win32 ? CU_MEM_HANDLE_TYPE_WIN32
                                         : CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
}

CUmemAllocationProp allocation_properties(int device, ExportHandleType type) {
  CUmemAllocationProp properties{};
  properties.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  properties.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  properties.location.id = device;
  properties.requestedHandleTypes = cu_handle_type(type);
  return properties;
}

bool platform_has(ExportHandleType type) {
#ifdef _WIN32
  return type == ExportHandleType::Win32;
#else
  return type == ExportHandleType::PosixFd;
#endif
}

// Makes `device` current for a scope (and its primary context, through the runtime), then the previous
// device again, however the scope ends.
class CurrentDevice {
 public:
  explicit CurrentDevice(int device) {
    INTEROP_CUDA_CHECK(cudaGetDevice(&m_previous));
    INTEROP_CUDA_CHECK(cudaSetDevice(device));
    m_restore = device != m_previous;
    INTEROP_CUDA_CHECK(cudaFree(nullptr));  // initialises the context if nothing did yet
  }
  ~CurrentDevice() {
    if (m_restore) INTEROP_CUDA_REPORT(cudaSetDevice(m_previous));
  }
  CurrentDevice(const CurrentDevice&) = delete;
  CurrentDevice& operator=(const CurrentDevice&) = delete;

 private:
  int m_previous = 0;
  bool m_restore = false;
};

}  // namespace

// ---- owners

namespace detail {
void FileDescriptorTraits::destroy(Handle handle) noexcept {
#ifndef _WIN32
  if (handle.fd >= 0 && ::close(handle.fd) != 0) std::perror("interop: close (exported memory FD)");
#else
  (void)handle;
#endif
}
void CountedDeviceBytesTraits::destroy(Handle bytes) noexcept {
  device_bytes() -= bytes;
}
void VmmHandleTraits::destroy(Handle handle) noexcept {
  INTEROP_CU_REPORT(driver().release(handle));
}
void VmmReservationTraits::destroy(Handle range) noexcept {
  INTEROP_CU_REPORT(driver().address_free(range.address, range.size));
}
void VmmMappingTraits::destroy(Handle range) noexcept {
  INTEROP_CU_REPORT(driver().unmap(range.address, range.size));
}
}  // namespace detail

// ---- descs and rules

const char* to_string(ExportHandleType type) {
  switch (type) {
    case ExportHandleType::PosixFd:
      return "posix fd";
    case ExportHandleType::Win32:
      return "win32";
  }
  return "?";
}

std::string validate(const ExportableAllocationDesc& desc) {
  if (desc.size == 0)
    return "ExportableAllocationDesc.size is 0: pass the bytes the importer's buffer needs (it is rounded up "
           "to the allocation granularity)";
  if (desc.device < -1)
    return "ExportableAllocationDesc.device is " + std::to_string(desc.device) +
           ": pass a CUDA device ordinal, or -1 for the current device";
  if (!platform_has(desc.handle_type))
    return std::string("ExportableAllocationDesc.handle_type ") + to_string(desc.handle_type) + ": " +
#ifdef _WIN32
           "file descriptors are POSIX handles; on Windows export an NT handle (Win32)";
#else
           "NT handles exist on Windows only; on Linux export a POSIX file descriptor (PosixFd)";
#endif
  if (desc.handle_type == ExportHandleType::Win32)
    return "ExportableAllocationDesc.handle_type win32: NT handle export is not built yet; use Vulkan's or "
           "Direct3D 12's allocation and import it into CUDA (interop/external.hpp)";
  return "";
}

size_t round_up_to_granularity(size_t bytes, size_t granularity) {
  if (granularity == 0) return 0;
  const size_t remainder = bytes % granularity;
  if (remainder == 0) return bytes;
  const size_t padding = granularity - remainder;
  if (bytes > std::numeric_limits<size_t>::max() - padding) return 0;
  return bytes + padding;
}

VmmExportSupport probe_vmm_export(int device, ExportHandleType type) {
  VmmExportSupport support;
  ExportableAllocationDesc desc;
  desc.size = 1;
  desc.device = device;
  desc.handle_type = type;
  if (std::string problem = validate(desc); !problem.empty()) {
    support.reason = problem;
    return support;
  }
  if (std::string problem = driver_problem(); !problem.empty()) {
    support.reason = problem;
    return support;
  }
  const Driver& d = driver();
  // The runtime initialises the driver (cuInit) here, before any driver call, and knows the ordinals.
  int count = 0;
  if (const cudaError_t error = cudaGetDeviceCount(&count); error != cudaSuccess) {
    cudaGetLastError();
    support.reason = describe_cuda_error(error, "cudaGetDeviceCount");
    return support;
  }
  if (device == -1 && cudaGetDevice(&device) != cudaSuccess) cudaGetLastError();
  const std::string where = "CUDA device " + std::to_string(device);
  if (device < 0 || device >= count) {
    support.reason =
        where + " does not exist: this process sees " + std::to_string(count) + " CUDA device(s)";
    return support;
  }
  CUdevice handle = 0;
  if (const CUresult result = d.device_get(&handle, device); result != CUDA_SUCCESS) {
    support.reason = "cuDeviceGet(" + std::to_string(device) + "): " + driver_error_name(result);
    return support;
  }
  const auto attribute = [&](CUdevice_attribute which, const char* name, int& value) {
    const CUresult result = d.device_get_attribute(&value, which, handle);
    if (result == CUDA_SUCCESS) return true;
    support.reason = std::string("cuDeviceGetAttribute(") + name + "): " + driver_error_name(result);
    return false;
  };
  int vmm = 0;
  if (!attribute(CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
                 "CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED", vmm))
    return support;
  if (vmm == 0) {
    support.reason = where +
                     " has no virtual memory management (CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_"
                     "SUPPORTED is 0): cuMemCreate/cuMemMap need a newer GPU or driver";
    return support;
  }
  const bool fd = type == ExportHandleType::PosixFd;
  int exportable = 0;
  const CUdevice_attribute export_attribute =
      fd ? CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED
         : CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED;
  const char* export_name = fd ? "CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED"
                               : "CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED";
  if (!attribute(export_attribute, export_name, exportable)) return support;
  if (exportable == 0) {
    support.reason = where + " cannot export allocations as " + to_string(type) + " (" + export_name +
                     " is 0): the graphics API must allocate and CUDA import (external mode)";
    return support;
  }
  const CUmemAllocationProp properties = allocation_properties(device, type);
  if (const CUresult result =
          d.get_granularity(&support.granularity, &properties, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
      result != CUDA_SUCCESS) {
    support.granularity = 0;
    support.reason = "cuMemGetAllocationGranularity: " + driver_error_name(result);
    return support;
  }
  support.supported = true;
  return support;
}

// ---- the allocation

ExportableAllocation::ExportableAllocation(const ExportableAllocationDesc& desc) {
  if (std::string problem = validate(desc); !problem.empty())
    detail::throw_invalid_desc("ExportableAllocation", problem, __FILE__, __LINE__);
  require_driver(kEntryPointCall);
  const Driver& d = driver();
  int device = desc.device;
  if (device < 0) INTEROP_CUDA_CHECK(cudaGetDevice(&device));
  // The runtime makes the device's primary context current (cuMemMap and cuMemSetAccess need one), and
  // a bad ordinal is refused here in the runtime's words.
  const CurrentDevice current(device);

  const CUmemAllocationProp properties = allocation_properties(device, desc.handle_type);
  size_t granularity = 0;
  INTEROP_CU_CHECK(d.get_granularity(&granularity, &properties, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  const size_t bytes = round_up_to_granularity(desc.size, granularity);
  if (bytes == 0)
    detail::throw_invalid_desc("ExportableAllocation",
                               "ExportableAllocationDesc.size " + std::to_string(desc.size) +
                                   " rounded up to the granularity of " + std::to_string(granularity) +
                                   " bytes does not fit in size_t: allocate less",
                               __FILE__, __LINE__);

  CUmemGenericAllocationHandle handle = 0;
  INTEROP_CU_CHECK(d.create(&handle, bytes, &properties, 0));
  m_handle = Owner<detail::VmmHandleTraits>(handle);
  CUdeviceptr address = 0;
  INTEROP_CU_CHECK(d.address_reserve(&address, bytes, granularity, 0, 0));
  m_reservation = Owner<detail::VmmReservationTraits>(detail::VmmRange{address, bytes});
  INTEROP_CU_CHECK(d.map(address, bytes, 0, handle, 0));
  m_mapping = Owner<detail::VmmMappingTraits>(detail::VmmRange{address, bytes});
  CUmemAccessDesc access{};
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = device;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  INTEROP_CU_CHECK(d.set_access(address, bytes, &access, 1));

  detail::device_bytes() += bytes;
  m_counted = Owner<detail::CountedDeviceBytesTraits>(bytes);
  m_size = desc.size;
  m_granularity = granularity;
  m_device = device;
  m_type = desc.handle_type;
}

ExportableAllocation::~ExportableAllocation() = default;

ExportableAllocation::ExportableAllocation(ExportableAllocation&& other) noexcept
    : m_counted(std::move(other.m_counted)),
      m_handle(std::move(other.m_handle)),
      m_reservation(std::move(other.m_reservation)),
      m_mapping(std::move(other.m_mapping)),
      m_size(std::exchange(other.m_size, 0)),
      m_granularity(std::exchange(other.m_granularity, 0)),
      m_device(std::exchange(other.m_device, -1)),
      m_type(other.m_type) {}

ExportableAllocation& ExportableAllocation::operator=(ExportableAllocation&& other) noexcept {
  if (this != &other) {
    // Released in this object's own teardown order before the other's handles move in.
    m_mapping = Owner<detail::VmmMappingTraits>();
    m_reservation = Owner<detail::VmmReservationTraits>();
    m_handle = Owner<detail::VmmHandleTraits>();
    m_counted = Owner<detail::CountedDeviceBytesTraits>();
    m_counted = std::move(other.m_counted);
    m_handle = std::move(other.m_handle);
    m_reservation = std::move(other.m_reservation);
    m_mapping = std::move(other.m_mapping);
    m_size = std::exchange(other.m_size, 0);
    m_granularity = std::exchange(other.m_granularity, 0);
    m_device = std::exchange(other.m_device, -1);
    m_type = other.m_type;
  }
  return *this;
}

FileDescriptor ExportableAllocation::export_fd() const {
  if (!m_handle)
    detail::throw_invalid_desc("ExportableAllocation::export_fd", "the allocation is empty (moved from)",
                               __FILE__, __LINE__);
  if (m_type != ExportHandleType::PosixFd)
    detail::throw_invalid_desc("ExportableAllocation::export_fd",
                               std::string("the allocation was created for ") + to_string(m_type) +
                                   " handles, not POSIX file descriptors",
                               __FILE__, __LINE__);
  int fd = -1;
  INTEROP_CU_CHECK(driver().export_handle(&fd, m_handle.get(), CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  return FileDescriptor(fd);
}

}  // namespace interop
