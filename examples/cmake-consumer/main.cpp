// examples/cmake-consumer/main.cpp — the interop library from another project: a headless GL context
// (EGL, loaded by the package's glad), a GL buffer and a GL texture registered with CUDA, both mapped
// in one ScopedMap, written by CUDA (cudaMemsetAsync into the buffer, cudaMemcpy2DToArrayAsync into the
// texture), unmapped, and read back through GL.
//
// Exit codes: 0 the GL read-back shows what CUDA wrote; 1 it does not, or something failed;
// 77 skipped: this machine has no CUDA device (the message says why).
#include <interop/device.hpp>
#include <interop/error.hpp>
#include <interop/gl.hpp>
#include <interop/mapping.hpp>
#include <interop/stream.hpp>

#include <glad/egl.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

constexpr int kSkipped = 77;
constexpr int kWidth = 32;
constexpr int kHeight = 16;
constexpr size_t kBufferBytes = 4096;
constexpr unsigned char kBufferByte = 0x5A;

bool has_extension(const char* extensions, const char* name) {
  if (extensions == nullptr) return false;
  const size_t length = std::strlen(name);
  for (const char* at = std::strstr(extensions, name); at != nullptr; at = std::strstr(at + 1, name))
    if ((at == extensions || at[-1] == ' ') && (at[length] == '\0' || at[length] == ' ')) return true;
  return false;
}

// A GL 4.5 core context without a window on the EGL device that drives `cuda_device` (NVIDIA's EGL
// device platform), or Mesa's surfaceless platform where there is none.
class HeadlessGl {
 public:
  explicit HeadlessGl(int cuda_device) {
    if (gladLoaderLoadEGL(EGL_NO_DISPLAY) == 0) throw std::runtime_error("cannot load libEGL.so.1");
    m_display = device_display(cuda_device);
    if (m_display == EGL_NO_DISPLAY) m_display = eglGetDisplay(EGL_DEFAULT_DISPLAY);
    if (m_display == EGL_NO_DISPLAY || !eglInitialize(m_display, nullptr, nullptr))
      throw std::runtime_error("no EGL display could be initialised");
    gladLoaderLoadEGL(m_display);
    if (!eglBindAPI(EGL_OPENGL_API)) throw std::runtime_error("EGL offers no desktop OpenGL");
    const EGLint config_attributes[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE, 0, EGL_NONE};
    EGLConfig config = nullptr;
    EGLint count = 0;
    if (!eglChooseConfig(m_display, config_attributes, &config, 1, &count) || count == 0)
      throw std::runtime_error("no EGL config renders desktop OpenGL");
    const EGLint context_attributes[] = {EGL_CONTEXT_MAJOR_VERSION,
                                         4,
                                         EGL_CONTEXT_MINOR_VERSION,
                                         5,
                                         EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                         EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                         EGL_NONE};
    m_context = eglCreateContext(m_display, config, EGL_NO_CONTEXT, context_attributes);
    if (m_context == EGL_NO_CONTEXT || !eglMakeCurrent(m_display, EGL_NO_SURFACE, EGL_NO_SURFACE, m_context))
      throw std::runtime_error("cannot make a GL 4.5 core context current without a surface");
    const auto load = [](const char* name) { return reinterpret_cast<GLADapiproc>(eglGetProcAddress(name)); };
    if (gladLoadGL(load) == 0) throw std::runtime_error("glad could not load GL 4.5 core");
  }
  ~HeadlessGl() {
    if (m_display == EGL_NO_DISPLAY) return;
    eglMakeCurrent(m_display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (m_context != EGL_NO_CONTEXT) eglDestroyContext(m_display, m_context);
    eglTerminate(m_display);
  }
  HeadlessGl(const HeadlessGl&) = delete;
  HeadlessGl& operator=(const HeadlessGl&) = delete;

 private:
  static EGLDisplay device_display(int cuda_device) {
    if (!has_extension(eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS), "EGL_EXT_platform_device") ||
        eglQueryDevicesEXT == nullptr || eglGetPlatformDisplayEXT == nullptr)
      return EGL_NO_DISPLAY;
    EGLDeviceEXT devices[16];
    EGLint count = 0;
    if (!eglQueryDevicesEXT(16, devices, &count)) return EGL_NO_DISPLAY;
    for (EGLint i = 0; i < count; ++i) {
      EGLAttrib ordinal = -1;
      if (!has_extension(eglQueryDeviceStringEXT(devices[i], EGL_EXTENSIONS), "EGL_NV_device_cuda") ||
          !eglQueryDeviceAttribEXT(devices[i], EGL_CUDA_DEVICE_NV, &ordinal) || ordinal != cuda_device)
        continue;
      return eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
    }
    return EGL_NO_DISPLAY;
  }

