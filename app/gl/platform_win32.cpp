// app/gl/platform_win32.cpp — the Windows side of app/gl/platform.hpp's headless half. Windows has no EGL
// (the NVIDIA driver ships none there), so headless GL and the EGL device list, which platform_egl.cpp gives
// on Linux, are refused here with what to use instead; the window platform (GLFW, platform_glfw.cpp)
// is the same on both systems.
#include "app/gl/platform.hpp"

#include <stdexcept>

namespace lab::gl {

std::unique_ptr<Platform> create_headless_platform(const HeadlessDesc& /*desc*/) {
  throw std::runtime_error(
      "headless OpenGL needs EGL, which Windows does not have: run in a window (leave out --headless; "
      "a hidden window serves a machine without a monitor as long as a display driver is loaded)");
}

std::vector<EglDeviceInfo> enumerate_egl_devices() {
  throw std::runtime_error("no EGL on Windows: GL runs in a window (WGL), whose adapter the GL report names");
}

}  // namespace lab::gl
