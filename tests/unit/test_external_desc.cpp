// tests/unit/test_external_desc.cpp — the external-resource descs are judged before CUDA sees them: each
// refusal names the field and what works (no GPU: like the registration descs, sokol-style).
#include "interop/error.hpp"
#include "interop/external.hpp"

#include <cuda_runtime.h>  // cudaCreateChannelDesc<T>, make_cudaExtent
#include <gtest/gtest.h>

#include <string>

namespace {

using interop::ExternalHandleType;

void expect_refused(const std::string& problem, const std::string& field, const std::string& remedy) {
  EXPECT_NE(problem.find(field), std::string::npos) << problem;
  EXPECT_NE(problem.find(remedy), std::string::npos) << problem;
}

TEST(ExternalMemoryDesc, AGoodOpaqueFdImportPasses) {
  interop::ExternalMemoryDesc desc;
  desc.fd = 3;
  desc.size = 1 << 20;
  desc.dedicated = true;
  EXPECT_EQ(interop::validate(desc), "");
}

TEST(ExternalMemoryDesc, EachBadFieldIsNamedWithTheFix) {
  interop::ExternalMemoryDesc desc;
  desc.size = 4096;
  expect_refused(interop::validate(desc), "ExternalMemoryDesc.fd is -1", "vkGetMemoryFdKHR");
  desc.fd = 5;
  desc.size = 0;
  expect_refused(interop::validate(desc), "ExternalMemoryDesc.size is 0", "vkGetMemoryRequirements");
  desc.size = 4096;
  desc.type = ExternalHandleType::TimelineFd;
  expect_refused(interop::validate(desc), "timeline fd", "ExternalSemaphore");
}

TEST(ExternalMemoryDesc, HandlesOfTheOtherPlatformAreRefused) {
  interop::ExternalMemoryDesc desc;
  desc.size = 4096;
  desc.win32_handle = reinterpret_cast<void*>(0x1234);
  desc.dedicated = true;
  desc.type = ExternalHandleType::D3D12Resource;
#ifdef _WIN32
  EXPECT_EQ(interop::validate(desc), "");
  desc.dedicated = false;
  expect_refused(interop::validate(desc), "dedicated", "committed resources");
#else
  expect_refused(interop::validate(desc), "d3d12 resource", "Windows only");
  EXPECT_TRUE(interop::handle_type_available(ExternalHandleType::OpaqueFd));
  EXPECT_FALSE(interop::handle_type_available(ExternalHandleType::D3D12Fence));
#endif
}

TEST(ExternalSemaphoreDesc, TypesAndHandlesAreChecked) {
  interop::ExternalSemaphoreDesc desc;
  desc.type = ExternalHandleType::TimelineFd;
  expect_refused(interop::validate(desc), "ExternalSemaphoreDesc.fd is -1", "vkGetSemaphoreFdKHR");
  desc.fd = 7;
  EXPECT_EQ(interop::validate(desc), "");
  desc.type = ExternalHandleType::D3D11Resource;
  expect_refused(interop::validate(desc), "memory handle", "ExternalMemory");
}

TEST(MipmappedArrayDesc, ExtentFormatLevelsAndOffsetAreChecked) {
  interop::MipmappedArrayDesc desc;
  desc.extent = make_cudaExtent(64, 32, 0);
  desc.format = cudaCreateChannelDesc<uchar4>();
  EXPECT_EQ(interop::validate(desc, 8192), "");
  desc.offset = 8192;
  expect_refused(interop::validate(desc, 8192), "offset 8192", "8192 bytes");
  desc.offset = 0;
  desc.levels = 0;
  expect_refused(interop::validate(desc, 8192), "levels is 0", "at least one level");
  desc.levels = 1;
  desc.format = cudaChannelFormatDesc{};
  expect_refused(interop::validate(desc, 8192), "no channels", "cudaCreateChannelDesc<uchar4>");
  desc.format = cudaCreateChannelDesc<uchar4>();
  desc.extent = make_cudaExtent(0, 32, 0);
  expect_refused(interop::validate(desc, 8192), "extent is 0x32", "image extent");
}

TEST(ExternalMemory, AnInvalidDescThrowsBeforeCudaIsCalled) {
  interop::ExternalMemoryDesc desc;  // fd -1, size 0
  try {
    interop::ExternalMemory memory(desc);
    FAIL() << "accepted";
  } catch (const interop::Error& error) {
    EXPECT_EQ(error.source(), interop::ErrorSource::Desc);
    EXPECT_NE(std::string(error.what()).find("ExternalMemoryDesc.fd"), std::string::npos) << error.what();
  }
}

}  // namespace
