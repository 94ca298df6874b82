// python/gl_context.hpp — which GL context a bridge object (a Lab, a Viewer) draws with, and a guard that
// makes it current for one call of the C ABI and gives the caller's context back afterwards.
//
// Python code may hold several labs and viewers at once, and its own GL (another GLFW window, an EGL
// context): each bridge call must run GL on its own object's context, whatever was current before, and
// leave the thread as it found it. A context is current on one thread at a time, so an object refuses
// calls from any thread but the one that opened it.
#pragma once

#include <glad/egl.h>

#include <string>
#include <thread>

struct GLFWwindow;

namespace ilab {

// A context as the binding that made it knows it: EGL (headless: display, surfaces, context), GLFW (a
// window of this process's GLFW), or GLX seen directly (a caller's context that this GLFW does not know:
// another toolkit, a GLFW of its own). All empty: no context.
struct GlContext {
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLSurface draw = EGL_NO_SURFACE;
  EGLSurface read = EGL_NO_SURFACE;
  EGLContext context = EGL_NO_CONTEXT;
  GLFWwindow* window = nullptr;
  void* glx_display = nullptr;  // Display*
  unsigned long glx_drawable = 0;
  void* glx_context = nullptr;  // GLXContext

  enum class Binding { None, Egl, Glfw, Glx };
  Binding binding() const {
    if (context != EGL_NO_CONTEXT) return Binding::Egl;
    if (window != nullptr) return Binding::Glfw;
    if (glx_context != nullptr) return Binding::Glx;
    return Binding::None;
  }

  // What is current on this thread now: EGL first, then GLFW's, then GLX (each where its library loads).
  static GlContext current();
  bool empty() const { return binding() == Binding::None; }
  bool operator==(const GlContext& other) const {
    return context == other.context && window == other.window && draw == other.draw && read == other.read &&
           glx_context == other.glx_context && glx_drawable == other.glx_drawable;
  }
  bool operator!=(const GlContext& other) const { return !(*this == other); }
};

// Makes `target` current on this thread, releasing `from` first when it belongs to another binding (one
// thread holds one binding's context at a time, and GLFW must know when GLX changes under it). Throws on
// failure.
void make_current(const GlContext& target, const GlContext& from);
// Leaves the thread with no context of `context`'s binding current.
void release(const GlContext& context);
// Gives the thread `previous` back after `mine` was current (or none, when `previous` is empty).
void restore(const GlContext& previous, const GlContext& mine);

// Calls restore(previous, mine) when it goes out of scope, swallowing what that throws: an object's
// opening declares it before the object, so that a failed open, which destroyed the object with its own
// context current, still gives the caller theirs back.
class RestoreOnExit {
 public:
  RestoreOnExit(const GlContext& previous, const GlContext& mine) : m_previous(previous), m_mine(mine) {}
  ~RestoreOnExit() {
    try {
      restore(m_previous, m_mine);
    } catch (...) {
    }
  }
  RestoreOnExit(const RestoreOnExit&) = delete;
  RestoreOnExit& operator=(const RestoreOnExit&) = delete;

 private:
  const GlContext& m_previous;
  const GlContext& m_mine;
};
// Loads GL's functions (glad) from the current context when nothing in this process has yet: a caller's
// own context, before any lab or viewer. Throws when no context is current.
void load_gl_functions(const GlContext& current);

// The thread that opened an object; calls from others are refused with a message that names it.
class OwnerThread {
 public:
  OwnerThread() : m_id(std::this_thread::get_id()) {}
  // Throws std::logic_error "<what> was opened on thread X and is used on thread Y: ..." off that thread.
  void check(const char* what) const;

 private:
  std::thread::id m_id;
};

// For one call: checks the thread, makes `mine` current unless it already is, and restores the previous
// context at the end (or releases mine when there was none), so the caller's GL state is untouched.
class ScopedContext {
 public:
  ScopedContext(const GlContext& mine, const OwnerThread& owner, const char* what);
  ~ScopedContext();
  ScopedContext(const ScopedContext&) = delete;
  ScopedContext& operator=(const ScopedContext&) = delete;
  // The object's context is about to be destroyed: afterwards restore the caller's, never it.
  void forget_mine() { m_mine_destroyed = true; }

 private:
  GlContext m_mine;
  GlContext m_previous;
  bool m_switched = false;
  bool m_mine_destroyed = false;
};

}  // namespace ilab
