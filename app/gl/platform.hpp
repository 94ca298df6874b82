// app/gl/platform.hpp — where GL runs: a GLFW window (GL 4.5 core) or a headless EGL context that renders
// into an offscreen framebuffer. The platform owns the GL context, so it is created first and destroyed
// last; everything else that holds GL or CUDA-GL objects lives inside its lifetime.
#pragma once

#include "app/core/hotkeys.hpp"
#include "app/core/vocabulary.hpp"
#include "app/gl/gl_objects.hpp"

#include <glad/gl.h>

#include <memory>
#include <string>
#include <vector>

struct GLFWwindow;

namespace lab::glfw {
class Window;
struct WindowDesc;
}  // namespace lab::glfw

namespace lab::gl {

class Platform {
 public:
  virtual ~Platform() = default;

  // "window (GLX)" / "headless (EGL device platform, CUDA device 0)" / "headless (EGL surfaceless, Mesa)".
  virtual std::string description() const = 0;
  virtual bool is_window() const = 0;
  virtual GLFWwindow* glfw_window() const { return nullptr; }
  // The window (app/glfw/window.hpp) whose GL context this is; null headless.
  virtual glfw::Window* window() const { return nullptr; }

  // False once the user asked to close the window; always true headless.
  virtual bool keep_running() const = 0;
  // Handles window events; blocks while the window is minimised so a hidden app costs nothing.
  virtual void poll_events() = 0;
  // The size to render at now; 0x0 while minimised.
  virtual Extent framebuffer_extent() const = 0;
  // The framebuffer the frame is drawn into: 0 (the back buffer) for a window, an FBO headless.
  virtual GLuint framebuffer() const = 0;
  // Headless: re-creates the offscreen target. Window: asks the window manager for a new size.
  virtual void resize(Extent extent) = 0;
  // Shows the frame (swap buffers); headless, nothing to show.
  virtual void present() = 0;

  // The window's desk: nothing headless.
  virtual void set_vsync(bool /*on*/) {}
  virtual bool vsync() const { return false; }
  // The refresh rate of the monitor the window is on (the primary one while windowed); 0 when unknown.
  virtual double refresh_hz() const { return 0.0; }
  // glfwGetWindowContentScale's x: 2 on a 200 % high-DPI monitor.
  virtual float content_scale() const { return 1.0f; }
  virtual void toggle_fullscreen() {}
  virtual void request_close() {}
  // The window's hotkeys (app/core/hotkeys.hpp) pressed since the last poll, oldest first.
  virtual std::vector<Hotkey> take_hotkeys() { return {}; }
};

struct WindowDesc {
  Extent extent{1280, 720};
  std::string title = "interop-lab";
  bool vsync = true;
  bool visible = true;  // false: a hidden window, for a GL context nobody looks at (--doctor)
};

struct HeadlessDesc {
  Extent extent{1280, 720};
  // The CUDA device whose EGL device should render (EGL_CUDA_DEVICE_NV); -1: the first NVIDIA EGL
  // device, else Mesa's surfaceless platform.
  int cuda_device = -1;
};

// Both throw std::runtime_error with the reason and a remedy (no DISPLAY, no GL 4.5, no EGL, ...).
// create_window_platform(desc) opens a window of its own; the other takes GL's context from `window`, made
// with window_desc_for_gl's description, which it must outlive (the frame loop's window).
std::unique_ptr<Platform> create_window_platform(const WindowDesc& desc);
std::unique_ptr<Platform> create_window_platform(glfw::Window& window, bool vsync);
glfw::WindowDesc window_desc_for_gl(const WindowDesc& desc);
std::unique_ptr<Platform> create_headless_platform(const HeadlessDesc& desc);

// One EGL device (EGL_EXT_device_enumeration) and what it says about itself.
struct EglDeviceInfo {
  int index = -1;                     // position in eglQueryDevicesEXT's list
  bool nv_device_cuda = false;        // EGL_NV_device_cuda: an NVIDIA GPU that CUDA can share
  bool ext_device_drm = false;        // EGL_EXT_device_drm: a GPU behind a DRM device file
  bool mesa_device_software = false;  // EGL_MESA_device_software: Mesa's software rasteriser
  int cuda_device = -1;               // EGL_CUDA_DEVICE_NV; -1 when the device is not a CUDA device
  std::string drm_device_file;        // EGL_DRM_DEVICE_FILE_EXT ("/dev/dri/card0"); "" when unknown
  void* handle = nullptr;             // the EGLDeviceEXT, borrowed from libEGL (valid while it stays loaded)
};

// Every EGL device libEGL knows (NVIDIA's through its EGL vendor library, Mesa's through its own).
// Throws std::runtime_error with a remedy when libEGL cannot be loaded or lacks device enumeration.
std::vector<EglDeviceInfo> enumerate_egl_devices();

}  // namespace lab::gl
