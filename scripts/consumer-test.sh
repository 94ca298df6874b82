#!/bin/bash
# scripts/consumer-test.sh — the interop library as other projects use it, each step in a CMake project
# of its own (never add_subdirectory of the example into this one):
#   1. configure this repository with the library alone (-DINTEROP_LAB_BUILD_APP=OFF), build it and
#      `cmake --install` it into a temporary prefix; check the prefix holds the headers, the static
#      libraries in lib/interop_lab/ (none directly in lib/, where their generic names would meet other
#      projects') and the package config, and no app;
#   2. configure examples/cmake-consumer against that prefix (find_package(interop_lab CONFIG)), build
#      it and run it: it registers a GL buffer and texture, writes them with CUDA and reads them back
#      through GL. Without a CUDA device it exits 77 and this script says "skipped" (CI has no GPU);
#   3. configure examples/add-subdirectory, which adds this repository with add_subdirectory and checks
#      that only the library is defined (no app, no tests), build it and run it (no GPU needed);
#   4. the same with the project's own GL loader (libepoxy) and the shared CUDA runtime: the library must
#      include <epoxy/gl.h>, create no glad target, and its user must link libcudart.so.
#
#   scripts/consumer-test.sh        (CI=true: warnings are errors; CONSUMER_DIR: work folder, default
#                                    build/consumer, emptied first)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
work=${CONSUMER_DIR:-build/consumer}
case "$work" in /*) ;; *) work=$root/$work ;; esac
started=$SECONDS

bash scripts/setup.sh
if [ -z "${CUDACXX:-}" ] && [ -x /usr/local/cuda/bin/nvcc ]; then export CUDACXX=/usr/local/cuda/bin/nvcc; fi
# FindCUDAToolkit (in the library's build and in the consumer's find_dependency) looks for nvcc.
[ -n "${CUDACXX:-}" ] && export CUDAToolkit_ROOT=${CUDAToolkit_ROOT:-$(dirname "$(dirname "$CUDACXX")")}
werror=()
[ "${CI:-}" = true ] && werror=(-DINTEROP_LAB_WERROR=ON)

rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix

step() { echo "consumer-test: $*"; }
configure() {  # configure SOURCE BUILD ARGS...: quiet unless it fails
  local log=$2.configure.log
  if ! cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release "${@:3}" >"$log" 2>&1; then
    cat "$log" >&2
    step "configuring $1 failed (log: $log)" >&2
    exit 1
  fi
}

step "1. the library alone, installed into $prefix"
configure . "$work/library" -DINTEROP_LAB_BUILD_APP=OFF -DINTEROP_LAB_BUILD_TESTS=OFF \
  -DCMAKE_INSTALL_PREFIX="$prefix" "${werror[@]}"
cmake --build "$work/library" --parallel "$(nproc)"
cmake --install "$work/library" >"$work/install.log"
for file in include/interop/gl.hpp include/interop/config.hpp include/interop_lab/glad/gl.h \
            lib/interop_lab/libinterop.a lib/interop_lab/libglad.a \
            lib/cmake/interop_lab/interop_labConfig.cmake lib/cmake/interop_lab/interop_labConfigVersion.cmake \
            lib/cmake/interop_lab/interop_labTargets.cmake; do
  [ -f "$prefix/$file" ] || { step "the install lacks $file" >&2; exit 1; }
done
# The archives' names are generic (libinterop.a, libglad.a): in <prefix>/lib itself they would meet other
# projects' in a shared prefix. Nothing of the install may lie there, only in its folders.
stray=$(find "$prefix/lib" -mindepth 1 -maxdepth 1 ! -type d)
if [ -n "$stray" ]; then
  step "the install put files directly in <prefix>/lib, where other projects' files of the same name go:" >&2
  echo "$stray" >&2
  exit 1
fi
if [ -e "$prefix/bin/interop-lab" ]; then
  step "the library-only install holds the app (bin/interop-lab)" >&2
  exit 1
fi
if grep -rn -- '--\(mode\|headless\|doctor\|device\|size\|list\)\b' "$prefix/include/interop"; then
  step "an installed header names an interop-lab option (above): the library's texts must not" >&2
  exit 1
fi
step "   installed $(wc -l <"$work/library/install_manifest.txt") files"

step "2. examples/cmake-consumer: find_package(interop_lab CONFIG) from the prefix"
configure examples/cmake-consumer "$work/example" -DCMAKE_PREFIX_PATH="$prefix"
cmake --build "$work/example"
# The package's targets point at the archives in lib/interop_lab/, and the example linked those.
if ! grep -q -- "$prefix/lib/interop_lab/libinterop.a" "$work/example/build.ninja"; then
  step "   the example did not link $prefix/lib/interop_lab/libinterop.a" >&2
  exit 1
fi
set +e
"$work/example/interop-consumer"
status=$?
set -e
case $status in
  0) step "   the example ran: CUDA wrote a GL buffer and texture, GL read them back" ;;
  77) step "   the example built and linked; running it SKIPPED: no CUDA device here (exit 77)" ;;
  *) step "   the example FAILED (exit $status)" >&2; exit 1 ;;
esac

step "3. examples/add-subdirectory: the repository through add_subdirectory, the library alone"
configure examples/add-subdirectory "$work/subdirectory" -DINTEROP_LAB_SOURCE_DIR="$root" "${werror[@]}"
if cmake --build "$work/subdirectory" --target help | grep -E '^(interop-lab|labapp|labcore|kernels|unit_tests)(:| )'; then
  step "add_subdirectory defined the app or test targets above" >&2
  exit 1
fi
cmake --build "$work/subdirectory" --parallel "$(nproc)"
"$work/subdirectory/uses-interop"

step "4. the same with the project's own GL loader (libepoxy) and the shared CUDA runtime"
configure examples/add-subdirectory "$work/epoxy" -DINTEROP_LAB_SOURCE_DIR="$root" -DUSE_EPOXY=ON "${werror[@]}"
cmake --build "$work/epoxy" --parallel "$(nproc)"
if ! grep -q 'epoxy/gl.h' "$work/epoxy/interop-lab/interop/include/interop/config.hpp"; then
  step "   the library's config.hpp does not include <epoxy/gl.h>" >&2
  exit 1
fi
# ldd's output is read whole first: `ldd | grep -q` under pipefail fails whenever grep, done at the first
# match, closes the pipe before ldd has written the rest (SIGPIPE).
needed=$(ldd "$work/epoxy/uses-interop")
if ! [[ $needed =~ (libcudart\.so[.0-9]*) ]]; then
  step "   uses-interop does not link the shared CUDA runtime (libcudart.so)" >&2
  exit 1
fi
runtime=${BASH_REMATCH[1]}
"$work/epoxy/uses-interop"
step "   built with <epoxy/gl.h>, no glad target, linked to $runtime"

step "PASSED ($((SECONDS - started))s)"
