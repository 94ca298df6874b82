// app/vulkan/device.cpp — headless Vulkan device by UUID, dedicated (exportable) allocations, exportable
// buffers and timeline semaphores.
#include "app/vulkan/device.hpp"

#include "app/core/text.hpp"
#include "app/vulkan/builders.hpp"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <utility>

namespace lab::vulkan {
namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

std::string result_text(VkResult result) {
  switch (result) {
    case VK_ERROR_INITIALIZATION_FAILED:
      return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_INCOMPATIBLE_DRIVER:
      return "VK_ERROR_INCOMPATIBLE_DRIVER (no Vulkan driver: install one, "
             "e.g. Debian's mesa-vulkan-drivers, or NVIDIA's ICD)";
    case VK_ERROR_EXTENSION_NOT_PRESENT:
      return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT:
      return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
      return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_OUT_OF_HOST_MEMORY:
      return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_INVALID_EXTERNAL_HANDLE:
      return "VK_ERROR_INVALID_EXTERNAL_HANDLE";
    case VK_ERROR_TOO_MANY_OBJECTS:
      return "VK_ERROR_TOO_MANY_OBJECTS";
    default:
      return "VkResult " + std::to_string(static_cast<int>(result));
  }
}

// `size` bytes of memory type `type` dedicated to `buffer` or `image` (the other VK_NULL_HANDLE), exportable
// as an opaque FD where `exportable`; `call` names vkAllocateMemory in the exception. The caller owns it.
VkDeviceMemory allocate_memory(VkDevice device, VkBuffer buffer, VkImage image, VkDeviceSize size,
                               uint32_t type, bool exportable, const char* call) {
  auto dedicated =
      lab::vulkan::make<VkMemoryDedicatedAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO);
  dedicated.buffer = buffer;
  dedicated.image = image;
  auto export_info =
      lab::vulkan::make<VkExportMemoryAllocateInfo>(VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO);
  export_info.pNext = &dedicated;
  export_info.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  auto allocate = lab::vulkan::make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
  allocate.pNext = exportable ? static_cast<const void*>(&export_info) : static_cast<const void*>(&dedicated);
  allocate.allocationSize = size;
  allocate.memoryTypeIndex = type;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  check(vkAllocateMemory(device, &allocate, nullptr, &memory), call);
  return memory;
}

