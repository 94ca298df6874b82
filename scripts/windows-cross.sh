#!/bin/bash
# scripts/windows-cross.sh — builds the Windows pieces of interop-lab on Linux with mingw-w64
# (tests/windows, -Werror) into build/windows, and runs what Wine can run. Prints one summary line per
# check and a last `windows-cross:` line; exit 0 when everything built and every run passed or was
# skipped with its reason.
#
# Needs g++-mingw-w64-x86-64-posix, wine64 and xvfb (scripts/setup.sh installs them), the CUDA Toolkit's
# headers (/usr/local/cuda/include, or CUDA_INCLUDE_DIR) and python3-glad.
# Environment: BUILD_DIR (default build/windows).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build_dir=${BUILD_DIR:-build/windows}
started=$SECONDS

bash scripts/setup.sh

if [ ! -f "$build_dir/build.ninja" ]; then
  cmake -S tests/windows -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE="$root/cmake/mingw-w64-x86_64.cmake" >/dev/null
fi
cmake --build "$build_dir" --parallel "$(nproc)"
echo "windows-cross: built the Windows pieces with mingw-w64 -Werror in $((SECONDS - started))s"
