// app/bench/raw_vmm.hpp — the driver's cuMem* calls, raw, for the benchmarks' bare loops that let CUDA
// allocate exportable memory (Vulkan's bare exported loop, app/vulkan/app/bench_bare.cpp; GL's exported own
// loop, app/gl/app/bench_external.cpp): looked up through the runtime's entry-point query, so nothing links
// libcuda, and a CUresult that is not CUDA_SUCCESS thrown with the call's name; and what both loops
// allocate with them (the properties, the granularity, the access).
#pragma once

#include "interop/error.hpp"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace lab::vulkan {

// The driver's cuMem* calls, through the runtime's entry-point query (no libcuda link), as the CUDA 12.0
// ABI has them.
struct RawVmmCalls {
  PFN_cuMemGetAllocationGranularity_v10020 granularity = nullptr;
  PFN_cuMemCreate_v10020 create = nullptr;
  PFN_cuMemRelease_v10020 release = nullptr;
  PFN_cuMemAddressReserve_v10020 reserve = nullptr;
  PFN_cuMemAddressFree_v10020 address_free = nullptr;
  PFN_cuMemMap_v10020 map = nullptr;
  PFN_cuMemUnmap_v10020 unmap = nullptr;
  PFN_cuMemSetAccess_v10020 set_access = nullptr;
  PFN_cuMemExportToShareableHandle_v10020 export_handle = nullptr;

  RawVmmCalls() {
    look_up("cuMemGetAllocationGranularity", granularity);
    look_up("cuMemCreate", create);
    look_up("cuMemRelease", release);
    look_up("cuMemAddressReserve", reserve);
    look_up("cuMemAddressFree", address_free);
    look_up("cuMemMap", map);
    look_up("cuMemUnmap", unmap);
    look_up("cuMemSetAccess", set_access);
    look_up("cuMemExportToShareableHandle", export_handle);
  }
  template <class Function>
  static void look_up(const char* symbol, Function& function) {
    void* pointer = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSuccess;
    INTEROP_CUDA_CHECK(cudaGetDriverEntryPointByVersion(symbol, &pointer, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || pointer == nullptr)
      throw std::runtime_error(std::string("the CUDA driver has no ") + symbol);
    function = reinterpret_cast<Function>(pointer);
  }
};

inline void check_cu(CUresult result, const char* call) {
  if (result != CUDA_SUCCESS)
    throw std::runtime_error(std::string(call) + ": CUresult " + std::to_string(result));
}

// What the loops allocate with cuMemCreate: pinned memory on CUDA device `device`, exportable as a POSIX FD.
inline CUmemAllocationProp exportable_allocation(int device) {
  CUmemAllocationProp properties{};
  properties.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  properties.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  properties.location.id = device;
  properties.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return properties;
}

// The size every allocation of `properties` (and its address range) is a multiple of.
inline size_t minimum_granularity(const RawVmmCalls& calls, const CUmemAllocationProp& properties) {
  size_t granularity = 0;
  check_cu(calls.granularity(&granularity, &properties, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
           "cuMemGetAllocationGranularity");
  return granularity;
}

// Reads and writes from the device `properties` allocate on.
inline CUmemAccessDesc read_write_access(const CUmemAllocationProp& properties) {
  CUmemAccessDesc access{};
  access.location = properties.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  return access;
}

}  // namespace lab::vulkan
