// app/gl/gl_objects.cpp — creation helpers for the GL owners.
#include "app/gl/gl_objects.hpp"

#include "app/core/text.hpp"
#include "app/gl/profiling.hpp"

#include "interop/error.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace lab::gl {

bool fence_done(GLsync fence, GLuint64 timeout_ns, const char* what) {
  const GLenum waited = glClientWaitSync(fence, GL_SYNC_FLUSH_COMMANDS_BIT, timeout_ns);
  if (waited == GL_WAIT_FAILED) {
    const std::string call = std::string("glClientWaitSync(") + what + ")";
    INTEROP_GL_CHECK(call.c_str());
    throw std::runtime_error(call + " failed");
  }
  return waited == GL_ALREADY_SIGNALED || waited == GL_CONDITION_SATISFIED;
}

void wait_for_fence(GLsync fence, const char* what) {
  // GL has had at least a frame for what the fence follows, so a second means a hung GPU.
  constexpr GLuint64 kRoundNs = 1'000'000'000;
  while (!fence_done(fence, kRoundNs, what)) {
  }
}

std::string gl_string(GLenum name) {
  if (glad_glGetString == nullptr) return "";
  const auto* text = reinterpret_cast<const char*>(glGetString(name));
  return text ? text : "";
}
namespace {

std::string hex(unsigned int value) {
  char text[16];
  std::snprintf(text, sizeof text, "%04X", value);
  return text;
}

}  // namespace

GlBuffer new_buffer(const std::string& label) {
  GLuint name = 0;
  glCreateBuffers(1, &name);
  GlBuffer buffer(name);
  label_gl_object(GL_BUFFER, name, label);
  return buffer;
}

GlTexture new_texture_2d(const std::string& label) {
  GLuint name = 0;
  glCreateTextures(GL_TEXTURE_2D, 1, &name);
  GlTexture texture(name);
  label_gl_object(GL_TEXTURE, name, label);
  return texture;
}

GlBuffer create_buffer(size_t bytes, const void* data, GLbitfield flags, const std::string& label) {
  GlBuffer buffer = new_buffer(label);
  glNamedBufferStorage(buffer.get(), static_cast<GLsizeiptr>(bytes), data, flags);
  INTEROP_GL_CHECK("glNamedBufferStorage");
  return buffer;
}

GlTexture create_texture_2d(GLenum internal_format, int width, int height, const std::string& label) {
  GlTexture texture = new_texture_2d(label);
  glTextureStorage2D(texture.get(), 1, internal_format, width, height);
  set_nearest_clamped(texture.get());
  INTEROP_GL_CHECK("glTextureStorage2D");
  return texture;
}

