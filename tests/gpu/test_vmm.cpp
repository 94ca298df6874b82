// tests/gpu/test_vmm.cpp — CUDA-owned exportable allocations (interop/vmm.hpp) on a real GPU: the size is
// rounded to the device's granularity, kernels-side writes land in the memory, an exported FD imported
// back into CUDA (cuMemImportFromShareableHandle, mapped at a second address) reads the same bytes, and
// live_device_bytes returns to where it was after teardown. Skips with the probe's reason where VMM
// export does not work; fails there instead when INTEROP_LAB_REQUIRE_GPUS says a GPU must be.
#include "tests/support/app_fixture.hpp"

#include "interop/error.hpp"
#include "interop/memory.hpp"
#include "interop/vmm.hpp"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

// The driver calls the re-import needs, looked up as the library looks up its own.
template <class Function>
Function entry_point(const char* symbol) {
  void* pointer = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSuccess;
  EXPECT_EQ(cudaGetDriverEntryPointByVersion(symbol, &pointer, 12000, cudaEnableDefault, &found), cudaSuccess)
      << symbol;
  EXPECT_EQ(found, cudaDriverEntryPointSuccess) << symbol;
  return reinterpret_cast<Function>(pointer);
}

class VmmExport : public ::testing::Test {
 protected:
  void SetUp() override {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
      cudaGetLastError();
      LABTEST_NEEDS_GPUS(1, "needs a CUDA device for VMM export: none is visible");
      return;
    }
    m_support = interop::probe_vmm_export(0);
    if (!m_support.supported)
      LABTEST_NEEDS_GPUS(1, "needs a CUDA device that exports VMM memory: " << m_support.reason);
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  }
  interop::VmmExportSupport m_support;
};

TEST_F(VmmExport, SizeIsRoundedToTheGranularityTheProbeReported) {
  const size_t before = interop::live_device_bytes();
  {
    interop::ExportableAllocationDesc desc;
    desc.size = m_support.granularity + 1;
    interop::ExportableAllocation allocation(desc);
    EXPECT_EQ(allocation.size(), desc.size);
    EXPECT_EQ(allocation.granularity(), m_support.granularity);
    EXPECT_EQ(allocation.allocation_size(), 2 * m_support.granularity);
    EXPECT_NE(allocation.data(), nullptr);
    EXPECT_EQ(allocation.device(), 0);
    EXPECT_EQ(interop::live_device_bytes(), before + allocation.allocation_size());

    interop::ExportableAllocation moved = std::move(allocation);
    EXPECT_EQ(allocation.data(), nullptr) << "a moved-from allocation is empty";
    EXPECT_EQ(allocation.allocation_size(), 0u);
    EXPECT_EQ(interop::live_device_bytes(), before + moved.allocation_size())
        << "a move counts nothing twice";
  }
  EXPECT_EQ(interop::live_device_bytes(), before);
}

