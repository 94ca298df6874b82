# Per-target warnings (never global flags): interop_lab_set_warnings(<target>). Included by the library's
# own CMake (interop/CMakeLists.txt), so the library builds without the app's CMake.
include_guard(GLOBAL)

function(interop_lab_set_warnings target)
  set(cxx_warnings -Wall -Wextra -Wshadow -Wnon-virtual-dtor -Wpedantic)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:${cxx_warnings}>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
  if(INTEROP_LAB_WERROR)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-Werror>
      $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings>)
  endif()
  if(INTEROP_LAB_SANITIZE)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined -fno-omit-frame-pointer>
      $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fsanitize=address,-fsanitize=undefined,-fno-omit-frame-pointer>)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
  # Host code carries line info so compute-sanitizer and debuggers can name lines.
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)
endfunction()
