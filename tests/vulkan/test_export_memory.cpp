// tests/vulkan/test_export_memory.cpp — vulkan::ExportMemory, the exportable memory GL's external mode
// imports without Vulkan's renderer: one dedicated, exportable allocation per ResourceDesc, the same size
// the renderer's exportable resources get for the same descs (the same create info), a new FD per
// export_fd, and usage errors named. Runs on any Vulkan driver with external memory (lavapipe in CI);
// skips with the reason without one. The validation layer, where it is installed, must report nothing.
// With a GPU, CUDA imports the memory (vulkan::CudaImports) as GL's external mode has it imported: two
// imports of one allocation see the same bytes (fails without one where INTEROP_LAB_REQUIRE_GPUS says so).
#include "tests/support/app_fixture.hpp"

#include "app/vulkan/cuda_import.hpp"
#include "app/vulkan/export_memory.hpp"
#include "app/vulkan/renderer.hpp"
#include "interop/device.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using lab::ResourceDesc;
using lab::ResourceKind;
using lab::ResourceRole;
using lab::vulkan::Context;
using lab::vulkan::ExportMemory;

std::unique_ptr<Context> open_or_skip(std::string& why) {
  try {
    return std::make_unique<Context>(nullptr);
  } catch (const std::runtime_error& error) {
    why = error.what();
    return nullptr;
  }
}

// What the postprocess scene hands a mode at 96x64: a buffer, an Input image and an Output image.
std::vector<ResourceDesc> scene_descs() {
  ResourceDesc buffer;
  buffer.label = "vertex buffer";
  buffer.kind = ResourceKind::Buffer;
  buffer.bytes = 4096 * 24;
  ResourceDesc input;
  input.label = "rendered scene";
  input.kind = ResourceKind::Texture2D;
  input.role = ResourceRole::Input;
  input.width = 96;
  input.height = 64;
  input.bytes = 96 * 64 * 4;
  ResourceDesc output = input;
  output.label = "filtered image";
  output.role = ResourceRole::Output;
  return {buffer, input, output};
}

TEST(ExportMemory, EveryDescGetsADedicatedExportableAllocationInItsOrder) {
  std::string why;
  std::unique_ptr<Context> context = open_or_skip(why);
  if (!context) GTEST_SKIP() << "needs a Vulkan driver with external memory: " << why;
  const std::vector<ResourceDesc> descs = scene_descs();
  std::unique_ptr<ExportMemory> memory;
  try {
    memory = std::make_unique<ExportMemory>(*context, descs);
  } catch (const std::runtime_error& error) {
    GTEST_SKIP() << "needs a Vulkan driver that exports RGBA8 images: " << error.what();
  }
  ASSERT_EQ(memory->resources().size(), descs.size());
  std::set<int> fds;
  for (size_t i = 0; i < descs.size(); ++i) {
    const lab::vulkan::ExportedResource& resource = memory->resources()[i];
    SCOPED_TRACE(resource.desc.label);
    EXPECT_STREQ(resource.desc.label, descs[i].label);
    EXPECT_EQ(resource.buffer != VK_NULL_HANDLE, descs[i].kind == ResourceKind::Buffer);
    EXPECT_EQ(resource.image != VK_NULL_HANDLE, descs[i].kind == ResourceKind::Texture2D);
    EXPECT_NE(resource.memory, VkDeviceMemory(VK_NULL_HANDLE));
    EXPECT_GE(resource.allocation_size, VkDeviceSize(descs[i].bytes));
    EXPECT_TRUE(resource.dedicated);
    // Each call a new FD, which stays ours to close while nobody imported it.
    const int first = memory->export_fd(i);
    const int second = memory->export_fd(i);
    ASSERT_GE(first, 0);
    ASSERT_GE(second, 0);
    EXPECT_NE(first, second);
    fds.insert(first);
    fds.insert(second);
  }
  EXPECT_EQ(fds.size(), 2 * descs.size());
  for (const int fd : fds) close(fd);
  memory.reset();
  EXPECT_EQ(context->validation_messages(), 0);
}

