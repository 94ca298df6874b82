# Writes OUTPUT: a C++ file defining lab::shader_source(name) (or <NAMESPACE>::<FUNCTION>(name)) over the shader
# files in SOURCES, so the binary needs no asset folder at run time.
# Run as: cmake -DOUTPUT=... -DSOURCES=a;b [-DFUNCTION=hlsl_source] -P EmbedShaders.cmake
if(NOT DEFINED FUNCTION)
  set(FUNCTION shader_source)
endif()
if(NOT DEFINED NAMESPACE)
  set(NAMESPACE lab)
endif()
set(body "// Generated from assets/shaders by cmake/EmbedShaders.cmake. Do not edit.\n#include <cstring>\n#include <stdexcept>\n#include <string>\n\nnamespace ${NAMESPACE} {\n\nconst char* ${FUNCTION}(const char* name) {\n")
foreach(source IN LISTS SOURCES)
  get_filename_component(name ${source} NAME)
  file(READ ${source} text)
  string(APPEND body "  if (std::strcmp(name, \"${name}\") == 0)\n    return R\"glsl(${text})glsl\";\n")
endforeach()
string(APPEND body "  throw std::invalid_argument(std::string(\"no embedded shader named \") + name);\n}\n\n}  // namespace ${NAMESPACE}\n")
file(WRITE ${OUTPUT}.tmp "${body}")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.tmp)
