// python/gl_context.cpp — making a bridge object's GL context current for one call and restoring the
// caller's (python/gl_context.hpp).
#include "python/gl_context.hpp"

// glad's GL header first: it must come before any GL/gl.h (which GLFW's header includes).
#include <glad/gl.h>

#include <GLFW/glfw3.h>
#include <dlfcn.h>

#include <sstream>
#include <stdexcept>

namespace ilab {
namespace {

// libEGL through glad, loaded on first use: a caller's own EGL context may come before any platform.
bool egl_loaded() {
  static const bool loaded = eglGetCurrentContext != nullptr || gladLoaderLoadEGL(EGL_NO_DISPLAY) != 0;
  return loaded && eglGetCurrentContext != nullptr && eglMakeCurrent != nullptr;
}

// GLX, looked up in libGLX (glvnd) or libGL at run time: the bridge links no GLX of its own.
struct Glx {
  void* (*get_current_context)() = nullptr;
  unsigned long (*get_current_drawable)() = nullptr;
  void* (*get_current_display)() = nullptr;
  int (*make_current)(void*, unsigned long, void*) = nullptr;
  bool usable() const {
    return get_current_context && get_current_drawable && get_current_display && make_current;
  }
};

Glx load_glx() {
  Glx functions;
  void* library = dlopen("libGLX.so.0", RTLD_LAZY | RTLD_NOLOAD);
  if (library == nullptr) library = dlopen("libGL.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (library == nullptr) return functions;  // nobody in the process uses GLX (yet): nothing to see
  functions.get_current_context = reinterpret_cast<void* (*)()>(dlsym(library, "glXGetCurrentContext"));
  functions.get_current_drawable =
      reinterpret_cast<unsigned long (*)()>(dlsym(library, "glXGetCurrentDrawable"));
  functions.get_current_display = reinterpret_cast<void* (*)()>(dlsym(library, "glXGetCurrentDisplay"));
  functions.make_current =
      reinterpret_cast<int (*)(void*, unsigned long, void*)>(dlsym(library, "glXMakeCurrent"));
  // No dlclose: the reference RTLD_NOLOAD took keeps the library, and these pointers, valid after whoever
  // loaded it unloads it (GLFW dlcloses its libGL at glfwTerminate).
  return functions;
}

// Looked up again until found: GLX may be loaded after the first call (a window opened later).
const Glx& glx() {
  static Glx functions;
  if (!functions.usable()) functions = load_glx();
  return functions;
}

std::string egl_error_hex() {
  std::ostringstream hex;
  hex << "0x" << std::hex << (eglGetError != nullptr ? eglGetError() : 0);
  return hex.str();
}

}  // namespace

void release(const GlContext& context) {
  switch (context.binding()) {
    case GlContext::Binding::Egl:
      if (egl_loaded()) eglMakeCurrent(context.display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      break;
    case GlContext::Binding::Glfw:
      glfwMakeContextCurrent(nullptr);
      break;
    case GlContext::Binding::Glx:
      if (glx().usable()) glx().make_current(context.glx_display, 0, nullptr);
      break;
    case GlContext::Binding::None:
      break;
  }
}

namespace {

std::string thread_text(std::thread::id id) {
  std::ostringstream text;
  text << id;
  return text.str();
}

}  // namespace

GlContext GlContext::current() {
  GlContext now;
  if (egl_loaded() && eglGetCurrentContext() != EGL_NO_CONTEXT) {
    now.context = eglGetCurrentContext();
    now.display = eglGetCurrentDisplay();
    now.draw = eglGetCurrentSurface(EGL_DRAW);
    now.read = eglGetCurrentSurface(EGL_READ);
    return now;
  }
  // Before glfwInit GLFW answers null (and records GLFW_NOT_INITIALIZED, which nobody reads).
  now.window = glfwGetCurrentContext();
  if (now.window != nullptr) return now;
  // RTLD_NOLOAD above: GLX is asked only once something in the process has loaded it.
  if (glx().usable() && glx().get_current_context() != nullptr) {
    now.glx_context = glx().get_current_context();
    now.glx_drawable = glx().get_current_drawable();
    now.glx_display = glx().get_current_display();
  }
  return now;
}

void make_current(const GlContext& target, const GlContext& from) {
  if (!from.empty() && from.binding() != target.binding()) release(from);
  if (target.binding() == GlContext::Binding::Glx) {
    if (!glx().usable() || !glx().make_current(target.glx_display, target.glx_drawable, target.glx_context))
      throw std::runtime_error("glXMakeCurrent failed for the caller's GL context");
    return;
  }
  if (target.binding() == GlContext::Binding::Egl) {
    if (!egl_loaded() || !eglMakeCurrent(target.display, target.draw, target.read, target.context))
      throw std::runtime_error("eglMakeCurrent failed (EGL error " + egl_error_hex() + ")");
  } else if (target.window != nullptr) {
    glfwMakeContextCurrent(target.window);
  }
}

void load_gl_functions(const GlContext& current) {
  if (glGetTextureLevelParameteriv != nullptr && glCreateBuffers != nullptr)
    return;  // a platform loaded them
  int version = 0;
  switch (current.binding()) {
    case GlContext::Binding::Egl:
      version = gladLoadGL(reinterpret_cast<GLADloadfunc>(eglGetProcAddress));
      break;
    case GlContext::Binding::Glfw:
      version = gladLoadGL(reinterpret_cast<GLADloadfunc>(glfwGetProcAddress));
      break;
    case GlContext::Binding::Glx: {
      void* library = dlopen("libGLX.so.0", RTLD_LAZY | RTLD_NOLOAD);
      if (library == nullptr) library = dlopen("libGL.so.1", RTLD_LAZY | RTLD_NOLOAD);
      void* lookup = library ? dlsym(library, "glXGetProcAddressARB") : nullptr;
      if (lookup != nullptr) version = gladLoadGL(reinterpret_cast<GLADloadfunc>(lookup));
      break;
    }
    case GlContext::Binding::None:
      break;
  }
  if (version == 0)
    throw std::runtime_error(
        "cannot load OpenGL's functions from the current context: it must be an OpenGL 4.5 one (EGL, GLX or "
        "GLFW)");
}

void OwnerThread::check(const char* what) const {
  const std::thread::id here = std::this_thread::get_id();
  if (here == m_id) return;
  throw std::logic_error(std::string(what) + " was opened on thread " + thread_text(m_id) +
                         " and is used on thread " + thread_text(here) +
                         ": its GL context belongs to the thread that opened it; call it from there (or open "
                         "one per thread)");
}

ScopedContext::ScopedContext(const GlContext& mine, const OwnerThread& owner, const char* what)
    : m_mine(mine) {
  owner.check(what);
  m_previous = GlContext::current();
  if (m_previous != m_mine) {
    make_current(m_mine, m_previous);
    m_switched = true;
  }
}

ScopedContext::~ScopedContext() {
  // Not switched: the caller's context was mine already (a destroyed one is no longer current).
  if (!m_switched) return;
  try {
    if (m_mine_destroyed)
      make_current(m_previous, GlContext{});  // the platform released mine as it destroyed it
    else
      restore(m_previous, m_mine);
  } catch (...) {
    // A destructor reports nothing: the next call makes its own context current anyway.
  }
}

void restore(const GlContext& previous, const GlContext& mine) {
  if (previous.empty())
    release(mine);
  else if (previous != mine)
    make_current(previous, mine);
}

}  // namespace ilab
