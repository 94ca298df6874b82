# Windows (vcpkg.json): vcpkg's imgui port, built with the glfw, win32, dx11, dx12 and opengl3 backends,
# gives the target itself.
if(WIN32)
  find_package(imgui CONFIG REQUIRED)
  return()
endif()

# Debian's libimgui.a holds Dear ImGui 1.86 with its GLFW and OpenGL3 backends. It needs stb
# (pkg-config says -lstb); the static libstb.a is linked so the binary carries no libstb.so dependency.
find_package(PkgConfig REQUIRED)
pkg_check_modules(IMGUI REQUIRED imgui)
find_library(IMGUI_LIBRARY NAMES libimgui.a imgui REQUIRED)
find_library(STB_STATIC_LIBRARY NAMES libstb.a stb REQUIRED)
add_library(imgui_debian INTERFACE)
target_include_directories(imgui_debian SYSTEM INTERFACE ${IMGUI_INCLUDE_DIRS})
target_link_libraries(imgui_debian INTERFACE ${IMGUI_LIBRARY} ${STB_STATIC_LIBRARY} glfw ${CMAKE_DL_LIBS})
add_library(imgui::imgui ALIAS imgui_debian)
