// interop/gl.cpp — GL buffer/texture registration with CUDA, desc validation and map flags.
#include "interop/gl.hpp"

#include "interop/error.hpp"
#include "interop/gl_context.hpp"

#include <atomic>
#include <cstdio>
#include <utility>

namespace interop {

namespace detail {
// Live-registration and live-mapping counters, shared with mapping.cpp. They are diagnostics (leak
// tests and the app's leak check read them); the CUDA runtime cannot enumerate registrations.
std::atomic<int>& registration_counter() {
  static std::atomic<int> count{0};
  return count;
}
std::atomic<int>& mapping_counter() {
  static std::atomic<int> count{0};
  return count;
}
}  // namespace detail

int live_registrations() {
  return detail::registration_counter().load();
}
int live_mappings() {
  return detail::mapping_counter().load();
}

namespace {

struct FormatName {
  GLenum format;
  const char* name;
  bool registrable;
};

// Formats CUDA can register (cudaGraphicsGLRegisterImage: {R, RG, RGBA} x {8, 16, 16F, 32F, 8UI,
// 16UI, 32UI, 8I, 16I, 32I}) and the common ones it cannot, so messages name both.
constexpr FormatName kFormats[] = {
    {GL_R8, "GL_R8", true},
    {GL_RG8, "GL_RG8", true},
    {GL_RGBA8, "GL_RGBA8", true},
    {GL_R16, "GL_R16", true},
    {GL_RG16, "GL_RG16", true},
    {GL_RGBA16, "GL_RGBA16", true},
    {GL_R16F, "GL_R16F", true},
    {GL_RG16F, "GL_RG16F", true},
    {GL_RGBA16F, "GL_RGBA16F", true},
    {GL_R32F, "GL_R32F", true},
    {GL_RG32F, "GL_RG32F", true},
    {GL_RGBA32F, "GL_RGBA32F", true},
    {GL_R8UI, "GL_R8UI", true},
    {GL_RG8UI, "GL_RG8UI", true},
    {GL_RGBA8UI, "GL_RGBA8UI", true},
    {GL_R16UI, "GL_R16UI", true},
    {GL_RG16UI, "GL_RG16UI", true},
    {GL_RGBA16UI, "GL_RGBA16UI", true},
    {GL_R32UI, "GL_R32UI", true},
    {GL_RG32UI, "GL_RG32UI", true},
    {GL_RGBA32UI, "GL_RGBA32UI", true},
    {GL_R8I, "GL_R8I", true},
    {GL_RG8I, "GL_RG8I", true},
    {GL_RGBA8I, "GL_RGBA8I", true},
    {GL_R16I, "GL_R16I", true},
    {GL_RG16I, "GL_RG16I", true},
    {GL_RGBA16I, "GL_RGBA16I", true},
    {GL_R32I, "GL_R32I", true},
    {GL_RG32I, "GL_RG32I", true},
    {GL_RGBA32I, "GL_RGBA32I", true},
    {GL_RED, "GL_RED", true},
    {GL_RG, "GL_RG", true},
    {GL_RGBA, "GL_RGBA", true},
    {GL_RGB8, "GL_RGB8", false},
    {GL_RGB, "GL_RGB", false},
    {GL_RGB16F, "GL_RGB16F", false},
    {GL_RGB32F, "GL_RGB32F", false},
    {GL_SRGB8, "GL_SRGB8", false},
    {GL_SRGB8_ALPHA8, "GL_SRGB8_ALPHA8", false},
    {GL_RGB10_A2, "GL_RGB10_A2", false},
    {GL_R11F_G11F_B10F, "GL_R11F_G11F_B10F", false},
    {GL_DEPTH_COMPONENT24, "GL_DEPTH_COMPONENT24", false},
    {GL_DEPTH_COMPONENT32F, "GL_DEPTH_COMPONENT32F", false},
    {GL_DEPTH24_STENCIL8, "GL_DEPTH24_STENCIL8", false},
};

const FormatName* find_format(GLenum format) {
  for (const FormatName& entry : kFormats)
    if (entry.format == format) return &entry;
  return nullptr;
}

// The registrable format closest to an unregistrable one, for the message.
const char* suggested_format(GLenum format) {
  switch (format) {
    case GL_RGB8:
    case GL_RGB:
    case GL_SRGB8:
    case GL_SRGB8_ALPHA8:
    case GL_RGB10_A2:
      return "GL_RGBA8";
    case GL_RGB16F:
    case GL_R11F_G11F_B10F:
      return "GL_RGBA16F";
    case GL_RGB32F:
      return "GL_RGBA32F";
    case GL_DEPTH_COMPONENT24:
    case GL_DEPTH_COMPONENT32F:
    case GL_DEPTH24_STENCIL8:
      return "GL_R32F (copy the depth into a colour texture first)";
    default:
      return "GL_RGBA8";
  }
}

bool is_registrable_target(GLenum target) {
  switch (target) {
    case GL_TEXTURE_2D:
    case GL_TEXTURE_RECTANGLE:
    case GL_TEXTURE_CUBE_MAP:
    case GL_TEXTURE_3D:
    case GL_TEXTURE_2D_ARRAY:
    case GL_RENDERBUFFER:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string gl_format_name(GLenum internal_format) {
  if (const FormatName* entry = find_format(internal_format)) return entry->name;
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%04X", internal_format);
  return hex;
}

std::string validate(const BufferRegistrationDesc& desc) {
  if (desc.buffer == 0)
    return "BufferRegistrationDesc.buffer is 0: create the buffer (glCreateBuffers) and give it storage "
           "(glNamedBufferStorage) before registering it";
  return "";
}

std::string validate(const TextureRegistrationDesc& desc) {
  if (desc.texture == 0)
    return "TextureRegistrationDesc.texture is 0: create the texture (glCreateTextures) and give it storage "
           "(glTextureStorage2D) before registering it";
  if (!is_registrable_target(desc.target))
    return "TextureRegistrationDesc.target: " + gl_format_name(desc.target) +
           " cannot be registered with CUDA; use GL_TEXTURE_2D, GL_TEXTURE_RECTANGLE, GL_TEXTURE_CUBE_MAP, "
           "GL_TEXTURE_3D, GL_TEXTURE_2D_ARRAY or GL_RENDERBUFFER";
  if (desc.internal_format != 0) {
    const FormatName* format = find_format(desc.internal_format);
    if (format == nullptr || !format->registrable)
      return "TextureRegistrationDesc.internal_format: " + gl_format_name(desc.internal_format) +
             " cannot be registered with CUDA; use " + suggested_format(desc.internal_format);
  }
  if (desc.surface_load_store && desc.target == GL_RENDERBUFFER)
    return "TextureRegistrationDesc.surface_load_store: a renderbuffer cannot be written through a surface "
           "object; register a GL_TEXTURE_2D instead";
  if (desc.surface_load_store && desc.access == Access::ReadOnly)
    return "TextureRegistrationDesc.surface_load_store with access ReadOnly: surface writes need ReadWrite "
           "or WriteDiscard access";
  if (desc.texture_gather && desc.access == Access::WriteDiscard)
    return "TextureRegistrationDesc.texture_gather with access WriteDiscard: a gathered texture is read; "
           "use ReadOnly or ReadWrite";
  return "";
}

unsigned int map_flags(Access access) {
  switch (access) {
    case Access::ReadOnly:
      return cudaGraphicsMapFlagsReadOnly;
    case Access::WriteDiscard:
      return cudaGraphicsMapFlagsWriteDiscard;
    case Access::ReadWrite:
      break;
  }
  return cudaGraphicsMapFlagsNone;
}

namespace {
unsigned int access_register_flags(Access access) {
  switch (access) {
    case Access::ReadOnly:
      return cudaGraphicsRegisterFlagsReadOnly;
    case Access::WriteDiscard:
      return cudaGraphicsRegisterFlagsWriteDiscard;
    case Access::ReadWrite:
      break;
  }
  return cudaGraphicsRegisterFlagsNone;
}

}  // namespace

unsigned int register_flags(const BufferRegistrationDesc& desc) {
  return access_register_flags(desc.access);
}

unsigned int register_flags(const TextureRegistrationDesc& desc) {
  unsigned int flags = access_register_flags(desc.access);
  if (desc.surface_load_store) flags |= cudaGraphicsRegisterFlagsSurfaceLoadStore;
  if (desc.texture_gather) flags |= cudaGraphicsRegisterFlagsTextureGather;
  return flags;
}

// ---------------------------------------------------------------------------------------------
void detail::GraphicsResourceTraits::destroy(Handle resource) noexcept {
  INTEROP_CUDA_REPORT(cudaGraphicsUnregisterResource(resource));
  --registration_counter();
}

GraphicsResource::GraphicsResource(cudaGraphicsResource_t resource) : m_resource(resource) {
  if (m_resource) ++detail::registration_counter();
}

void GraphicsResource::reset() {
  if (!m_resource) return;
  const cudaGraphicsResource_t resource = m_resource.release();
  --detail::registration_counter();
  INTEROP_CUDA_CHECK(cudaGraphicsUnregisterResource(resource));
}

// ---------------------------------------------------------------------------------------------
cudaGraphicsResource_t detail::register_gl_object(const BufferRegistrationDesc& desc) {
  if (std::string problem = validate(desc); !problem.empty())
    detail::throw_invalid_desc("validate", problem, __FILE__, __LINE__);
  cudaGraphicsResource_t resource = nullptr;
  INTEROP_CUDA_CHECK(cudaGraphicsGLRegisterBuffer(&resource, desc.buffer, register_flags(desc)));
  return resource;
}

namespace {
// The texture's internal format, asked of the context current on this thread through its window system
// (interop/gl_context.hpp), never through the program's GL loader, which it may not have loaded.
GLenum query_internal_format(GLuint texture) {
  constexpr const char* call = "glGetTextureLevelParameteriv(GL_TEXTURE_INTERNAL_FORMAT)";
  const detail::GlFunctions gl = detail::current_gl_functions();
  const std::string version = detail::current_gl_version(gl);
  if (version.empty())
    detail::throw_gl_unavailable(call, "no GL context current on this thread", Condition::NoCurrentGlContext,
                                 "TextureRegistrationDesc.internal_format is 0, so the library asks the "
                                 "texture's context for it: make that context current on this thread first "
                                 "(eglMakeCurrent, glXMakeCurrent, wglMakeCurrent or your toolkit's, e.g. "
                                 "glfwMakeContextCurrent)",
                                 __FILE__, __LINE__);
  if (gl.get_texture_level_parameteriv == nullptr || !detail::is_gl_at_least(version, 4, 5))
    detail::throw_gl_unavailable(call, "glGetTextureLevelParameteriv unavailable", Condition::None,
                                 "the current context (GL_VERSION \"" + version +
                                     "\") has no OpenGL 4.5 direct state access to read a texture's format "
                                     "with: set TextureRegistrationDesc.internal_format to the format the "
                                     "texture was created with",
                                 __FILE__, __LINE__);
  GLint format = 0;
  gl.get_texture_level_parameteriv(texture, 0, GL_TEXTURE_INTERNAL_FORMAT, &format);
  INTEROP_GL_CHECK(call);
  return static_cast<GLenum>(format);
}
}  // namespace

cudaGraphicsResource_t detail::register_gl_object(TextureRegistrationDesc& desc) {
  if (desc.internal_format == 0 && desc.target != GL_RENDERBUFFER && desc.texture != 0 &&
      desc.target != GL_TEXTURE_CUBE_MAP)
    desc.internal_format = query_internal_format(desc.texture);
  if (std::string problem = validate(desc); !problem.empty())
    detail::throw_invalid_desc("validate", problem, __FILE__, __LINE__);
  cudaGraphicsResource_t resource = nullptr;
  INTEROP_CUDA_CHECK(cudaGraphicsGLRegisterImage(&resource, desc.texture, desc.target, register_flags(desc)));
  return resource;
}

void GlRegistrationBase::adopt(cudaGraphicsResource_t resource, Access access) {
  m_resource = GraphicsResource(resource);
  m_map_access = access;
}

void GlRegistrationBase::set_map_access(Access access) {
  INTEROP_CUDA_CHECK(cudaGraphicsResourceSetMapFlags(m_resource.get(), map_flags(access)));
  m_map_access = access;
}

}  // namespace interop
