# GL 4.6 core and EGL 1.5 loaders, generated at build time by Debian's glad (python3-glad).
# --reproducible uses the specs bundled with glad: no network. Nothing generated is committed.
# Included by interop/CMakeLists.txt only where no `glad` target exists yet: a project that brings its
# own glad (or another loader, see INTEROP_LAB_GL_HEADER) keeps it.
find_program(GLAD_EXECUTABLE glad REQUIRED)
set(glad_dir ${PROJECT_BINARY_DIR}/glad)
set(glad_headers
  ${glad_dir}/include/glad/gl.h ${glad_dir}/include/glad/egl.h
  ${glad_dir}/include/KHR/khrplatform.h ${glad_dir}/include/EGL/eglplatform.h)
add_custom_command(
  OUTPUT ${glad_headers} ${glad_dir}/src/gl.c ${glad_dir}/src/egl.c
  COMMAND ${GLAD_EXECUTABLE} --quiet --reproducible --api gl:core=4.6,egl=1.5 --out-path ${glad_dir} c --loader
  COMMENT "Generating the GL 4.6 core and EGL 1.5 loaders with glad"
  VERBATIM)
add_library(glad STATIC ${glad_dir}/src/gl.c ${glad_dir}/src/egl.c)
# Installed (interop/CMakeLists.txt) under include/interop_lab/, so that its Khronos headers (KHR/, EGL/)
# cannot shadow a system's.
target_include_directories(glad SYSTEM PUBLIC $<BUILD_INTERFACE:${glad_dir}/include>
                           $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/interop_lab>)
# glad opens libGL / libEGL itself at run time (dlopen): nothing to link but libdl.
target_link_libraries(glad PUBLIC ${CMAKE_DL_LIBS})
set_target_properties(glad PROPERTIES POSITION_INDEPENDENT_CODE ON)
add_library(interop_lab::glad ALIAS glad)
