// app/vulkan/export_memory.hpp — a scene's resources as exportable Vulkan memory and nothing else: for
// each ResourceDesc a buffer or an RGBA8 image (optimal tiling) in a dedicated device-local allocation
// exportable as an opaque FD, made exactly as the renderer makes its exportable resources (the same usage
// bits, format and initial layout), so another API (GL's external mode) can import the memory without
// Vulkan's drawing: no pipelines, no render passes, no frame target.
//
// Ownership: export_fd returns a new FD each call, which the importer owns once its import succeeds.
// Teardown: whoever imported the memory (GL's objects, CUDA's imports) lets go of it before this goes;
// this waits for the device to be idle, then destroys each buffer or image before its memory.
#pragma once

#include "app/scene/scene_compute.hpp"
#include "app/vulkan/device.hpp"

#include <vulkan/vulkan.h>

#include <cstddef>
#include <vector>

namespace lab::vulkan {

// What the renderer's resources are made of (app/vulkan/renderer.cpp creates them with these too): an
// importer of the memory sees the same image as the renderer's draws and CUDA's imports do.
constexpr VkFormat kResourceImageFormat = VK_FORMAT_R8G8B8A8_UNORM;
constexpr VkBufferUsageFlags kResourceBufferUsage =
    VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
    VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
constexpr VkImageUsageFlags kResourceImageUsage =
    VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_STORAGE_BIT |
    VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;

// Throws std::invalid_argument naming resource `index` ("ResourceDesc[1] (\"image\")") when its sizes do not
// fit its kind: a buffer of 0 bytes, a texture without a width and height or whose bytes are not RGBA8's.
void validate_resource_desc(const ResourceDesc& desc, size_t index);
// A VkBuffer, or a 2D VkImage (one mip, one layer, optimal tiling, UNDEFINED), with no memory yet; where
// `exportable`, its memory may be exported as an opaque FD. The caller owns the handle.
VkBuffer create_vk_buffer(const Context& context, VkDeviceSize size, VkBufferUsageFlags usage,
                          bool exportable);
VkImage create_vk_image(const Context& context, Extent extent, VkFormat format, VkImageUsageFlags usage,
                        bool exportable);

// Throws std::runtime_error (naming the device and the copying modes to use instead) unless `context`'s
// device can export RGBA8 optimal-tiled images of `usage` as opaque FDs.
void require_exportable_image(const Context& context, VkImageUsageFlags usage);

// One resource's Vulkan object and the memory it is bound to, as an importer of that memory sees it: what
// ExportMemory's resources and the renderer's (app/vulkan/renderer.hpp) both are.
struct ResourceMemory {
  ResourceDesc desc;
  VkBuffer buffer = VK_NULL_HANDLE;        // ResourceKind::Buffer
  VkImage image = VK_NULL_HANDLE;          // ResourceKind::Texture2D: kResourceImageFormat, optimal tiling
  VkDeviceMemory memory = VK_NULL_HANDLE;  // a dedicated allocation
  VkDeviceSize allocation_size = 0;        // what an importer must be told (vkGetMemoryRequirements)
};

// One resource in exportable memory.
struct ExportedResource : ResourceMemory {
  bool dedicated = true;  // an importer must say so (cudaExternalMemoryDedicated)
};

class ExportMemory {
 public:
  // One exportable allocation per desc, in their order; images enter VK_IMAGE_LAYOUT_GENERAL and every
  // resource starts out released to VK_QUEUE_FAMILY_EXTERNAL, as the renderer's exportable resources do
  // (one submission, waited for). `context` outlives this. Throws std::runtime_error naming what the
  // device lacks, std::invalid_argument for a desc no resource can be made of.
  ExportMemory(Context& context, const std::vector<ResourceDesc>& descs);
  ~ExportMemory();
  ExportMemory(const ExportMemory&) = delete;
  ExportMemory& operator=(const ExportMemory&) = delete;

  const std::vector<ExportedResource>& resources() const { return m_resources; }
  // A new FD for resources()[index]'s memory; the importer owns it once its import succeeds.
  int export_fd(size_t index) const;

 private:
  // Members are destroyed in reverse order: each object before its allocation.
  struct Owned {
    Allocation allocation;
    UniqueBuffer buffer;
    UniqueImage image;
  };
  Context& m_context;
  std::vector<Owned> m_owned;
  std::vector<ExportedResource> m_resources;
};

}  // namespace lab::vulkan
