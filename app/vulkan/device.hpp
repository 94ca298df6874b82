// app/vulkan/device.hpp — the Vulkan device of external resource interop: a headless Vulkan device on the
// GPU whose UUID is a CUDA device's (never matched by ordinal), buffers whose memory is exported as an
// opaque FD, and timeline semaphores exported the same way, for interop::ExternalMemory and
// interop::ExternalSemaphore to import. Needs the Vulkan loader (Debian: libvulkan1) and a driver with
// VK_KHR_external_memory_fd (and VK_KHR_external_semaphore_fd for semaphores); each missing piece is
// named in the exception. The Khronos validation layer is enabled where it is installed, and every
// message it reports is counted (validation_messages()). Also the pieces the renderer builds on: one
// move-only owner per Vulkan object (Unique), and dedicated, optionally exportable, allocations.
#pragma once

#include "interop/external.hpp"

#include <vulkan/vulkan.h>

#include <array>
#include <cstdint>
#include <future>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace lab::vulkan {

using Uuid = std::array<uint8_t, VK_UUID_SIZE>;

// A zeroed Vulkan struct with its sType set: `auto info = make<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_...)`.
template <class T>
T make(VkStructureType type) {
  T value{};
  value.sType = type;
  return value;
}

// What the doctor shows of one Vulkan physical device.
struct DeviceInfo {
  std::string name;
  Uuid uuid{};
  uint32_t api_version = 0;
  bool external_memory_fd = false;     // VK_KHR_external_memory_fd
  bool external_semaphore_fd = false;  // VK_KHR_external_semaphore_fd
  bool timeline_semaphores = false;    // Vulkan 1.2's timelineSemaphore feature
};

// Runs `work` on a thread of its own and returns what it returns (or rethrows what it throws). NVIDIA's
// Vulkan driver (580 series) leaves the calling thread without its current GL context once a VkInstance is
// destroyed; code that runs beside a GL context (the doctor, the GL external mode) creates and destroys
// its Vulkan instances through this, so GL's context stays current on its own thread.
template <class Work>
auto on_own_thread(Work work) {
  return std::async(std::launch::async, std::move(work)).get();
}

// Every physical device the loader sees; throws std::runtime_error (with what to install) without one.
std::vector<DeviceInfo> enumerate_devices();

// "a1b2c3d4-..." as CUDA and nvidia-smi print UUIDs.
std::string to_string(const Uuid& uuid);

// Throws std::runtime_error "Vulkan: <call>: <result's name>" unless `result` is VK_SUCCESS.
void check(VkResult result, const char* call);

// What the validation layer checks, where it is installed. Synchronization adds its synchronization
// validation (hazards between commands and submissions that lack a barrier or semaphore): thorough and
// slow, for tests.
enum class Validation { Standard, Synchronization };

// Whether the Vulkan contexts made while it lives leave the validation layer out, where it is installed
// (every context loads it by default): the benchmarks hold one, since the layer's checks cost time in every
// Vulkan call they measure (on an H200, Vulkan's external pattern frame at 4K took 0.472 ms with it, 0.427
// without). Contexts made on other threads while it lives leave the layer out too.
class WithoutValidationLayer {
 public:
  WithoutValidationLayer();
  ~WithoutValidationLayer();
  WithoutValidationLayer(const WithoutValidationLayer&) = delete;
  WithoutValidationLayer& operator=(const WithoutValidationLayer&) = delete;
  // Whether the layer is installed (the loader lists it), that is, whether this leaves anything out.
  static bool layer_installed();

 private:
  bool m_before;
};

// What a benchmark says, where the layer is installed, of the contexts it measures.
constexpr const char* kWithoutValidationNote =
    "the Vulkan validation layer is installed; the benchmark's Vulkan contexts leave it out (its checks cost "
    "time in every Vulkan call measured)";

struct ContextOptions {
  Validation validation = Validation::Standard;
  // The instance extensions a window's surface needs (glfwGetRequiredInstanceExtensions). When given, the
  // device also gets VK_KHR_swapchain, so a Presenter can show frames in that window.
  std::vector<std::string> surface_extensions;
};

// The first of `types`' memory types in `allowed_types` (a memoryTypeBits mask) that has all of
// `properties`; none when no type does.
std::optional<uint32_t> find_memory_type(const VkPhysicalDeviceMemoryProperties& types,
                                         uint32_t allowed_types, VkMemoryPropertyFlags properties);

