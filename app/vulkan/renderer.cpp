// app/vulkan/renderer.cpp — the Vulkan backend's drawing (app/vulkan/renderer.hpp): the scene's resources
// (dedicated allocations, exportable as opaque FDs, or buffers in memory CUDA exported: import_memory),
// an offscreen frame target, the wave mesh and the lit cubes drawn through classic render passes, uploads
// through persistent staging buffers, and passes submitted with the caller's semaphores. The Vulkan structs
// it shares with the presenter and the exports come from builders.hpp; its own repeated pieces (descriptor
// sets, pipelines from SPIR-V, a pass run and waited for, new resources' first barriers) are helpers here.
//
// How a pass is ordered against what came before it:
//   - every pass is one command buffer that also signals the renderer's own timeline semaphore (its
//     serial), so the host knows when a command buffer or a staging buffer may be reused, and read-backs
//     wait for exactly their pass;
//   - a resource a pass touches is, when exportable, acquired from VK_QUEUE_FAMILY_EXTERNAL at the start
//     and released to it at the end (CUDA's work between passes is ordered by the caller's semaphores);
//     otherwise one barrier orders it after everything submitted before;
//   - images are in VK_IMAGE_LAYOUT_GENERAL between passes (what CUDA expects of what it imports); inside
//     a pass a copy moves its image to the TRANSFER_*_OPTIMAL layout and back, the render passes theirs.
// Needs a device whose queue has graphics (Context picks one) and Vulkan 1.2 (timeline semaphores).
#include "app/vulkan/renderer.hpp"

#include "app/vulkan/builders.hpp"
#include "app/vulkan/export_memory.hpp"
#include "kernels/wave.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <cstddef>
#include <cstring>
#include <deque>
#include <optional>
#include <stdexcept>
#include <string>

