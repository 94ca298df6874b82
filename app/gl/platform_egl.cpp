// app/gl/platform_egl.cpp — a headless GL 4.5 core context through EGL, rendering into an offscreen
// framebuffer. On NVIDIA it uses the EGL device platform and picks the EGL device whose
// EGL_CUDA_DEVICE_NV is the chosen CUDA device, so CUDA and GL share one GPU; elsewhere (Mesa) it
// uses the surfaceless platform. No X server is needed. libEGL is loaded at run time by glad.
// enumerate_egl_devices() lists the EGL devices for both the platform choice and --doctor.
#include "app/gl/platform.hpp"

#include <glad/egl.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace lab::gl {
namespace {

bool has_extension(const char* extensions, const char* name) {
  if (extensions == nullptr) return false;
  const size_t length = std::strlen(name);
  for (const char* at = std::strstr(extensions, name); at != nullptr; at = std::strstr(at + 1, name)) {
    const bool starts = at == extensions || at[-1] == ' ';
    const bool ends = at[length] == '\0' || at[length] == ' ';
    if (starts && ends) return true;
  }
  return false;
}

constexpr const char* kCannotLoadEgl =
    "cannot load libEGL.so.1: install the EGL loader (Debian: libegl1) and a driver's EGL vendor library";

std::string egl_error_text() {
  const EGLint error = eglGetError();
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%04X", static_cast<unsigned>(error));
  return std::string("EGL error ") + hex;
}

struct ChosenDisplay {
  EGLDisplay display = EGL_NO_DISPLAY;
  std::string description;
};

// The EGL device that drives `cuda_device` (any NVIDIA device when it is -1).
ChosenDisplay device_platform_display(int cuda_device) {
  const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  if (!has_extension(client, "EGL_EXT_platform_device") || eglGetPlatformDisplayEXT == nullptr) return {};
  std::vector<EglDeviceInfo> devices;
  try {
    devices = enumerate_egl_devices();
  } catch (const std::runtime_error&) {
    return {};  // no device enumeration: the caller falls back to Mesa's surfaceless platform
  }
  for (const EglDeviceInfo& device : devices) {
    if (!device.nv_device_cuda || device.cuda_device < 0) continue;
    if (cuda_device >= 0 && device.cuda_device != cuda_device) continue;
    EGLDisplay display =
        eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, static_cast<EGLDeviceEXT>(device.handle), nullptr);
    if (display == EGL_NO_DISPLAY) continue;
    return {display, "EGL device platform, EGL device " + std::to_string(device.index) + " = CUDA device " +
                         std::to_string(device.cuda_device)};
  }
  return {};
}

ChosenDisplay fallback_display() {
  const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  if (has_extension(client, "EGL_MESA_platform_surfaceless") && eglGetPlatformDisplayEXT != nullptr) {
    EGLDisplay display =
        eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (display != EGL_NO_DISPLAY) return {display, "EGL surfaceless platform"};
  }
  return {eglGetDisplay(EGL_DEFAULT_DISPLAY), "EGL default display"};
}

// eglGetPlatformDisplay hands every platform on one device the same EGLDisplay, and eglTerminate ends
// all of its contexts: several headless platforms in one process (the Python package's labs and viewers)
// count their initialisations, and the last one terminates.
int change_display_users(EGLDisplay display, int change) {
  static std::mutex mutex;
  static std::map<EGLDisplay, int> users;
  const std::lock_guard<std::mutex> lock(mutex);
  const int now = users[display] += change;
  if (now <= 0) users.erase(display);
  return now;
}

class EglPlatform final : public Platform {
 public:
  explicit EglPlatform(const HeadlessDesc& desc) {
    if (gladLoaderLoadEGL(EGL_NO_DISPLAY) == 0) throw std::runtime_error(kCannotLoadEgl);
    ChosenDisplay chosen = device_platform_display(desc.cuda_device);
    if (chosen.display == EGL_NO_DISPLAY) chosen = fallback_display();
    if (chosen.display == EGL_NO_DISPLAY)
      fail(
          "no EGL display: no EGL vendor library offers one; install a GL driver's (NVIDIA: its EGL vendor "
          "library, 10_nvidia.json; Mesa: libegl-mesa0) and check __EGL_VENDOR_LIBRARY_FILENAMES");
    m_display = chosen.display;
    // A display that code outside interop-lab initialised (a caller's own EGL context, in Python) is
    // theirs: counted once more for them, so that no platform of ours terminates it under their context.
    if (change_display_users(m_display, 0) == 0 && eglQueryString(m_display, EGL_VERSION) != nullptr)
      change_display_users(m_display, +1);
    eglGetError();  // EGL_NOT_INITIALIZED from the query above, when it was not
    EGLint major = 0, minor = 0;
    if (!eglInitialize(m_display, &major, &minor)) fail("eglInitialize failed");
    m_initialized = true;
    change_display_users(m_display, +1);
    gladLoaderLoadEGL(m_display);  // now with the display's extensions
    if (!has_extension(eglQueryString(m_display, EGL_EXTENSIONS), "EGL_KHR_surfaceless_context"))
      fail("the EGL display lacks EGL_KHR_surfaceless_context, needed for a context without a window");
    if (!eglBindAPI(EGL_OPENGL_API)) fail("eglBindAPI(EGL_OPENGL_API) failed: the driver has no desktop GL");

    const EGLint config_attributes[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE, 0, EGL_NONE};
    EGLConfig config = nullptr;
    EGLint config_count = 0;
    if (!eglChooseConfig(m_display, config_attributes, &config, 1, &config_count) || config_count == 0)
      fail("no EGL config renders desktop OpenGL");
    const EGLint context_attributes[] = {EGL_CONTEXT_MAJOR_VERSION,
                                         4,
                                         EGL_CONTEXT_MINOR_VERSION,
                                         5,
                                         EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                         EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                         EGL_NONE};
    m_context = eglCreateContext(m_display, config, EGL_NO_CONTEXT, context_attributes);
    if (m_context == EGL_NO_CONTEXT) fail("cannot create an OpenGL 4.5 core context");
    if (!eglMakeCurrent(m_display, EGL_NO_SURFACE, EGL_NO_SURFACE, m_context)) fail("eglMakeCurrent failed");
    const auto load = [](const char* name) { return reinterpret_cast<GLADapiproc>(eglGetProcAddress(name)); };
    if (gladLoadGL(load) == 0) fail("glad could not load OpenGL 4.5 core functions");
    m_description = "headless (" + chosen.description + ", EGL " + std::to_string(major) + "." +
                    std::to_string(minor) + ")";
    resize(desc.extent);
  }

