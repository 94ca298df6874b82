// python/gl_context.cpp — making a bridge object's GL context current for one call and restoring the
// caller's (python/gl_context.hpp).
#include "python/gl_context.hpp"

#include <GLFW/glfw3.h>

#include <sstream>
#include <stdexcept>

namespace ilab {
namespace {

bool egl_loaded() {
  return eglGetCurrentContext != nullptr && eglMakeCurrent != nullptr;
}

}  // namespace

void release(const GlContext& context) {
  if (context.context != EGL_NO_CONTEXT && egl_loaded())
    eglMakeCurrent(context.display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  else if (context.window != nullptr)
    glfwMakeContextCurrent(nullptr);
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
  return now;
}

void make_current(const GlContext& target, const GlContext& from) {
  const bool target_egl = target.context != EGL_NO_CONTEXT;
  const bool from_egl = from.context != EGL_NO_CONTEXT;
  if (!from.empty() && target_egl != from_egl) release(from);
  if (target_egl) {
    if (!egl_loaded() || !eglMakeCurrent(target.display, target.draw, target.read, target.context))
      throw std::runtime_error("eglMakeCurrent failed for interop_lab's headless GL context (EGL error 0x" +
                               [] {
                                 std::ostringstream hex;
                                 hex << std::hex << (eglGetError != nullptr ? eglGetError() : 0);
                                 return hex.str();
                               }() +
                               ")");
  } else if (target.window != nullptr) {
    glfwMakeContextCurrent(target.window);
  }
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