namespace lab::vulkan {
namespace {

// SPIR-V compiled from assets/shaders/vulkan at build time (glslc -mfmt=c: a C initialiser list).
constexpr uint32_t kWaveVert[] =
#include "wave.vert.spv.inc"
    ;
constexpr uint32_t kWaveFrag[] =
#include "wave.frag.spv.inc"
    ;
constexpr uint32_t kLitVert[] =
#include "lit.vert.spv.inc"
    ;
constexpr uint32_t kLitFrag[] =
#include "lit.frag.spv.inc"
    ;
constexpr uint32_t kFullscreenVert[] =
#include "fullscreen.vert.spv.inc"
    ;
constexpr uint32_t kBufferImageFrag[] =
#include "buffer_image.frag.spv.inc"
    ;

constexpr VkFormat kColorFormat = VK_FORMAT_R8G8B8A8_UNORM;
static_assert(kColorFormat == kResourceImageFormat, "the frame and the resources share one colour format");
// Command buffers recorded while earlier ones may still run; the host waits for the oldest beyond this.
constexpr size_t kPassesInFlight = 3;

// kResourceBufferUsage, kResourceImageUsage: export_memory.hpp's, which GL's external mode allocates with.

// The push constants and the uniform block of assets/shaders/vulkan (std430 / std140 offsets).
struct WavePush {
  glm::mat4 view_projection;
};
struct CubePush {
  glm::mat4 model;
  glm::vec3 color;
};
struct ShowPush {
  int32_t width = 0;
  int32_t height = 0;
};
struct CameraBlock {
  glm::mat4 view_projection;
  glm::vec3 eye;
  float padding = 0.0f;
};

// How a pass uses a resource: the stages, accesses and (images) layout its barriers name.
struct Use {
  VkPipelineStageFlags stage = 0;
  VkAccessFlags access = 0;
  VkImageLayout layout = VK_IMAGE_LAYOUT_GENERAL;
  explicit operator bool() const { return stage != 0; }
};
constexpr Use kUploadWrite{VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                           VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL};
constexpr Use kCopyRead{VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT,
                        VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL};
constexpr Use kVertexRead{VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT};
// The cubes render pass takes its target in GENERAL and leaves it there (create_render_pass).
constexpr Use kAttachmentWrite{VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                               VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT};
// Whatever came before, in earlier passes: the source scope of a resource's first barrier in a pass.
constexpr Use kAnyEarlierWork{VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT};
// Nothing: the source of an acquire from VK_QUEUE_FAMILY_EXTERNAL (the caller's semaphores order it) and
// the destination of a release to it.
constexpr Use kOutsideBefore{VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0};
constexpr Use kOutsideAfter{VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0};
// A new image: nothing before it, its contents undefined.
constexpr Use kNewImage{VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0, VK_IMAGE_LAYOUT_UNDEFINED};

// Members are destroyed in reverse order: the object before its memory, a view before its image.
struct Buffer {
  Allocation allocation;
  UniqueBuffer buffer;
  void* mapped = nullptr;  // host-visible buffers stay mapped for life (vkFreeMemory unmaps)
};

struct ImageObject {
  Allocation allocation;
  UniqueImage image;
  UniqueImageView view;
};

// A depth image with its view, and the framebuffer that pairs it with a colour view.
struct Target {
  Extent extent;
  ImageObject depth;
  UniqueFramebuffer framebuffer;
};

// What the renderer keeps per resource beyond the public Resource.
struct OwnedResource {
  Buffer buffer;  // ResourceKind::Buffer (imported: bound to the imported memory)
  Buffer linear;  // an imported Texture2D: its texels in the imported memory; the buffer mode's
                  // linear image (place_linear_images)
  VkDescriptorSet show_set = VK_NULL_HANDLE;  // the buffer mode: `linear` for the show pass (linear_pool's)
  ImageObject image;                          // ResourceKind::Texture2D
  Buffer staging;  // host-visible, desc.bytes: upload() writes it, the next pass copies it
  bool upload_pending = false;
  uint64_t staging_read_by = 0;  // the serial of the pass that last copied from the staging buffer
  Target cubes_target;           // depth + framebuffer, made by the first draw_cubes into this image
  Target show_target;            // the buffer mode: the image alone, for the show pass (no depth)
  // The buffer mode: the image was created exportable, and place_linear_images re-created it plain (CUDA
  // imports its linear buffer instead); remove_linear_images makes it exportable again.
  bool exportable_when_placed = false;
};

Buffer create_buffer(const Context& context, VkDeviceSize size, VkBufferUsageFlags usage,
                     VkMemoryPropertyFlags properties, bool exportable, VkMemoryPropertyFlags preferred = 0) {
  const VkBuffer handle = create_vk_buffer(context, size, usage, exportable);
  Buffer buffer;
  buffer.buffer = UniqueBuffer(context.device(), handle);
  buffer.allocation = allocate_dedicated(context, handle, VK_NULL_HANDLE, properties, exportable, preferred);
  if (properties & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)
    check(vkMapMemory(context.device(), buffer.allocation.memory.get(), 0, VK_WHOLE_SIZE, 0, &buffer.mapped),
          "vkMapMemory");
  return buffer;
}

// Host-visible and coherent, so neither writes before a submission nor reads after a wait need flushes.
Buffer create_host_buffer(const Context& context, VkDeviceSize size, VkBufferUsageFlags usage) {
  return create_buffer(context, size, usage,
                       VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, false);
}

// Read-backs take cached memory where there is such: the host reads every byte, and reading uncached
// (write-combined) memory is many times slower on a discrete GPU's system-memory heap.
Buffer create_readback_buffer(const Context& context, VkDeviceSize size) {
  return create_buffer(context, size, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                       VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, false,
                       VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
}

// An image's texels in imported memory are only copied to and from its VkImage.
constexpr VkBufferUsageFlags kLinearImageUsage =
    VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
// The buffer mode's linear images: read by the show pass's fragment shader, written by the cubes' copy.
constexpr VkBufferUsageFlags kShownLinearUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | kLinearImageUsage;

void require_importable_buffer(const Context& context, VkBufferUsageFlags usage) {
  auto info = lab::vulkan::make<VkPhysicalDeviceExternalBufferInfo>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO);
  info.usage = usage;
  info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  auto properties =
      lab::vulkan::make<VkExternalBufferProperties>(VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES);
  vkGetPhysicalDeviceExternalBufferProperties(context.physical_device(), &info, &properties);
  if (!(properties.externalMemoryProperties.externalMemoryFeatures &
        VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT))
    throw std::runtime_error(
        "Vulkan: " + context.info().name +
        " cannot import buffer memory exported as an opaque FD "
        "(vkGetPhysicalDeviceExternalBufferProperties: not importable); use --mode external");
}

// A buffer of `bytes` bound to the memory exported as `fd` (`size` bytes). The FD is the import's once
// vkAllocateMemory succeeds (released from `fd` there); before that, and when it fails, it stays `fd`'s.
Buffer import_buffer(const Context& context, VkDeviceSize bytes, VkBufferUsageFlags usage,
                     interop::FileDescriptor& fd, VkDeviceSize size) {
  require_importable_buffer(context, usage);
  const VkBuffer handle = create_vk_buffer(context, bytes, usage, true);
  Buffer buffer;
  buffer.buffer = UniqueBuffer(context.device(), handle);
  VkMemoryRequirements requirements{};
  vkGetBufferMemoryRequirements(context.device(), handle, &requirements);
  if (requirements.size > size)
    throw std::invalid_argument(
        "Renderer::import_memory: the buffer needs " + std::to_string(requirements.size) +
        " bytes but the imported allocation has " + std::to_string(size) + "; allocate at least that much");
  const uint32_t type = context.memory_type(requirements.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  auto import = lab::vulkan::make<VkImportMemoryFdInfoKHR>(VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR);
  import.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  import.fd = fd.get();
  auto allocate = lab::vulkan::make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
  allocate.pNext = &import;
  allocate.allocationSize = size;
  allocate.memoryTypeIndex = type;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  check(vkAllocateMemory(context.device(), &allocate, nullptr, &memory),
        "vkAllocateMemory (VkImportMemoryFdInfoKHR)");
  fd.release();  // Vulkan owns the FD now, and closes it with the memory
  buffer.allocation.memory = UniqueMemory(context.device(), memory);
  buffer.allocation.size = size;
  check(vkBindBufferMemory(context.device(), handle, memory, 0), "vkBindBufferMemory (imported)");
  return buffer;
}

// An image in device memory of its own, with no view (one that is only copied to and from).
ImageObject create_image_without_view(const Context& context, Extent extent, VkFormat format,
                                      VkImageUsageFlags usage, bool exportable) {
  const VkImage handle = create_vk_image(context, extent, format, usage, exportable);
  ImageObject image;
  image.image = UniqueImage(context.device(), handle);
  image.allocation =
      allocate_dedicated(context, VK_NULL_HANDLE, handle, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, exportable);
  return image;
}

ImageObject create_image(const Context& context, Extent extent, VkFormat format, VkImageUsageFlags usage,
                         VkImageAspectFlags aspect, bool exportable) {
  ImageObject image = create_image_without_view(context, extent, format, usage, exportable);
  image.view = create_image_view(context.device(), image.image.get(), format, aspect, "vkCreateImageView");
  return image;
}

VkFormat choose_depth_format(const Context& context) {
  for (VkFormat format : {VK_FORMAT_D32_SFLOAT, VK_FORMAT_X8_D24_UNORM_PACK32, VK_FORMAT_D24_UNORM_S8_UINT,
                          VK_FORMAT_D32_SFLOAT_S8_UINT}) {
    VkFormatProperties properties;
    vkGetPhysicalDeviceFormatProperties(context.physical_device(), format, &properties);
    if (properties.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT) return format;
  }
  throw std::runtime_error("Vulkan: " + context.info().name +
                           " has no 24- or 32-bit depth attachment format");
}

// One colour attachment (RGBA8) and one depth attachment, both cleared. The frame target's colour ends in
// TRANSFER_SRC_OPTIMAL for read_frame; a resource image is GENERAL before and after (it is shared).
UniqueRenderPass create_render_pass(VkDevice device, VkFormat depth_format, bool frame_target) {
  constexpr VkPipelineStageFlags kAttachmentStages = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT |
                                                     VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT |
                                                     VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
  constexpr VkAccessFlags kAttachmentWrites =
      VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
  ColorPassDesc desc;
  desc.load_op = VK_ATTACHMENT_LOAD_OP_CLEAR;
  if (frame_target)
    desc.layouts = {VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                    VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL};
  else
    desc.layouts = {VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_GENERAL};
  desc.depth_format = depth_format;
  // In: the previous pass's attachment writes (the depth image is reused every pass) and, for the frame
  // target, read_frame's copy of the last frame, before this pass clears them.
  desc.in = {{kAttachmentStages | (frame_target ? VK_PIPELINE_STAGE_TRANSFER_BIT : 0), kAttachmentWrites},
             {kAttachmentStages, kAttachmentWrites | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT}};
  // Out: the frame target's colour to read_frame's copy; a resource image to the barrier after the pass.
  const StageAccess after = frame_target
                                ? StageAccess{VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT}
                                : StageAccess{VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, 0};
  desc.out = {{VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT}, after};
  return create_color_pass(device, kColorFormat, desc, "vkCreateRenderPass");
}

// The buffer mode's show pass: the image resource as its one colour attachment, GENERAL before and after,
// and no depth attachment (its pipeline tests no depth). The full-screen triangle writes every pixel of the
// render area, so the old texels are neither loaded nor cleared (LOAD_OP_DONT_CARE): the cubes' pass
// cleared a 4K colour and a 4K depth attachment here every frame that the draw then overwrote.
UniqueRenderPass create_show_pass(VkDevice device) {
  ColorPassDesc desc;
  desc.load_op = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  desc.layouts = {VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_GENERAL};
  // In: an earlier pass's attachment writes before this pass's; out: to the barrier after the pass (what
  // comes before and after in other passes is ordered by the passes' own barriers).
  const StageAccess attachment_write{VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                                     VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT};
  desc.in = {attachment_write, attachment_write};
  desc.out = {attachment_write, {VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, 0}};
  return create_color_pass(device, kColorFormat, desc, "vkCreateRenderPass (show pass)");
}

template <size_t N>
UniqueShaderModule create_shader(VkDevice device, const uint32_t (&words)[N]) {
  auto create = lab::vulkan::make<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
  create.codeSize = sizeof(words);
  create.pCode = words;
  VkShaderModule module = VK_NULL_HANDLE;
  check(vkCreateShaderModule(device, &create, nullptr, &module), "vkCreateShaderModule");
  return UniqueShaderModule(device, module);
}

// The scenes' one pipeline shape: 2 x vec3 vertices (WaveVertex and LitVertex alike), triangles, depth
// test LESS with writes, viewport and scissor set per pass. GL's counter-clockwise front faces are
// clockwise here: the positive-height viewport keeps GL's rows, which mirrors the winding Vulkan sees.
// mesh = false: the buffer mode's show pass, a full-screen triangle with no vertex input and no depth test.
struct PipelineDesc {
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkRenderPass render_pass = VK_NULL_HANDLE;
  VkCullModeFlags cull = VK_CULL_MODE_NONE;
  bool mesh = true;
};

UniquePipeline create_pipeline(VkDevice device, VkShaderModule vertex, VkShaderModule fragment,
                               const PipelineDesc& desc) {
  static_assert(sizeof(kernels::WaveVertex) == sizeof(LitVertex), "both meshes use one vertex layout");
  std::array<VkPipelineShaderStageCreateInfo, 2> stages{};
  for (auto& stage : stages) stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
  stages[0].module = vertex;
  stages[0].pName = "main";
  stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
  stages[1].module = fragment;
  stages[1].pName = "main";

  const VkVertexInputBindingDescription binding{0, sizeof(LitVertex), VK_VERTEX_INPUT_RATE_VERTEX};
  const std::array<VkVertexInputAttributeDescription, 2> attributes{{
      {0, 0, VK_FORMAT_R32G32B32_SFLOAT, offsetof(LitVertex, position)},
      {1, 0, VK_FORMAT_R32G32B32_SFLOAT, offsetof(LitVertex, normal)},
  }};
  auto vertex_input = lab::vulkan::make<VkPipelineVertexInputStateCreateInfo>(
      VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO);
  if (desc.mesh) {
    vertex_input.vertexBindingDescriptionCount = 1;
    vertex_input.pVertexBindingDescriptions = &binding;
    vertex_input.vertexAttributeDescriptionCount = static_cast<uint32_t>(attributes.size());
    vertex_input.pVertexAttributeDescriptions = attributes.data();
  }
  auto assembly = lab::vulkan::make<VkPipelineInputAssemblyStateCreateInfo>(
      VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO);
  assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  auto viewport = lab::vulkan::make<VkPipelineViewportStateCreateInfo>(
      VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO);
  viewport.viewportCount = 1;
  viewport.scissorCount = 1;
  auto raster = lab::vulkan::make<VkPipelineRasterizationStateCreateInfo>(
      VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO);
  raster.polygonMode = VK_POLYGON_MODE_FILL;
  raster.cullMode = desc.cull;
  raster.frontFace = VK_FRONT_FACE_CLOCKWISE;
  raster.lineWidth = 1.0f;
  auto multisample = lab::vulkan::make<VkPipelineMultisampleStateCreateInfo>(
      VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO);
  multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
  auto depth = lab::vulkan::make<VkPipelineDepthStencilStateCreateInfo>(
      VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO);
  depth.depthTestEnable = desc.mesh ? VK_TRUE : VK_FALSE;
  depth.depthWriteEnable = desc.mesh ? VK_TRUE : VK_FALSE;
  depth.depthCompareOp = VK_COMPARE_OP_LESS;  // GL's default, which the GL scenes keep
  VkPipelineColorBlendAttachmentState blend_attachment{};
  blend_attachment.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT |
                                    VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
  auto blend = lab::vulkan::make<VkPipelineColorBlendStateCreateInfo>(
      VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO);
  blend.attachmentCount = 1;
  blend.pAttachments = &blend_attachment;
  const std::array<VkDynamicState, 2> dynamic_states{VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
  auto dynamic = lab::vulkan::make<VkPipelineDynamicStateCreateInfo>(
      VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO);
  dynamic.dynamicStateCount = static_cast<uint32_t>(dynamic_states.size());
  dynamic.pDynamicStates = dynamic_states.data();

  auto create =
      lab::vulkan::make<VkGraphicsPipelineCreateInfo>(VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO);
  create.stageCount = static_cast<uint32_t>(stages.size());
  create.pStages = stages.data();
  create.pVertexInputState = &vertex_input;
  create.pInputAssemblyState = &assembly;
  create.pViewportState = &viewport;
  create.pRasterizationState = &raster;
  create.pMultisampleState = &multisample;
  create.pDepthStencilState = &depth;
  create.pColorBlendState = &blend;
  create.pDynamicState = &dynamic;
  create.layout = desc.layout;
  create.renderPass = desc.render_pass;
  create.subpass = 0;
  VkPipeline pipeline = VK_NULL_HANDLE;
  check(vkCreateGraphicsPipelines(device, VK_NULL_HANDLE, 1, &create, nullptr, &pipeline),
        "vkCreateGraphicsPipelines");
  return UniquePipeline(device, pipeline);
}

// The same from the SPIR-V of its two stages; the shader modules go once the pipeline is made.
template <size_t V, size_t F>
UniquePipeline create_pipeline(VkDevice device, const uint32_t (&vertex)[V], const uint32_t (&fragment)[F],
                               const PipelineDesc& desc) {
  const UniqueShaderModule vertex_module = create_shader(device, vertex);
  const UniqueShaderModule fragment_module = create_shader(device, fragment);
  return create_pipeline(device, vertex_module.get(), fragment_module.get(), desc);
}

UniquePipelineLayout create_pipeline_layout(VkDevice device, const VkDescriptorSetLayout* set_layout,
                                            VkShaderStageFlags push_stages, uint32_t push_bytes) {
  const VkPushConstantRange push{push_stages, 0, push_bytes};
  auto create = lab::vulkan::make<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
  create.setLayoutCount = set_layout != nullptr ? 1 : 0;
  create.pSetLayouts = set_layout;
  create.pushConstantRangeCount = 1;
  create.pPushConstantRanges = &push;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  check(vkCreatePipelineLayout(device, &create, nullptr, &layout), "vkCreatePipelineLayout");
  return UniquePipelineLayout(device, layout);
}

// The renderer's set layouts (the cubes' camera, the show pass's texels): one descriptor of `type` at
// binding 0, read by `stages`.
UniqueDescriptorSetLayout create_set_layout(VkDevice device, VkDescriptorType type, VkShaderStageFlags stages,
                                            const char* call) {
  VkDescriptorSetLayoutBinding binding{};
  binding.binding = 0;
  binding.descriptorType = type;
  binding.descriptorCount = 1;
  binding.stageFlags = stages;
  auto create =
      lab::vulkan::make<VkDescriptorSetLayoutCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO);
  create.bindingCount = 1;
  create.pBindings = &binding;
  VkDescriptorSetLayout layout = VK_NULL_HANDLE;
  check(vkCreateDescriptorSetLayout(device, &create, nullptr, &layout), call);
  return UniqueDescriptorSetLayout(device, layout);
}

// Room for `sets` sets of one descriptor of `type` each.
UniqueDescriptorPool create_descriptor_pool(VkDevice device, VkDescriptorType type, uint32_t sets,
                                            const char* call) {
  const VkDescriptorPoolSize size{type, sets};
  auto create = lab::vulkan::make<VkDescriptorPoolCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO);
  create.maxSets = sets;
  create.poolSizeCount = 1;
  create.pPoolSizes = &size;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  check(vkCreateDescriptorPool(device, &create, nullptr, &pool), call);
  return UniqueDescriptorPool(device, pool);
}

// One set of `layout` from `pool` (freed with the pool).
VkDescriptorSet allocate_set(VkDevice device, VkDescriptorPool pool, VkDescriptorSetLayout layout) {
  auto allocate =
      lab::vulkan::make<VkDescriptorSetAllocateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO);
  allocate.descriptorPool = pool;
  allocate.descriptorSetCount = 1;
  allocate.pSetLayouts = &layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  check(vkAllocateDescriptorSets(device, &allocate, &set), "vkAllocateDescriptorSets");
  return set;
}

// `set`'s binding 0: the first `range` bytes of `buffer`.
void write_buffer_descriptor(VkDevice device, VkDescriptorSet set, VkDescriptorType type, VkBuffer buffer,
                             VkDeviceSize range) {
  const VkDescriptorBufferInfo info{buffer, 0, range};
  auto write = lab::vulkan::make<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
  write.dstSet = set;
  write.dstBinding = 0;
  write.descriptorCount = 1;
  write.descriptorType = type;
  write.pBufferInfo = &info;
  vkUpdateDescriptorSets(device, 1, &write, 0, nullptr);
}

Target create_target(const Context& context, Extent extent, VkFormat depth_format, VkRenderPass pass,
                     VkImageView color) {
  Target target;
  target.extent = extent;
  target.depth = create_image(context, extent, depth_format, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                              VK_IMAGE_ASPECT_DEPTH_BIT, false);
  target.framebuffer = create_framebuffer(context.device(), pass, {color, target.depth.view.get()}, extent,
                                          "vkCreateFramebuffer");
  return target;
}

// The show pass's target: the image's view as the only attachment (create_show_pass), no depth image.
Target create_show_target(const Context& context, Extent extent, VkRenderPass pass, VkImageView color) {
  Target target;
  target.extent = extent;
  target.framebuffer =
      create_framebuffer(context.device(), pass, {color}, extent, "vkCreateFramebuffer (show pass)");
  return target;
}

// Positive height: clip y = -1 lands on row 0, as in GL (see renderer.hpp).
void set_viewport(VkCommandBuffer commands, Extent extent) {
  const VkViewport viewport{0.0f, 0.0f, static_cast<float>(extent.width), static_cast<float>(extent.height),
                            0.0f, 1.0f};
  const VkRect2D scissor{{0, 0}, {static_cast<uint32_t>(extent.width), static_cast<uint32_t>(extent.height)}};
  vkCmdSetViewport(commands, 0, 1, &viewport);
  vkCmdSetScissor(commands, 0, 1, &scissor);
}

void begin_render_pass(VkCommandBuffer commands, VkRenderPass pass, const Target& target,
                       const float (&clear)[3]) {
  std::array<VkClearValue, 2> clears{};
  clears[0].color = {{clear[0], clear[1], clear[2], 1.0f}};
  clears[1].depthStencil = {1.0f, 0};
  VkRenderPassBeginInfo begin = render_pass_begin_info(pass, target.framebuffer.get(), target.extent);
  begin.clearValueCount = static_cast<uint32_t>(clears.size());
  begin.pClearValues = clears.data();
  vkCmdBeginRenderPass(commands, &begin, VK_SUBPASS_CONTENTS_INLINE);
  set_viewport(commands, target.extent);
}

// The show pass clears nothing: no clear values.
void begin_show_pass(VkCommandBuffer commands, VkRenderPass pass, const Target& target) {
  const VkRenderPassBeginInfo begin = render_pass_begin_info(pass, target.framebuffer.get(), target.extent);
  vkCmdBeginRenderPass(commands, &begin, VK_SUBPASS_CONTENTS_INLINE);
  set_viewport(commands, target.extent);
}

// The barriers of one vkCmdPipelineBarrier, gathered resource by resource.
class Barriers {
 public:
  void buffer(VkBuffer buffer, Use before, Use after, uint32_t from_family, uint32_t to_family) {
    m_buffers.push_back(buffer_barrier(buffer, before.access, after.access, from_family, to_family));
    add_stages(before, after);
  }
  void image(VkImage image, Use before, Use after, uint32_t from_family, uint32_t to_family) {
    m_images.push_back(image_barrier(image, before.layout, after.layout, before.access, after.access,
                                     from_family, to_family));
    add_stages(before, after);
  }
  void record(VkCommandBuffer commands) {
    if (m_buffers.empty() && m_images.empty()) return;
    vkCmdPipelineBarrier(
        commands, m_source ? m_source : VkPipelineStageFlags{VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT},
        m_destination ? m_destination : VkPipelineStageFlags{VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT}, 0, 0,
        nullptr, static_cast<uint32_t>(m_buffers.size()), m_buffers.data(),
        static_cast<uint32_t>(m_images.size()), m_images.data());
    m_buffers.clear();
    m_images.clear();
    m_source = m_destination = 0;
  }