TEST(ExportMemory, AllocatesWhatTheRenderersExportableResourcesAllocate) {
  std::string why;
  std::unique_ptr<Context> context = open_or_skip(why);
  if (!context) GTEST_SKIP() << "needs a Vulkan driver with external memory: " << why;
  const std::vector<ResourceDesc> descs = scene_descs();
  std::unique_ptr<ExportMemory> memory;
  try {
    memory = std::make_unique<ExportMemory>(*context, descs);
  } catch (const std::runtime_error& error) {
    GTEST_SKIP() << "needs a Vulkan driver that exports RGBA8 images: " << error.what();
  }
  lab::vulkan::Renderer renderer(*context, lab::Extent{1, 1});
  renderer.create_resources(descs, /*exportable=*/true);
  ASSERT_EQ(renderer.resources().size(), memory->resources().size());
  for (size_t i = 0; i < descs.size(); ++i) {
    SCOPED_TRACE(descs[i].label);
    // The same create info gives the same requirements: what GL and CUDA are told to import.
    EXPECT_EQ(memory->resources()[i].allocation_size, renderer.resources()[i].allocation_size);
    EXPECT_EQ(memory->resources()[i].dedicated, renderer.resources()[i].dedicated);
  }
  EXPECT_EQ(context->validation_messages(), 0);
}

TEST(ExportMemory, ADescWithoutASizeIsRefusedByName) {
  std::string why;
  std::unique_ptr<Context> context = open_or_skip(why);
  if (!context) GTEST_SKIP() << "needs a Vulkan driver with external memory: " << why;
  ResourceDesc empty;
  empty.label = "empty buffer";
  try {
    ExportMemory memory(*context, {empty});
    FAIL() << "a buffer of 0 bytes was allocated";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("ResourceDesc[0] (\"empty buffer\").bytes is 0"),
              std::string::npos)
        << error.what();
  }
}

TEST(ExportMemoryCuda, TwoImportsOfOneAllocationSeeTheSameBytes) {
  const interop::CudaDevices cuda = interop::enumerate_cuda_devices();
  if (cuda.devices.empty()) LABTEST_NEEDS_GPUS(1, "needs a CUDA device: " << cuda.error);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  const lab::vulkan::Uuid uuid = lab::vulkan::cuda_device_uuid(0);
  std::unique_ptr<Context> context;
  try {
    context = std::make_unique<Context>(&uuid);
  } catch (const std::runtime_error& error) {
    LABTEST_NEEDS_GPUS(1, "needs the Vulkan device of CUDA device 0: " << error.what());
  }
  const std::vector<ResourceDesc> descs = scene_descs();
  ExportMemory memory(*context, descs);
  {
    // Each import takes an FD of its own (export_fd once per import), as GL's and CUDA's do.
    lab::vulkan::CudaImports first(lab::vulkan::memory_to_import(memory));
    lab::vulkan::CudaImports second(lab::vulkan::memory_to_import(memory));
    ASSERT_EQ(first.views().size(), descs.size());
    ASSERT_NE(first.views()[0].pointer, nullptr) << "a buffer comes as a pointer";
    EXPECT_NE(first.views()[1].texture, 0u) << "an Input image comes as a texture object";
    EXPECT_NE(first.views()[2].surface, 0u) << "an Output image comes as a surface object";
    std::vector<uint8_t> written(descs[0].bytes);
    for (size_t i = 0; i < written.size(); ++i) written[i] = static_cast<uint8_t>(i * 7 + 3);
    ASSERT_EQ(cudaMemcpy(first.views()[0].pointer, written.data(), written.size(), cudaMemcpyHostToDevice),
              cudaSuccess);
    std::vector<uint8_t> read(descs[0].bytes);
    ASSERT_EQ(cudaMemcpy(read.data(), second.views()[0].pointer, read.size(), cudaMemcpyDeviceToHost),
              cudaSuccess);
    EXPECT_EQ(read, written) << "both imports are the one Vulkan allocation";
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }  // CUDA's imports go before Vulkan's memory
  EXPECT_EQ(context->validation_messages(), 0);
}

}  // namespace