void set_nearest_clamped(GLuint texture) {
  glTextureParameteri(texture, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTextureParameteri(texture, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTextureParameteri(texture, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTextureParameteri(texture, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
}

GlRenderbuffer create_renderbuffer(GLenum internal_format, int width, int height, const std::string& label) {
  GLuint name = 0;
  glCreateRenderbuffers(1, &name);
  GlRenderbuffer renderbuffer(name);
  label_gl_object(GL_RENDERBUFFER, name, label);
  glNamedRenderbufferStorage(name, internal_format, width, height);
  INTEROP_GL_CHECK("glNamedRenderbufferStorage");
  return renderbuffer;
}

GlVertexArray create_vertex_array(const std::string& label) {
  GLuint name = 0;
  glCreateVertexArrays(1, &name);
  label_gl_object(GL_VERTEX_ARRAY, name, label);
  return GlVertexArray(name);
}

namespace {

GLuint compile_shader(GLenum stage, const char* name) {
  const char* source = shader_source(name);
  const GLuint shader = glCreateShader(stage);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (ok == GL_TRUE) return shader;
  GLint length = 0;
  glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &length);
  std::vector<char> log(static_cast<size_t>(length > 1 ? length : 1));
  glGetShaderInfoLog(shader, length, nullptr, log.data());
  glDeleteShader(shader);
  throw std::runtime_error(std::string("GLSL compile error in ") + name + ":\n" + log.data());
}

// After glLinkProgram: throws with the linker's log, naming `shaders`, when the link failed.
void check_link(const GlProgram& program, const std::string& shaders) {
  GLint ok = GL_FALSE;
  glGetProgramiv(program.get(), GL_LINK_STATUS, &ok);
  if (ok == GL_TRUE) return;
  GLint length = 0;
  glGetProgramiv(program.get(), GL_INFO_LOG_LENGTH, &length);
  std::vector<char> log(static_cast<size_t>(length > 1 ? length : 1));
  glGetProgramInfoLog(program.get(), length, nullptr, log.data());
  throw std::runtime_error("GLSL link error (" + shaders + "):\n" + log.data());
}

}  // namespace

GlProgram create_program(const char* vertex_shader, const char* fragment_shader) {
  const GLuint vertex = compile_shader(GL_VERTEX_SHADER, vertex_shader);
  GLuint fragment = 0;
  try {
    fragment = compile_shader(GL_FRAGMENT_SHADER, fragment_shader);
  } catch (...) {
    glDeleteShader(vertex);
    throw;
  }
  GlProgram program(glCreateProgram());
  label_gl_object(GL_PROGRAM, program.get(), std::string(vertex_shader) + " + " + fragment_shader);
  glAttachShader(program.get(), vertex);
  glAttachShader(program.get(), fragment);
  glLinkProgram(program.get());
  // Flagged for deletion now; GL frees them with the program.
  glDeleteShader(vertex);
  glDeleteShader(fragment);
  check_link(program, std::string(vertex_shader) + " + " + fragment_shader);
  return program;
}

GlProgram create_compute_program(const char* compute_shader) {
  const GLuint shader = compile_shader(GL_COMPUTE_SHADER, compute_shader);
  GlProgram program(glCreateProgram());
  label_gl_object(GL_PROGRAM, program.get(), compute_shader);
  glAttachShader(program.get(), shader);
  glLinkProgram(program.get());
  glDeleteShader(shader);  // flagged for deletion now; GL frees it with the program
  check_link(program, compute_shader);
  return program;
}

namespace {

// The framebuffer of `target` (its colour made, its depth made or none), checked complete.
OffscreenTarget frame_target(OffscreenTarget target, int width, int height, const std::string& label) {
  GLuint name = 0;
  glCreateFramebuffers(1, &name);
  target.framebuffer = GlFramebuffer(name);
  label_gl_object(GL_FRAMEBUFFER, name, label);
  glNamedFramebufferTexture(name, GL_COLOR_ATTACHMENT0, target.color.get(), 0);
  if (target.depth)
    glNamedFramebufferRenderbuffer(name, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, target.depth.get());
  const GLenum status = glCheckNamedFramebufferStatus(name, GL_FRAMEBUFFER);
  // The attachments were created without a GL error, so a driver that reports them incomplete (Mesa
  // does, for a texture whose storage it could not allocate) has in practice run out of memory.
  if (status != GL_FRAMEBUFFER_COMPLETE)
    throw std::runtime_error("offscreen framebuffer " + size_text(width, height) +
                             " is incomplete (status 0x" + hex(status) +
                             "), most likely out of memory at this size; use a smaller --size, or free "
                             "memory (other GPU programs, ulimit -v)");
  target.width = width;
  target.height = height;
  return target;
}

GlTexture colour_texture(int width, int height, const std::string& label) {
  return create_texture_2d(GL_RGBA8, width, height, label.empty() ? "" : label + " colour");
}

}  // namespace

OffscreenTarget create_offscreen_target(int width, int height, const std::string& label) {
  return create_offscreen_target(colour_texture(width, height, label), width, height, label);
}

OffscreenTarget create_offscreen_target(GlTexture color, int width, int height, const std::string& label) {
  OffscreenTarget target;
  target.color = std::move(color);
  target.depth =
      create_renderbuffer(GL_DEPTH_COMPONENT24, width, height, label.empty() ? "" : label + " depth");
  return frame_target(std::move(target), width, height, label);
}

OffscreenTarget create_colour_target(int width, int height, const std::string& label) {
  OffscreenTarget target;
  target.color = colour_texture(width, height, label);
  return frame_target(std::move(target), width, height, label);
}

}  // namespace lab::gl