class Context {
 public:
  // The device whose UUID is `uuid` (a CUDA device's cudaDeviceProp::uuid); null: the first device.
  // Throws std::runtime_error naming what is missing (loader, device, extension).
  explicit Context(const Uuid* uuid, const ContextOptions& options = {});
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  VkInstance instance() const { return m_instance; }
  VkPhysicalDevice physical_device() const { return m_physical; }
  VkDevice device() const { return m_device; }
  VkQueue queue() const { return m_queue; }
  // The queue's family: one with graphics where the device has one (every family with graphics can
  // also transfer), else compute only.
  uint32_t queue_family() const { return m_queue_family; }
  bool queue_has_graphics() const { return m_queue_graphics; }
  const DeviceInfo& info() const { return m_info; }
  // Messages the validation layer reported (warnings and errors); 0 when the layer is not installed.
  int validation_messages() const { return m_messages; }
  bool validation_enabled() const { return m_messenger != VK_NULL_HANDLE; }
  bool synchronization_validation() const {
    return validation_enabled() && m_validation == Validation::Synchronization;
  }
  // Made with ContextOptions::surface_extensions: VK_KHR_swapchain is on.
  bool presentation() const { return m_presentation; }
  // Host memory the GPU may write into, imported as device memory (VK_EXT_external_memory_host, on where the
  // device has it): the pointer and size aligned to host_import_alignment(). 0: the device has no such
  // import.
  VkDeviceSize host_import_alignment() const { return m_host_import_alignment; }

  // The first of `allowed_types` (a memoryTypeBits mask) that has all of `properties`; throws without one.
  uint32_t memory_type(uint32_t allowed_types, VkMemoryPropertyFlags properties) const;
  // The same, or none.
  std::optional<uint32_t> find_memory_type(uint32_t allowed_types, VkMemoryPropertyFlags properties) const;
  // Records commands with `record` into a one-time command buffer and submits it, waiting on and
  // signalling timeline `semaphore` at the given values (0: no wait / no signal), then waits for the
  // queue to finish it on the host when `wait_idle` (else the command buffer lives until the context).
  template <class Record>
  void submit(Record record, VkSemaphore semaphore, uint64_t wait_value, uint64_t signal_value,
              bool wait_idle) {
    VkCommandBuffer commands = begin_commands();
    record(commands);
    end_and_submit(commands, semaphore, wait_value, signal_value, wait_idle);
  }

 private:
  void release();
  VkCommandBuffer begin_commands();
  void end_and_submit(VkCommandBuffer commands, VkSemaphore semaphore, uint64_t wait_value,
                      uint64_t signal_value, bool wait_idle);
  static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                   VkDebugUtilsMessageTypeFlagsEXT types,
                                                   const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                   void* self);

  VkInstance m_instance = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT m_messenger = VK_NULL_HANDLE;
  VkPhysicalDevice m_physical = VK_NULL_HANDLE;
  VkDevice m_device = VK_NULL_HANDLE;
  VkQueue m_queue = VK_NULL_HANDLE;
  uint32_t m_queue_family = 0;
  bool m_queue_graphics = false;
  VkDeviceSize m_host_import_alignment = 0;
  VkCommandPool m_pool = VK_NULL_HANDLE;
  DeviceInfo m_info;
  Validation m_validation = Validation::Standard;
  bool m_presentation = false;
  int m_messages = 0;
};

// Owns one object of a VkDevice and destroys it with `Destroy` (vkDestroyBuffer, vkFreeMemory, ...).
// Move-only; a moved-from or default Unique holds VK_NULL_HANDLE and destroys nothing. The device is
// borrowed: it must outlive the object.
template <class Handle, void(VKAPI_PTR* Destroy)(VkDevice, Handle, const VkAllocationCallbacks*)>
class Unique {
 public:
  Unique() = default;
  Unique(VkDevice device, Handle handle) : m_device(device), m_handle(handle) {}
  ~Unique() { reset(); }
  Unique(Unique&& other) noexcept
      : m_device(other.m_device), m_handle(std::exchange(other.m_handle, Handle(VK_NULL_HANDLE))) {}
  Unique& operator=(Unique&& other) noexcept {
    if (this != &other) {
      reset();
      m_device = other.m_device;
      m_handle = std::exchange(other.m_handle, Handle(VK_NULL_HANDLE));
    }
    return *this;
  }
  Unique(const Unique&) = delete;
  Unique& operator=(const Unique&) = delete;

