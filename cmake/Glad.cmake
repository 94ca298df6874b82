# GL 4.6 core and EGL 1.5 loaders, generated at build time by Debian's glad (python3-glad).
# --reproducible uses the specs bundled with glad: no network. Nothing generated is committed.
find_program(GLAD_EXECUTABLE glad REQUIRED)
set(glad_dir ${CMAKE_BINARY_DIR}/glad)
set(glad_outputs
  ${glad_dir}/include/glad/gl.h ${glad_dir}/include/glad/egl.h
  ${glad_dir}/src/gl.c ${glad_dir}/src/egl.c)
add_custom_command(
  OUTPUT ${glad_outputs}
  COMMAND ${GLAD_EXECUTABLE} --quiet --reproducible --api gl:core=4.6,egl=1.5 --out-path ${glad_dir} c --loader
  COMMENT "Generating the GL 4.6 core and EGL 1.5 loaders with glad"
  VERBATIM)
add_library(glad STATIC ${glad_dir}/src/gl.c ${glad_dir}/src/egl.c)
target_include_directories(glad SYSTEM PUBLIC ${glad_dir}/include)
target_link_libraries(glad PUBLIC ${CMAKE_DL_LIBS})
set_target_properties(glad PROPERTIES POSITION_INDEPENDENT_CODE ON)
