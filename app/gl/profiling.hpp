// app/gl/profiling.hpp — what profilers and GL debuggers see of the app. NVTX ranges in the "interop-lab"
// domain (app/timing/profile_range.hpp: Nsight Systems), GL debug groups (Nsight Graphics,
// RenderDoc, apitrace: the same names in the GL call list), object labels on every GL object the app
// creates, and the KHR_debug message callback that turns GL errors into the app's error reporting.
// Needs the NVTX v3 headers (CUDA::nvtx3, header-only: without a profiler attached a range is one
// branch) and, for the GL parts, a current GL 4.3+ context; each GL call is skipped where it is absent.
#pragma once

#include "app/timing/profile_range.hpp"

#include <glad/gl.h>

#include <string>

namespace lab::gl {

// A GL debug group for the scope (glPushDebugGroup / glPopDebugGroup); nothing without KHR_debug.
class GlDebugGroup {
 public:
  explicit GlDebugGroup(const char* name);
  explicit GlDebugGroup(const std::string& name) : GlDebugGroup(name.c_str()) {}
  ~GlDebugGroup();
  GlDebugGroup(const GlDebugGroup&) = delete;
  GlDebugGroup& operator=(const GlDebugGroup&) = delete;

 private:
  bool m_pushed = false;
};

// The same as free calls, for guards whose header stays free of GL (app/gl/timing.hpp's GlPhase).
// glPushDebugGroup where KHR_debug is there; returns whether it pushed (pass that to the pop).
bool push_gl_debug_group(const char* name);
void pop_gl_debug_group(bool pushed);

// Both, with one name: what the frame, the panel and the switches are wrapped in.
class ProfileScope {
 public:
  explicit ProfileScope(const std::string& name) : m_range(name), m_group(name) {}

 private:
  ProfileRange m_range;
  GlDebugGroup m_group;
};

// glObjectLabel(identifier, name, label): GL_BUFFER, GL_TEXTURE, GL_FRAMEBUFFER, GL_RENDERBUFFER,
// GL_VERTEX_ARRAY, GL_PROGRAM. Nothing for an empty label, a 0 name or without KHR_debug.
void label_gl_object(GLenum identifier, GLuint name, const std::string& label);

// Whether GL debug output is asked for: --gl-debug, INTEROP_LAB_GL_DEBUG=1, or a build without NDEBUG.
bool gl_debug_wanted(bool option);

// Installs glDebugMessageCallback on the current context (GL_DEBUG_OUTPUT_SYNCHRONOUS, so a message
// arrives inside the call that caused it). Errors (GL_DEBUG_TYPE_ERROR) are kept for
// take_gl_debug_error(); other high- and medium-severity messages are logged as "interop-lab: GL: ...".
// Returns false where the context has no KHR_debug. The callback's state lives as long as the process;
// call once per context.
bool install_gl_debug_output();
// The first GL error reported since the last call ("GL_INVALID_OPERATION in glTextureSubImage2D: ..."),
// then forgets it; "" when none.
std::string take_gl_debug_error();

}  // namespace lab::gl
