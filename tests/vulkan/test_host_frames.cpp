// tests/vulkan/test_host_frames.cpp — the pooled frames the GPU copies into (app/vulkan/host_frames.hpp):
// each frame a pool makes is imported once, its import goes with the frame (freed by the pool, or by the
// last holder after the pool), close() frees what is left and later releases do nothing, and a copy into an
// import lands in the frame's own pixels. Lavapipe imports host memory; a device without
// VK_EXT_external_memory_host skips, saying so.
#include "tests/support/vulkan_device.hpp"

#include "app/image/frame_pool.hpp"
#include "app/vulkan/host_frames.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>

namespace {

using lab::vulkan::Context;
using lab::vulkan::HostFrameImports;

class HostFrames : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string missing = labtest::vulkan_missing(); !missing.empty())
      GTEST_SKIP() << "needs a Vulkan driver: " << missing;
    m_context = std::make_unique<Context>(nullptr);
    if (m_context->host_import_alignment() == 0)
      GTEST_SKIP() << m_context->info().name << " has no VK_EXT_external_memory_host";
    m_imports = HostFrameImports::create(*m_context);
  }
  void TearDown() override {
    if (m_context) vkDeviceWaitIdle(m_context->device());
  }
  std::unique_ptr<Context> m_context;
  std::shared_ptr<HostFrameImports> m_imports;
};

TEST_F(HostFrames, EachPooledFrameIsImportedOnceAndItsImportGoesWithIt) {
  ASSERT_TRUE(m_imports);
  std::shared_ptr<lab::Image> kept;
  const uint8_t* kept_pixels = nullptr;
  const uint8_t* freed_pixels = nullptr;
  {
    lab::FramePool pool(HostFrameImports::hooks(m_imports), 1);
    std::shared_ptr<lab::Image> first = pool.take({331, 197});
    std::shared_ptr<lab::Image> second = pool.take({331, 197});
    const auto first_import = m_imports->find(first->rgba.data());
    const auto second_import = m_imports->find(second->rgba.data());
    ASSERT_TRUE(first_import.has_value()) << m_imports->failure();
    ASSERT_TRUE(second_import.has_value()) << m_imports->failure();
    EXPECT_NE(first_import->buffer, second_import->buffer);
    EXPECT_EQ(m_imports->failure(), "");
    // The import starts on the page of the first pixel: the offset is where the pixels lie in it.
    EXPECT_LT(first_import->offset, m_context->host_import_alignment());
    EXPECT_EQ((reinterpret_cast<uintptr_t>(first->rgba.data()) - first_import->offset) %
                  m_context->host_import_alignment(),
              0u);

    // A frame handed out again keeps its import.
    const uint8_t* first_pixels = first->rgba.data();
    first.reset();
    std::shared_ptr<lab::Image> again = pool.take({331, 197});
    ASSERT_EQ(again->rgba.data(), first_pixels) << "the pool handed out another frame";
    const auto again_import = m_imports->find(again->rgba.data());
    ASSERT_TRUE(again_import.has_value());
    EXPECT_EQ(again_import->buffer, first_import->buffer) << "a frame imported twice";

    // A frame the pool frees (another extent) loses its import; one a holder keeps has it after the pool.
    freed_pixels = again->rgba.data();
    again.reset();
    kept = pool.take({64, 48});
    kept_pixels = kept->rgba.data();
    EXPECT_FALSE(m_imports->find(freed_pixels).has_value()) << "a freed frame's import stayed";
    EXPECT_TRUE(m_imports->find(kept_pixels).has_value());
    second.reset();
  }
  EXPECT_TRUE(m_imports->find(kept_pixels).has_value()) << "a held frame lost its import with the pool";
  m_imports->close();
  EXPECT_FALSE(m_imports->find(kept_pixels).has_value()) << "close() left an import";
  kept.reset();  // its release after close() does nothing
}

TEST_F(HostFrames, ACopyIntoAnImportLandsInTheFramesPixels) {
  ASSERT_TRUE(m_imports);
  lab::FramePool pool(HostFrameImports::hooks(m_imports));
  std::shared_ptr<lab::Image> frame = pool.take({97, 13});
  const auto target = m_imports->find(frame->rgba.data());
  ASSERT_TRUE(target.has_value()) << m_imports->failure();
  const VkDeviceSize bytes = frame->rgba.size();
  m_context->submit(
      [&](VkCommandBuffer commands) {
        vkCmdFillBuffer(commands, target->buffer, target->offset, bytes, 0x5a6b7c8du);
        auto barrier = lab::vulkan::make<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
        barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
        vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                             &barrier, 0, nullptr, 0, nullptr);
      },
      VK_NULL_HANDLE, 0, 0, true);
  for (size_t i = 0; i < frame->rgba.size(); i += 4) {
    ASSERT_EQ(frame->rgba[i], 0x8d) << "byte " << i;
    ASSERT_EQ(frame->rgba[i + 3], 0x5a) << "byte " << i + 3;
  }
}

}  // namespace
