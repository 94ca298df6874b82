// app/vulkan/builders.cpp — the shared Vulkan create-infos, barriers, passes and submissions
// (builders.hpp says what each fills in).
#include "app/vulkan/builders.hpp"

#include <array>

namespace lab::vulkan {

// The structs below are filled in Vulkan's order of their fields.

VkBufferCreateInfo buffer_create_info(VkDeviceSize size, VkBufferUsageFlags usage) {
  return {
      VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, nullptr, 0, size, usage, VK_SHARING_MODE_EXCLUSIVE, 0, nullptr};
}

VkImageCreateInfo image_create_info(Extent extent, VkFormat format, VkImageUsageFlags usage) {
  return {VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
          nullptr,
          0,
          VK_IMAGE_TYPE_2D,
          format,
          {static_cast<uint32_t>(extent.width), static_cast<uint32_t>(extent.height), 1},
          /*mipLevels=*/1,
          /*arrayLayers=*/1,
          VK_SAMPLE_COUNT_1_BIT,
          VK_IMAGE_TILING_OPTIMAL,
          usage,
          VK_SHARING_MODE_EXCLUSIVE,
          0,
          nullptr,
          VK_IMAGE_LAYOUT_UNDEFINED};
}

VkBufferMemoryBarrier buffer_barrier(VkBuffer buffer, VkAccessFlags src_access, VkAccessFlags dst_access,
                                     uint32_t src_family, uint32_t dst_family) {
  return {VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
          nullptr,
          src_access,
          dst_access,
          src_family,
          dst_family,
          buffer,
          0,
          VK_WHOLE_SIZE};
}

VkImageMemoryBarrier image_barrier(VkImage image, VkImageLayout old_layout, VkImageLayout new_layout,
                                   VkAccessFlags src_access, VkAccessFlags dst_access, uint32_t src_family,
                                   uint32_t dst_family) {
  return {VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
          nullptr,
          src_access,
          dst_access,
          old_layout,
          new_layout,
          src_family,
          dst_family,
          image,
          {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
}

VkSemaphore create_semaphore(VkDevice device, VkSemaphoreType type, bool exportable, const char* call) {
  auto type_info = make<VkSemaphoreTypeCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO);
  type_info.semaphoreType = type;
  type_info.initialValue = 0;
  auto export_info = make<VkExportSemaphoreCreateInfo>(VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO);
  export_info.pNext = &type_info;
  export_info.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  auto create = make<VkSemaphoreCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO);
  create.pNext = exportable ? static_cast<const void*>(&export_info) : static_cast<const void*>(&type_info);
  VkSemaphore semaphore = VK_NULL_HANDLE;
  check(vkCreateSemaphore(device, &create, nullptr, &semaphore), call);
  return semaphore;
}

namespace {

// A colour or depth attachment of one sample, no stencil.
VkAttachmentDescription attachment_description(VkFormat format, VkAttachmentLoadOp load_op,
                                               VkAttachmentStoreOp store_op, VkImageLayout initial_layout,
                                               VkImageLayout final_layout) {
  return {0,
          format,
          VK_SAMPLE_COUNT_1_BIT,
          load_op,
          store_op,
          VK_ATTACHMENT_LOAD_OP_DONT_CARE,
          VK_ATTACHMENT_STORE_OP_DONT_CARE,
          initial_layout,
          final_layout};
}

VkSubpassDependency subpass_dependency(uint32_t src_subpass, uint32_t dst_subpass,
                                       const PassDependency& edge) {
  return {src_subpass, dst_subpass, edge.src.stages, edge.dst.stages, edge.src.access, edge.dst.access, 0};
}

}  // namespace

UniqueRenderPass create_color_pass(VkDevice device, VkFormat format, const ColorPassDesc& desc,
                                   const char* call) {
  const bool depth = desc.depth_format != VK_FORMAT_UNDEFINED;
  const std::array<VkAttachmentDescription, 2> attachments{
      attachment_description(format, desc.load_op, VK_ATTACHMENT_STORE_OP_STORE, desc.layouts.initial,
                             desc.layouts.final),
      attachment_description(desc.depth_format, VK_ATTACHMENT_LOAD_OP_CLEAR, VK_ATTACHMENT_STORE_OP_DONT_CARE,
                             VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL)};
  const VkAttachmentReference color{0, desc.layouts.subpass};
  const VkAttachmentReference depth_reference{1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
  VkSubpassDescription subpass{};
  subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  subpass.colorAttachmentCount = 1;
  subpass.pColorAttachments = &color;
  subpass.pDepthStencilAttachment = depth ? &depth_reference : nullptr;
  const std::array<VkSubpassDependency, 2> dependencies{subpass_dependency(VK_SUBPASS_EXTERNAL, 0, desc.in),
                                                        subpass_dependency(0, VK_SUBPASS_EXTERNAL, desc.out)};

  auto create = make<VkRenderPassCreateInfo>(VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO);
  create.attachmentCount = depth ? 2 : 1;
  create.pAttachments = attachments.data();
  create.subpassCount = 1;
  create.pSubpasses = &subpass;
  create.dependencyCount = static_cast<uint32_t>(dependencies.size());
  create.pDependencies = dependencies.data();
  VkRenderPass pass = VK_NULL_HANDLE;
  check(vkCreateRenderPass(device, &create, nullptr, &pass), call);
  return UniqueRenderPass(device, pass);
}

UniqueFramebuffer create_framebuffer(VkDevice device, VkRenderPass pass,
                                     const std::vector<VkImageView>& attachments, Extent extent,
                                     const char* call) {
  auto create = make<VkFramebufferCreateInfo>(VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO);
  create.renderPass = pass;
  create.attachmentCount = static_cast<uint32_t>(attachments.size());
  create.pAttachments = attachments.data();
  create.width = static_cast<uint32_t>(extent.width);
  create.height = static_cast<uint32_t>(extent.height);
  create.layers = 1;
  VkFramebuffer framebuffer = VK_NULL_HANDLE;
  check(vkCreateFramebuffer(device, &create, nullptr, &framebuffer), call);
  return UniqueFramebuffer(device, framebuffer);
}

UniqueImageView create_image_view(VkDevice device, VkImage image, VkFormat format, VkImageAspectFlags aspect,
                                  const char* call) {
  auto create = make<VkImageViewCreateInfo>(VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO);
  create.image = image;
  create.viewType = VK_IMAGE_VIEW_TYPE_2D;
  create.format = format;
  create.subresourceRange = {aspect, 0, 1, 0, 1};
  VkImageView view = VK_NULL_HANDLE;
  check(vkCreateImageView(device, &create, nullptr, &view), call);
  return UniqueImageView(device, view);
}

VkRenderPassBeginInfo render_pass_begin_info(VkRenderPass pass, VkFramebuffer framebuffer, Extent extent) {
  auto begin = make<VkRenderPassBeginInfo>(VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO);
  begin.renderPass = pass;
  begin.framebuffer = framebuffer;
  begin.renderArea = {{0, 0}, {static_cast<uint32_t>(extent.width), static_cast<uint32_t>(extent.height)}};
  return begin;
}

VkBufferImageCopy whole_image_copy(Extent extent) {
  VkBufferImageCopy region{};
  region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  region.imageExtent = {static_cast<uint32_t>(extent.width), static_cast<uint32_t>(extent.height), 1};
  return region;
}

TimelineSubmit::TimelineSubmit(VkSemaphore semaphore, uint64_t wait_value, uint64_t signal_value,
                               VkCommandBuffer commands)
    : m_semaphore(semaphore),
      m_wait_value(wait_value),
      m_signal_value(signal_value),
      m_commands(commands),
      m_timeline(make<VkTimelineSemaphoreSubmitInfo>(VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO)),
      m_submit(make<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO)) {
  m_timeline.waitSemaphoreValueCount = wait_value ? 1 : 0;
  m_timeline.pWaitSemaphoreValues = &m_wait_value;
  m_timeline.signalSemaphoreValueCount = signal_value ? 1 : 0;
  m_timeline.pSignalSemaphoreValues = &m_signal_value;
  m_submit.pNext = &m_timeline;
  if (commands != VK_NULL_HANDLE) {
    m_submit.commandBufferCount = 1;
    m_submit.pCommandBuffers = &m_commands;
  }
  if (wait_value) {
    m_submit.waitSemaphoreCount = 1;
    m_submit.pWaitSemaphores = &m_semaphore;
    m_submit.pWaitDstStageMask = &m_stage;
  }
  if (signal_value) {
    m_submit.signalSemaphoreCount = 1;
    m_submit.pSignalSemaphores = &m_semaphore;
  }
}

void wait_semaphore(VkDevice device, VkSemaphore semaphore, uint64_t value) {
  auto wait = make<VkSemaphoreWaitInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO);
  wait.semaphoreCount = 1;
  wait.pSemaphores = &semaphore;
  wait.pValues = &value;
  check(vkWaitSemaphores(device, &wait, UINT64_MAX), "vkWaitSemaphores");
}

}  // namespace lab::vulkan
