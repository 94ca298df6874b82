# cmake/mingw-w64-x86_64.cmake — cross-compiles for 64-bit Windows with Debian's mingw-w64 (POSIX threads
# flavour: std::thread and std::mutex need it; g++-mingw-w64-x86-64-posix). Used by
# scripts/windows-cross.sh, which builds the Windows pieces (Direct3D 11, the Windows platform code) on
# Linux and runs what it can under Wine; a real Windows build uses MSVC and vcpkg (the windows-* presets).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(mingw_triplet x86_64-w64-mingw32)
find_program(CMAKE_C_COMPILER ${mingw_triplet}-gcc-posix)
find_program(CMAKE_CXX_COMPILER ${mingw_triplet}-g++-posix)
find_program(CMAKE_RC_COMPILER ${mingw_triplet}-windres)
if(NOT CMAKE_CXX_COMPILER OR NOT CMAKE_C_COMPILER)
  message(FATAL_ERROR "${mingw_triplet}-g++-posix not found: apt-get install g++-mingw-w64-x86-64-posix "
                      "(scripts/setup.sh installs it)")
endif()

# Headers and libraries come from the mingw-w64 sysroot only; programs (cmake, ninja) from the host.
set(CMAKE_FIND_ROOT_PATH /usr/${mingw_triplet})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Wine runs what is built; a program linked statically needs none of mingw's DLLs (libstdc++, libgcc,
# winpthread) beside it.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
