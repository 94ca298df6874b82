// app/d3d/window.cpp — the HWND of a GLFW window (app/d3d/window.hpp).
#include "app/d3d/window.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#define GLFW_EXPOSE_NATIVE_WIN32
#include <GLFW/glfw3native.h>

namespace lab::d3d {

HWND hwnd(const glfw::Window& window) {
  return glfwGetWin32Window(window.handle());
}

}  // namespace lab::d3d
