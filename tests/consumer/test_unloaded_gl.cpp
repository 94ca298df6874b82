// tests/consumer/test_unloaded_gl.cpp — the library as another project links it (interop_lab::interop
// alone, no app), whose GL context comes from libEGL directly and whose GL functions come from its own
// eglGetProcAddress: the package's glad is never loaded, so its function pointers stay null. Every GL call
// of the library must reach the current context by itself, or throw interop::Error: never a jump through
// a null pointer. Runs on Mesa (a surfaceless EGL context on llvmpipe); CUDA is needed by nothing here.
#include <interop/error.hpp>
#include <interop/gl.hpp>

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// What this program's own loader gives it: the GL functions it calls, from eglGetProcAddress.
template <class FunctionPointer>
FunctionPointer gl_function(const char* name) {
  return reinterpret_cast<FunctionPointer>(eglGetProcAddress(name));
}

// A context without a surface, made current: desktop OpenGL 4.5 core, or OpenGL ES 3.0. Mesa's surfaceless
// platform where libEGL offers it (no display server needed), else the default display.
class EglContext {
 public:
  explicit EglContext(EGLenum api) {
    const char* client_extensions = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    if (client_extensions != nullptr &&
        std::strstr(client_extensions, "EGL_MESA_platform_surfaceless") != nullptr)
      m_display = eglGetPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (m_display == EGL_NO_DISPLAY) m_display = eglGetDisplay(EGL_DEFAULT_DISPLAY);
    if (m_display == EGL_NO_DISPLAY || !eglInitialize(m_display, nullptr, nullptr)) {
      m_problem = "no EGL display could be initialised";
      return;
    }
    const bool gles = api == EGL_OPENGL_ES_API;
    const EGLint config_attributes[] = {EGL_RENDERABLE_TYPE, gles ? EGL_OPENGL_ES3_BIT : EGL_OPENGL_BIT,
                                        EGL_SURFACE_TYPE, 0, EGL_NONE};
    EGLConfig config = nullptr;
    EGLint count = 0;
    if (!eglBindAPI(api) || !eglChooseConfig(m_display, config_attributes, &config, 1, &count) ||
        count == 0) {
      m_problem = gles ? "EGL offers no OpenGL ES 3 config" : "EGL offers no desktop OpenGL config";
      return;
    }
    const EGLint gl_attributes[] = {EGL_CONTEXT_MAJOR_VERSION,
                                    4,
                                    EGL_CONTEXT_MINOR_VERSION,
                                    5,
                                    EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                    EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                    EGL_NONE};
    const EGLint gles_attributes[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
    m_context = eglCreateContext(m_display, config, EGL_NO_CONTEXT, gles ? gles_attributes : gl_attributes);
    if (m_context == EGL_NO_CONTEXT || !eglMakeCurrent(m_display, EGL_NO_SURFACE, EGL_NO_SURFACE, m_context))
      m_problem =
          gles ? "cannot make an OpenGL ES 3 context current" : "cannot make a GL 4.5 core context current";
  }
  ~EglContext() {
    if (m_display == EGL_NO_DISPLAY) return;
    eglMakeCurrent(m_display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (m_context != EGL_NO_CONTEXT) eglDestroyContext(m_display, m_context);
    eglTerminate(m_display);
  }
  EglContext(const EglContext&) = delete;
  EglContext& operator=(const EglContext&) = delete;

  // "" when the context is current.
  const std::string& problem() const { return m_problem; }

 private:
  EGLDisplay m_display = EGL_NO_DISPLAY;
  EGLContext m_context = EGL_NO_CONTEXT;
  std::string m_problem;
};

// A 2D texture with storage, created through this program's own GL functions; deleted with its owner
// (after the registration that borrows it).
class Texture {
 public:
  Texture(GLenum internal_format, bool gles) {
    if (gles) {
      gl_function<PFNGLGENTEXTURESPROC>("glGenTextures")(1, &m_name);
      gl_function<PFNGLBINDTEXTUREPROC>("glBindTexture")(GL_TEXTURE_2D, m_name);
      gl_function<PFNGLTEXSTORAGE2DPROC>("glTexStorage2D")(GL_TEXTURE_2D, 1, internal_format, 16, 16);
    } else {
      gl_function<PFNGLCREATETEXTURESPROC>("glCreateTextures")(GL_TEXTURE_2D, 1, &m_name);
      gl_function<PFNGLTEXTURESTORAGE2DPROC>("glTextureStorage2D")(m_name, 1, internal_format, 16, 16);
    }
  }
  ~Texture() { gl_function<PFNGLDELETETEXTURESPROC>("glDeleteTextures")(1, &m_name); }
  Texture(const Texture&) = delete;
  Texture& operator=(const Texture&) = delete;

  GLuint name() const { return m_name; }

 private:
  GLuint m_name = 0;
};

#define REQUIRE_CONTEXT(context)                                                                       \
  do {                                                                                                 \
    if (!(context).problem().empty()) GTEST_SKIP() << "needs an EGL context: " << (context).problem(); \
  } while (0)

class UnloadedGl : public ::testing::Test {
 protected:
  void SetUp() override {
#ifdef GLAD_GL
    // What this test is about: the package's glad was never loaded, so each of its functions is null.
    ASSERT_EQ(glad_glGetTextureLevelParameteriv, nullptr) << "this program must never call gladLoadGL";
    ASSERT_EQ(glad_glGetError, nullptr) << "this program must never call gladLoadGL";
#endif
  }
};

// docs/library.md's "register once" desc: internal_format left at 0, for the library to read.
interop::TextureRegistrationDesc snippet_desc(GLuint texture) {
  interop::TextureRegistrationDesc desc;
  desc.texture = texture;
  desc.access = interop::Access::WriteDiscard;
  desc.surface_load_store = true;
  return desc;
}

TEST_F(UnloadedGl, WithoutAContextTheRegistrationSaysToMakeOneCurrent) {
  try {
    interop::GlTextureRegistration registration(snippet_desc(1));
    FAIL() << "a texture was registered without a GL context";
  } catch (const interop::Error& error) {
    EXPECT_EQ(error.source(), interop::ErrorSource::Gl) << error.what();
    EXPECT_EQ(error.condition(), interop::Condition::NoCurrentGlContext) << error.what();
    EXPECT_TRUE(contains(error.what(), "make that context current on this thread")) << error.what();
  }
  EXPECT_EQ(interop::current_gl_renderer(), "no GL context");
  INTEROP_GL_CHECK("no context: nothing to drain");
}

TEST_F(UnloadedGl, TheLibraryReadsTheTexturesFormatThroughTheCurrentContext) {
  const EglContext context(EGL_OPENGL_API);
  REQUIRE_CONTEXT(context);
  const Texture texture(GL_RGB8, false);
  try {
    interop::GlTextureRegistration registration(snippet_desc(texture.name()));
    FAIL() << "an RGB8 texture was registered";
  } catch (const interop::Error& error) {
    // Refused by validate() from the format the library read: CUDA was never called.
    EXPECT_EQ(error.source(), interop::ErrorSource::Desc) << error.what();
    EXPECT_TRUE(contains(error.what(), "TextureRegistrationDesc.internal_format: GL_RGB8")) << error.what();
  }
}

TEST_F(UnloadedGl, TheSnippetsRegistrationGoesAsFarAsCuda) {
  const EglContext context(EGL_OPENGL_API);
  REQUIRE_CONTEXT(context);
  const Texture texture(GL_RGBA8, false);
  const int before = interop::live_registrations();
  try {
    // Registered where the context is on a CUDA device; else CUDA's own error.
    interop::GlTextureRegistration registration(snippet_desc(texture.name()));
    EXPECT_EQ(registration.desc().internal_format, static_cast<GLenum>(GL_RGBA8));
  } catch (const interop::Error& error) {
    EXPECT_EQ(error.source(), interop::ErrorSource::Cuda) << error.what();
    EXPECT_TRUE(contains(error.call(), "cudaGraphicsGLRegisterImage")) << error.what();
  }
  EXPECT_EQ(interop::live_registrations(), before);
}

TEST_F(UnloadedGl, GlErrorsAndTheRendererComeFromTheCurrentContext) {
  const EglContext context(EGL_OPENGL_API);
  REQUIRE_CONTEXT(context);
  EXPECT_NE(interop::current_gl_renderer(), "no GL context");
  gl_function<PFNGLBINDTEXTUREPROC>("glBindTexture")(GL_TEXTURE_2D, 0xdeadbeef);  // GL_INVALID_OPERATION
  try {
    INTEROP_GL_CHECK("glBindTexture");
    FAIL() << "the GL error went unnoticed";
  } catch (const interop::Error& error) {
    EXPECT_TRUE(contains(error.what(), "GL_INVALID_OPERATION")) << error.what();
  }
  INTEROP_GL_CHECK("after the drained error");
}

TEST_F(UnloadedGl, AnOpenGlEsContextIsAskedForNoFormatItCannotGive) {
  const EglContext context(EGL_OPENGL_ES_API);
  REQUIRE_CONTEXT(context);
  const Texture texture(GL_RGBA8, true);
  try {
    interop::GlTextureRegistration registration(snippet_desc(texture.name()));
    FAIL() << "the format of a texture of an OpenGL ES context was read";
  } catch (const interop::Error& error) {
    EXPECT_EQ(error.source(), interop::ErrorSource::Gl) << error.what();
    EXPECT_TRUE(contains(error.what(), "set TextureRegistrationDesc.internal_format")) << error.what();
  }
  interop::TextureRegistrationDesc desc = snippet_desc(texture.name());
  desc.internal_format = GL_RGBA8;  // given: nothing is asked of GL, CUDA is called
  try {
    interop::GlTextureRegistration registration(desc);
  } catch (const interop::Error& error) {
    EXPECT_EQ(error.source(), interop::ErrorSource::Cuda) << error.what();
  }
}

}  // namespace
