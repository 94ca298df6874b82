// app/glfw/window.cpp — the GLFW window (with or without a GL context), its hotkeys and full screen, and
// the panel's ImGui context (app/glfw/window.hpp).
#include "app/glfw/window.hpp"

#include "app/glfw/panel_layout.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <imgui.h>

#include <optional>
#include <stdexcept>
#include <utility>

namespace lab::glfw {
namespace {

// The monitor whose area holds the window's centre; the primary one when none does (a window half off every
// screen), null without monitors.
GLFWmonitor* monitor_under(GLFWwindow* window) {
  int x = 0, y = 0, width = 0, height = 0;
  glfwGetWindowPos(window, &x, &y);
  glfwGetWindowSize(window, &width, &height);
  const int centre_x = x + width / 2, centre_y = y + height / 2;
  int count = 0;
  GLFWmonitor** monitors = glfwGetMonitors(&count);
  for (int i = 0; i < count; ++i) {
    int left = 0, top = 0;
    glfwGetMonitorPos(monitors[i], &left, &top);
    const GLFWvidmode* mode = glfwGetVideoMode(monitors[i]);
    if (mode != nullptr && centre_x >= left && centre_x < left + mode->width && centre_y >= top &&
        centre_y < top + mode->height)
      return monitors[i];
  }
  return glfwGetPrimaryMonitor();
}

// glfwTerminate destroys every window of the process: with several windows open at once (the Python
// package's viewers), only the last one to close terminates GLFW.
int g_open_windows = 0;

void terminate_unless_used() {
  if (g_open_windows == 0) glfwTerminate();
}

}  // namespace

std::string error_text() {
  const char* description = nullptr;
  const int code = glfwGetError(&description);
  if (code == GLFW_NO_ERROR) return "GLFW gave no reason";
  return description ? description : "GLFW error " + std::to_string(code);
}

Window::Window(const WindowDesc& desc) : m_vulkan(desc.vulkan), m_gl(desc.gl) {
  if (glfwInit() != GLFW_TRUE)
    throw std::runtime_error("cannot open a window: " + error_text() + desc.no_display_remedy);
  if (desc.vulkan && glfwVulkanSupported() != GLFW_TRUE) {
    const std::string reason = error_text();
    terminate_unless_used();
    throw std::runtime_error("GLFW finds no Vulkan loader for a window (" + reason +
                             "): install libvulkan1, or use --headless");
  }
  glfwDefaultWindowHints();  // what an earlier window of the process asked for is not this one's
  if (desc.gl) {
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  } else {
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);  // the API presents through its own swap chain
  }
  glfwWindowHint(GLFW_VISIBLE, desc.visible ? GLFW_TRUE : GLFW_FALSE);
  m_handle = glfwCreateWindow(desc.extent.width, desc.extent.height, desc.title.c_str(), nullptr, nullptr);
  if (m_handle == nullptr) {
    const std::string reason = error_text();
    terminate_unless_used();
    if (desc.gl)
      throw std::runtime_error("cannot create a GL 4.5 core window: " + reason +
                               ". The GL driver must support OpenGL 4.5 core (Mesa llvmpipe does)");
    throw std::runtime_error("cannot create a window: " + reason + "; use --headless");
  }
  ++g_open_windows;
  if (desc.gl) glfwMakeContextCurrent(m_handle);
  // The size is asked for once here and then kept up to date by GLFW's callback, run from poll().
  glfwGetFramebufferSize(m_handle, &m_extent.width, &m_extent.height);
  glfwSetWindowUserPointer(m_handle, this);
  glfwSetFramebufferSizeCallback(m_handle, [](GLFWwindow* handle, int width, int height) {
    static_cast<Window*>(glfwGetWindowUserPointer(handle))->m_extent = {width, height};
  });
  // Installed before the panel's: ImGui's GLFW backend chains to it, so keys reach both.
  glfwSetKeyCallback(m_handle, [](GLFWwindow* handle, int key, int /*scancode*/, int action, int mods) {
    if (action != GLFW_PRESS) return;  // a held key repeats nothing
    if (const std::optional<Hotkey> hotkey = hotkey_for(key, mods))
      static_cast<Window*>(glfwGetWindowUserPointer(handle))->m_hotkeys.push_back(*hotkey);
  });
}

