// app/gl/gl_external.hpp — GL's side of external memory: memory and semaphores another API (Vulkan)
// allocated and exported as opaque FDs, imported into GL (GL_EXT_memory_object_fd, GL_EXT_semaphore_fd,
// GL_NV_timeline_semaphore for timelines), and GL textures and buffers whose storage is that memory. No
// register, no map: GL and the exporter order their work with the imported semaphores.
//
// Ownership: a successful glImport*FdEXT transfers the FD to the GL driver; it is never closed here.
// When the import fails (a GL error), the FD is still the caller's and import_* closes it before
// throwing. A GL object made from imported memory must be deleted before the memory object.
#pragma once

#include "app/gl/gl_objects.hpp"
#include "interop/device.hpp"

#include <glad/gl.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace lab::gl {

struct GlMemoryObjectTraits {
  static void destroy(GLuint name) { glDeleteMemoryObjectsEXT(1, &name); }
};
struct GlSemaphoreTraits {
  static void destroy(GLuint name) { glDeleteSemaphoresEXT(1, &name); }
};
using GlMemoryObject = GlObject<GlMemoryObjectTraits>;
using GlSemaphore = GlObject<GlSemaphoreTraits>;

using GlUuid = std::array<uint8_t, 16>;  // GL_UUID_SIZE_EXT

// What the current GL context offers for external memory.
struct GlExternalSupport {
  bool memory_fd = false;            // GL_EXT_memory_object + GL_EXT_memory_object_fd
  bool semaphore_fd = false;         // GL_EXT_semaphore + GL_EXT_semaphore_fd
  bool timeline = false;             // GL_NV_timeline_semaphore
  std::vector<GlUuid> device_uuids;  // GL_DEVICE_UUID_EXT, one per device the context runs on
  GlUuid driver_uuid{};              // GL_DRIVER_UUID_EXT
  // "" when memory can be imported; else the missing extensions, named.
  std::string memory_missing() const;
  // "" when semaphores of that kind can be imported; else what is missing.
  std::string semaphore_missing(bool timeline_semaphore) const;
};
// Needs a current GL context with glad loaded.
GlExternalSupport query_gl_external_support();

// Whether the GL external mode can run with the current GL context and CUDA device `cuda_device`: GL
// imports memory and semaphores as FDs and runs on that very device (GL_DEVICE_UUID_EXT equal to the CUDA
// device's UUID). What Vulkan lacks is said when the mode attaches.
interop::InteropSupport probe_gl_external(int cuda_device);

// Imports `size` bytes of memory exported as an opaque FD; `dedicated`: the exporter made a dedicated
// allocation (GL_DEDICATED_MEMORY_OBJECT_EXT must then be set before the import). Throws
// std::runtime_error naming the GL error.
GlMemoryObject import_memory_fd(int fd, uint64_t size, bool dedicated);
// An immutable RGBA8 texture / a buffer whose storage is `memory` at `offset`.
GlTexture texture_from_memory(GLuint memory, int width, int height, uint64_t offset,
                              const std::string& label = "");
GlBuffer buffer_from_memory(GLuint memory, uint64_t size, uint64_t offset, const std::string& label = "");
// Imports a semaphore exported as an opaque FD; `timeline`: a timeline semaphore (GL_NV_timeline_semaphore).
GlSemaphore import_semaphore_fd(int fd, bool timeline);

// Waits (on the GPU) for `semaphore` to reach `value` (timeline; binary: 0) before GL's next commands
// touch `buffers` and `textures`; textures are taken in `layout` (e.g. GL_LAYOUT_GENERAL_EXT).
void wait_semaphore(const GlSemaphore& semaphore, uint64_t value, const std::vector<GLuint>& buffers,
                    const std::vector<GLuint>& textures, GLenum layout);
// Signals `semaphore` (at `value` for a timeline) once GL's commands so far are done with them, leaving
// textures in `layout`. Flushes, so the signal reaches the GPU.
void signal_semaphore(const GlSemaphore& semaphore, uint64_t value, const std::vector<GLuint>& buffers,
                      const std::vector<GLuint>& textures, GLenum layout);

}  // namespace lab::gl
