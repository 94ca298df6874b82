// tests/vulkan/test_gl_import.cpp — Vulkan memory seen by GL through GL_EXT_memory_object_fd, the GL half
// of the `external` mode: Vulkan allocates and fills a buffer, GL imports the exported FD, makes a buffer
// of it and reads back what Vulkan wrote. GL and Vulkan must run on the same device with the same driver
// (GL_DEVICE_UUID_EXT == VkPhysicalDeviceIDProperties::deviceUUID); where they do not, or an extension is
// missing, the test skips naming the exact missing piece (on a GPU server, INTEROP_LAB_REQUIRE_GPUS makes
// that a failure: NVIDIA's GL and Vulkan drivers have everything). And the other direction: CUDA's own
// exportable allocation (interop/vmm.hpp) imported by GL as a buffer.
#include "tests/support/app_fixture.hpp"

#include "app/gl/gl_external.hpp"
#include "app/gl/platform.hpp"
#include "app/vulkan/device.hpp"
#include "interop/device.hpp"
#include "interop/error.hpp"
#include "interop/external.hpp"
#include "interop/vmm.hpp"

#include <cuda_runtime_api.h>

#include <glad/gl.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

std::string uuid_text(const lab::gl::GlUuid& uuid) {
  lab::vulkan::Uuid vulkan_uuid;
  std::memcpy(vulkan_uuid.data(), uuid.data(), uuid.size());
  return lab::vulkan::to_string(vulkan_uuid);
}