 private:
  void add_stages(Use before, Use after) {
    m_source |= before.stage;
    m_destination |= after.stage;
  }
  std::vector<VkBufferMemoryBarrier> m_buffers;
  std::vector<VkImageMemoryBarrier> m_images;
  VkPipelineStageFlags m_source = 0, m_destination = 0;
};

// A resource a pass works on: uploaded at its start when an upload is pending, then used as `use` (or
// not at all: a pass that only uploads).
struct Touch {
  int index = -1;
  Use use;
};

// Whether the memory of the object a pass touches (the buffer, or the image) is CUDA's as well: exported
// to it, or imported from it (an imported image's own memory is not; its `linear` buffer is, and the
// passes that copy acquire and release that themselves).
bool shared_with_cuda(const Resource& resource) {
  return resource.exportable || (resource.imported && resource.buffer != VK_NULL_HANDLE);
}

// The linear buffer of an imported image acquired from CUDA as `use`, and released to it after `use`.
void acquire_linear(Barriers& barriers, const Resource& resource, Use use, uint32_t family) {
  barriers.buffer(resource.linear, kOutsideBefore, use, VK_QUEUE_FAMILY_EXTERNAL, family);
}
void release_linear(Barriers& barriers, const Resource& resource, Use use, uint32_t family) {
  barriers.buffer(resource.linear, use, kOutsideAfter, family, VK_QUEUE_FAMILY_EXTERNAL);
}

// The buffer mode's linear buffer before and after `use` in a pass: from and back to CUDA when exported;
// host-visible, ordered after earlier passes and host writes (a submission makes those visible), and
// made visible to the host after the pass when `use` writes it.
void acquire_shown_linear(Barriers& barriers, const Resource& resource, Use use, uint32_t family) {
  if (resource.linear_exportable)
    acquire_linear(barriers, resource, use, family);
  else
    barriers.buffer(resource.linear, kAnyEarlierWork, use, VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED);
}
void release_shown_linear(Barriers& barriers, const Resource& resource, Use use, uint32_t family) {
  if (resource.linear_exportable)
    release_linear(barriers, resource, use, family);
  else if (use.access & VK_ACCESS_TRANSFER_WRITE_BIT)
    barriers.buffer(resource.linear, use, Use{VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT},
                    VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED);
}

// The linear buffer of an imported image, or of the buffer mode's, acquired as `use` and released after it.
void acquire_any_linear(Barriers& barriers, const Resource& resource, Use use, uint32_t family) {
  if (resource.imported)
    acquire_linear(barriers, resource, use, family);
  else
    acquire_shown_linear(barriers, resource, use, family);
}
void release_any_linear(Barriers& barriers, const Resource& resource, Use use, uint32_t family) {
  if (resource.imported)
    release_linear(barriers, resource, use, family);
  else
    release_shown_linear(barriers, resource, use, family);
}

// Resources just made, into the state every pass finds them in: images from UNDEFINED into GENERAL (their
// layout for life), then the exportable ones released to VK_QUEUE_FAMILY_EXTERNAL.
void record_first_use(VkCommandBuffer commands, const std::vector<const Resource*>& resources,
                      uint32_t family) {
  Barriers barriers;
  for (const Resource* resource : resources)
    if (resource->image != VK_NULL_HANDLE)
      barriers.image(resource->image, kNewImage, kAnyEarlierWork, VK_QUEUE_FAMILY_IGNORED,
                     VK_QUEUE_FAMILY_IGNORED);
  barriers.record(commands);
  for (const Resource* resource : resources) {
    if (!resource->exportable) continue;
    if (resource->buffer != VK_NULL_HANDLE)
      barriers.buffer(resource->buffer, kAnyEarlierWork, kOutsideAfter, family, VK_QUEUE_FAMILY_EXTERNAL);
    else
      barriers.image(resource->image, kAnyEarlierWork, kOutsideAfter, family, VK_QUEUE_FAMILY_EXTERNAL);
  }
  barriers.record(commands);
}

// Re-creates an image resource's VkImage (and memory), `exportable` or not, its contents undefined and its
// layout UNDEFINED: the caller moves it to GENERAL (and releases an exportable one to
// VK_QUEUE_FAMILY_EXTERNAL) before a pass uses it. Nothing changes when the allocation fails; the device
// must be idle (the old image and its framebuffers go).
void recreate_image(const Context& context, Resource& resource, OwnedResource& own, bool exportable) {
  ImageObject image = create_image(context, {resource.desc.width, resource.desc.height}, kColorFormat,
                                   kResourceImageUsage, VK_IMAGE_ASPECT_COLOR_BIT, exportable);
  own.cubes_target = Target();  // its framebuffer holds the old image's view
  own.show_target = Target();
  own.image = std::move(image);
  resource.image = own.image.image.get();
  resource.memory = own.image.allocation.memory.get();
  resource.allocation_size = own.image.allocation.size;
  resource.exportable = exportable;
}

VkBufferImageCopy whole_image(const ResourceDesc& desc) {
  return whole_image_copy({desc.width, desc.height});
}

void validate(const PassSync& sync) {
  const auto check_list = [](const std::vector<SemaphoreSignal>& list, const char* name) {
    for (size_t i = 0; i < list.size(); ++i)
      if (list[i].semaphore == VK_NULL_HANDLE)
        throw std::invalid_argument(std::string("PassSync.") + name + "[" + std::to_string(i) +
                                    "].semaphore is VK_NULL_HANDLE; leave the entry out instead");
  };
  check_list(sync.wait, "wait");
  check_list(sync.signal, "signal");
}

}  // namespace

struct Renderer::State {
  explicit State(Context& context);

  Context& context;
  VkDevice device;
  VkFormat depth_format;

  UniqueCommandPool pool;
  std::array<VkCommandBuffer, kPassesInFlight> command_buffers{};
  std::array<uint64_t, kPassesInFlight> command_serial{};  // the pass each command buffer recorded last
  UniqueSemaphore progress;                                // timeline: value n once pass n has finished
  uint64_t submitted = 0;                                  // the last pass's serial

  UniqueRenderPass frame_pass, cubes_pass, show_pass;
  UniqueDescriptorSetLayout camera_set_layout;
  UniqueDescriptorPool descriptor_pool;
  VkDescriptorSet camera_set = VK_NULL_HANDLE;  // freed with the pool
  UniquePipelineLayout wave_layout, cubes_layout;
  UniquePipeline wave_pipeline, cubes_pipeline;
  // The buffer mode's show pass: a storage buffer at binding 0, the image's size pushed; its descriptor
  // sets come from linear_pool, made by place_linear_images.
  UniqueDescriptorSetLayout show_set_layout;
  UniquePipelineLayout show_layout;
  UniquePipeline show_pipeline;
  UniqueDescriptorPool linear_pool;
  Buffer wave_indices, cube_vertices, cube_indices, camera;
  uint32_t wave_index_count = 0, cube_index_count = 0;

