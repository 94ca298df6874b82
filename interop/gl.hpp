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
  GLuint texture = 0;             // a GL texture name with storage (glTextureStorage2D)
  GLenum target = GL_TEXTURE_2D;  // or GL_TEXTURE_RECTANGLE, _CUBE_MAP, _3D, _2D_ARRAY, GL_RENDERBUFFER
  GLenum internal_format = 0;     // 0: queried from the texture at registration
  Access access = Access::ReadWrite;
  bool surface_load_store = false;  // CUDA writes through a surface object
  bool texture_gather = false;      // CUDA reads with tex2Dgather
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

// What every GL registration has, whatever kind of object it registers: the resource and the map
// flags it is set to. Containers of registrations of both kinds hold this type (a scene's buffers and
// textures mapped in one call); the desc a registration was made from matters only while registering.
class GlRegistrationBase {
 public:
  GlRegistrationBase() = default;

  cudaGraphicsResource_t resource() const { return m_resource.get(); }
  explicit operator bool() const { return static_cast<bool>(m_resource); }
  // Changes how the next map treats the contents (cudaGraphicsResourceSetMapFlags); the resource
  // must not be mapped.
  void set_map_access(Access access);
  Access map_access() const { return m_map_access; }

 protected:
  // Takes ownership of a registration made with `access` (its register flags are its first map flags).
  void adopt(cudaGraphicsResource_t resource, Access access);

 private:
  Access m_map_access = Access::ReadWrite;
  GraphicsResource m_resource;
};

namespace detail {
// Validates the desc (throwing interop::Error with validate()'s message) and registers its GL object.
// The texture overload first completes an internal_format of 0 from the texture.
cudaGraphicsResource_t register_gl_object(const BufferRegistrationDesc& desc);
cudaGraphicsResource_t register_gl_object(TextureRegistrationDesc& desc);
}  // namespace detail

// A GL object registered with CUDA, as its desc says: a buffer (mapped, it yields a pointer) or a
// texture / renderbuffer (mapped, it yields cudaArrays). Borrows the GL object: the caller keeps it
// alive and deletes it only after this registration is destroyed. Copy is deleted, move empties the
// source.
template <class Desc>
class GlRegistration : public GlRegistrationBase {
 public:
  GlRegistration() = default;
  explicit GlRegistration(const Desc& desc) : m_desc(desc) {
    adopt(detail::register_gl_object(m_desc), m_desc.access);
  }

  // The desc as registered (a texture's internal_format filled in when it was 0).
  const Desc& desc() const { return m_desc; }

 private:
  Desc m_desc;
};

using GlBufferRegistration = GlRegistration<BufferRegistrationDesc>;
using GlTextureRegistration = GlRegistration<TextureRegistrationDesc>;

// Resources registered and mapped through this library and not yet released, process-wide. Tests
// and the app's leak checks read them: the CUDA runtime offers no way to enumerate registrations.
int live_registrations();
int live_mappings();

}  // namespace interop