bool has_extension(VkPhysicalDevice device, const char* name) {
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(device, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> extensions(count);
  vkEnumerateDeviceExtensionProperties(device, nullptr, &count, extensions.data());
  for (const VkExtensionProperties& extension : extensions)
    if (std::strcmp(extension.extensionName, name) == 0) return true;
  return false;
}

bool has_layer(const char* name) {
  uint32_t count = 0;
  vkEnumerateInstanceLayerProperties(&count, nullptr);
  std::vector<VkLayerProperties> layers(count);
  vkEnumerateInstanceLayerProperties(&count, layers.data());
  for (const VkLayerProperties& layer : layers)
    if (std::strcmp(layer.layerName, name) == 0) return true;
  return false;
}

// The Vulkan loader unloads the drivers when the last instance goes and loads them again for the next one,
// and NVIDIA's driver (libnvidia-tls) takes static TLS that glibc never gives back on unload: a process that
// had made and destroyed about 70 instances could make no more ("cannot allocate memory in static TLS block",
// vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER), and the Vulkan benchmark makes one for each case, the app
// one for each switch of device or API. A plain instance made before the first and kept for the process's
// life keeps the drivers loaded once. Where it cannot be made, the instance asked for says why.
void keep_drivers_loaded() {
  static const VkInstance kept = [] {
    auto application = lab::vulkan::make<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
    application.pApplicationName = "interop-lab (keeps the Vulkan drivers loaded)";
    application.apiVersion = VK_API_VERSION_1_2;
    auto create = lab::vulkan::make<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
    create.pApplicationInfo = &application;
    VkInstance instance = VK_NULL_HANDLE;
    return vkCreateInstance(&create, nullptr, &instance) == VK_SUCCESS ? instance : VK_NULL_HANDLE;
  }();
  static_cast<void>(kept);  // never destroyed: the process ends with it
}

VkInstance create_instance(bool validation, const ContextOptions& options) {
  keep_drivers_loaded();
  auto application = lab::vulkan::make<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
  application.pApplicationName = "interop-lab";
  application.apiVersion = VK_API_VERSION_1_2;
  auto create = lab::vulkan::make<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
  create.pApplicationInfo = &application;
  const char* layers[] = {kValidationLayer};
  std::vector<const char*> extensions;
  for (const std::string& extension : options.surface_extensions) extensions.push_back(extension.c_str());
  const VkValidationFeatureEnableEXT synchronization =
      VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
  auto features = lab::vulkan::make<VkValidationFeaturesEXT>(VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT);
  features.enabledValidationFeatureCount = 1;
  features.pEnabledValidationFeatures = &synchronization;
  if (validation) {
    create.enabledLayerCount = 1;
    create.ppEnabledLayerNames = layers;
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    if (options.validation == Validation::Synchronization) {
      // The layer's own extension: present wherever the layer is.
      extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
      create.pNext = &features;
    }
  }
  create.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  create.ppEnabledExtensionNames = extensions.data();
  VkInstance instance = VK_NULL_HANDLE;
  check(vkCreateInstance(&create, nullptr, &instance), "vkCreateInstance");
  return instance;
}

DeviceInfo describe(VkPhysicalDevice device) {
  auto id = lab::vulkan::make<VkPhysicalDeviceIDProperties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES);
  auto properties =
      lab::vulkan::make<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
  properties.pNext = &id;
  vkGetPhysicalDeviceProperties2(device, &properties);
  auto timeline = lab::vulkan::make<VkPhysicalDeviceTimelineSemaphoreFeatures>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES);
  auto features = lab::vulkan::make<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  features.pNext = &timeline;
  vkGetPhysicalDeviceFeatures2(device, &features);
  DeviceInfo info;
  info.name = properties.properties.deviceName;
  std::memcpy(info.uuid.data(), id.deviceUUID, VK_UUID_SIZE);
  info.api_version = properties.properties.apiVersion;
  info.external_memory_fd = has_extension(device, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
  info.external_semaphore_fd = has_extension(device, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
  info.timeline_semaphores = timeline.timelineSemaphore == VK_TRUE;
  return info;
}

std::vector<VkPhysicalDevice> physical_devices(VkInstance instance) {
  uint32_t count = 0;
  check(vkEnumeratePhysicalDevices(instance, &count, nullptr), "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> devices(count);
  check(vkEnumeratePhysicalDevices(instance, &count, devices.data()), "vkEnumeratePhysicalDevices");
  return devices;
}

// Off while a WithoutValidationLayer lives.
std::atomic<bool> g_validation_layer{true};

}  // namespace

void check(VkResult result, const char* call) {
  if (result != VK_SUCCESS)
    throw std::runtime_error(std::string("Vulkan: ") + call + ": " + result_text(result));
}

std::string to_string(const Uuid& uuid) {
  return uuid_text(uuid);
}

std::vector<DeviceInfo> enumerate_devices() {
  VkInstance instance = create_instance(false, ContextOptions{});
  std::vector<DeviceInfo> infos;
  try {
    for (VkPhysicalDevice device : physical_devices(instance)) infos.push_back(describe(device));
  } catch (...) {
    vkDestroyInstance(instance, nullptr);
    throw;
  }
  vkDestroyInstance(instance, nullptr);
  return infos;
}

// ---- Context

VKAPI_ATTR VkBool32 VKAPI_CALL Context::on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                   VkDebugUtilsMessageTypeFlagsEXT,
                                                   const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                   void* self) {
  if (severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
    ++static_cast<Context*>(self)->m_messages;
    std::fprintf(stderr, "interop-lab: Vulkan validation: %s\n", data->pMessage);
  }
  return VK_FALSE;
}

WithoutValidationLayer::WithoutValidationLayer() : m_before(g_validation_layer.exchange(false)) {}

WithoutValidationLayer::~WithoutValidationLayer() {
  g_validation_layer = m_before;
}

bool WithoutValidationLayer::layer_installed() {
  return has_layer(kValidationLayer);
}