  ImageObject frame_color;
  Target frame;
  bool frame_drawn = false;  // by a LitMesh draw_frame at the current extent
  Buffer readback;           // host-visible, grown to the largest read-back
  // begin_read_frame's slots, each its own host-visible buffer, the submission that fills it and what it
  // will hold; `frame_reads` are the slots under way, oldest first (at most kFrameReadSlots).
  struct FrameReadSlot {
    Buffer buffer;
    uint64_t serial = 0;
    Extent extent;
    long long frame = 0;
    std::shared_ptr<Image> direct;  // the pooled frame the GPU copies into (host_frames.hpp); else `buffer`
  };
  std::array<FrameReadSlot, kFrameReadSlots> frame_read_slots;
  std::deque<FrameReadSlot*> frame_reads;
  // submit_frame_read_into's: the frame turned upside down on the GPU, so that one region copies it out
  // (a region per row cost the copy engine more than the copy); `flipped_by` is the last pass using it.
  ImageObject flipped;
  Extent flipped_extent;
  uint64_t flipped_by = 0;
  std::deque<uint64_t> frames_ahead;  // limit_frames_ahead's: the last pass of each call, oldest first

  std::vector<Resource> resources;
  std::vector<OwnedResource> owned;

  // ---- GPU time of passes (Renderer::timer_queries): while a query is open, each pass writes a
  // timestamp at its start and one at its end into a pair of queries that the open query owns until it
  // is begun again or destroyed. Pairs live in pools of kPairsPerPool, made as more are needed.
  static constexpr uint32_t kPairsPerPool = 32;
  struct TimedPass {
    uint32_t pair = 0;
    uint64_t serial = 0;
  };
  struct Timing {
    double period_ns = 0.0;   // VkPhysicalDeviceLimits::timestampPeriod
    uint64_t valid_mask = 0;  // the queue's timestampValidBits as a mask; 0: no timestamps
    std::string reason;       // why there are none
    std::vector<UniqueQueryPool> pools;
    std::vector<uint32_t> free_pairs;
    std::vector<std::vector<TimedPass>> queries;  // by query id - 1
    int open = -1;                                // the open query's index, -1 when none
    std::optional<uint32_t> pass_pair;            // the pair of the pass being recorded
  } timing;
  uint32_t take_pair();
  void release_pairs(std::vector<TimedPass>& passes);
  uint64_t completed_serial();

  // ---- passes
  VkCommandBuffer begin_pass();
  uint64_t submit_pass(VkCommandBuffer commands, const PassSync& sync);
  // One pass of what `record(commands)` records, with none of the caller's semaphores, waited for.
  template <class Record>
  void run_pass(Record record) {
    VkCommandBuffer commands = begin_pass();
    record(commands);
    wait_for(submit_pass(commands, {}));
  }
  void wait_for(uint64_t serial);
  template <class Record>
  void record_resources(VkCommandBuffer commands, const std::vector<Touch>& touches, Record record);
  // The pending uploads, with what the pass itself does to other resources.
  std::vector<Touch> touches_with_uploads(std::vector<Touch> touches) const;

  void create_frame_target(Extent extent);
  void upload_static(Buffer& buffer, const void* data, VkDeviceSize bytes, Use use);
  // One pass that copies into the read-back buffer (`copy(commands, buffer)`), with `touches` acquired
  // around it, then waits for it; returns the mapped bytes.
  template <class Copy>
  const void* read_back(VkDeviceSize bytes, const std::vector<Touch>& touches, Copy copy);
  // The same into `target` (grown to `bytes`), submitted and not waited for: returns the pass's serial.
  template <class Copy>
  uint64_t submit_read_back(Buffer& target, VkDeviceSize bytes, const std::vector<Touch>& touches, Copy copy);
  // The same into `target` as it is (no growing): the copy says where in it.
  template <class Copy>
  uint64_t submit_copy_to_host(VkBuffer target, const std::vector<Touch>& touches, Copy copy);
  // What read_frame(plan) returns now (the frame target, or a ShowImage plan's image) copied into `target`
  // by one pass, not waited for: the pass's serial; `extent` receives the copied image's size. read_frame
  // waits for it at once, begin_read_frame a frame later.
  uint64_t submit_frame_read_back(const DrawPlan& plan, Buffer& target, Extent& extent);
  // The size of what read_frame(plan) returns.
  Extent frame_read_extent(const DrawPlan& plan) const;
  // The same copy straight into a frame's pixels (HostFrameImports' `target`), top row first: a region per
  // row, so that the host copies nothing.
  uint64_t submit_frame_read_into(const DrawPlan& plan, const HostFrameImports::Target& target);
};

Renderer::State::State(Context& context_) : context(context_), device(context_.device()) {
  if (!context.queue_has_graphics())
    throw std::runtime_error("Vulkan: " + context.info().name +
                             " has no graphics queue; the renderer needs one");
  depth_format = choose_depth_format(context);

  auto pool_info = lab::vulkan::make<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
  pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool_info.queueFamilyIndex = context.queue_family();
  VkCommandPool pool_handle = VK_NULL_HANDLE;
  check(vkCreateCommandPool(device, &pool_info, nullptr, &pool_handle), "vkCreateCommandPool");
  pool = UniqueCommandPool(device, pool_handle);
  auto allocate =
      lab::vulkan::make<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
  allocate.commandPool = pool.get();
  allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate.commandBufferCount = static_cast<uint32_t>(command_buffers.size());
  check(vkAllocateCommandBuffers(device, &allocate, command_buffers.data()), "vkAllocateCommandBuffers");

  progress = UniqueSemaphore(
      device, create_semaphore(device, VK_SEMAPHORE_TYPE_TIMELINE, false, "vkCreateSemaphore (timeline)"));

  frame_pass = create_render_pass(device, depth_format, true);
  cubes_pass = create_render_pass(device, depth_format, false);
  show_pass = create_show_pass(device);

  camera_set_layout = create_set_layout(device, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
                                        VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT,
                                        "vkCreateDescriptorSetLayout");
  const VkDescriptorSetLayout set_layout_handle = camera_set_layout.get();
  descriptor_pool =
      create_descriptor_pool(device, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, "vkCreateDescriptorPool");
  camera_set = allocate_set(device, descriptor_pool.get(), set_layout_handle);

  wave_layout = create_pipeline_layout(device, nullptr, VK_SHADER_STAGE_VERTEX_BIT, sizeof(WavePush));
  cubes_layout =
      create_pipeline_layout(device, &set_layout_handle,
                             VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, sizeof(CubePush));
  wave_pipeline =
      create_pipeline(device, kWaveVert, kWaveFrag, {wave_layout.get(), frame_pass.get(), VK_CULL_MODE_NONE});
  cubes_pipeline = create_pipeline(device, kLitVert, kLitFrag,
                                   {cubes_layout.get(), cubes_pass.get(), VK_CULL_MODE_BACK_BIT});
  show_set_layout = create_set_layout(device, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_SHADER_STAGE_FRAGMENT_BIT,
                                      "vkCreateDescriptorSetLayout (show pass)");
  const VkDescriptorSetLayout show_set_handle = show_set_layout.get();
  show_layout =
      create_pipeline_layout(device, &show_set_handle, VK_SHADER_STAGE_FRAGMENT_BIT, sizeof(ShowPush));
  // Its own render pass: the image resource in GENERAL before and after, nothing loaded, no depth.
  show_pipeline = create_pipeline(device, kFullscreenVert, kBufferImageFrag,
                                  {show_layout.get(), show_pass.get(), VK_CULL_MODE_NONE, /*mesh=*/false});

  camera = create_buffer(context, sizeof(CameraBlock),
                         VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                         VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, false);
  write_buffer_descriptor(device, camera_set, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, camera.buffer.get(),
                          sizeof(CameraBlock));

  // The meshes never change: uploaded once, read as vertex input ever after.
  const std::vector<uint32_t> wave = wave_mesh_indices();
  wave_index_count = static_cast<uint32_t>(wave.size());
  const CubeMesh cube = cube_mesh();
  cube_index_count = static_cast<uint32_t>(cube.indices.size());
  const VkBufferUsageFlags index_usage = VK_BUFFER_USAGE_INDEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  wave_indices = create_buffer(context, wave.size() * sizeof(uint32_t), index_usage,
                               VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, false);
  cube_indices = create_buffer(context, cube.indices.size() * sizeof(uint32_t), index_usage,
                               VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, false);
  cube_vertices = create_buffer(context, cube.vertices.size() * sizeof(LitVertex),
                                VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, false);
  const Use index_read{VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, VK_ACCESS_INDEX_READ_BIT};
  upload_static(wave_indices, wave.data(), wave.size() * sizeof(uint32_t), index_read);
  upload_static(cube_indices, cube.indices.data(), cube.indices.size() * sizeof(uint32_t), index_read);
  upload_static(cube_vertices, cube.vertices.data(), cube.vertices.size() * sizeof(LitVertex), kVertexRead);
}

VkCommandBuffer Renderer::State::begin_pass() {
  const size_t slot = static_cast<size_t>(submitted % kPassesInFlight);
  wait_for(command_serial[slot]);
  VkCommandBuffer buffer = command_buffers[slot];
  check(vkResetCommandBuffer(buffer, 0), "vkResetCommandBuffer");
  auto begin = lab::vulkan::make<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check(vkBeginCommandBuffer(buffer, &begin), "vkBeginCommandBuffer");
  timing.pass_pair.reset();
  if (timing.open >= 0) {
    const uint32_t pair = take_pair();
    VkQueryPool query_pool = timing.pools[pair / kPairsPerPool].get();
    const uint32_t first = (pair % kPairsPerPool) * 2;
    vkCmdResetQueryPool(buffer, query_pool, first, 2);
    // TOP_OF_PIPE: the pass's first command may start only after its semaphore waits, which it follows.
    vkCmdWriteTimestamp(buffer, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, query_pool, first);
    timing.pass_pair = pair;
  }
  return buffer;
}

