// app/d3d11/window.cpp — the GLFW window and the ImGui context of the Direct3D apps (app/d3d11/window.hpp).
#include "app/d3d11/window.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#define GLFW_EXPOSE_NATIVE_WIN32
#include <GLFW/glfw3native.h>
#include <backends/imgui_impl_glfw.h>
#include <imgui.h>

#include <stdexcept>
#include <string>

namespace lab::d3d {
namespace {

std::string glfw_error_text() {
  const char* description = nullptr;
  const int code = glfwGetError(&description);
  if (code == GLFW_NO_ERROR) return "GLFW gave no reason";
  return description ? description : "GLFW error " + std::to_string(code);
}

}  // namespace

Window::Window(Extent extent, const char* title) {
  if (glfwInit() != GLFW_TRUE)
    throw std::runtime_error("cannot open a window: " + glfw_error_text() + "; use --headless");
  glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);  // Direct3D presents through its own swap chain
  m_handle = glfwCreateWindow(extent.width, extent.height, title, nullptr, nullptr);
  if (m_handle == nullptr) {
    const std::string reason = glfw_error_text();
    glfwTerminate();
    throw std::runtime_error("cannot create a window: " + reason + "; use --headless");
  }
}

Window::~Window() {
  glfwDestroyWindow(m_handle);
  glfwTerminate();
}

HWND Window::hwnd() const {
  return glfwGetWin32Window(m_handle);
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

Panel::Panel(const Window& window) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  ImGui_ImplGlfw_InitForOther(window.handle(), true);
}

void Panel::begin_frame() {
  ImGui_ImplGlfw_NewFrame();
}

Panel::~Panel() {
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
}

}  // namespace lab::d3d
