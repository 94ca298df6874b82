// app/vulkan/export_memory.cpp — a scene's resources in exportable Vulkan memory, without the renderer
// (export_memory.hpp says what they are and who owns what).
#include "app/vulkan/export_memory.hpp"

#include "app/vulkan/builders.hpp"

#include <stdexcept>
#include <string>
#include <utility>

namespace lab::vulkan {

namespace {

// The renderer's first pass over new exportable resources: images from UNDEFINED into GENERAL (their
// layout for life), then every resource released to VK_QUEUE_FAMILY_EXTERNAL, where an importer's
// semaphores alone order the accesses.
void record_release_to_external(VkCommandBuffer commands, const std::vector<ExportedResource>& resources,
                                uint32_t family) {
  std::vector<VkImageMemoryBarrier> layouts;
  for (const ExportedResource& resource : resources)
    if (resource.image != VK_NULL_HANDLE)
      layouts.push_back(image_barrier(resource.image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, 0,
                                      VK_ACCESS_MEMORY_WRITE_BIT));
  if (!layouts.empty())
    vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0,
                         0, nullptr, 0, nullptr, static_cast<uint32_t>(layouts.size()), layouts.data());

  std::vector<VkBufferMemoryBarrier> buffers;
  std::vector<VkImageMemoryBarrier> images;
  for (const ExportedResource& resource : resources) {
    if (resource.buffer != VK_NULL_HANDLE)
      buffers.push_back(
          buffer_barrier(resource.buffer, VK_ACCESS_MEMORY_WRITE_BIT, 0, family, VK_QUEUE_FAMILY_EXTERNAL));
    else
      images.push_back(image_barrier(resource.image, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_GENERAL,
                                     VK_ACCESS_MEMORY_WRITE_BIT, 0, family, VK_QUEUE_FAMILY_EXTERNAL));
  }
  if (!buffers.empty() || !images.empty())
    vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                         0, 0, nullptr, static_cast<uint32_t>(buffers.size()), buffers.data(),
                         static_cast<uint32_t>(images.size()), images.data());
}

}  // namespace

void validate_resource_desc(const ResourceDesc& desc, size_t index) {
  const std::string name = "ResourceDesc[" + std::to_string(index) + "] (\"" + desc.label + "\")";
  if (desc.kind == ResourceKind::Buffer) {
    if (desc.bytes == 0) throw std::invalid_argument(name + ".bytes is 0: a buffer needs a size");
    return;
  }
  if (desc.width <= 0 || desc.height <= 0)
    throw std::invalid_argument(name + ".width and .height are " + std::to_string(desc.width) + "x" +
                                std::to_string(desc.height) + ": a texture needs both > 0");
  if (desc.bytes != static_cast<size_t>(desc.width) * static_cast<size_t>(desc.height) * 4)
    throw std::invalid_argument(name + ".bytes is " + std::to_string(desc.bytes) +
                                "; an RGBA8 texture needs width * height * 4 = " +
                                std::to_string(static_cast<size_t>(desc.width) * desc.height * 4));
}

VkBuffer create_vk_buffer(const Context& context, VkDeviceSize size, VkBufferUsageFlags usage,
                          bool exportable) {
  auto external =
      make<VkExternalMemoryBufferCreateInfo>(VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO);
  external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkBufferCreateInfo create = buffer_create_info(size, usage);
  create.pNext = exportable ? &external : nullptr;
  VkBuffer buffer = VK_NULL_HANDLE;
  check(vkCreateBuffer(context.device(), &create, nullptr, &buffer), "vkCreateBuffer");
  return buffer;
}

VkImage create_vk_image(const Context& context, Extent extent, VkFormat format, VkImageUsageFlags usage,
                        bool exportable) {
  auto external = make<VkExternalMemoryImageCreateInfo>(VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO);
  external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkImageCreateInfo create = image_create_info(extent, format, usage);
  create.pNext = exportable ? &external : nullptr;
  VkImage image = VK_NULL_HANDLE;
  check(vkCreateImage(context.device(), &create, nullptr, &image), "vkCreateImage");
  return image;
}

void require_exportable_image(const Context& context, VkImageUsageFlags usage) {
  auto external = make<VkPhysicalDeviceExternalImageFormatInfo>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO);
  external.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  auto format = make<VkPhysicalDeviceImageFormatInfo2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2);
  format.pNext = &external;
  format.format = kResourceImageFormat;
  format.type = VK_IMAGE_TYPE_2D;
  format.tiling = VK_IMAGE_TILING_OPTIMAL;
  format.usage = usage;
  auto external_properties =
      make<VkExternalImageFormatProperties>(VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES);
  auto properties = make<VkImageFormatProperties2>(VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2);
  properties.pNext = &external_properties;
  const VkResult result =
      vkGetPhysicalDeviceImageFormatProperties2(context.physical_device(), &format, &properties);
  const VkExternalMemoryFeatureFlags features =
      external_properties.externalMemoryProperties.externalMemoryFeatures;
  if (result != VK_SUCCESS || !(features & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT))
    throw std::runtime_error(
        "Vulkan: " + context.info().name +
        " cannot export RGBA8 images as opaque FDs; use a copying mode (staging or cpu)");
}

ExportMemory::ExportMemory(Context& context, const std::vector<ResourceDesc>& descs) : m_context(context) {
  bool any_image = false;
  for (size_t i = 0; i < descs.size(); ++i) {
    validate_resource_desc(descs[i], i);
    any_image |= descs[i].kind == ResourceKind::Texture2D;
  }
  if (any_image) require_exportable_image(context, kResourceImageUsage);
  VkDevice device = context.device();
  for (const ResourceDesc& desc : descs) {
    Owned owned;
    ExportedResource resource;
    resource.desc = desc;
    if (desc.kind == ResourceKind::Buffer) {
      owned.buffer = UniqueBuffer(device, create_vk_buffer(context, desc.bytes, kResourceBufferUsage, true));
      owned.allocation = allocate_dedicated(context, owned.buffer.get(), VK_NULL_HANDLE,
                                            VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, /*exportable=*/true);
      resource.buffer = owned.buffer.get();
    } else {
      owned.image = UniqueImage(device, create_vk_image(context, {desc.width, desc.height},
                                                        kResourceImageFormat, kResourceImageUsage, true));
      owned.allocation = allocate_dedicated(context, VK_NULL_HANDLE, owned.image.get(),
                                            VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, /*exportable=*/true);
      resource.image = owned.image.get();
    }
    resource.memory = owned.allocation.memory.get();
    resource.allocation_size = owned.allocation.size;
    m_owned.push_back(std::move(owned));
    m_resources.push_back(resource);
  }
  const uint32_t family = context.queue_family();
  context.submit([&](VkCommandBuffer commands) { record_release_to_external(commands, m_resources, family); },
                 VK_NULL_HANDLE, 0, 0, /*wait_idle=*/true);
}

ExportMemory::~ExportMemory() {
  vkDeviceWaitIdle(m_context.device());  // nothing is destroyed while a submission may still use it
}

int ExportMemory::export_fd(size_t index) const {
  return export_memory_fd(m_context, m_resources.at(index).memory);
}

}  // namespace lab::vulkan
