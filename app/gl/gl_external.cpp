// app/gl/gl_external.cpp — imports of exported memory and semaphores into GL (see gl_external.hpp).
#include "app/gl/gl_external.hpp"

#include "app/gl/gl_objects.hpp"
#include "app/os/os.hpp"
#include "interop/error.hpp"

#include <cuda_runtime_api.h>

#include <cstring>

namespace lab::gl {

std::string GlExternalSupport::memory_missing() const {
  return memory_fd ? "" : "GL_EXT_memory_object_fd (import of memory exported as an opaque FD)";
}

std::string GlExternalSupport::semaphore_missing(bool timeline_semaphore) const {
  if (!semaphore_fd) return "GL_EXT_semaphore_fd (import of semaphores exported as an opaque FD)";
  if (timeline_semaphore && !timeline) return "GL_NV_timeline_semaphore (timeline semaphores in GL)";
  return "";
}

GlExternalSupport query_gl_external_support() {
  GlExternalSupport support;
  support.memory_fd = GLAD_GL_EXT_memory_object && GLAD_GL_EXT_memory_object_fd;
  support.semaphore_fd = GLAD_GL_EXT_semaphore && GLAD_GL_EXT_semaphore_fd;
  support.timeline = GLAD_GL_NV_timeline_semaphore;
  if (GLAD_GL_EXT_memory_object || GLAD_GL_EXT_semaphore) {
    GLint devices = 0;
    glGetIntegerv(GL_NUM_DEVICE_UUIDS_EXT, &devices);
    for (GLint index = 0; index < devices; ++index) {
      GlUuid uuid{};
      glGetUnsignedBytei_vEXT(GL_DEVICE_UUID_EXT, static_cast<GLuint>(index), uuid.data());
      support.device_uuids.push_back(uuid);
    }
    glGetUnsignedBytevEXT(GL_DRIVER_UUID_EXT, support.driver_uuid.data());
    INTEROP_GL_CHECK("glGetUnsignedBytevEXT(GL_DEVICE_UUID_EXT, GL_DRIVER_UUID_EXT)");
  }
  return support;
}

interop::InteropSupport probe_gl_external(int cuda_device) {
  using Condition = interop::Condition;
  if (cuda_device < 0) return {false, "no CUDA device", Condition::NoCudaDevice};
  const GlExternalSupport support = query_gl_external_support();
  const std::string renderer = gl_string(GL_RENDERER);
  std::string missing = support.memory_missing();
  if (missing.empty()) missing = support.semaphore_missing(false);
  if (!missing.empty())
    return {false,
            "GL (" + renderer + ") lacks " + missing + ": the external mode needs it; use --api vulkan",
            Condition::None};
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, cuda_device) != cudaSuccess)
    return {false, "cudaGetDeviceProperties failed for CUDA device " + std::to_string(cuda_device),
            Condition::None};
  for (const GlUuid& uuid : support.device_uuids)
    if (std::memcmp(uuid.data(), properties.uuid.bytes, uuid.size()) == 0) return {true, "", Condition::None};
  return {false,
          "GL (" + renderer + ") does not run on CUDA device " + std::to_string(cuda_device) +
              " (no GL_DEVICE_UUID_EXT equals its UUID): memory is shared only on one device",
          Condition::GlNotOnCudaDevice};
}

GlMemoryObject import_memory_fd(int fd, uint64_t size, bool dedicated) {
  GLuint name = 0;
  glCreateMemoryObjectsEXT(1, &name);
  GlMemoryObject memory(name);
  if (dedicated) {
    const GLint yes = GL_TRUE;
    glMemoryObjectParameterivEXT(name, GL_DEDICATED_MEMORY_OBJECT_EXT, &yes);
  }
  glImportMemoryFdEXT(name, size, GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd);
  try {
    INTEROP_GL_CHECK("glImportMemoryFdEXT");
  } catch (...) {
    os::close_file(fd);  // the import failed: the FD was not taken
    throw;
  }
  return memory;
}

GlTexture texture_from_memory(GLuint memory, int width, int height, uint64_t offset,
                              const std::string& label) {
  GlTexture texture = new_texture_2d(label);
  glTextureStorageMem2DEXT(texture.get(), 1, GL_RGBA8, width, height, memory, offset);
  set_nearest_clamped(texture.get());
  INTEROP_GL_CHECK("glTextureStorageMem2DEXT");
  return texture;
}

GlBuffer buffer_from_memory(GLuint memory, uint64_t size, uint64_t offset, const std::string& label) {
  GlBuffer buffer = new_buffer(label);
  glNamedBufferStorageMemEXT(buffer.get(), static_cast<GLsizeiptr>(size), memory, offset);
  INTEROP_GL_CHECK("glNamedBufferStorageMemEXT");
  return buffer;
}

GlSemaphore import_semaphore_fd(int fd, bool timeline) {
  GLuint name = 0;
  if (timeline) {
    // A timeline's type is set on a created (not merely generated) object, before the import
    // (GL_NV_timeline_semaphore: glCreateSemaphoresNV, then GL_SEMAPHORE_TYPE_NV).
    glCreateSemaphoresNV(1, &name);
    const GLint type = GL_SEMAPHORE_TYPE_TIMELINE_NV;
    glSemaphoreParameterivNV(name, GL_SEMAPHORE_TYPE_NV, &type);
  } else {
    glGenSemaphoresEXT(1, &name);
  }
  GlSemaphore semaphore(name);
  glImportSemaphoreFdEXT(name, GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd);
  try {
    INTEROP_GL_CHECK("glImportSemaphoreFdEXT");
  } catch (...) {
    os::close_file(fd);
    throw;
  }
  return semaphore;
}

namespace {

void set_timeline_value(const GlSemaphore& semaphore, uint64_t value) {
  if (value == 0) return;
  const GLuint64 payload = value;
  glSemaphoreParameterui64vEXT(semaphore.get(), GL_TIMELINE_SEMAPHORE_VALUE_NV, &payload);
}

}  // namespace

void wait_semaphore(const GlSemaphore& semaphore, uint64_t value, const std::vector<GLuint>& buffers,
                    const std::vector<GLuint>& textures, GLenum layout) {
  set_timeline_value(semaphore, value);
  const std::vector<GLenum> layouts(textures.size(), layout);
  glWaitSemaphoreEXT(semaphore.get(), static_cast<GLuint>(buffers.size()), buffers.data(),
                     static_cast<GLuint>(textures.size()), textures.data(), layouts.data());
  INTEROP_GL_CHECK("glWaitSemaphoreEXT");
}

void signal_semaphore(const GlSemaphore& semaphore, uint64_t value, const std::vector<GLuint>& buffers,
                      const std::vector<GLuint>& textures, GLenum layout) {
  set_timeline_value(semaphore, value);
  const std::vector<GLenum> layouts(textures.size(), layout);
  glSignalSemaphoreEXT(semaphore.get(), static_cast<GLuint>(buffers.size()), buffers.data(),
                       static_cast<GLuint>(textures.size()), textures.data(), layouts.data());
  glFlush();  // the signal must reach the GPU for the other API's wait to end
  INTEROP_GL_CHECK("glSignalSemaphoreEXT");
}

}  // namespace lab::gl