uint64_t Renderer::State::submit_pass(VkCommandBuffer buffer, const PassSync& sync) {
  if (timing.pass_pair) {
    const uint32_t pair = *timing.pass_pair;
    vkCmdWriteTimestamp(buffer, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                        timing.pools[pair / kPairsPerPool].get(), (pair % kPairsPerPool) * 2 + 1);
    timing.queries[static_cast<size_t>(timing.open)].push_back({pair, submitted + 1});
    timing.pass_pair.reset();
  }
  check(vkEndCommandBuffer(buffer), "vkEndCommandBuffer");
  const uint64_t serial = submitted + 1;
  std::vector<VkSemaphore> waits, signals;
  std::vector<uint64_t> wait_values, signal_values;  // binary semaphores ignore theirs
  for (const SemaphoreSignal& wait : sync.wait) {
    waits.push_back(wait.semaphore);
    wait_values.push_back(wait.value);
  }
  for (const SemaphoreSignal& signal : sync.signal) {
    signals.push_back(signal.semaphore);
    signal_values.push_back(signal.value);
  }
  signals.push_back(progress.get());
  signal_values.push_back(serial);
  const std::vector<VkPipelineStageFlags> wait_stages(waits.size(), VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);

  auto timeline =
      lab::vulkan::make<VkTimelineSemaphoreSubmitInfo>(VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO);
  timeline.waitSemaphoreValueCount = static_cast<uint32_t>(wait_values.size());
  timeline.pWaitSemaphoreValues = wait_values.data();
  timeline.signalSemaphoreValueCount = static_cast<uint32_t>(signal_values.size());
  timeline.pSignalSemaphoreValues = signal_values.data();
  auto submit = lab::vulkan::make<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
  submit.pNext = &timeline;
  submit.waitSemaphoreCount = static_cast<uint32_t>(waits.size());
  submit.pWaitSemaphores = waits.data();
  submit.pWaitDstStageMask = wait_stages.data();
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &buffer;
  submit.signalSemaphoreCount = static_cast<uint32_t>(signals.size());
  submit.pSignalSemaphores = signals.data();
  check(vkQueueSubmit(context.queue(), 1, &submit, VK_NULL_HANDLE), "vkQueueSubmit");
  submitted = serial;
  command_serial[static_cast<size_t>((serial - 1) % kPassesInFlight)] = serial;
  return serial;
}

void Renderer::State::wait_for(uint64_t serial) {
  if (serial != 0) wait_semaphore(device, progress.get(), serial);
}

std::vector<Touch> Renderer::State::touches_with_uploads(std::vector<Touch> touches) const {
  for (size_t i = 0; i < owned.size(); ++i) {
    if (!owned[i].upload_pending) continue;
    const bool listed = std::any_of(touches.begin(), touches.end(),
                                    [&](const Touch& touch) { return touch.index == static_cast<int>(i); });
    if (!listed) touches.push_back({static_cast<int>(i), Use{}});
  }
  return touches;
}

// Records, around `record` (the pass's own commands): acquiring each touched resource (or ordering it
// after earlier passes), its pending upload, and releasing it again when exportable.
template <class Record>
void Renderer::State::record_resources(VkCommandBuffer buffer, const std::vector<Touch>& touches,
                                       Record record) {
  const uint32_t family = context.queue_family();
  auto add = [&](Barriers& barriers, const Resource& resource, Use before, Use after, uint32_t from,
                 uint32_t to) {
    if (resource.buffer != VK_NULL_HANDLE)
      barriers.buffer(resource.buffer, before, after, from, to);
    else
      barriers.image(resource.image, before, after, from, to);
  };

  Barriers barriers;
  for (const Touch& touch : touches) {
    const Resource& resource = resources[static_cast<size_t>(touch.index)];
    const Use first = owned[static_cast<size_t>(touch.index)].upload_pending ? kUploadWrite : touch.use;
    if (shared_with_cuda(resource))
      add(barriers, resource, kOutsideBefore, first, VK_QUEUE_FAMILY_EXTERNAL, family);
    else
      add(barriers, resource, kAnyEarlierWork, first, VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED);
  }
  barriers.record(buffer);

  for (const Touch& touch : touches) {
    OwnedResource& own = owned[static_cast<size_t>(touch.index)];
    if (!own.upload_pending) continue;
    const Resource& resource = resources[static_cast<size_t>(touch.index)];
    if (resource.buffer != VK_NULL_HANDLE) {
      const VkBufferCopy region{0, 0, resource.desc.bytes};
      vkCmdCopyBuffer(buffer, own.staging.buffer.get(), resource.buffer, 1, &region);
    } else {
      const VkBufferImageCopy region = whole_image(resource.desc);
      vkCmdCopyBufferToImage(buffer, own.staging.buffer.get(), resource.image, kUploadWrite.layout, 1,
                             &region);
    }
    if (touch.use)
      add(barriers, resource, kUploadWrite, touch.use, VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED);
    own.upload_pending = false;
    own.staging_read_by = submitted + 1;  // this pass
  }
  barriers.record(buffer);

  record(buffer);

  // Back to GENERAL, and out to VK_QUEUE_FAMILY_EXTERNAL when shared.
  for (const Touch& touch : touches) {
    const Resource& resource = resources[static_cast<size_t>(touch.index)];
    const Use last = touch.use ? touch.use : kUploadWrite;
    if (shared_with_cuda(resource))
      add(barriers, resource, last, kOutsideAfter, family, VK_QUEUE_FAMILY_EXTERNAL);
    else if (resource.image != VK_NULL_HANDLE && last.layout != VK_IMAGE_LAYOUT_GENERAL)
      add(barriers, resource, last, Use{last.stage, 0}, VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED);
  }
  barriers.record(buffer);
}

void Renderer::State::create_frame_target(Extent extent) {
  if (extent.width <= 0 || extent.height <= 0)
    throw std::invalid_argument("Renderer extent is " + std::to_string(extent.width) + "x" +
                                std::to_string(extent.height) + ": both sides must be > 0");
  frame = Target();
  frame_color = ImageObject();
  frame_drawn = false;
  frame_color = create_image(context, extent, kColorFormat,
                             VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                             VK_IMAGE_ASPECT_COLOR_BIT, false);
  frame = create_target(context, extent, depth_format, frame_pass.get(), frame_color.view.get());
}

