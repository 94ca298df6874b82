// app/vulkan/builders.hpp — the Vulkan structs and small objects that the renderer, the presenter, the
// exports and the benchmarks' one-time setup fill alike, each written once: buffer and 2D image
// create-infos, whole-resource barriers, semaphores, one-subpass colour passes (with an optional depth
// attachment), framebuffers, image views, a pass's begin info, a copy region of a whole image, and a
// submission over one timeline semaphore. Each takes the values its callers differ in, and each object's
// creation names the call its callers name in the exception (check()). The benchmarks' raw loops make
// their per-frame calls themselves.
#pragma once

#include "app/core/vocabulary.hpp"
#include "app/vulkan/device.hpp"

#include <vulkan/vulkan.h>

#include <cstdint>
#include <vector>

namespace lab::vulkan {

// ---- create-infos: the caller chains its pNext (external memory, ...)

// A buffer of `size` bytes with `usage`, used by one queue family at a time.
VkBufferCreateInfo buffer_create_info(VkDeviceSize size, VkBufferUsageFlags usage);
// A 2D image of `extent`: one mip level, one layer, one sample, optimal tiling, one queue family at a time,
// created UNDEFINED.
VkImageCreateInfo image_create_info(Extent extent, VkFormat format, VkImageUsageFlags usage);

// ---- barriers over a whole buffer, or a whole colour image (mip 0, layer 0); a family transfer where
// the families differ (VK_QUEUE_FAMILY_IGNORED: none)

VkBufferMemoryBarrier buffer_barrier(VkBuffer buffer, VkAccessFlags src_access, VkAccessFlags dst_access,
                                     uint32_t src_family = VK_QUEUE_FAMILY_IGNORED,
                                     uint32_t dst_family = VK_QUEUE_FAMILY_IGNORED);
VkImageMemoryBarrier image_barrier(VkImage image, VkImageLayout old_layout, VkImageLayout new_layout,
                                   VkAccessFlags src_access, VkAccessFlags dst_access,
                                   uint32_t src_family = VK_QUEUE_FAMILY_IGNORED,
                                   uint32_t dst_family = VK_QUEUE_FAMILY_IGNORED);

// ---- objects

// A binary or timeline semaphore (a timeline starts at 0); `exportable`: its payload can be exported as
// an opaque FD. The caller owns the handle.
VkSemaphore create_semaphore(VkDevice device, VkSemaphoreType type, bool exportable, const char* call);

// The work of `stages` and its memory accesses `access`: one scope of a subpass dependency.
struct StageAccess {
  VkPipelineStageFlags stages = 0;
  VkAccessFlags access = 0;
};
// A render pass's dependency on the way in (`src`: earlier work, `dst`: the subpass's) or on the way out
// (`src`: the subpass's work, `dst`: later work).
struct PassDependency {
  StageAccess src, dst;
};

// The colour attachment's layout before its render pass, in the subpass and after the pass.
struct ColorLayouts {
  VkImageLayout initial = VK_IMAGE_LAYOUT_UNDEFINED;
  VkImageLayout subpass = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
  VkImageLayout final = VK_IMAGE_LAYOUT_GENERAL;
};

// A render pass of one graphics subpass: colour attachment 0 of `format`, loaded with `load_op` and
// stored, in `layouts`; with `depth_format` also depth attachment 1 (cleared from UNDEFINED, not stored,
// left DEPTH_STENCIL_ATTACHMENT_OPTIMAL). `in` is the dependency VK_SUBPASS_EXTERNAL -> 0, `out` the one
// 0 -> VK_SUBPASS_EXTERNAL.
struct ColorPassDesc {
  VkAttachmentLoadOp load_op = VK_ATTACHMENT_LOAD_OP_CLEAR;
  ColorLayouts layouts;
  VkFormat depth_format = VK_FORMAT_UNDEFINED;  // UNDEFINED: no depth attachment
  PassDependency in, out;
};
UniqueRenderPass create_color_pass(VkDevice device, VkFormat format, const ColorPassDesc& desc,
                                   const char* call);

// `attachments` (in the pass's attachment order) at `extent`, one layer.
UniqueFramebuffer create_framebuffer(VkDevice device, VkRenderPass pass,
                                     const std::vector<VkImageView>& attachments, Extent extent,
                                     const char* call);
// A 2D view of mip 0, layer 0 of `image`'s `aspect`.
UniqueImageView create_image_view(VkDevice device, VkImage image, VkFormat format, VkImageAspectFlags aspect,
                                  const char* call);

// ---- commands

// `pass` over all of `framebuffer` (`extent`), no clear values: the caller adds its own where it clears.
VkRenderPassBeginInfo render_pass_begin_info(VkRenderPass pass, VkFramebuffer framebuffer, Extent extent);
// A copy of mip 0, layer 0 of a colour image of `extent` to or from a buffer, rows tightly packed.
VkBufferImageCopy whole_image_copy(Extent extent);

// One submission that waits on and/or signals timeline `semaphore` at `wait_value` / `signal_value` (0:
// no wait / no signal), the wait at every stage, with `commands` (VK_NULL_HANDLE: no command buffer):
// info() is what vkQueueSubmit takes. It points into itself, so it is neither copied nor moved.
class TimelineSubmit {
 public:
  TimelineSubmit(VkSemaphore semaphore, uint64_t wait_value, uint64_t signal_value,
                 VkCommandBuffer commands = VK_NULL_HANDLE);
  TimelineSubmit(const TimelineSubmit&) = delete;
  TimelineSubmit& operator=(const TimelineSubmit&) = delete;

  const VkSubmitInfo* info() const { return &m_submit; }

 private:
  VkSemaphore m_semaphore;
  uint64_t m_wait_value, m_signal_value;
  VkPipelineStageFlags m_stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  VkCommandBuffer m_commands;
  VkTimelineSemaphoreSubmitInfo m_timeline;
  VkSubmitInfo m_submit;
};

// Waits on the host until timeline `semaphore` reaches `value`.
void wait_semaphore(VkDevice device, VkSemaphore semaphore, uint64_t value);

}  // namespace lab::vulkan
