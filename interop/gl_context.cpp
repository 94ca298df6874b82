// interop/gl_context.cpp — the GL functions the library calls, from the current context's window system
// (interop/gl_context.hpp).
//
// Linux: through eglGetProcAddress or glXGetProcAddressARB of the first of libEGL and libGL(X) the process
// is found to hold (dlopen with RTLD_NOLOAD: nothing is loaded that was not). Both answer with dispatch
// functions that serve whichever context is current (EGL 1.5 and GLX 1.4: their GL functions do not
// depend on the context; glvnd and Mesa share one dispatch between EGL and GLX), so they are resolved once,
// and the library found is kept loaded from then on (dlopen's reference is never given back) so that they
// stay valid: GLFW's glfwTerminate, say, closes the library it opened. Whether a context is current is
// asked of GL itself (glGetString answers null without one), not of eglGetCurrentContext, which costs
// 2 us a call in glvnd: INTEROP_GL_CHECK runs several times a frame.
// Windows: through wglGetProcAddress and opengl32.dll, on each call: wglGetProcAddress answers for the
// current context's driver only.
#include "interop/gl_context.hpp"

#if defined(_WIN32)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#else
#include <dlfcn.h>

#include <atomic>
#include <mutex>
#endif

#include <cstdio>

namespace interop::detail {

namespace {

// Each of the library's GL functions from `resolve(name)`, a void* (or null) per name.
template <class Resolve>
GlFunctions resolve_gl_functions(Resolve resolve) {
  GlFunctions gl;
  gl.get_string = reinterpret_cast<GlGetString>(resolve("glGetString"));
  gl.get_error = reinterpret_cast<GlGetError>(resolve("glGetError"));
  gl.get_texture_level_parameteriv =
      reinterpret_cast<GlGetTextureLevelParameteriv>(resolve("glGetTextureLevelParameteriv"));
  return gl;
}

#if defined(_WIN32)

using WglGetCurrentContext = HGLRC(WINAPI*)();
using WglGetProcAddress = PROC(WINAPI*)(LPCSTR);

void* module_function(HMODULE module, const char* name) {
  return reinterpret_cast<void*>(GetProcAddress(module, name));
}

#else

using VoidFunction = void (*)();
using EglGetProcAddress = VoidFunction (*)(const char*);
using GlxGetProcAddress = VoidFunction (*)(const unsigned char*);

struct WindowSystem {
  bool egl;                  // eglGetProcAddress takes a char*, glXGetProcAddressARB a GLubyte*
  const char* libraries[3];  // the sonames it may be held under, first the one glvnd and GLFW use
  const char* get_proc_address;
};

constexpr WindowSystem kWindowSystems[] = {
    {true, {"libEGL.so.1", "libEGL.so", nullptr}, "eglGetProcAddress"},
    {false, {"libGLX.so.0", "libGL.so.1", "libGL.so"}, "glXGetProcAddressARB"},
};

// The GL functions through `system`'s library if the process holds it (which then stays loaded).
bool resolve_through(const WindowSystem& system, GlFunctions& gl) {
  for (const char* soname : system.libraries) {
    if (soname == nullptr) break;
    void* library = dlopen(soname, RTLD_LAZY | RTLD_NOLOAD);
    if (library == nullptr) continue;
    void* get_proc_address = dlsym(library, system.get_proc_address);
    if (get_proc_address == nullptr) {
      dlclose(library);
      continue;
    }
    gl = resolve_gl_functions([&](const char* name) {
      const VoidFunction function = system.egl ? reinterpret_cast<EglGetProcAddress>(get_proc_address)(name)
                                               : reinterpret_cast<GlxGetProcAddress>(get_proc_address)(
                                                     reinterpret_cast<const unsigned char*>(name));
      return reinterpret_cast<void*>(function);
    });
    return true;
  }
  return false;
}

// The functions, once a window system's library was found: process-wide, as the libraries are. Filled
// once under the lock, then only read.
class ResolvedGl {
 public:
  static ResolvedGl& instance() {
    static ResolvedGl resolved;
    return resolved;
  }

  // Null while the process holds no window system's library (it is looked for again next time).
  const GlFunctions* functions() {
    if (const GlFunctions* gl = m_resolved.load(std::memory_order_acquire)) return gl;
    const std::lock_guard<std::mutex> lock(m_mutex);
    if (const GlFunctions* gl = m_resolved.load(std::memory_order_relaxed)) return gl;
    for (const WindowSystem& system : kWindowSystems) {
      if (!resolve_through(system, m_functions)) continue;
      // Kept only complete: a window system that could not answer yet (glvnd before its vendors load)
      // is asked again next time.
      if (m_functions.get_string != nullptr && m_functions.get_error != nullptr &&
          m_functions.get_texture_level_parameteriv != nullptr)
        m_resolved.store(&m_functions, std::memory_order_release);
      return &m_functions;
    }
    return nullptr;
  }

 private:
  std::mutex m_mutex;
  std::atomic<const GlFunctions*> m_resolved{nullptr};
  GlFunctions m_functions;
};

#endif

}  // namespace

GlFunctions current_gl_functions() {
#if defined(_WIN32)
  // Held by whoever made a WGL context current; GetModuleHandle takes no reference.
  const HMODULE opengl = GetModuleHandleA("opengl32.dll");
  if (opengl == nullptr) return {};
  const auto get_current_context =
      reinterpret_cast<WglGetCurrentContext>(module_function(opengl, "wglGetCurrentContext"));
  const auto get_proc_address =
      reinterpret_cast<WglGetProcAddress>(module_function(opengl, "wglGetProcAddress"));
  if (get_current_context == nullptr || get_proc_address == nullptr || get_current_context() == nullptr)
    return {};
  return resolve_gl_functions([&](const char* name) {
    // wglGetProcAddress answers only for what is newer than GL 1.1 (opengl32.dll exports GL 1.1 itself), and
    // some drivers answer 1, 2, 3 or -1 for "no such function".
    void* function = reinterpret_cast<void*>(get_proc_address(name));
    const auto value = reinterpret_cast<INT_PTR>(function);
    return value >= -1 && value <= 3 ? module_function(opengl, name) : function;
  });
#else
  const GlFunctions* gl = ResolvedGl::instance().functions();
  return gl != nullptr ? *gl : GlFunctions{};
#endif
}

std::string current_gl_version(const GlFunctions& gl) {
  const GLubyte* text = gl.get_string != nullptr ? gl.get_string(GL_VERSION) : nullptr;
  return text != nullptr ? reinterpret_cast<const char*>(text) : "";
}

bool is_gl_at_least(const std::string& version, int major, int minor) {
  // "4.5 (Core Profile) Mesa ..." or "4.6.0 NVIDIA ..."; OpenGL ES says "OpenGL ES 3.2 ...".
  int version_major = 0;
  int version_minor = 0;
  if (std::sscanf(version.c_str(), "%d.%d", &version_major, &version_minor) != 2) return false;
  return version_major > major || (version_major == major && version_minor >= minor);
}

}  // namespace interop::detail
