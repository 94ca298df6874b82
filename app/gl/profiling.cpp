// app/gl/profiling.cpp — GL debug groups and labels, the KHR_debug callback.
#include "app/gl/profiling.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace lab::gl {
namespace {

bool has_khr_debug() {
  return glad_glPushDebugGroup != nullptr && glad_glObjectLabel != nullptr;
}

// The callback's state: written by the driver's callback (GL_DEBUG_OUTPUT_SYNCHRONOUS: on the thread
// that made the call), read by the frame loop. One per process, like the callback itself.
struct GlDebugState {
  std::mutex mutex;
  std::string first_error;
};

GlDebugState& debug_state() {
  static GlDebugState state;
  return state;
}

const char* gl_debug_type(GLenum type) {
  switch (type) {
    case GL_DEBUG_TYPE_ERROR:
      return "error";
    case GL_DEBUG_TYPE_DEPRECATED_BEHAVIOR:
      return "deprecated behaviour";
    case GL_DEBUG_TYPE_UNDEFINED_BEHAVIOR:
      return "undefined behaviour";
    case GL_DEBUG_TYPE_PORTABILITY:
      return "portability";
    case GL_DEBUG_TYPE_PERFORMANCE:
      return "performance";
    default:
      return "other";
  }
}

void GLAPIENTRY on_gl_debug_message(GLenum /*source*/, GLenum type, GLuint id, GLenum severity,
                                    GLsizei length, const GLchar* message, const void* /*user*/) {
  const std::string text =
      length >= 0 ? std::string(message, static_cast<size_t>(length)) : std::string(message);
  if (type == GL_DEBUG_TYPE_ERROR) {
    GlDebugState& state = debug_state();
    std::lock_guard<std::mutex> lock(state.mutex);
    if (state.first_error.empty())
      state.first_error = text + " (GL debug message " + std::to_string(id) + ")";
    return;
  }
  if (severity == GL_DEBUG_SEVERITY_HIGH || severity == GL_DEBUG_SEVERITY_MEDIUM)
    std::fprintf(stderr, "interop-lab: GL %s: %s\n", gl_debug_type(type), text.c_str());
}

}  // namespace

bool push_gl_debug_group(const char* name) {
  if (!has_khr_debug()) return false;
  glPushDebugGroup(GL_DEBUG_SOURCE_APPLICATION, 0, -1, name);
  return true;
}

void pop_gl_debug_group(bool pushed) {
  if (pushed) glPopDebugGroup();
}

GlDebugGroup::GlDebugGroup(const char* name) : m_pushed(push_gl_debug_group(name)) {}

GlDebugGroup::~GlDebugGroup() {
  pop_gl_debug_group(m_pushed);
}

void label_gl_object(GLenum identifier, GLuint name, const std::string& label) {
  if (name == 0 || label.empty() || !has_khr_debug()) return;
  glObjectLabel(identifier, name, static_cast<GLsizei>(label.size()), label.c_str());
}

bool gl_debug_wanted(bool option) {
  if (option) return true;
  const char* variable = std::getenv("INTEROP_LAB_GL_DEBUG");
  if (variable != nullptr) return std::strcmp(variable, "0") != 0 && *variable != '\0';
#ifdef NDEBUG
  return false;
#else
  return true;
#endif
}

bool install_gl_debug_output() {
  if (glad_glDebugMessageCallback == nullptr || glad_glDebugMessageControl == nullptr) return false;
  glEnable(GL_DEBUG_OUTPUT);
  glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
  glDebugMessageCallback(on_gl_debug_message, nullptr);
  // Notifications (buffer placement hints, shader compile notes) would drown the rest.
  glDebugMessageControl(GL_DONT_CARE, GL_DONT_CARE, GL_DEBUG_SEVERITY_NOTIFICATION, 0, nullptr, GL_FALSE);
  return true;
}

std::string take_gl_debug_error() {
  GlDebugState& state = debug_state();
  std::lock_guard<std::mutex> lock(state.mutex);
  std::string error;
  error.swap(state.first_error);
  return error;
}

}  // namespace lab::gl
