// tests/vulkan/test_vulkan_external.cpp — external resource interop between Vulkan and CUDA. Vulkan
// allocates exportable memory and a timeline semaphore; CUDA imports both (interop/external.hpp) and the
// two order their work through the semaphore alone: Vulkan fills the buffer and signals 1, CUDA waits
// for 1, reads the fill, overwrites the buffer and signals 2, Vulkan (its copy queued before CUDA's work
// even started) waits for 2 and copies the buffer to host memory. The validation layer runs where it is
// installed and must report nothing. Without a Vulkan driver the tests skip with the reason; the CUDA
// round trip needs a GPU (and fails where INTEROP_LAB_REQUIRE_GPUS says one must be there). A process makes
// and destroys contexts by the hundred; a benchmark's leave the validation layer out.
#include "tests/support/app_fixture.hpp"

#include "app/vulkan/device.hpp"
#include "interop/device.hpp"
#include "interop/error.hpp"
#include "interop/external.hpp"
#include "interop/stream.hpp"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <optional>
#include <vector>

namespace {

using lab::vulkan::Context;

std::unique_ptr<Context> open_or_skip(const lab::vulkan::Uuid* uuid, std::string& why) {
  try {
    return std::make_unique<Context>(uuid);
  } catch (const std::runtime_error& error) {
    why = error.what();
    return nullptr;
  }
}

TEST(VulkanExport, BufferMemoryExportsAnFd) {
  std::string why;
  std::unique_ptr<Context> context = open_or_skip(nullptr, why);
  if (!context) GTEST_SKIP() << "needs a Vulkan driver with external memory: " << why;
  lab::vulkan::ExportableBuffer buffer(*context, 1 << 20, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  EXPECT_GE(buffer.allocation_size(), VkDeviceSize{1 << 20});
  const int fd = buffer.export_fd();
  ASSERT_GE(fd, 0) << "vkGetMemoryFdKHR";
  close(fd);  // nobody imported it: it is still ours to close
  EXPECT_EQ(context->validation_messages(), 0);
}

// The Vulkan benchmark makes a context for each case and the app one for each switch: a process makes and
// destroys them by the hundred. NVIDIA's driver could be loaded about 70 times in a process (its static TLS
// is never given back when the loader unloads it with the last instance); the contexts keep it loaded.
TEST(VulkanExport, AProcessMakesAndDestroysContextsByTheHundred) {
  std::string why;
  if (!open_or_skip(nullptr, why)) GTEST_SKIP() << "needs a Vulkan driver with external memory: " << why;
  for (int i = 0; i < 120; ++i) {
    std::unique_ptr<Context> context = open_or_skip(nullptr, why);
    ASSERT_TRUE(context) << "context " << i + 2 << ": " << why;
  }
}

// Every context loads the validation layer where it is installed, but those made while a benchmark's
// WithoutValidationLayer lives (on its thread or another); after it, they load it again.
TEST(VulkanExport, TheBenchmarksContextsLeaveTheValidationLayerOut) {
  std::string why;
  std::unique_ptr<Context> before = open_or_skip(nullptr, why);
  if (!before) GTEST_SKIP() << "needs a Vulkan driver with external memory: " << why;
  const bool installed = lab::vulkan::WithoutValidationLayer::layer_installed();
  EXPECT_EQ(before->validation_enabled(), installed);
  {
    const lab::vulkan::WithoutValidationLayer without;
    EXPECT_FALSE(open_or_skip(nullptr, why)->validation_enabled());
    EXPECT_FALSE(lab::vulkan::on_own_thread([] { return Context(nullptr).validation_enabled(); }));
  }
  EXPECT_EQ(open_or_skip(nullptr, why)->validation_enabled(), installed);
  if (!installed) GTEST_SKIP() << "the validation layer is not installed: only its absence was seen";
}

TEST(VulkanExport, ADeviceIsChosenByUuidNeverGuessed) {
  std::string why;
  lab::vulkan::Uuid nobody;
  nobody.fill(0xEE);
  EXPECT_FALSE(open_or_skip(&nobody, why));
  if (why.find("VK_ERROR_INCOMPATIBLE_DRIVER") != std::string::npos)
    GTEST_SKIP() << "no Vulkan driver: " << why;
  EXPECT_NE(why.find("no device has the CUDA device's UUID eeeeeeee-eeee-eeee-eeee-eeeeeeeeeeee"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("seen: "), std::string::npos) << why;
}

TEST(VulkanExport, TimelineSemaphoresExportOrSayWhatIsMissing) {
  std::string why;
  std::unique_ptr<Context> context = open_or_skip(nullptr, why);
  if (!context) GTEST_SKIP() << "needs a Vulkan driver with external memory: " << why;
  if (!context->info().external_semaphore_fd) {
    EXPECT_THROW(lab::vulkan::ExportableSemaphore(*context, interop::SemaphoreKind::Timeline),
                 std::runtime_error);
    GTEST_SKIP() << context->info().name << " has no " VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME
                 << " (Mesa's lavapipe lacks it): semaphores cannot be shared with CUDA or GL there";
  }
  lab::vulkan::ExportableSemaphore timeline(*context, interop::SemaphoreKind::Timeline);
  const int fd = timeline.export_fd();
  ASSERT_GE(fd, 0);
  close(fd);
  EXPECT_EQ(timeline.value(), 0u);
}

TEST(VulkanCudaExternal, RoundTripThroughImportedMemoryAndTimelineSemaphore) {
  const interop::CudaDevices cuda = interop::enumerate_cuda_devices();
  if (cuda.devices.empty()) LABTEST_NEEDS_GPUS(1, "needs a CUDA device: " << cuda.error);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  cudaDeviceProp properties{};
  ASSERT_EQ(cudaGetDeviceProperties(&properties, 0), cudaSuccess);
  lab::vulkan::Uuid uuid;
  std::memcpy(uuid.data(), properties.uuid.bytes, uuid.size());
  std::string why;
  std::unique_ptr<Context> context = open_or_skip(&uuid, why);
  if (!context) LABTEST_NEEDS_GPUS(1, "needs the Vulkan device of CUDA device 0: " << why);
  ASSERT_TRUE(context->info().external_semaphore_fd) << context->info().name;

  constexpr VkDeviceSize kBytes = 4 << 20;
  lab::vulkan::ExportableBuffer shared(*context, kBytes,
                                       VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  lab::vulkan::ExportableSemaphore timeline(*context, interop::SemaphoreKind::Timeline);

  // Host-visible memory Vulkan copies the result into.
  VkBuffer staging = VK_NULL_HANDLE;
  VkDeviceMemory staging_memory = VK_NULL_HANDLE;
  auto create = lab::vulkan::make<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  create.size = kBytes;
  create.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  ASSERT_EQ(vkCreateBuffer(context->device(), &create, nullptr, &staging), VK_SUCCESS);
  VkMemoryRequirements requirements;
  vkGetBufferMemoryRequirements(context->device(), staging, &requirements);
  auto allocate = lab::vulkan::make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
  allocate.allocationSize = requirements.size;
  allocate.memoryTypeIndex =
      context->memory_type(requirements.memoryTypeBits,
                           VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  ASSERT_EQ(vkAllocateMemory(context->device(), &allocate, nullptr, &staging_memory), VK_SUCCESS);
  ASSERT_EQ(vkBindBufferMemory(context->device(), staging, staging_memory, 0), VK_SUCCESS);

  std::vector<uint32_t> seen_by_cuda(16, 0);
  {
    // CUDA's side, torn down before Vulkan frees what it imported.
    interop::ExternalMemoryDesc memory_desc;
    memory_desc.fd = shared.export_fd();
    memory_desc.size = shared.allocation_size();
    memory_desc.dedicated = true;
    const interop::ExternalMemory memory(memory_desc);  // the FD is CUDA's now
    const interop::ExternalBuffer buffer = memory.map_buffer(0, kBytes);
    interop::ExternalSemaphoreDesc semaphore_desc;
    semaphore_desc.type = interop::ExternalHandleType::TimelineFd;
    semaphore_desc.fd = timeline.export_fd();
    const interop::ExternalSemaphore semaphore(semaphore_desc);
    EXPECT_EQ(semaphore.kind(), interop::SemaphoreKind::Timeline);
    const interop::Stream stream;

    // Vulkan: fill, signal 1; and, queued already, wait for 2 and copy out.
    context->submit(
        [&](VkCommandBuffer commands) { vkCmdFillBuffer(commands, shared.buffer(), 0, kBytes, 0x5A5A5A5Au); },
        timeline.get(), 0, 1, false);
    context->submit(
        [&](VkCommandBuffer commands) {
          const VkBufferCopy region{0, 0, kBytes};
          vkCmdCopyBuffer(commands, shared.buffer(), staging, 1, &region);
        },
        timeline.get(), 2, 3, false);

    // CUDA: wait for 1, read what Vulkan wrote, overwrite it, signal 2. Nothing waits on the host.
    semaphore.wait(stream.get(), 1);
    ASSERT_EQ(cudaMemcpyAsync(seen_by_cuda.data(), buffer.data(), seen_by_cuda.size() * 4,
                              cudaMemcpyDeviceToHost, stream.get()),
              cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(buffer.data(), 0x3C, kBytes, stream.get()), cudaSuccess);
    semaphore.signal(stream.get(), 2);
    ASSERT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess);
    ASSERT_EQ(vkQueueWaitIdle(context->queue()), VK_SUCCESS);
    EXPECT_EQ(timeline.value(), 3u);
  }
  for (uint32_t word : seen_by_cuda)
    EXPECT_EQ(word, 0x5A5A5A5Au) << "CUDA read before Vulkan's fill completed";
  void* mapped = nullptr;
  ASSERT_EQ(vkMapMemory(context->device(), staging_memory, 0, kBytes, 0, &mapped), VK_SUCCESS);
  const auto* words = static_cast<const uint32_t*>(mapped);
  size_t wrong = 0;
  for (size_t i = 0; i < kBytes / 4; ++i) wrong += words[i] != 0x3C3C3C3Cu;
  EXPECT_EQ(wrong, 0u) << "Vulkan copied before CUDA's write completed";
  vkUnmapMemory(context->device(), staging_memory);
  vkFreeMemory(context->device(), staging_memory, nullptr);
  vkDestroyBuffer(context->device(), staging, nullptr);
  EXPECT_EQ(context->validation_messages(), 0)
      << "validation layer " << (context->validation_enabled() ? "on" : "not installed");
}

}  // namespace