  ~EglPlatform() override { release(); }

  EglPlatform(const EglPlatform&) = delete;
  EglPlatform& operator=(const EglPlatform&) = delete;

  std::string description() const override { return m_description; }
  bool is_window() const override { return false; }
  bool keep_running() const override { return true; }
  void poll_events() override {}
  Extent framebuffer_extent() const override { return m_extent; }
  GLuint framebuffer() const override { return m_target.framebuffer.get(); }

  void resize(Extent extent) override {
    m_target = extent.empty() ? OffscreenTarget{}
                              : create_offscreen_target(extent.width, extent.height, "headless framebuffer");
    m_extent = extent;
  }

  void present() override {}

 private:
  [[noreturn]] void fail(const std::string& what) {
    const std::string error = egl_error_text();
    release();
    throw std::runtime_error("headless GL: " + what + " (" + error + ")");
  }

  void release() {
    m_target = OffscreenTarget{};  // GL objects go before the context
    if (m_display != EGL_NO_DISPLAY) {
      eglMakeCurrent(m_display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      if (m_context != EGL_NO_CONTEXT) eglDestroyContext(m_display, m_context);
      if (m_initialized && change_display_users(m_display, -1) == 0) eglTerminate(m_display);
    }
    m_context = EGL_NO_CONTEXT;
    m_display = EGL_NO_DISPLAY;
  }

  EGLDisplay m_display = EGL_NO_DISPLAY;
  EGLContext m_context = EGL_NO_CONTEXT;
  bool m_initialized = false;  // counted in change_display_users
  OffscreenTarget m_target;
  Extent m_extent;
  std::string m_description;
};

}  // namespace

std::unique_ptr<Platform> create_headless_platform(const HeadlessDesc& desc) {
  return std::make_unique<EglPlatform>(desc);
}

std::vector<EglDeviceInfo> enumerate_egl_devices() {
  if (gladLoaderLoadEGL(EGL_NO_DISPLAY) == 0) throw std::runtime_error(kCannotLoadEgl);
  const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  const bool enumeration =
      has_extension(client, "EGL_EXT_device_enumeration") || has_extension(client, "EGL_EXT_device_base");
  if (!enumeration || eglQueryDevicesEXT == nullptr || eglQueryDeviceStringEXT == nullptr)
    throw std::runtime_error(
        "libEGL cannot list GPUs: no EGL vendor library offers EGL_EXT_device_enumeration; install the "
        "NVIDIA "
        "EGL vendor library (or Mesa 18.2 or later) and check __EGL_VENDOR_LIBRARY_FILENAMES");
  EGLint count = 0;
  if (!eglQueryDevicesEXT(0, nullptr, &count) || count <= 0) return {};
  std::vector<EGLDeviceEXT> handles(static_cast<size_t>(count));
  if (!eglQueryDevicesEXT(count, handles.data(), &count)) return {};
  std::vector<EglDeviceInfo> devices;
  for (EGLint i = 0; i < count; ++i) {
    const EGLDeviceEXT handle = handles[static_cast<size_t>(i)];
    EglDeviceInfo info;
    info.index = i;
    info.handle = handle;
    const char* extensions = eglQueryDeviceStringEXT(handle, EGL_EXTENSIONS);
    info.nv_device_cuda = has_extension(extensions, "EGL_NV_device_cuda");
    info.ext_device_drm = has_extension(extensions, "EGL_EXT_device_drm");
    info.mesa_device_software = has_extension(extensions, "EGL_MESA_device_software");
    EGLAttrib ordinal = -1;
    if (info.nv_device_cuda && eglQueryDeviceAttribEXT != nullptr &&
        eglQueryDeviceAttribEXT(handle, EGL_CUDA_DEVICE_NV, &ordinal))
      info.cuda_device = static_cast<int>(ordinal);
    if (info.ext_device_drm) {
      const char* file = eglQueryDeviceStringEXT(handle, EGL_DRM_DEVICE_FILE_EXT);
      if (file != nullptr) info.drm_device_file = file;
    }
    devices.push_back(std::move(info));
  }
  eglGetError();  // a failed attribute query leaves an error that the next EGL call must not report
  return devices;
}

}  // namespace lab::gl
