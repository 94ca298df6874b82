// app/vulkan/host_frames.hpp — frames in host memory that the GPU copies into directly: each pooled frame's
// pixels (app/image/frame_pool.hpp) imported once as device memory (VK_EXT_external_memory_host) with a
// transfer-target buffer over them, so the desk's read-back (Renderer::begin_read_frame) needs no copy on the
// host, as GL's CUDA read-back page-locks the same frames for CUDA (cudaHostRegister).
//
// An import covers the pixels' pages: from the page of the first byte to the end of the page of the last
// (the device's minImportedHostPointerAlignment). The pool gives every frame two pages more capacity than
// its pixels, so the ranges of two frames never overlap. The pool calls adopt when it makes a frame and
// release when it frees one, from whichever thread lets the frame go; close() (the renderer's end, the
// device still there) frees every import, and a release after it does nothing.
#pragma once

#include "app/image/frame_pool.hpp"
#include "app/vulkan/device.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace lab::vulkan {

class HostFrameImports {
 public:
  // Where a frame's pixels lie for the GPU: `buffer`, its bytes from `offset` on.
  struct Target {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceSize offset = 0;
  };

  // nullptr where `context` cannot import host memory (no VK_EXT_external_memory_host).
  static std::shared_ptr<HostFrameImports> create(const Context& context);
  explicit HostFrameImports(const Context& context);
  ~HostFrameImports();
  HostFrameImports(const HostFrameImports&) = delete;
  HostFrameImports& operator=(const HostFrameImports&) = delete;

  // The pool's hooks: adopt imports a new frame's pixels (a failure is kept, said by failure(), and the
  // frame is read by copying), release frees the import.
  static FramePool::Hooks hooks(const std::shared_ptr<HostFrameImports>& imports);
  void adopt(uint8_t* pixels, size_t bytes);
  void release(uint8_t* pixels);

  // The import of the frame whose pixels start at `pixels`; nullopt when it has none.
  std::optional<Target> find(const uint8_t* pixels) const;
  // Why the last import failed; "" when none did.
  std::string failure() const;
  // Frees every import; later releases do nothing. The device must be idle for what used them.
  void close();

 private:
  struct Import {
    UniqueMemory memory;
    UniqueBuffer buffer;
    VkDeviceSize offset = 0;
  };
  VkDevice m_device;
  VkDeviceSize m_alignment;
  PFN_vkGetMemoryHostPointerPropertiesEXT m_host_pointer_properties = nullptr;
  VkPhysicalDeviceMemoryProperties m_memory_types{};
  mutable std::mutex m_mutex;
  bool m_open = true;
  std::map<const uint8_t*, Import> m_imports;
  std::string m_failure;
};

}  // namespace lab::vulkan
