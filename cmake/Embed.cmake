# interop_lab_embed: a C++ file written at build time that holds asset files' text, so the binaries need
# no asset folder at run time. The script (cmake/EmbedShaders.cmake, cmake/EmbedDesk.cmake) says what the
# file defines; it runs again when a source or the script changes.
#
#   interop_lab_embed(<output.cpp> SCRIPT <script in cmake/> COMMENT <build line> SOURCES <files...>
#                     [FUNCTION <name the script defines>] [NAMESPACE <the namespace it is defined in>])
include_guard(GLOBAL)

function(interop_lab_embed output)
  cmake_parse_arguments(PARSE_ARGV 1 embed "" "SCRIPT;COMMENT;FUNCTION;NAMESPACE" "SOURCES")
  set(script ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/${embed_SCRIPT})
  set(function_argument)
  if(embed_FUNCTION)
    set(function_argument -DFUNCTION=${embed_FUNCTION})
  endif()
  if(embed_NAMESPACE)
    list(APPEND function_argument -DNAMESPACE=${embed_NAMESPACE})
  endif()
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${output} "-DSOURCES=${embed_SOURCES}" ${function_argument} -P ${script}
    DEPENDS ${embed_SOURCES} ${script}
    COMMENT "${embed_COMMENT}"
    VERBATIM)
endfunction()
