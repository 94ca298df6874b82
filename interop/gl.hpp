// interop/gl.hpp — registration of OpenGL buffers and textures with CUDA, as move-only RAII types.
//
// Register once, map every frame (interop/mapping.hpp), unregister before the GL object is deleted:
// a registration must die before its GL object, which must die before the context.
// Needs: a current GL context on an NVIDIA GPU that the current CUDA device can use
// (interop/device.hpp checks this); the GL object must already have storage.
// GL comes from INTEROP_LAB_GL_HEADER (interop/config.hpp; default <glad/gl.h>): bring your own loader
// by setting it, and the CMake cache variable INTEROP_LAB_GL_TARGET, when configuring the library.
#pragma once

#include "interop/config.hpp"

#include INTEROP_LAB_GL_HEADER
// The loader's header defines the guards of GL/gl.h, so cuda_gl_interop.h pulls in no second GL header.
#include <cuda_gl_interop.h>

#include "interop/access.hpp"
#include "interop/owner.hpp"

#include <string>

namespace interop {

struct BufferRegistrationDesc {
  GLuint buffer = 0;  // a GL buffer name with storage (glNamedBufferStorage / glNamedBufferData)
  Access access = Access::ReadWrite;
};

struct TextureRegistrationDesc {
  GLuint texture = 0;                    // a GL texture name with storage (glTextureStorage2D)
  GLenum target = GL_TEXTURE_2D;         // or GL_TEXTURE_RECTANGLE, _CUBE_MAP, _3D, _2D_ARRAY, GL_RENDERBUFFER
  GLenum internal_format = 0;            // 0: queried from the texture at registration
  Access access = Access::ReadWrite;
  bool surface_load_store = false;       // CUDA writes through a surface object
  bool texture_gather = false;           // CUDA reads with tex2Dgather
};

// Checks a desc without touching GL or CUDA. Returns "" when valid, else one message that names the
// field and the fix, e.g. "TextureRegistrationDesc.internal_format: GL_RGB8 cannot be registered with
// CUDA; use GL_RGBA8".
std::string validate(const BufferRegistrationDesc& desc);
std::string validate(const TextureRegistrationDesc& desc);

// "GL_RGBA8" for GL_RGBA8; hex for formats it does not know.
std::string gl_format_name(GLenum internal_format);

// The cudaGraphicsRegisterFlags a desc asks for.
unsigned int register_flags(const BufferRegistrationDesc& desc);
unsigned int register_flags(const TextureRegistrationDesc& desc);
unsigned int map_flags(Access access);

namespace detail {
struct GraphicsResourceTraits {
  using Handle = cudaGraphicsResource_t;
  static void destroy(Handle resource) noexcept;  // cudaGraphicsUnregisterResource, reported
};
}  // namespace detail

// One registered graphics resource: unregisters in its destructor. Copy is deleted, move empties
// the source (so exactly one owner unregisters).
class GraphicsResource {
 public:
  GraphicsResource() = default;
  explicit GraphicsResource(cudaGraphicsResource_t resource);

  cudaGraphicsResource_t get() const { return m_resource.get(); }
  explicit operator bool() const { return static_cast<bool>(m_resource); }
  // Unregisters now (throws on failure, unlike the destructor, which reports and goes on).
  void reset();

 private:
  Owner<detail::GraphicsResourceTraits> m_resource;
};

// A GL buffer registered with CUDA. Borrows the GL buffer: the caller keeps it alive and deletes it
// only after this registration is destroyed.
class GlBufferRegistration {
 public:
  GlBufferRegistration() = default;
  explicit GlBufferRegistration(const BufferRegistrationDesc& desc);

  cudaGraphicsResource_t resource() const { return m_resource.get(); }
  const BufferRegistrationDesc& desc() const { return m_desc; }
  explicit operator bool() const { return static_cast<bool>(m_resource); }
  // Changes how the next map treats the contents (cudaGraphicsResourceSetMapFlags); the resource
  // must not be mapped.
  void set_map_access(Access access);
  Access map_access() const { return m_map_access; }

 private:
  BufferRegistrationDesc m_desc;
  Access m_map_access = Access::ReadWrite;
  GraphicsResource m_resource;
};

// A GL texture (or renderbuffer) registered with CUDA; mapped, it yields cudaArrays. Borrows the texture.
class GlTextureRegistration {
 public:
  GlTextureRegistration() = default;
  explicit GlTextureRegistration(const TextureRegistrationDesc& desc);

  cudaGraphicsResource_t resource() const { return m_resource.get(); }
  const TextureRegistrationDesc& desc() const { return m_desc; }
  explicit operator bool() const { return static_cast<bool>(m_resource); }
  void set_map_access(Access access);
  Access map_access() const { return m_map_access; }

 private:
  TextureRegistrationDesc m_desc;
  Access m_map_access = Access::ReadWrite;
  GraphicsResource m_resource;
};

// Resources registered and mapped through this library and not yet released, process-wide. Tests
// and the app's leak checks read them: the CUDA runtime offers no way to enumerate registrations.
int live_registrations();
int live_mappings();

}  // namespace interop
