// app/glfw/window.cpp — the GLFW window, its hotkeys and full screen, and the ImGui context of the apps
// that draw without a GL context (app/glfw/window.hpp).
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

}  // namespace

std::string error_text() {
  const char* description = nullptr;
  const int code = glfwGetError(&description);
  if (code == GLFW_NO_ERROR) return "GLFW gave no reason";
  return description ? description : "GLFW error " + std::to_string(code);
}

Window::Window(const WindowDesc& desc) : m_vulkan(desc.vulkan) {
  if (glfwInit() != GLFW_TRUE)
    throw std::runtime_error("cannot open a window: " + error_text() + desc.no_display_remedy);
  if (desc.vulkan && glfwVulkanSupported() != GLFW_TRUE) {
    const std::string reason = error_text();
    glfwTerminate();
    throw std::runtime_error("GLFW finds no Vulkan loader for a window (" + reason +
                             "): install libvulkan1, or use --headless");
  }
  glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);  // the API presents through its own swap chain
  m_handle = glfwCreateWindow(desc.extent.width, desc.extent.height, desc.title.c_str(), nullptr, nullptr);
  if (m_handle == nullptr) {
    const std::string reason = error_text();
    glfwTerminate();
    throw std::runtime_error("cannot create a window: " + reason + "; use --headless");
  }
  glfwSetWindowUserPointer(m_handle, this);
  glfwSetKeyCallback(m_handle, [](GLFWwindow* handle, int key, int /*scancode*/, int action, int mods) {
    if (action != GLFW_PRESS) return;  // a held key repeats nothing
    if (const std::optional<Hotkey> hotkey = hotkey_for(key, mods))
      static_cast<Window*>(glfwGetWindowUserPointer(handle))->m_hotkeys.push_back(*hotkey);
  });
}

Window::~Window() {
  glfwDestroyWindow(m_handle);
  glfwTerminate();
}

Extent Window::poll() {
  glfwPollEvents();
  int width = 0, height = 0;
  glfwGetFramebufferSize(m_handle, &width, &height);
  return {width, height};
}

void Window::request_size(Extent extent) {
  glfwSetWindowSize(m_handle, extent.width, extent.height);
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
  ImGui::CreateContext();
  use_layout_file(m_layout_file);
  if (window.vulkan())
    ImGui_ImplGlfw_InitForVulkan(window.handle(), true);
  else
    ImGui_ImplGlfw_InitForOther(window.handle(), true);
}

void Panel::begin_frame() {
  ImGui_ImplGlfw_NewFrame();
}

Panel::~Panel() {
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
}

}  // namespace lab::glfw
