// app/gl/gl_objects.hpp — move-only owners of OpenGL names (GL 4.5 direct state access), and the few
// creation helpers the scenes need. Each owner deletes its name in its destructor, so a GL object
// never outlives the context that the app destroys last.
#pragma once

#include <glad/gl.h>

#include <memory>
#include <string>
#include <type_traits>
#include <utility>

namespace lab::gl {

// glGetString's text; "" before any GL was loaded or without a current context (when it returns null).
std::string gl_string(GLenum name);

template <class Traits>
class GlObject {
 public:
  GlObject() = default;
  explicit GlObject(GLuint name) : m_name(name) {}
  ~GlObject() {
    if (m_name) Traits::destroy(m_name);
  }
  GlObject(const GlObject&) = delete;
  GlObject& operator=(const GlObject&) = delete;
  GlObject(GlObject&& other) noexcept : m_name(std::exchange(other.m_name, 0)) {}
  GlObject& operator=(GlObject&& other) noexcept {
    if (this != &other) {
      GlObject old(std::move(*this));
      m_name = std::exchange(other.m_name, 0);
    }
    return *this;
  }

  GLuint get() const { return m_name; }
  explicit operator bool() const { return m_name != 0; }

 private:
  GLuint m_name = 0;
};

struct GlBufferTraits {
  static void destroy(GLuint name) { glDeleteBuffers(1, &name); }
};
struct GlTextureTraits {
  static void destroy(GLuint name) { glDeleteTextures(1, &name); }
};
struct GlRenderbufferTraits {
  static void destroy(GLuint name) { glDeleteRenderbuffers(1, &name); }
};
struct GlFramebufferTraits {
  static void destroy(GLuint name) { glDeleteFramebuffers(1, &name); }
};
struct GlVertexArrayTraits {
  static void destroy(GLuint name) { glDeleteVertexArrays(1, &name); }
};
struct GlProgramTraits {
  static void destroy(GLuint name) { glDeleteProgram(name); }
};

using GlBuffer = GlObject<GlBufferTraits>;
using GlTexture = GlObject<GlTextureTraits>;
using GlRenderbuffer = GlObject<GlRenderbufferTraits>;
using GlFramebuffer = GlObject<GlFramebufferTraits>;
using GlVertexArray = GlObject<GlVertexArrayTraits>;
using GlProgram = GlObject<GlProgramTraits>;

// A fence (glFenceSync), deleted with its owner.
struct GlSyncDeleter {
  void operator()(GLsync fence) const { glDeleteSync(fence); }
};
using GlSync = std::unique_ptr<std::remove_pointer_t<GLsync>, GlSyncDeleter>;
// Whether GL has done `fence`, waiting up to `timeout_ns` for it (0: asks without waiting), flushing
// first. Throws std::runtime_error naming `what` when the wait fails (a lost context).
bool fence_done(GLsync fence, GLuint64 timeout_ns, const char* what);
// Waits until GL has done `fence`: fence_done a second at a time, so each round re-checks for a lost
// context through the wait's result.
void wait_for_fence(GLsync fence, const char* what);

// A buffer / a 2D texture created and labelled, without storage yet: what the helpers below and the
// imports of external memory (gl_external.hpp) give their storage to.
GlBuffer new_buffer(const std::string& label);
GlTexture new_texture_2d(const std::string& label);
// Immutable storage of `bytes` (glNamedBufferStorage); `flags` e.g. GL_DYNAMIC_STORAGE_BIT so the CPU
// path can glNamedBufferSubData into it.
// Each helper labels what it creates (glObjectLabel: the name a GL debugger shows) with `label`.
GlBuffer create_buffer(size_t bytes, const void* data, GLbitfield flags, const std::string& label = "");
// A 2D texture with one level of immutable storage, nearest filtering, clamped to edge.
GlTexture create_texture_2d(GLenum internal_format, int width, int height, const std::string& label = "");
// What create_texture_2d sets on every texture it makes: nearest filtering, clamped to edge.
void set_nearest_clamped(GLuint texture);
GlRenderbuffer create_renderbuffer(GLenum internal_format, int width, int height,
                                   const std::string& label = "");
GlVertexArray create_vertex_array(const std::string& label = "");
// Compiles and links two embedded shaders (assets/shaders); throws with the compiler's log. Labelled
// "wave.vert + wave.frag".
GlProgram create_program(const char* vertex_shader, const char* fragment_shader);
// Compiles and links one embedded compute shader; throws with the compiler's log.
GlProgram create_compute_program(const char* compute_shader);

// The GLSL source embedded at build time from assets/shaders/<name>.
const char* shader_source(const char* name);

// An RGBA8 colour target with a depth buffer, for rendering off screen (or without one: a copy's source).
struct OffscreenTarget {
  GlTexture color;
  GlRenderbuffer depth;  // none in a colour-only target
  GlFramebuffer framebuffer;
  int width = 0;
  int height = 0;
};
// Labelled `label`, its attachments "<label> colour" and "<label> depth".
OffscreenTarget create_offscreen_target(int width, int height, const std::string& label = "");
// The same around `color`, an RGBA8 texture of width x height made elsewhere (e.g. in imported memory).
OffscreenTarget create_offscreen_target(GlTexture color, int width, int height,
                                        const std::string& label = "");
// A colour-only target ("<label> colour"): for pictures written elsewhere (CUDA, an upload) and copied from.
OffscreenTarget create_colour_target(int width, int height, const std::string& label = "");

}  // namespace lab::gl
