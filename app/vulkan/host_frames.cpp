// app/vulkan/host_frames.cpp — the pooled frames' pixels imported as device memory (host_frames.hpp).
#include "app/vulkan/host_frames.hpp"

#include "app/vulkan/builders.hpp"

#include <stdexcept>
#include <utility>

namespace lab::vulkan {

std::shared_ptr<HostFrameImports> HostFrameImports::create(const Context& context) {
  if (context.host_import_alignment() == 0) return nullptr;
  return std::make_shared<HostFrameImports>(context);
}

HostFrameImports::HostFrameImports(const Context& context)
    : m_device(context.device()), m_alignment(context.host_import_alignment()) {
  m_host_pointer_properties = reinterpret_cast<PFN_vkGetMemoryHostPointerPropertiesEXT>(
      vkGetDeviceProcAddr(m_device, "vkGetMemoryHostPointerPropertiesEXT"));
  if (m_host_pointer_properties == nullptr)
    throw std::runtime_error("Vulkan: vkGetMemoryHostPointerPropertiesEXT is missing though " +
                             std::string(VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME) + " is on");
  vkGetPhysicalDeviceMemoryProperties(context.physical_device(), &m_memory_types);
}

HostFrameImports::~HostFrameImports() {
  close();
}

FramePool::Hooks HostFrameImports::hooks(const std::shared_ptr<HostFrameImports>& imports) {
  if (!imports) return {};
  FramePool::Hooks hooks;
  hooks.adopt = [imports](uint8_t* pixels, size_t bytes) { imports->adopt(pixels, bytes); };
  hooks.release = [imports](uint8_t* pixels, size_t) { imports->release(pixels); };
  return hooks;
}

void HostFrameImports::adopt(uint8_t* pixels, size_t bytes) {
  const std::lock_guard<std::mutex> lock(m_mutex);
  if (!m_open) return;
  const auto address = reinterpret_cast<uintptr_t>(pixels);
  const uintptr_t begin = address / m_alignment * m_alignment;
  const uintptr_t end = (address + bytes + m_alignment - 1) / m_alignment * m_alignment;
  void* host = reinterpret_cast<void*>(begin);
  const VkDeviceSize size = end - begin;
  const char* step = "vkGetMemoryHostPointerPropertiesEXT";
  try {
    auto pointer =
        make<VkMemoryHostPointerPropertiesEXT>(VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT);
    check(m_host_pointer_properties(m_device, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, host,
                                    &pointer),
          step);
    // Coherent memory: the host reads the frame once the read's submission is done, with no invalidate.
    const std::optional<uint32_t> coherent =
        find_memory_type(m_memory_types, pointer.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    if (!coherent) throw std::runtime_error("no host-coherent memory type imports host memory");
    const uint32_t type = *coherent;

    Import import;
    step = "vkCreateBuffer (over host memory)";
    auto external =
        make<VkExternalMemoryBufferCreateInfo>(VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO);
    external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
    VkBufferCreateInfo buffer_info = buffer_create_info(size, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    buffer_info.pNext = &external;
    VkBuffer buffer = VK_NULL_HANDLE;
    check(vkCreateBuffer(m_device, &buffer_info, nullptr, &buffer), step);
    import.buffer = UniqueBuffer(m_device, buffer);
    VkMemoryRequirements requirements{};
    vkGetBufferMemoryRequirements(m_device, buffer, &requirements);
    if (!(requirements.memoryTypeBits & (1u << type)))
      throw std::runtime_error("a transfer buffer cannot live in the imported memory's type");

    step = "vkAllocateMemory (VkImportMemoryHostPointerInfoEXT)";
    auto import_info =
        make<VkImportMemoryHostPointerInfoEXT>(VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT);
    import_info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
    import_info.pHostPointer = host;
    auto allocate = make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
    allocate.pNext = &import_info;
    allocate.allocationSize = size;
    allocate.memoryTypeIndex = type;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    check(vkAllocateMemory(m_device, &allocate, nullptr, &memory), step);
    import.memory = UniqueMemory(m_device, memory);
    step = "vkBindBufferMemory (imported host memory)";
    check(vkBindBufferMemory(m_device, buffer, memory, 0), step);
    import.offset = address - begin;
    m_imports[pixels] = std::move(import);
  } catch (const std::exception& error) {
    // The frame is read by copying instead; the buffer (if made) goes before its memory.
    m_failure = std::string(step) + ": " + error.what();
  }
}

void HostFrameImports::release(uint8_t* pixels) {
  const std::lock_guard<std::mutex> lock(m_mutex);
  m_imports.erase(pixels);
}

std::optional<HostFrameImports::Target> HostFrameImports::find(const uint8_t* pixels) const {
  const std::lock_guard<std::mutex> lock(m_mutex);
  const auto found = m_imports.find(pixels);
  if (found == m_imports.end()) return std::nullopt;
  return Target{found->second.buffer.get(), found->second.offset};
}

std::string HostFrameImports::failure() const {
  const std::lock_guard<std::mutex> lock(m_mutex);
  return m_failure;
}

void HostFrameImports::close() {
  const std::lock_guard<std::mutex> lock(m_mutex);
  m_open = false;
  m_imports.clear();
}

}  // namespace lab::vulkan