// Through a temporary staging buffer, waited for: only at construction.
void Renderer::State::upload_static(Buffer& target, const void* data, VkDeviceSize bytes, Use use) {
  Buffer staging = create_host_buffer(context, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
  std::memcpy(staging.mapped, data, static_cast<size_t>(bytes));
  run_pass([&](VkCommandBuffer commands) {
    const VkBufferCopy region{0, 0, bytes};
    vkCmdCopyBuffer(commands, staging.buffer.get(), target.buffer.get(), 1, &region);
    Barriers barriers;
    barriers.buffer(target.buffer.get(), kUploadWrite, use, VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED);
    barriers.record(commands);
  });
}

template <class Copy>
const void* Renderer::State::read_back(VkDeviceSize bytes, const std::vector<Touch>& touches, Copy copy) {
  // Every read-back waits for its pass, so no pass still writes the old buffer.
  wait_for(submit_read_back(readback, bytes, touches, copy));
  return readback.mapped;
}

template <class Copy>
uint64_t Renderer::State::submit_read_back(Buffer& target, VkDeviceSize bytes,
                                           const std::vector<Touch>& touches, Copy copy) {
  if (!target.buffer || target.allocation.size < bytes) {
    target = Buffer();
    target = create_readback_buffer(context, bytes);
  }
  return submit_copy_to_host(target.buffer.get(), touches, copy);
}

template <class Copy>
uint64_t Renderer::State::submit_copy_to_host(VkBuffer target, const std::vector<Touch>& touches, Copy copy) {
  VkCommandBuffer buffer = begin_pass();
  record_resources(buffer, touches_with_uploads(touches), [&](VkCommandBuffer commands) {
    copy(commands, target);
    Barriers to_host;
    to_host.buffer(target, kUploadWrite, Use{VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT},
                   VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED);
    to_host.record(commands);
  });
  return submit_pass(buffer, {});
}

// ---- Renderer

uint32_t Renderer::State::take_pair() {
  if (timing.free_pairs.empty()) {
    auto info = lab::vulkan::make<VkQueryPoolCreateInfo>(VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO);
    info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    info.queryCount = kPairsPerPool * 2;
    VkQueryPool query_pool = VK_NULL_HANDLE;
    check(vkCreateQueryPool(device, &info, nullptr, &query_pool), "vkCreateQueryPool");
    timing.pools.emplace_back(device, query_pool);
    const uint32_t base = static_cast<uint32_t>(timing.pools.size() - 1) * kPairsPerPool;
    for (uint32_t i = kPairsPerPool; i > 0; --i) timing.free_pairs.push_back(base + i - 1);
  }
  const uint32_t pair = timing.free_pairs.back();
  timing.free_pairs.pop_back();
  return pair;
}

void Renderer::State::release_pairs(std::vector<TimedPass>& passes) {
  // A pair may be written again only once its pass is done: its reset and writes come later in the queue
  // than the pass, so queue order alone keeps the two apart.
  for (const TimedPass& pass : passes) timing.free_pairs.push_back(pass.pair);
  passes.clear();
}

uint64_t Renderer::State::completed_serial() {
  uint64_t value = 0;
  check(vkGetSemaphoreCounterValue(device, progress.get(), &value), "vkGetSemaphoreCounterValue");
  return value;
}

class Renderer::TimerQueries final : public GpuTimerQueries {
 public:
  explicit TimerQueries(State& state) : m_state(state) {}
  Clock clock() const override { return Clock::Vulkan; }
  unsigned int create() override {
    m_state.timing.queries.emplace_back();
    return static_cast<unsigned int>(m_state.timing.queries.size());
  }
  void begin(unsigned int query) override {
    assert(m_state.timing.open < 0 && "Vulkan timer queries cannot nest: end the open one first");
    m_state.release_pairs(passes(query));  // read already, or dropped by FrameTimers
    m_state.timing.open = static_cast<int>(query - 1);
  }
  void end(unsigned int) override { m_state.timing.open = -1; }
  bool available(unsigned int query) override {
    const std::vector<State::TimedPass>& timed = passes(query);
    return timed.empty() || timed.back().serial <= m_state.completed_serial();
  }
  double elapsed_ms(unsigned int query) override {
    std::vector<State::TimedPass>& timed = passes(query);
    if (timed.empty()) return 0.0;
    m_state.wait_for(timed.back().serial);
    double ns = 0.0;
    for (const State::TimedPass& pass : timed) {
      std::array<uint64_t, 2> stamps{};
      check(
          vkGetQueryPoolResults(m_state.device, m_state.timing.pools[pass.pair / State::kPairsPerPool].get(),
                                (pass.pair % State::kPairsPerPool) * 2, 2, sizeof(stamps), stamps.data(),
                                sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
          "vkGetQueryPoolResults");
      ns +=
          static_cast<double>((stamps[1] - stamps[0]) & m_state.timing.valid_mask) * m_state.timing.period_ns;
    }
    return ns * 1e-6;
  }
  std::vector<GpuInterval> intervals(unsigned int query) override {
    std::vector<GpuInterval> ran;
    for (const State::TimedPass& pass : passes(query)) {
      const std::array<uint64_t, 2> stamps = read_pair(pass.pair);
      ran.push_back({device_ns(stamps[0]), device_ns(stamps[1])});
    }
    return ran;
  }
  // A timestamp written by a pass of its own, submitted between two host reads and waited for: it lies
  // between them. VK_EXT_calibrated_timestamps would read both clocks at once without a submission, but
  // lavapipe has no such extension and the context does not enable it. A busy queue would hold the
  // host on the frames in flight, so without `may_wait` only an idle one is sampled.
  std::optional<ClockSample> sample_clock(bool may_wait, std::string&) override {
    if (!may_wait && m_state.completed_serial() < m_state.submitted) return std::nullopt;
    assert(m_state.timing.open < 0 && "sample_clock with a timer query open: end it first");
    const uint32_t pair = m_state.take_pair();
    std::vector<State::TimedPass> taken{{pair, 0}};
    VkQueryPool query_pool = m_state.timing.pools[pair / State::kPairsPerPool].get();
    const uint32_t first = (pair % State::kPairsPerPool) * 2;
    VkCommandBuffer buffer = m_state.begin_pass();
    vkCmdResetQueryPool(buffer, query_pool, first, 2);
    vkCmdWriteTimestamp(buffer, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, query_pool, first);
    vkCmdWriteTimestamp(buffer, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, query_pool, first + 1);
    const int64_t before = host_clock_ns();
    m_state.wait_for(m_state.submit_pass(buffer, {}));
    const int64_t after = host_clock_ns();
    const std::array<uint64_t, 2> stamps = read_pair(pair);
    m_state.release_pairs(taken);
    return ClockSample{device_ns(stamps[0]), before + (after - before) / 2, (after - before + 1) / 2};
  }
  void destroy(const std::vector<unsigned int>& queries, bool) override {
    m_state.timing.open = -1;
    for (unsigned int query : queries) m_state.release_pairs(passes(query));
  }

 private:
  std::vector<State::TimedPass>& passes(unsigned int query) {
    return m_state.timing.queries.at(static_cast<size_t>(query - 1));
  }
  std::array<uint64_t, 2> read_pair(uint32_t pair) {
    std::array<uint64_t, 2> stamps{};
    check(vkGetQueryPoolResults(m_state.device, m_state.timing.pools[pair / State::kPairsPerPool].get(),
                                (pair % State::kPairsPerPool) * 2, 2, sizeof(stamps), stamps.data(),
                                sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
          "vkGetQueryPoolResults");
    return stamps;
  }
  // A timestamp in nanoseconds of the device's clock (timestampPeriod ns per tick).
  int64_t device_ns(uint64_t stamp) const {
    return static_cast<int64_t>(static_cast<double>(stamp & m_state.timing.valid_mask) *
                                m_state.timing.period_ns);
  }
  State& m_state;
};

Renderer::Renderer(Context& context, Extent extent)
    : m_context(context),
      m_state(std::make_unique<State>(context)),
      m_host_frames(HostFrameImports::create(context)),
      m_frame_pool(HostFrameImports::hooks(m_host_frames)) {
  m_state->create_frame_target(extent);
  uint32_t family_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(context.physical_device(), &family_count, nullptr);
  std::vector<VkQueueFamilyProperties> families(family_count);
  vkGetPhysicalDeviceQueueFamilyProperties(context.physical_device(), &family_count, families.data());
  VkPhysicalDeviceProperties properties{};
  vkGetPhysicalDeviceProperties(context.physical_device(), &properties);
  const uint32_t bits = families.at(context.queue_family()).timestampValidBits;
  if (bits == 0) {
    m_state->timing.reason = context.info().name + "'s queue writes no timestamps (timestampValidBits 0)";
  } else {
    m_state->timing.valid_mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    m_state->timing.period_ns = static_cast<double>(properties.limits.timestampPeriod);
  }
}

std::unique_ptr<GpuTimerQueries> Renderer::timer_queries() {
  if (m_state->timing.valid_mask == 0) return nullptr;
  return std::make_unique<TimerQueries>(*m_state);
}

const std::string& Renderer::timestamp_reason() const {
  return m_state->timing.reason;
}

Renderer::~Renderer() {
  // Nothing may be destroyed while a pass still uses it; the members then go in reverse order.
  vkDeviceWaitIdle(m_context.device());
  // The frames the desk still holds keep their pixels; their imports go while the device is there.
  if (m_host_frames) m_host_frames->close();
}

Extent Renderer::extent() const {
  return m_state->frame.extent;
}

void Renderer::resize(Extent extent) {
  wait_idle();
  m_state->create_frame_target(extent);
}

void Renderer::create_resources(const std::vector<ResourceDesc>& descs, bool exportable) {
  for (size_t i = 0; i < descs.size(); ++i) validate_resource_desc(descs[i], i);
  const bool any_image = std::any_of(descs.begin(), descs.end(), [](const ResourceDesc& desc) {
    return desc.kind == ResourceKind::Texture2D;
  });
  if (exportable && any_image) require_exportable_image(m_context, kResourceImageUsage);
  destroy_resources();

  State& state = *m_state;
  try {
    for (const ResourceDesc& desc : descs) {
      OwnedResource own;
      Resource resource;
      resource.desc = desc;
      resource.exportable = exportable;
      resource.dedicated = true;  // allocate_dedicated: every resource has its own allocation
      if (desc.kind == ResourceKind::Buffer) {
        own.buffer = create_buffer(m_context, desc.bytes, kResourceBufferUsage,
                                   VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, exportable);
        resource.buffer = own.buffer.buffer.get();
        resource.memory = own.buffer.allocation.memory.get();
        resource.allocation_size = own.buffer.allocation.size;
      } else {
        own.image = create_image(m_context, {desc.width, desc.height}, kColorFormat, kResourceImageUsage,
                                 VK_IMAGE_ASPECT_COLOR_BIT, exportable);
        resource.image = own.image.image.get();
        resource.memory = own.image.allocation.memory.get();
        resource.allocation_size = own.image.allocation.size;
      }
      own.staging = create_host_buffer(m_context, desc.bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
      state.owned.push_back(std::move(own));
      state.resources.push_back(resource);
    }

    std::vector<const Resource*> made;
    for (const Resource& resource : state.resources) made.push_back(&resource);
    state.run_pass(
        [&](VkCommandBuffer commands) { record_first_use(commands, made, m_context.queue_family()); });
  } catch (...) {
    destroy_resources();
    throw;
  }
}

void Renderer::destroy_resources() {
  wait_idle();
  m_state->resources.clear();
  m_state->owned.clear();
  m_state->linear_pool = UniqueDescriptorPool();  // after the sets it holds are no longer used
}

void Renderer::place_linear_images(bool exportable) {
  State& state = *m_state;
  remove_linear_images();
  std::vector<size_t> images;
  for (size_t i = 0; i < state.resources.size(); ++i) {
    const Resource& resource = state.resources[i];
    if (resource.image == VK_NULL_HANDLE) continue;
    if (resource.imported)
      throw std::logic_error(std::string("Renderer::place_linear_images: resource \"") + resource.desc.label +
                             "\" is imported; call create_resources(descs, false) first");
    images.push_back(i);
  }
  if (images.empty()) return;
  try {
    state.linear_pool =
        create_descriptor_pool(state.device, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                               static_cast<uint32_t>(images.size()), "vkCreateDescriptorPool (show pass)");

    const uint32_t family = m_context.queue_family();
    state.run_pass([&](VkCommandBuffer commands) {
      Barriers barriers;
      for (const size_t index : images) {
        Resource& resource = state.resources[index];
        OwnedResource& own = state.owned[index];
        // CUDA reads and writes the texels in the linear buffer, never the image: an exportable image is
        // re-created plain, so that the passes no longer acquire it from VK_QUEUE_FAMILY_EXTERNAL and release
        // it back around every draw into it (a release that may make a driver put the whole image, 33 MB at
        // 4K, in a form another API can read, every frame, for a reader that never comes).
        if (resource.exportable) {
          recreate_image(m_context, resource, own, false);
          own.exportable_when_placed = true;
          barriers.image(resource.image, kNewImage, kAnyEarlierWork, VK_QUEUE_FAMILY_IGNORED,
                         VK_QUEUE_FAMILY_IGNORED);
        }
        own.show_target = create_show_target(m_context, {resource.desc.width, resource.desc.height},
                                             state.show_pass.get(), own.image.view.get());
        own.linear = exportable ? create_buffer(m_context, resource.desc.bytes, kShownLinearUsage,
                                                VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, true)
                                : create_host_buffer(m_context, resource.desc.bytes, kShownLinearUsage);
        resource.linear = own.linear.buffer.get();
        resource.linear_memory = own.linear.allocation.memory.get();
        resource.linear_allocation_size = own.linear.allocation.size;
        resource.linear_exportable = exportable;
        resource.linear_mapped = own.linear.mapped;
        resource.shown_from_linear = true;
        // Zeroed once: nothing the show pass or CUDA reads is ever undefined.
        vkCmdFillBuffer(commands, resource.linear, 0, VK_WHOLE_SIZE, 0);
        if (exportable)
          barriers.buffer(resource.linear, kUploadWrite, kOutsideAfter, family, VK_QUEUE_FAMILY_EXTERNAL);
        else
          barriers.buffer(resource.linear, kUploadWrite,
                          Use{VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT}, VK_QUEUE_FAMILY_IGNORED,
                          VK_QUEUE_FAMILY_IGNORED);

        own.show_set = allocate_set(state.device, state.linear_pool.get(), state.show_set_layout.get());
        write_buffer_descriptor(state.device, own.show_set, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                resource.linear, resource.desc.bytes);
      }
      barriers.record(commands);
    });
  } catch (...) {
    remove_linear_images();
    throw;
  }
}

void Renderer::remove_linear_images() {
  State& state = *m_state;
  wait_idle();
  std::vector<size_t> restored;  // images made exportable again
  for (size_t i = 0; i < state.resources.size(); ++i) {
    Resource& resource = state.resources[i];
    OwnedResource& own = state.owned[i];
    own.show_target = Target();
    if (own.exportable_when_placed) {
      recreate_image(m_context, resource, own, true);
      own.exportable_when_placed = false;
      restored.push_back(i);
    }
    if (resource.imported || resource.linear == VK_NULL_HANDLE) continue;
    own.show_set = VK_NULL_HANDLE;
    own.linear = Buffer();
    resource.linear = VK_NULL_HANDLE;
    resource.linear_memory = VK_NULL_HANDLE;
    resource.linear_allocation_size = 0;
    resource.linear_exportable = false;
    resource.linear_mapped = nullptr;
    resource.shown_from_linear = false;
  }
  state.linear_pool = UniqueDescriptorPool();
  if (restored.empty()) return;
  // As create_resources leaves an exportable image: in GENERAL, released to VK_QUEUE_FAMILY_EXTERNAL.
  std::vector<const Resource*> made;
  for (const size_t index : restored) made.push_back(&state.resources[index]);
  state.run_pass(
      [&](VkCommandBuffer commands) { record_first_use(commands, made, m_context.queue_family()); });
}

int Renderer::export_linear_fd(int index) const {
  const Resource& resource = m_state->resources.at(static_cast<size_t>(index));
  if (!resource.linear_exportable)
    throw std::logic_error(std::string("Renderer::export_linear_fd: resource \"") + resource.desc.label +
                           "\" has no exportable linear buffer; call place_linear_images(true)");
  return export_memory_fd(m_context, resource.linear_memory);
}

const std::vector<Resource>& Renderer::resources() const {
  return m_state->resources;
}

int Renderer::export_fd(int index) const {
  const Resource& resource = m_state->resources.at(static_cast<size_t>(index));
  if (!resource.exportable)
    throw std::logic_error(std::string("Renderer::export_fd: resource \"") + resource.desc.label +
                           "\" was not created exportable; call create_resources(descs, true)");
  return export_memory_fd(m_context, resource.memory);
}

void Renderer::import_memory(int index, interop::FileDescriptor fd, VkDeviceSize size) {
  State& state = *m_state;
  Resource& resource = state.resources.at(static_cast<size_t>(index));
  OwnedResource& own = state.owned[static_cast<size_t>(index)];
  if (resource.exportable || resource.imported)
    throw std::logic_error(std::string("Renderer::import_memory: resource \"") + resource.desc.label +
                           "\" is " + (resource.imported ? "imported already" : "exportable") +
                           "; call create_resources(descs, false) first");
  wait_idle();
  const bool image = resource.desc.kind == ResourceKind::Texture2D;
  Buffer imported = import_buffer(m_context, resource.desc.bytes,
                                  image ? kLinearImageUsage : kResourceBufferUsage, fd, size);
  // Released to VK_QUEUE_FAMILY_EXTERNAL at once: the state every pass finds CUDA's memory in.
  state.run_pass([&](VkCommandBuffer commands) {
    Barriers barriers;
    barriers.buffer(imported.buffer.get(), kAnyEarlierWork, kOutsideAfter, m_context.queue_family(),
                    VK_QUEUE_FAMILY_EXTERNAL);
    barriers.record(commands);
  });
  if (image) {
    own.linear = std::move(imported);
    resource.linear = own.linear.buffer.get();
  } else {
    own.buffer = std::move(imported);  // the plain buffer goes (the device is idle)
    resource.buffer = own.buffer.buffer.get();
    resource.memory = own.buffer.allocation.memory.get();
    resource.allocation_size = size;
  }
  resource.imported = true;
  resource.dedicated = false;
}

void Renderer::upload(int index, const void* data) {
  OwnedResource& own = m_state->owned.at(static_cast<size_t>(index));
  m_state->wait_for(own.staging_read_by);  // the pass that copied the previous upload must be done
  std::memcpy(own.staging.mapped, data, m_state->resources[static_cast<size_t>(index)].desc.bytes);
  own.upload_pending = true;
}

namespace {

// A resource's whole contents into `target` (download's copy; a ShowImage frame's read-back).
void record_resource_copy(VkCommandBuffer commands, const Resource& source, VkBuffer target) {
  if (source.buffer != VK_NULL_HANDLE) {
    const VkBufferCopy region{0, 0, source.desc.bytes};
    vkCmdCopyBuffer(commands, source.buffer, target, 1, &region);
  } else {
    const VkBufferImageCopy region = whole_image(source.desc);
    vkCmdCopyImageToBuffer(commands, source.image, kCopyRead.layout, target, 1, &region);
  }
}

// The frame target's colour into `target`. The frame target is never shared, and its render pass already
// made its writes visible to copies.
void record_frame_copy(VkCommandBuffer commands, VkImage frame_color, Extent extent, VkBuffer target) {
  const VkBufferImageCopy region = whole_image_copy(extent);
  vkCmdCopyImageToBuffer(commands, frame_color, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, target, 1, &region);
}

}  // namespace

void Renderer::download(int index, void* data) {
  const Resource& resource = m_state->resources.at(static_cast<size_t>(index));
  const void* bytes = m_state->read_back(
      resource.desc.bytes, {{index, kCopyRead}},
      [&](VkCommandBuffer commands, VkBuffer target) { record_resource_copy(commands, resource, target); });
  std::memcpy(data, bytes, resource.desc.bytes);
}

void Renderer::draw_cubes(int target, const CubesView& view, const PassSync& sync) {
  validate(sync);
  State& state = *m_state;
  const Resource& resource = state.resources.at(static_cast<size_t>(target));
  if (resource.image == VK_NULL_HANDLE)
    throw std::invalid_argument(std::string("Renderer::draw_cubes: resource \"") + resource.desc.label +
                                "\" is a buffer; the cubes are drawn into a Texture2D resource");
  OwnedResource& own = state.owned[static_cast<size_t>(target)];
  if (!own.cubes_target.framebuffer)
    own.cubes_target = create_target(m_context, {resource.desc.width, resource.desc.height},
                                     state.depth_format, state.cubes_pass.get(), own.image.view.get());

  VkCommandBuffer buffer = state.begin_pass();
  state.record_resources(
      buffer, state.touches_with_uploads({{target, kAttachmentWrite}}), [&](VkCommandBuffer commands) {
        // The camera goes in through the command stream, so no host write races an earlier pass reading it.
        const Use uniform_read{VK_PIPELINE_STAGE_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                               VK_ACCESS_UNIFORM_READ_BIT};
        Barriers barriers;
        barriers.buffer(state.camera.buffer.get(), Use{uniform_read.stage, 0}, kUploadWrite,
                        VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED);
        barriers.record(commands);
        CameraBlock camera;
        camera.view_projection = view.view_projection;
        camera.eye = view.eye;
        vkCmdUpdateBuffer(commands, state.camera.buffer.get(), 0, sizeof(camera), &camera);
        barriers.buffer(state.camera.buffer.get(), kUploadWrite, uniform_read, VK_QUEUE_FAMILY_IGNORED,
                        VK_QUEUE_FAMILY_IGNORED);
        barriers.record(commands);

        begin_render_pass(commands, state.cubes_pass.get(), own.cubes_target, kCubesClearColor);
        vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_GRAPHICS, state.cubes_pipeline.get());
        vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_GRAPHICS, state.cubes_layout.get(), 0, 1,
                                &state.camera_set, 0, nullptr);
        const VkDeviceSize offset = 0;
        VkBuffer vertices = state.cube_vertices.buffer.get();
        vkCmdBindVertexBuffers(commands, 0, 1, &vertices, &offset);
        vkCmdBindIndexBuffer(commands, state.cube_indices.buffer.get(), 0, VK_INDEX_TYPE_UINT32);
        for (const CubeInstance& cube : view.cubes) {
          CubePush push{cube.model, cube.color};
          vkCmdPushConstants(commands, state.cubes_layout.get(),
                             VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(push),
                             &push);
          vkCmdDrawIndexed(commands, state.cube_index_count, 1, 0, 0, 0);
        }
        vkCmdEndRenderPass(commands);
        if (!resource.imported && !resource.shown_from_linear) return;
        // CUDA (or the buffer mode's CPU reference) reads the picture from the linear memory: copied
        // there, and the image back in GENERAL.
        const uint32_t family = m_context.queue_family();
        Barriers to_copy;
        to_copy.image(resource.image, kAttachmentWrite, kCopyRead, VK_QUEUE_FAMILY_IGNORED,
                      VK_QUEUE_FAMILY_IGNORED);
        acquire_any_linear(to_copy, resource, kUploadWrite, family);
        to_copy.record(commands);
        const VkBufferImageCopy region = whole_image(resource.desc);
        vkCmdCopyImageToBuffer(commands, resource.image, kCopyRead.layout, resource.linear, 1, &region);
        Barriers back;
        back.image(resource.image, kCopyRead, kAttachmentWrite, VK_QUEUE_FAMILY_IGNORED,
                   VK_QUEUE_FAMILY_IGNORED);
        release_any_linear(back, resource, kUploadWrite, family);
        back.record(commands);
      });
  state.submit_pass(buffer, sync);
}

void Renderer::draw_frame(const DrawPlan& plan, const glm::mat4& view_projection, const PassSync& sync) {
  validate(sync);
  State& state = *m_state;
  std::vector<Touch> touches;
  if (plan.draw == SceneDraw::LitMesh) {
    const Resource& mesh = state.resources.at(static_cast<size_t>(plan.mesh_resource));
    if (mesh.buffer == VK_NULL_HANDLE)
      throw std::invalid_argument(std::string("DrawPlan.mesh_resource names \"") + mesh.desc.label +
                                  "\", a texture; the wave mesh is a Buffer resource");
    touches.push_back({plan.mesh_resource, kVertexRead});
  }
  // What CUDA wrote into imported memory this frame comes into the images first; the buffer mode's
  // linear images are drawn into theirs by the show pass.
  std::vector<int> copied_in, shown;
  for (size_t i = 0; i < state.resources.size(); ++i) {
    const Resource& resource = state.resources[i];
    if (resource.image == VK_NULL_HANDLE || resource.desc.role != ResourceRole::Output) continue;
    if (resource.imported) {
      copied_in.push_back(static_cast<int>(i));
      touches.push_back({static_cast<int>(i), kUploadWrite});
    } else if (resource.shown_from_linear) {
      shown.push_back(static_cast<int>(i));
      touches.push_back({static_cast<int>(i), kAttachmentWrite});
    }
  }
  VkCommandBuffer buffer = state.begin_pass();
  state.record_resources(buffer, state.touches_with_uploads(touches), [&](VkCommandBuffer commands) {
    const uint32_t family = m_context.queue_family();
    Barriers acquire, release;
    for (int index : copied_in)
      acquire_linear(acquire, state.resources[static_cast<size_t>(index)], kCopyRead, family);
    acquire.record(commands);
    for (int index : copied_in) {
      const Resource& resource = state.resources[static_cast<size_t>(index)];
      const VkBufferImageCopy region = whole_image(resource.desc);
      vkCmdCopyBufferToImage(commands, resource.linear, resource.image, kUploadWrite.layout, 1, &region);
      release_linear(release, resource, kCopyRead, family);
    }
    release.record(commands);
    const Use shader_read{VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT};
    for (int index : shown) {
      const Resource& resource = state.resources[static_cast<size_t>(index)];
      const OwnedResource& own = state.owned[static_cast<size_t>(index)];
      Barriers before, after;
      acquire_shown_linear(before, resource, shader_read, family);
      before.record(commands);
      begin_show_pass(commands, state.show_pass.get(), own.show_target);
      vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_GRAPHICS, state.show_pipeline.get());
      vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_GRAPHICS, state.show_layout.get(), 0, 1,
                              &own.show_set, 0, nullptr);
      const ShowPush size{resource.desc.width, resource.desc.height};
      vkCmdPushConstants(commands, state.show_layout.get(), VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(size),
                         &size);
      vkCmdDraw(commands, 3, 1, 0, 0);
      vkCmdEndRenderPass(commands);
      release_shown_linear(after, resource, shader_read, family);
      after.record(commands);
    }
    if (plan.draw != SceneDraw::LitMesh) return;
    begin_render_pass(commands, state.frame_pass.get(), state.frame, kClearColor);
    vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_GRAPHICS, state.wave_pipeline.get());
    const WavePush push{view_projection};
    vkCmdPushConstants(commands, state.wave_layout.get(), VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(push), &push);
    const VkDeviceSize offset = 0;
    VkBuffer vertices = state.resources[static_cast<size_t>(plan.mesh_resource)].buffer;
    vkCmdBindVertexBuffers(commands, 0, 1, &vertices, &offset);
    vkCmdBindIndexBuffer(commands, state.wave_indices.buffer.get(), 0, VK_INDEX_TYPE_UINT32);
    vkCmdDrawIndexed(commands, state.wave_index_count, 1, 0, 0, 0);
    vkCmdEndRenderPass(commands);
  });
  state.submit_pass(buffer, sync);
  if (plan.draw == SceneDraw::LitMesh) state.frame_drawn = true;
}