TEST(VulkanToGl, BufferFilledByVulkanReadsBackInGl) {
  std::unique_ptr<lab::gl::Platform> platform =
      lab::gl::create_headless_platform(lab::gl::HeadlessDesc{{64, 64}, -1});
  const std::string renderer = lab::gl::gl_string(GL_RENDERER);
  const lab::gl::GlExternalSupport support = lab::gl::query_gl_external_support();
  if (!support.memory_missing().empty())
    LABTEST_NEEDS_GPUS(1, "GL (" << renderer << ") lacks " << support.memory_missing());
  ASSERT_FALSE(support.device_uuids.empty())
      << "GL_NUM_DEVICE_UUIDS_EXT is 0 although GL_EXT_memory_object is there";

  // Vulkan on the very device GL runs on: matched by UUID, as the external mode does.
  lab::vulkan::Uuid gl_device;
  std::memcpy(gl_device.data(), support.device_uuids[0].data(), gl_device.size());
  std::unique_ptr<lab::vulkan::Context> context;
  try {
    context = std::make_unique<lab::vulkan::Context>(&gl_device);
  } catch (const std::runtime_error& error) {
    LABTEST_NEEDS_GPUS(1, "no Vulkan device shares GL's device (" << renderer << ", UUID "
                                                                  << uuid_text(support.device_uuids[0])
                                                                  << "): " << error.what());
  }

  constexpr VkDeviceSize kBytes = 64 * 1024;
  constexpr uint32_t kWord = 0x5a17c0deu;
  lab::vulkan::ExportableBuffer buffer(*context, kBytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  context->submit(
      [&](VkCommandBuffer commands) { vkCmdFillBuffer(commands, buffer.buffer(), 0, kBytes, kWord); },
      VK_NULL_HANDLE, 0, 0, /*wait_idle=*/true);

  // The FD is GL's once the import succeeds; import_memory_fd closes it if the import fails.
  const lab::gl::GlMemoryObject memory =
      lab::gl::import_memory_fd(buffer.export_fd(), buffer.allocation_size(),
                                /*dedicated=*/true);
  lab::gl::GlBuffer gl_buffer;
  try {
    gl_buffer = lab::gl::buffer_from_memory(memory.get(), kBytes, 0, "imported from Vulkan");
  } catch (const interop::Error& error) {
    // Mesa 22.3's llvmpipe takes the FD (glImportMemoryFdEXT succeeds) but cannot place a buffer in
    // lavapipe's memory; any other driver must.
    if (renderer.find("llvmpipe") == std::string::npos) throw;
    GTEST_SKIP() << "GL (" << renderer
                 << ") imports Vulkan's memory but cannot make a buffer of it: " << error.what();
  }
  std::vector<uint32_t> words(kBytes / sizeof(uint32_t), 0);
  glGetNamedBufferSubData(gl_buffer.get(), 0, static_cast<GLsizeiptr>(kBytes), words.data());
  ASSERT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
  size_t wrong = 0;
  for (const uint32_t word : words) wrong += word != kWord;
  EXPECT_EQ(wrong, 0u) << "of " << words.size() << " words GL read from Vulkan's memory; first: 0x"
                       << std::hex << words[0];
  EXPECT_EQ(context->validation_messages(), 0);
}

// The GL external mode's sharing: one Vulkan allocation imported by CUDA and by GL at once (each import
// takes an FD of its own: export_fd makes a new one per call). CUDA writes it, GL reads what CUDA wrote.
TEST(VulkanToGl, CudaWritesWhatGlReadsInOneVulkanAllocation) {
  const interop::CudaDevices cuda = interop::enumerate_cuda_devices();
  if (cuda.devices.empty()) LABTEST_NEEDS_GPUS(1, "needs a CUDA device: " << cuda.error);
  std::unique_ptr<lab::gl::Platform> platform =
      lab::gl::create_headless_platform(lab::gl::HeadlessDesc{{64, 64}, 0});
  const lab::gl::GlExternalSupport support = lab::gl::query_gl_external_support();
  if (!support.memory_missing().empty())
    LABTEST_NEEDS_GPUS(1,
                       "GL (" << lab::gl::gl_string(GL_RENDERER) << ") lacks " << support.memory_missing());
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  cudaDeviceProp properties{};
  ASSERT_EQ(cudaGetDeviceProperties(&properties, 0), cudaSuccess);
  lab::vulkan::Uuid uuid;
  std::memcpy(uuid.data(), properties.uuid.bytes, uuid.size());
  ASSERT_FALSE(support.device_uuids.empty());
  ASSERT_EQ(std::memcmp(support.device_uuids[0].data(), uuid.data(), uuid.size()), 0)
      << "GL runs on " << uuid_text(support.device_uuids[0]) << ", CUDA device 0 is "
      << lab::vulkan::to_string(uuid);
  lab::vulkan::Context context(&uuid);

  constexpr VkDeviceSize kBytes = 1 << 20;
  lab::vulkan::ExportableBuffer buffer(context, kBytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  interop::ExternalMemoryDesc desc;
  desc.fd = buffer.export_fd();
  desc.size = buffer.allocation_size();
  desc.dedicated = true;
  interop::ExternalMemory cuda_memory(desc);  // owns the FD from here on
  interop::ExternalBuffer cuda_buffer = cuda_memory.map_buffer(0, kBytes);
  ASSERT_EQ(cudaMemset(cuda_buffer.data(), 0xA5, kBytes), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  const lab::gl::GlMemoryObject gl_memory =
      lab::gl::import_memory_fd(buffer.export_fd(), buffer.allocation_size(), true);
  const lab::gl::GlBuffer gl_buffer =
      lab::gl::buffer_from_memory(gl_memory.get(), kBytes, 0, "shared with CUDA");
  std::vector<uint8_t> bytes(kBytes, 0);
  glGetNamedBufferSubData(gl_buffer.get(), 0, static_cast<GLsizeiptr>(kBytes), bytes.data());
  ASSERT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
  size_t wrong = 0;
  for (const uint8_t byte : bytes) wrong += byte != 0xA5;
  EXPECT_EQ(wrong, 0u) << "of " << kBytes << " bytes that CUDA wrote, as GL reads them";
  EXPECT_EQ(context.validation_messages(), 0);
}

// The other direction, the exported mode's memory as GL's future exported mode takes it: CUDA allocates
// (interop::ExportableAllocation, cuMemCreate with a POSIX FD handle type), writes it, and GL imports the
// FD as a buffer (GL_EXT_memory_object_fd, glNamedBufferStorageMemEXT) that reads the same bytes.
TEST(VulkanToGl, CudaOwnedMemoryReadsBackInGlAsABuffer) {
  const interop::CudaDevices cuda = interop::enumerate_cuda_devices();
  if (cuda.devices.empty()) LABTEST_NEEDS_GPUS(1, "needs a CUDA device: " << cuda.error);
  const interop::VmmExportSupport vmm = interop::probe_vmm_export(0);
  if (!vmm.supported) LABTEST_NEEDS_GPUS(1, "needs a CUDA device that exports VMM memory: " << vmm.reason);
  std::unique_ptr<lab::gl::Platform> platform =
      lab::gl::create_headless_platform(lab::gl::HeadlessDesc{{64, 64}, 0});
  const lab::gl::GlExternalSupport support = lab::gl::query_gl_external_support();
  if (!support.memory_missing().empty())
    LABTEST_NEEDS_GPUS(1,
                       "GL (" << lab::gl::gl_string(GL_RENDERER) << ") lacks " << support.memory_missing());
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);

  constexpr size_t kBytes = size_t{3840} * 2160 * 4;  // a 4K RGBA8 image: not a whole number of granules
  interop::ExportableAllocationDesc desc;
  desc.size = kBytes;
  desc.device = 0;
  interop::ExportableAllocation allocation(desc);
  std::vector<uint8_t> pattern(kBytes);
  for (size_t i = 0; i < kBytes; ++i) pattern[i] = static_cast<uint8_t>(i * 29 + (i >> 12));
  ASSERT_EQ(cudaMemcpy(allocation.data(), pattern.data(), kBytes, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  // import_memory_fd takes the FD over: GL's once the import succeeds, closed by it when it fails.
  const lab::gl::GlMemoryObject gl_memory =
      lab::gl::import_memory_fd(allocation.export_fd().release(), allocation.allocation_size(), false);
  const lab::gl::GlBuffer gl_buffer =
      lab::gl::buffer_from_memory(gl_memory.get(), kBytes, 0, "CUDA's own memory");
  std::vector<uint8_t> bytes(kBytes, 0);
  glGetNamedBufferSubData(gl_buffer.get(), 0, static_cast<GLsizeiptr>(kBytes), bytes.data());
  ASSERT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
  EXPECT_TRUE(bytes == pattern) << "GL reads what CUDA wrote into its own allocation";
}

}  // namespace