TEST_F(VmmExport, AnExportedFdImportedBackIntoCudaReadsTheSameBytes) {
  const auto import =
      entry_point<PFN_cuMemImportFromShareableHandle_v10020>("cuMemImportFromShareableHandle");
  const auto reserve = entry_point<PFN_cuMemAddressReserve_v10020>("cuMemAddressReserve");
  const auto map = entry_point<PFN_cuMemMap_v10020>("cuMemMap");
  const auto set_access = entry_point<PFN_cuMemSetAccess_v10020>("cuMemSetAccess");
  const auto unmap = entry_point<PFN_cuMemUnmap_v10020>("cuMemUnmap");
  const auto address_free = entry_point<PFN_cuMemAddressFree_v10020>("cuMemAddressFree");
  const auto release = entry_point<PFN_cuMemRelease_v10020>("cuMemRelease");
  ASSERT_TRUE(import && reserve && map && set_access && unmap && address_free && release);

  const size_t before = interop::live_device_bytes();
  {
    const size_t bytes = size_t{3} << 20;  // not a whole number of granules on any current GPU
    interop::ExportableAllocationDesc desc;
    desc.size = bytes;
    interop::ExportableAllocation allocation(desc);
    std::vector<uint8_t> pattern(bytes);
    for (size_t i = 0; i < bytes; ++i) pattern[i] = static_cast<uint8_t>((i * 131 + 7) >> 3);
    ASSERT_EQ(cudaMemcpy(allocation.data(), pattern.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);

    interop::FileDescriptor fd = allocation.export_fd();
    ASSERT_TRUE(fd);
    interop::FileDescriptor second = allocation.export_fd();
    EXPECT_NE(second.get(), fd.get()) << "each export is a descriptor of its own";

    CUmemGenericAllocationHandle imported = 0;
    ASSERT_EQ(import(&imported, reinterpret_cast<void*>(static_cast<uintptr_t>(fd.get())),
                     CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
              CUDA_SUCCESS);
    // CUDA's own import does not take the descriptor: `fd` still closes it.
    const size_t size = allocation.allocation_size();
    CUdeviceptr address = 0;
    ASSERT_EQ(reserve(&address, size, allocation.granularity(), 0, 0), CUDA_SUCCESS);
    ASSERT_EQ(map(address, size, 0, imported, 0), CUDA_SUCCESS);
    CUmemAccessDesc access{};
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = 0;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    ASSERT_EQ(set_access(address, size, &access, 1), CUDA_SUCCESS);
    EXPECT_NE(reinterpret_cast<void*>(static_cast<uintptr_t>(address)), allocation.data());

    std::vector<uint8_t> seen(bytes);
    ASSERT_EQ(cudaMemcpy(seen.data(), reinterpret_cast<void*>(static_cast<uintptr_t>(address)), bytes,
                         cudaMemcpyDeviceToHost),
              cudaSuccess);
    EXPECT_EQ(seen, pattern) << "the imported mapping reads what was written through the exporter's";

    // A write through the import is seen through the original mapping: one physical allocation.
    ASSERT_EQ(cudaMemset(reinterpret_cast<void*>(static_cast<uintptr_t>(address)), 0xA5, 4096), cudaSuccess);
    std::vector<uint8_t> head(4096);
    ASSERT_EQ(cudaMemcpy(head.data(), allocation.data(), head.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(head, std::vector<uint8_t>(4096, 0xA5));

    EXPECT_EQ(unmap(address, size), CUDA_SUCCESS);
    EXPECT_EQ(address_free(address, size), CUDA_SUCCESS);
    EXPECT_EQ(release(imported), CUDA_SUCCESS);
  }
  EXPECT_EQ(interop::live_device_bytes(), before);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

TEST_F(VmmExport, AnAllocationOnAnotherThanTheCurrentDeviceLeavesTheCurrentOneAlone) {
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  interop::ExportableAllocationDesc desc;
  desc.size = 4096;
  desc.device = count - 1;
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  interop::ExportableAllocation allocation(desc);
  int current = -1;
  ASSERT_EQ(cudaGetDevice(&current), cudaSuccess);
  EXPECT_EQ(current, 0);
  EXPECT_EQ(allocation.device(), count - 1);
}

TEST_F(VmmExport, ABadDeviceOrdinalIsAnErrorThatSaysSo) {
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  interop::ExportableAllocationDesc desc;
  desc.size = 4096;
  desc.device = count + 3;
  const size_t before = interop::live_device_bytes();
  try {
    interop::ExportableAllocation allocation(desc);
    FAIL() << "device " << desc.device << " does not exist";
  } catch (const interop::Error& error) {
    EXPECT_EQ(error.condition(), interop::Condition::InvalidCudaDevice) << error.what();
  }
  EXPECT_EQ(interop::live_device_bytes(), before) << "nothing leaked halfway";
  const interop::VmmExportSupport absent = interop::probe_vmm_export(desc.device);
  EXPECT_FALSE(absent.supported);
  EXPECT_NE(absent.reason.find("does not exist"), std::string::npos) << absent.reason;
  EXPECT_TRUE(interop::probe_vmm_export(-1).supported) << "the current device is device 0, which exports";
}

}  // namespace