std::string Renderer::missing_frame(const DrawPlan& plan) const {
  const State& state = *m_state;
  if (plan.draw == SceneDraw::LitMesh)
    return state.frame_drawn ? "" : "no frame drawn at this extent yet; call draw_frame first";
  if (plan.image_resource < 0 || static_cast<size_t>(plan.image_resource) >= state.resources.size())
    return "DrawPlan.image_resource is " + std::to_string(plan.image_resource) + ", but there are " +
           std::to_string(state.resources.size()) + " resources";
  const Resource& resource = state.resources[static_cast<size_t>(plan.image_resource)];
  if (resource.image == VK_NULL_HANDLE)
    return std::string("DrawPlan.image_resource names \"") + resource.desc.label +
           "\", a buffer; ShowImage shows a Texture2D resource";
  return "";
}

uint64_t Renderer::State::submit_frame_read_back(const DrawPlan& plan, Buffer& target, Extent& extent) {
  extent = frame_read_extent(plan);
  if (plan.draw == SceneDraw::ShowImage) {
    const Resource& resource = resources[static_cast<size_t>(plan.image_resource)];
    return submit_read_back(
        target, resource.desc.bytes, {{plan.image_resource, kCopyRead}},
        [&](VkCommandBuffer commands, VkBuffer buffer) { record_resource_copy(commands, resource, buffer); });
  }
  return submit_read_back(target, static_cast<VkDeviceSize>(extent.width) * extent.height * 4, {},
                          [&](VkCommandBuffer commands, VkBuffer buffer) {
                            record_frame_copy(commands, frame_color.image.get(), extent, buffer);
                          });
}