  Handle get() const { return m_handle; }
  explicit operator bool() const { return m_handle != VK_NULL_HANDLE; }
  void reset() {
    if (m_handle != VK_NULL_HANDLE)
      Destroy(m_device, std::exchange(m_handle, Handle(VK_NULL_HANDLE)), nullptr);
  }

 private:
  VkDevice m_device = VK_NULL_HANDLE;
  Handle m_handle = VK_NULL_HANDLE;
};

using UniqueBuffer = Unique<VkBuffer, vkDestroyBuffer>;
using UniqueImage = Unique<VkImage, vkDestroyImage>;
using UniqueImageView = Unique<VkImageView, vkDestroyImageView>;
using UniqueMemory = Unique<VkDeviceMemory, vkFreeMemory>;
using UniqueSemaphore = Unique<VkSemaphore, vkDestroySemaphore>;
using UniqueCommandPool = Unique<VkCommandPool, vkDestroyCommandPool>;
using UniqueRenderPass = Unique<VkRenderPass, vkDestroyRenderPass>;
using UniqueFramebuffer = Unique<VkFramebuffer, vkDestroyFramebuffer>;
using UniqueShaderModule = Unique<VkShaderModule, vkDestroyShaderModule>;
using UniqueDescriptorSetLayout = Unique<VkDescriptorSetLayout, vkDestroyDescriptorSetLayout>;
using UniqueDescriptorPool = Unique<VkDescriptorPool, vkDestroyDescriptorPool>;
using UniquePipelineLayout = Unique<VkPipelineLayout, vkDestroyPipelineLayout>;
using UniquePipeline = Unique<VkPipeline, vkDestroyPipeline>;
using UniqueQueryPool = Unique<VkQueryPool, vkDestroyQueryPool>;

// A dedicated allocation for exactly one buffer or image (the other is VK_NULL_HANDLE), bound to it. With
// `exportable` its memory can be exported as an opaque FD (the object must have been created with
// VkExternalMemory{Buffer,Image}CreateInfo for that handle type): what CUDA imports, and what CUDA's
// import requires of an image (cudaExternalMemoryDedicated).
struct Allocation {
  UniqueMemory memory;
  VkDeviceSize size = 0;  // vkGet*MemoryRequirements: what an importer must be told
};
// `preferred` properties are had where a memory type has them too (e.g. HOST_CACHED for read-backs).
Allocation allocate_dedicated(const Context& context, VkBuffer buffer, VkImage image,
                              VkMemoryPropertyFlags properties, bool exportable,
                              VkMemoryPropertyFlags preferred = 0);

// A new opaque FD for `memory` (allocated exportable); the importer owns it once its import succeeds.
int export_memory_fd(const Context& context, VkDeviceMemory memory);

// A buffer in device memory that can be exported (opaque FD, dedicated allocation), with `usage` bits.
class ExportableBuffer {
 public:
  ExportableBuffer(Context& context, VkDeviceSize size, VkBufferUsageFlags usage);
  ExportableBuffer(const ExportableBuffer&) = delete;
  ExportableBuffer& operator=(const ExportableBuffer&) = delete;

  VkBuffer buffer() const { return m_buffer.get(); }
  // The allocation's size (vkGetMemoryRequirements): what the importer must be told.
  VkDeviceSize allocation_size() const { return m_allocation_size; }
  // A new FD for the memory each call; the importer owns it once its import succeeds.
  int export_fd() const;

 private:
  // Destroyed in reverse order: the memory, then the buffer.
  Context& m_context;
  UniqueBuffer m_buffer;
  UniqueMemory m_memory;
  VkDeviceSize m_allocation_size = 0;
};

// A semaphore (binary or timeline) whose payload can be exported as an opaque FD, for CUDA (and GL) to
// import. Throws std::runtime_error naming the missing extension or feature.
class ExportableSemaphore {
 public:
  ExportableSemaphore(Context& context, interop::SemaphoreKind kind);
  ~ExportableSemaphore();
  ExportableSemaphore(const ExportableSemaphore&) = delete;
  ExportableSemaphore& operator=(const ExportableSemaphore&) = delete;

  VkSemaphore get() const { return m_semaphore; }
  interop::SemaphoreKind kind() const { return m_kind; }
  // A new FD each call; the importer owns it once its import succeeds.
  int export_fd() const;
  uint64_t value() const;  // a timeline's counter (vkGetSemaphoreCounterValue)

 private:
  Context& m_context;
  interop::SemaphoreKind m_kind;
  VkSemaphore m_semaphore = VK_NULL_HANDLE;
};

}  // namespace lab::vulkan