  EGLDisplay m_display = EGL_NO_DISPLAY;
  EGLContext m_context = EGL_NO_CONTEXT;
};

// A GL object name deleted with its owner (after the registration that borrows it).
struct GlName {
  GLuint name = 0;
  void (*destroy)(GLsizei, const GLuint*) = nullptr;
  ~GlName() {
    if (name != 0) destroy(1, &name);
  }
};

unsigned char texel_byte(int x, int y, int channel) {
  return static_cast<unsigned char>(x * 7 + y * 13 + channel * 61);
}

int run() {
  const interop::CudaDevices cuda = interop::enumerate_cuda_devices();
  if (cuda.devices.empty()) {
    std::fprintf(stderr, "interop-consumer: skipped: %s\n", cuda.error.c_str());
    return kSkipped;
  }
  const int device = 0;
  INTEROP_CUDA_CHECK(cudaSetDevice(device));
  HeadlessGl gl(device);
  const interop::InteropSupport support = interop::probe_gl_interop(device);
  if (!support.usable) {
    std::fprintf(stderr, "interop-consumer: CUDA-GL interop does not work here: %s\n",
                 support.reason.c_str());
    return 1;
  }

  GlName buffer{0, glDeleteBuffers};
  glCreateBuffers(1, &buffer.name);
  glNamedBufferStorage(buffer.name, kBufferBytes, nullptr, 0);
  GlName texture{0, glDeleteTextures};
  glCreateTextures(GL_TEXTURE_2D, 1, &texture.name);
  glTextureStorage2D(texture.name, 1, GL_RGBA8, kWidth, kHeight);
  INTEROP_GL_CHECK("creating the buffer and the texture");

  std::vector<unsigned char> texels(static_cast<size_t>(kWidth) * kHeight * 4);
  for (int y = 0; y < kHeight; ++y)
    for (int x = 0; x < kWidth; ++x)
      for (int c = 0; c < 4; ++c) texels[(static_cast<size_t>(y) * kWidth + x) * 4 + c] = texel_byte(x, y, c);

  {
    interop::GlBufferRegistration buffer_registration({buffer.name, interop::Access::WriteDiscard});
    interop::TextureRegistrationDesc texture_desc;
    texture_desc.texture = texture.name;
    texture_desc.access = interop::Access::WriteDiscard;
    interop::GlTextureRegistration texture_registration(texture_desc);
    interop::Stream stream;
    interop::ScopedMap mapped({buffer_registration.resource(), texture_registration.resource()},
                              stream.get());
    const interop::MappedPointer pointer = mapped.pointer(0);
    INTEROP_CUDA_CHECK(cudaMemsetAsync(pointer.data, kBufferByte, pointer.size, stream.get()));
    INTEROP_CUDA_CHECK(cudaMemcpy2DToArrayAsync(mapped.array(1), 0, 0, texels.data(), kWidth * 4, kWidth * 4,
                                                kHeight, cudaMemcpyHostToDevice, stream.get()));
    mapped.unmap();  // GL may use the objects once they are unmapped (the unmap orders after the copies)
    stream.synchronize();
  }  // registrations end before the GL objects are deleted

  std::vector<unsigned char> buffer_back(kBufferBytes);
  glGetNamedBufferSubData(buffer.name, 0, kBufferBytes, buffer_back.data());
  std::vector<unsigned char> texels_back(texels.size());
  glGetTextureImage(texture.name, 0, GL_RGBA, GL_UNSIGNED_BYTE, static_cast<GLsizei>(texels_back.size()),
                    texels_back.data());
  INTEROP_GL_CHECK("reading the buffer and the texture back");

  size_t wrong_bytes = 0;
  for (const unsigned char byte : buffer_back) wrong_bytes += byte != kBufferByte;
  size_t wrong_texels = 0;
  for (size_t i = 0; i < texels.size(); ++i) wrong_texels += texels_back[i] != texels[i];
  if (wrong_bytes != 0 || wrong_texels != 0) {
    std::fprintf(stderr,
                 "interop-consumer: FAILED: GL reads %zu of %zu buffer bytes and %zu of %zu texture bytes "
                 "other than CUDA wrote\n",
                 wrong_bytes, buffer_back.size(), wrong_texels, texels.size());
    return 1;
  }
  std::printf(
      "interop-consumer: OK: CUDA device %d (%s) wrote a %zu-byte GL buffer and a %dx%d GL texture; GL "
      "(%s) reads back what CUDA wrote\n",
      device, cuda.devices[0].name.c_str(), kBufferBytes, kWidth, kHeight,
      interop::current_gl_renderer().c_str());
  return 0;
}

}  // namespace

int main() {
  try {
    return run();
  } catch (const interop::Error& error) {
    std::fprintf(stderr, "interop-consumer: %s\n", error.what());
    return 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "interop-consumer: %s\n", error.what());
    return 1;
  }
}
