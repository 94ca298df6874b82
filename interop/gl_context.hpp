// interop/gl_context.hpp — the GL functions the library calls, resolved through the window system of the
// current context (EGL or GLX on Linux, WGL on Windows). Private to the library: not installed.
//
// The library never calls GL through the program's loader (INTEROP_LAB_GL_HEADER's functions): the
// program may not have loaded it (its context came through GLFW, GLEW, libepoxy or a glad of its own, or no
// context is current yet), and an unloaded glad is a table of null pointers. Nothing here loads a library
// the process does not hold already (interop/gl_context.cpp says what it keeps).
#pragma once

#include "interop/config.hpp"

#include INTEROP_LAB_GL_HEADER

#include <string>

// GL's calling convention (APIENTRY): __stdcall on Windows (ignored on x64), the default elsewhere.
#if defined(_WIN32)
#define INTEROP_GL_APIENTRY __stdcall
#else
#define INTEROP_GL_APIENTRY
#endif

namespace interop::detail {

using GlGetString = const GLubyte*(INTEROP_GL_APIENTRY*)(GLenum name);
using GlGetError = GLenum(INTEROP_GL_APIENTRY*)();
using GlGetTextureLevelParameteriv = void(INTEROP_GL_APIENTRY*)(GLuint texture, GLint level, GLenum name,
                                                                GLint* value);

// The GL functions the library calls.
struct GlFunctions {
  GlGetString get_string = nullptr;
  GlGetError get_error = nullptr;
  // GL 4.5: window systems answer for names a context may lack (GLX for any name), so check the version
  // (is_gl_at_least) before calling it.
  GlGetTextureLevelParameteriv get_texture_level_parameteriv = nullptr;
};

// The GL functions of the context current on this thread, each null where there is none by that name;
// all null where no window system is there to ask (then no context can be current). On Linux they are
// the window system's dispatch functions, which serve whichever context is current and do nothing
// without one: glGetString then answers null, glGetError GL_NO_ERROR.
GlFunctions current_gl_functions();

// GL_VERSION of the context current on this thread ("4.5 (Core Profile) Mesa 22.3.6"); "" when none is.
std::string current_gl_version(const GlFunctions& gl);

// Whether a GL_VERSION is desktop OpenGL `major`.`minor` or newer (OpenGL ES, "OpenGL ES 3.2 ...", is not:
// it lacks direct state access).
bool is_gl_at_least(const std::string& version, int major, int minor);

}  // namespace interop::detail