Extent Renderer::State::frame_read_extent(const DrawPlan& plan) const {
  if (plan.draw != SceneDraw::ShowImage) return frame.extent;
  const Resource& resource = resources[static_cast<size_t>(plan.image_resource)];
  return {resource.desc.width, resource.desc.height};
}

uint64_t Renderer::State::submit_frame_read_into(const DrawPlan& plan,
                                                 const HostFrameImports::Target& target) {
  const Extent extent = frame_read_extent(plan);
  if (!flipped.image || flipped_extent.width != extent.width || flipped_extent.height != extent.height) {
    wait_for(flipped_by);  // no pass still copies out of the old one
    flipped = ImageObject();
    flipped =
        create_image_without_view(context, extent, kColorFormat,
                                  VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, false);
    flipped_extent = extent;
  }
  // Image row r (GL's order: the bottom of the picture first) lands in the frame's row height - 1 - r: a
  // blit turns the picture over into `flipped`, which one region copies out.
  const auto copy_flipped = [&](VkImage image, VkImageLayout layout) {
    return [&, image, layout](VkCommandBuffer commands, VkBuffer buffer) {
      const Use discard{VK_PIPELINE_STAGE_TRANSFER_BIT, 0, VK_IMAGE_LAYOUT_UNDEFINED};  // after the last copy
      const Use blit_write{VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                           VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL};
      Barriers to_write, to_read;
      to_write.image(flipped.image.get(), discard, blit_write, VK_QUEUE_FAMILY_IGNORED,
                     VK_QUEUE_FAMILY_IGNORED);
      to_write.record(commands);
      VkImageBlit blit{};
      blit.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
      blit.srcOffsets[0] = {0, extent.height, 0};
      blit.srcOffsets[1] = {extent.width, 0, 1};
      blit.dstSubresource = blit.srcSubresource;
      blit.dstOffsets[1] = {extent.width, extent.height, 1};
      vkCmdBlitImage(commands, image, layout, flipped.image.get(), blit_write.layout, 1, &blit,
                     VK_FILTER_NEAREST);
      to_read.image(flipped.image.get(), blit_write, kCopyRead, VK_QUEUE_FAMILY_IGNORED,
                    VK_QUEUE_FAMILY_IGNORED);
      to_read.record(commands);
      VkBufferImageCopy region = whole_image_copy(extent);
      region.bufferOffset = target.offset;
      vkCmdCopyImageToBuffer(commands, flipped.image.get(), kCopyRead.layout, buffer, 1, &region);
    };
  };
  if (plan.draw == SceneDraw::ShowImage) {
    const Resource& resource = resources[static_cast<size_t>(plan.image_resource)];
    flipped_by = submit_copy_to_host(target.buffer, {{plan.image_resource, kCopyRead}},
                                     copy_flipped(resource.image, kCopyRead.layout));
  } else {
    flipped_by = submit_copy_to_host(
        target.buffer, {}, copy_flipped(frame_color.image.get(), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL));
  }
  return flipped_by;
}

namespace {

// A read-back frame of `extent` at `mapped` as an Image. Memory rows are GL's, bottom first; an Image is
// top first: flipped in the one copy out.
void copy_frame(const void* mapped, Image& image) {
  const size_t row = static_cast<size_t>(image.width) * 4;
  const auto* source = static_cast<const uint8_t*>(mapped);
  for (int y = 0; y < image.height; ++y)
    std::memcpy(image.rgba.data() + row * static_cast<size_t>(y),
                source + row * static_cast<size_t>(image.height - 1 - y), row);
}

Image frame_image(const void* mapped, Extent extent) {
  Image image;
  image.width = extent.width;
  image.height = extent.height;
  image.rgba.resize(static_cast<size_t>(extent.width) * extent.height * 4);
  copy_frame(mapped, image);
  return image;
}

}  // namespace

Image Renderer::read_frame(const DrawPlan& plan) {
  const std::string missing = missing_frame(plan);
  if (!missing.empty()) throw std::logic_error("Renderer::read_frame: " + missing);
  State& state = *m_state;
  Extent extent;
  // Every read-back waits for its pass, so no pass still writes the old buffer.
  state.wait_for(state.submit_frame_read_back(plan, state.readback, extent));
  return frame_image(state.readback.mapped, extent);
}

void Renderer::begin_read_frame(const DrawPlan& plan, long long frame) {
  const std::string missing = missing_frame(plan);
  if (!missing.empty()) throw std::logic_error("Renderer::begin_read_frame: " + missing);
  State& state = *m_state;
  if (!can_begin_read())
    throw std::logic_error("Renderer::begin_read_frame: " + std::to_string(kFrameReadSlots) +
                           " reads are under way (the oldest frame " +
                           std::to_string(state.frame_reads.front()->frame) +
                           "); collect one with end_read_frame() first");
  // The slot no read under way uses.
  State::FrameReadSlot* slot = nullptr;
  for (State::FrameReadSlot& candidate : state.frame_read_slots)
    if (std::find(state.frame_reads.begin(), state.frame_reads.end(), &candidate) == state.frame_reads.end())
      slot = &candidate;
  slot->frame = frame;
  slot->direct.reset();
  if (m_host_frames) {  // straight into a pooled frame, where its pixels are imported
    slot->extent = state.frame_read_extent(plan);
    std::shared_ptr<Image> image = m_frame_pool.take(slot->extent);
    if (const std::optional<HostFrameImports::Target> target = m_host_frames->find(image->rgba.data())) {
      slot->serial = state.submit_frame_read_into(plan, *target);
      slot->direct = std::move(image);
    }
  }
  if (!slot->direct) slot->serial = state.submit_frame_read_back(plan, slot->buffer, slot->extent);
  state.frame_reads.push_back(slot);
}

int Renderer::reads_under_way() const {
  return static_cast<int>(m_state->frame_reads.size());
}

void Renderer::limit_frames_ahead(int frames) {
  State& state = *m_state;
  state.frames_ahead.push_back(state.submitted);
  while (state.frames_ahead.size() > static_cast<size_t>(std::max(frames, 0))) {
    state.wait_for(state.frames_ahead.front());
    state.frames_ahead.pop_front();
  }
}

bool Renderer::can_begin_read() const {
  return m_state->frame_reads.size() < kFrameReadSlots;
}

bool Renderer::read_frame_done() {
  State& state = *m_state;
  return !state.frame_reads.empty() && state.frame_reads.front()->serial <= state.completed_serial();
}

std::optional<FrameRead> Renderer::end_read_frame() {
  State& state = *m_state;
  if (state.frame_reads.empty()) return std::nullopt;
  State::FrameReadSlot& slot = *state.frame_reads.front();
  state.frame_reads.pop_front();
  state.wait_for(slot.serial);
  FrameRead read;
  read.frame = slot.frame;
  if (slot.direct) {
    read.image = std::move(slot.direct);
    read.way = kReadIntoFrame;
    return read;
  }
  std::shared_ptr<Image> image = m_frame_pool.take(slot.extent);  // pages already there
  copy_frame(slot.buffer.mapped, *image);
  read.image = std::move(image);
  return read;
}

void Renderer::show(const DrawPlan& plan, VkImage target, Extent extent,
                    const std::function<void(VkCommandBuffer)>& then, const PassSync& sync) {
  const std::string missing = missing_frame(plan);
  if (!missing.empty()) throw std::logic_error("Renderer::show: " + missing);
  validate(sync);
  State& state = *m_state;
  std::vector<Touch> touches;
  VkImage source = state.frame_color.image.get();
  VkImageLayout source_layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;  // where the frame pass leaves it
  Extent source_extent = state.frame.extent;
  if (plan.draw == SceneDraw::ShowImage) {
    const Resource& resource = state.resources[static_cast<size_t>(plan.image_resource)];
    touches.push_back({plan.image_resource, kCopyRead});
    source = resource.image;
    source_layout = kCopyRead.layout;
    source_extent = {resource.desc.width, resource.desc.height};
  }

  VkCommandBuffer buffer = state.begin_pass();
  state.record_resources(buffer, state.touches_with_uploads(touches), [&](VkCommandBuffer commands) {
    // The wait on the caller's semaphores (the swapchain's acquire) covers every stage; the layout change
    // discards what the presentation engine left.
    const Use blit_write{VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                         VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL};
    Barriers barriers;
    barriers.image(target, Use{VK_PIPELINE_STAGE_TRANSFER_BIT, 0, VK_IMAGE_LAYOUT_UNDEFINED}, blit_write,
                   VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED);
    barriers.record(commands);
    VkImageBlit blit{};
    blit.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    // Memory row 0 is the bottom of the picture (GL's order); a swapchain's row 0 is the top of the window.
    blit.srcOffsets[0] = {0, source_extent.height, 0};
    blit.srcOffsets[1] = {source_extent.width, 0, 1};
    blit.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    blit.dstOffsets[0] = {0, 0, 0};
    blit.dstOffsets[1] = {extent.width, extent.height, 1};
    vkCmdBlitImage(commands, source, source_layout, target, blit_write.layout, 1, &blit, VK_FILTER_NEAREST);
    then(commands);
  });
  state.submit_pass(buffer, sync);
}

void Renderer::wait_idle() {
  m_state->wait_for(m_state->submitted);
}

}  // namespace lab::vulkan