Window::~Window() {
  glfwDestroyWindow(m_handle);
  --g_open_windows;
  terminate_unless_used();
}

Extent Window::poll() {
  glfwPollEvents();
  return m_extent;
}

void Window::request_size(Extent extent) {
  if (extent.empty()) {
    glfwIconifyWindow(m_handle);
    return;
  }
  if (glfwGetWindowAttrib(m_handle, GLFW_ICONIFIED)) glfwRestoreWindow(m_handle);
  glfwSetWindowSize(m_handle, extent.width, extent.height);
  // The new size comes back as an event: wait for it briefly, then ask the server once, which settles it
  // when the window manager granted another size.
  const double deadline = glfwGetTime() + 0.5;
  while (m_extent != extent && glfwGetTime() < deadline) glfwWaitEventsTimeout(0.01);
  glfwGetFramebufferSize(m_handle, &m_extent.width, &m_extent.height);
}

double Window::refresh_hz() const {
  GLFWmonitor* monitor = glfwGetWindowMonitor(m_handle);
  if (monitor == nullptr) monitor = glfwGetPrimaryMonitor();
  const GLFWvidmode* mode = monitor != nullptr ? glfwGetVideoMode(monitor) : nullptr;
  return mode != nullptr ? mode->refreshRate : 0.0;
}

float Window::content_scale() const {
  float x = 1.0f, y = 1.0f;
  glfwGetWindowContentScale(m_handle, &x, &y);
  return x > 0.0f ? x : 1.0f;
}

void Window::wait(double seconds) {
  glfwWaitEventsTimeout(seconds);
}

bool Window::should_close() const {
  return glfwWindowShouldClose(m_handle) == GLFW_TRUE;
}

void Window::request_close() {
  glfwSetWindowShouldClose(m_handle, GLFW_TRUE);
}

void Window::toggle_fullscreen() {
  if (glfwGetWindowMonitor(m_handle) != nullptr) {
    glfwSetWindowMonitor(m_handle, nullptr, m_windowed.x, m_windowed.y, m_windowed.width, m_windowed.height,
                         GLFW_DONT_CARE);
    return;
  }
  GLFWmonitor* monitor = monitor_under(m_handle);
  const GLFWvidmode* mode = monitor != nullptr ? glfwGetVideoMode(monitor) : nullptr;
  if (mode == nullptr) return;  // no monitor to fill (a headless X server without RandR)
  glfwGetWindowPos(m_handle, &m_windowed.x, &m_windowed.y);
  glfwGetWindowSize(m_handle, &m_windowed.width, &m_windowed.height);
  glfwSetWindowMonitor(m_handle, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
}

std::vector<Hotkey> Window::take_hotkeys() {
  std::vector<Hotkey> pressed;
  pressed.swap(m_hotkeys);
  return pressed;
}

Panel::Panel(const Window& window, std::string layout_file) : m_layout_file(std::move(layout_file)) {
  IMGUI_CHECKVERSION();
  m_context = ImGui::CreateContext();
  make_current();  // CreateContext keeps another loop's context current where there is one
  use_layout_file(m_layout_file);
  ImGui::StyleColorsDark();
  if (const float scale = window.content_scale(); scale != 1.0f) {
    ImFontConfig font;
    font.SizePixels = 13.0f * scale;
    ImGui::GetIO().Fonts->AddFontDefault(&font);
    ImGui::GetStyle().ScaleAllSizes(scale);
  }
  if (window.vulkan())
    ImGui_ImplGlfw_InitForVulkan(window.handle(), true);
  else if (window.gl())
    ImGui_ImplGlfw_InitForOpenGL(window.handle(), true);
  else
    ImGui_ImplGlfw_InitForOther(window.handle(), true);
}

void Panel::begin_frame() {
  make_current();
  ImGui_ImplGlfw_NewFrame();
}

void Panel::make_current() {
  ImGui::SetCurrentContext(m_context);
}

Panel::~Panel() {
  make_current();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext(m_context);
}

}  // namespace lab::glfw