Context::Context(const Uuid* uuid, const ContextOptions& options) : m_validation(options.validation) {
  const bool validation = g_validation_layer && has_layer(kValidationLayer);
  m_instance = create_instance(validation, options);
  try {
    if (validation) {
      auto create_messenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
          vkGetInstanceProcAddr(m_instance, "vkCreateDebugUtilsMessengerEXT"));
      auto messenger = lab::vulkan::make<VkDebugUtilsMessengerCreateInfoEXT>(
          VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT);
      messenger.messageSeverity =
          VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
      messenger.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                              VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                              VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
      messenger.pfnUserCallback = &Context::on_message;
      messenger.pUserData = this;
      if (create_messenger != nullptr)
        check(create_messenger(m_instance, &messenger, nullptr, &m_messenger),
              "vkCreateDebugUtilsMessengerEXT");
    }
    const std::vector<VkPhysicalDevice> devices = physical_devices(m_instance);
    if (devices.empty()) throw std::runtime_error("Vulkan: no physical device: install a Vulkan driver");
    std::string seen;
    for (VkPhysicalDevice device : devices) {
      const DeviceInfo info = describe(device);
      seen += (seen.empty() ? "" : ", ") + info.name + " " + to_string(info.uuid);
      if (uuid == nullptr || info.uuid == *uuid) {
        m_physical = device;
        m_info = info;
        break;
      }
    }
    if (m_physical == VK_NULL_HANDLE)
      throw std::runtime_error("Vulkan: no device has the CUDA device's UUID " + to_string(*uuid) +
                               " (seen: " + seen + "); the Vulkan and CUDA drivers must drive the same GPU");
    if (!m_info.external_memory_fd)
      throw std::runtime_error("Vulkan: " + m_info.name + " lacks " VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
    if (!m_info.timeline_semaphores)
      throw std::runtime_error("Vulkan: " + m_info.name + " has no timeline semaphores (Vulkan 1.2)");

    uint32_t family_count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(m_physical, &family_count, nullptr);
    std::vector<VkQueueFamilyProperties> families(family_count);
    vkGetPhysicalDeviceQueueFamilyProperties(m_physical, &family_count, families.data());
    // A graphics family where there is one (the renderer draws on this queue), else a compute one.
    m_queue_family = family_count;
    for (VkQueueFlags wanted : {VkQueueFlags{VK_QUEUE_GRAPHICS_BIT}, VkQueueFlags{VK_QUEUE_COMPUTE_BIT}}) {
      for (uint32_t i = 0; i < family_count && m_queue_family == family_count; ++i)
        if (families[i].queueFlags & wanted) m_queue_family = i;
    }
    if (m_queue_family == family_count)
      throw std::runtime_error("Vulkan: " + m_info.name + " has no compute queue");
    m_queue_graphics = (families[m_queue_family].queueFlags & VK_QUEUE_GRAPHICS_BIT) != 0;

    std::vector<const char*> extensions = {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME};
    if (m_info.external_semaphore_fd) extensions.push_back(VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
    if (!options.surface_extensions.empty()) {
      if (!has_extension(m_physical, VK_KHR_SWAPCHAIN_EXTENSION_NAME))
        throw std::runtime_error("Vulkan: " + m_info.name +
                                 " lacks " VK_KHR_SWAPCHAIN_EXTENSION_NAME
                                 ": it cannot present to a window; run headless");
      extensions.push_back(VK_KHR_SWAPCHAIN_EXTENSION_NAME);
      m_presentation = true;
    }
    if (has_extension(m_physical, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME)) {
      extensions.push_back(VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
      auto host = lab::vulkan::make<VkPhysicalDeviceExternalMemoryHostPropertiesEXT>(
          VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT);
      auto properties =
          lab::vulkan::make<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
      properties.pNext = &host;
      vkGetPhysicalDeviceProperties2(m_physical, &properties);
      m_host_import_alignment = host.minImportedHostPointerAlignment;
    }
    const float priority = 1.0f;
    auto queue = lab::vulkan::make<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
    queue.queueFamilyIndex = m_queue_family;
    queue.queueCount = 1;
    queue.pQueuePriorities = &priority;
    auto features12 = lab::vulkan::make<VkPhysicalDeviceVulkan12Features>(
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
    features12.timelineSemaphore = VK_TRUE;
    auto create = lab::vulkan::make<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
    create.pNext = &features12;
    create.queueCreateInfoCount = 1;
    create.pQueueCreateInfos = &queue;
    create.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    create.ppEnabledExtensionNames = extensions.data();
    check(vkCreateDevice(m_physical, &create, nullptr, &m_device), "vkCreateDevice");
    vkGetDeviceQueue(m_device, m_queue_family, 0, &m_queue);
    auto pool = lab::vulkan::make<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
    pool.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    pool.queueFamilyIndex = m_queue_family;
    check(vkCreateCommandPool(m_device, &pool, nullptr, &m_pool), "vkCreateCommandPool");
  } catch (...) {
    release();
    throw;
  }
}

Context::~Context() {
  release();
}

void Context::release() {
  if (m_device != VK_NULL_HANDLE) {
    vkDeviceWaitIdle(m_device);
    if (m_pool != VK_NULL_HANDLE) vkDestroyCommandPool(m_device, m_pool, nullptr);
    vkDestroyDevice(m_device, nullptr);
  }
  if (m_messenger != VK_NULL_HANDLE) {
    auto destroy_messenger = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(m_instance, "vkDestroyDebugUtilsMessengerEXT"));
    if (destroy_messenger != nullptr) destroy_messenger(m_instance, m_messenger, nullptr);
  }
  if (m_instance != VK_NULL_HANDLE) vkDestroyInstance(m_instance, nullptr);
  m_pool = VK_NULL_HANDLE;
  m_device = VK_NULL_HANDLE;
  m_messenger = VK_NULL_HANDLE;
  m_instance = VK_NULL_HANDLE;
}

std::optional<uint32_t> find_memory_type(const VkPhysicalDeviceMemoryProperties& types,
                                         uint32_t allowed_types, VkMemoryPropertyFlags properties) {
  for (uint32_t i = 0; i < types.memoryTypeCount; ++i)
    if ((allowed_types & (1u << i)) && (types.memoryTypes[i].propertyFlags & properties) == properties)
      return i;
  return std::nullopt;
}

std::optional<uint32_t> Context::find_memory_type(uint32_t allowed_types,
                                                  VkMemoryPropertyFlags properties) const {
  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(m_physical, &memory);
  return vulkan::find_memory_type(memory, allowed_types, properties);
}

uint32_t Context::memory_type(uint32_t allowed_types, VkMemoryPropertyFlags properties) const {
  if (const std::optional<uint32_t> type = find_memory_type(allowed_types, properties)) return *type;
  throw std::runtime_error("Vulkan: " + m_info.name + " has no memory type with the properties asked for");
}

VkCommandBuffer Context::begin_commands() {
  auto allocate =
      lab::vulkan::make<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
  allocate.commandPool = m_pool;
  allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate.commandBufferCount = 1;
  VkCommandBuffer commands = VK_NULL_HANDLE;
  check(vkAllocateCommandBuffers(m_device, &allocate, &commands), "vkAllocateCommandBuffers");
  auto begin = lab::vulkan::make<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check(vkBeginCommandBuffer(commands, &begin), "vkBeginCommandBuffer");
  return commands;
}

void Context::end_and_submit(VkCommandBuffer commands, VkSemaphore semaphore, uint64_t wait_value,
                             uint64_t signal_value, bool wait_idle) {
  check(vkEndCommandBuffer(commands), "vkEndCommandBuffer");
  const TimelineSubmit submit(semaphore, wait_value, signal_value, commands);
  // A command buffer still pending is freed with the pool (the context waits for the device first).
  const VkResult submitted = vkQueueSubmit(m_queue, 1, submit.info(), VK_NULL_HANDLE);
  if (submitted != VK_SUCCESS || wait_idle) vkQueueWaitIdle(m_queue);
  if (submitted != VK_SUCCESS || wait_idle) vkFreeCommandBuffers(m_device, m_pool, 1, &commands);
  check(submitted, "vkQueueSubmit");
}

// ---- exportable objects

ExportableBuffer::ExportableBuffer(Context& context, VkDeviceSize size, VkBufferUsageFlags usage)
    : m_context(context) {
  VkDevice device = context.device();
  auto external = lab::vulkan::make<VkExternalMemoryBufferCreateInfo>(
      VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO);
  external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkBufferCreateInfo create = buffer_create_info(size, usage);
  create.pNext = &external;
  VkBuffer buffer = VK_NULL_HANDLE;
  check(vkCreateBuffer(device, &create, nullptr, &buffer), "vkCreateBuffer (exportable)");
  m_buffer = UniqueBuffer(device, buffer);
  VkMemoryRequirements requirements;
  vkGetBufferMemoryRequirements(device, buffer, &requirements);
  m_allocation_size = requirements.size;
  const VkDeviceMemory memory =
      allocate_memory(device, buffer, VK_NULL_HANDLE, requirements.size,
                      context.memory_type(requirements.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT),
                      /*exportable=*/true, "vkAllocateMemory (exportable)");
  m_memory = UniqueMemory(device, memory);
  check(vkBindBufferMemory(device, buffer, memory, 0), "vkBindBufferMemory");
}

int ExportableBuffer::export_fd() const {
  return export_memory_fd(m_context, m_memory.get());
}

Allocation allocate_dedicated(const Context& context, VkBuffer buffer, VkImage image,
                              VkMemoryPropertyFlags properties, bool exportable,
                              VkMemoryPropertyFlags preferred) {
  VkDevice device = context.device();
  VkMemoryRequirements requirements;
  if (buffer != VK_NULL_HANDLE)
    vkGetBufferMemoryRequirements(device, buffer, &requirements);
  else
    vkGetImageMemoryRequirements(device, image, &requirements);
  const std::optional<uint32_t> best =
      context.find_memory_type(requirements.memoryTypeBits, properties | preferred);
  const VkDeviceMemory memory = allocate_memory(
      device, buffer, image, requirements.size,
      best ? *best : context.memory_type(requirements.memoryTypeBits, properties), exportable,
      exportable ? "vkAllocateMemory (exportable, dedicated)" : "vkAllocateMemory (dedicated)");
  Allocation allocation{UniqueMemory(device, memory), requirements.size};
  if (buffer != VK_NULL_HANDLE)
    check(vkBindBufferMemory(device, buffer, memory, 0), "vkBindBufferMemory");
  else
    check(vkBindImageMemory(device, image, memory, 0), "vkBindImageMemory");
  return allocation;
}

int export_memory_fd(const Context& context, VkDeviceMemory memory) {
  auto get_fd =
      reinterpret_cast<PFN_vkGetMemoryFdKHR>(vkGetDeviceProcAddr(context.device(), "vkGetMemoryFdKHR"));
  if (get_fd == nullptr) throw std::runtime_error("Vulkan: vkGetMemoryFdKHR is missing");
  auto info = lab::vulkan::make<VkMemoryGetFdInfoKHR>(VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR);
  info.memory = memory;
  info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  int fd = -1;
  check(get_fd(context.device(), &info, &fd), "vkGetMemoryFdKHR");
  return fd;
}

ExportableSemaphore::ExportableSemaphore(Context& context, interop::SemaphoreKind kind)
    : m_context(context), m_kind(kind) {
  if (!context.info().external_semaphore_fd)
    throw std::runtime_error("Vulkan: " + context.info().name +
                             " lacks " VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME
                             ": its semaphores cannot be exported to CUDA");
  if (kind == interop::SemaphoreKind::Timeline && !context.info().timeline_semaphores)
    throw std::runtime_error(
        "Vulkan: " + context.info().name +
        " lacks timeline semaphores (Vulkan 1.2 timelineSemaphore); use binary semaphores");
  m_semaphore = create_semaphore(
      context.device(),
      kind == interop::SemaphoreKind::Timeline ? VK_SEMAPHORE_TYPE_TIMELINE : VK_SEMAPHORE_TYPE_BINARY,
      /*exportable=*/true, "vkCreateSemaphore (exportable)");
}

ExportableSemaphore::~ExportableSemaphore() {
  if (m_semaphore != VK_NULL_HANDLE) vkDestroySemaphore(m_context.device(), m_semaphore, nullptr);
}

int ExportableSemaphore::export_fd() const {
  auto get_fd = reinterpret_cast<PFN_vkGetSemaphoreFdKHR>(
      vkGetDeviceProcAddr(m_context.device(), "vkGetSemaphoreFdKHR"));
  if (get_fd == nullptr) throw std::runtime_error("Vulkan: vkGetSemaphoreFdKHR is missing");
  auto info = make<VkSemaphoreGetFdInfoKHR>(VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR);
  info.semaphore = m_semaphore;
  info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  int fd = -1;
  check(get_fd(m_context.device(), &info, &fd), "vkGetSemaphoreFdKHR");
  return fd;
}

uint64_t ExportableSemaphore::value() const {
  uint64_t value = 0;
  check(vkGetSemaphoreCounterValue(m_context.device(), m_semaphore, &value), "vkGetSemaphoreCounterValue");
  return value;
}

}  // namespace lab::vulkan
