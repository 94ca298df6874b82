#!/bin/bash
# scripts/build.sh — installs what is missing (setup.sh), configures with a CMake preset and builds
# with Ninja on every core. run.sh and test.sh build through this script.
#
#   scripts/build.sh [-DVAR=VALUE]... [--target NAME]...
#
# -D options go to the configure step, --target to the build step (default: everything).
# Environment:
#   PRESET      release (default), debug, asan or ci — see CMakePresets.json
#   BUILD_DIR   build folder, relative to the project root (default build/<preset>)
#   BUILD_TYPE  overrides the preset's CMAKE_BUILD_TYPE
#   CUDAARCHS   CUDA architectures to build, e.g. "90" or "75;90" (default: CMakeLists.txt's list)
#   CUDACXX     the CUDA compiler (default: /usr/local/cuda/bin/nvcc where it exists, else nvcc on PATH)
#   CI=true     warnings are errors (INTEROP_LAB_WERROR=ON)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

preset=${PRESET:-release}
build_dir=${BUILD_DIR:-build/$preset}

configure_args=()
build_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    -D?*) configure_args+=("$1") ;;
    --target)
      [ $# -ge 2 ] || { echo "build: --target needs a target name" >&2; exit 2; }
      build_args+=(--target "$2")
      shift
      ;;
    *)
      echo "build: unknown argument '$1' (usage: scripts/build.sh [-DVAR=VALUE]... [--target NAME]...)" >&2
      exit 2
      ;;
  esac
  shift
done

bash "$root/scripts/setup.sh"
# The CUDA compiler is the environment's choice (CMakeLists.txt names no path): the Toolkit's default
# place unless CUDACXX says otherwise, as setup.sh looked for it.
if [ -z "${CUDACXX:-}" ] && [ -x /usr/local/cuda/bin/nvcc ]; then export CUDACXX=/usr/local/cuda/bin/nvcc; fi

[ -n "${BUILD_TYPE:-}" ] && configure_args+=("-DCMAKE_BUILD_TYPE=$BUILD_TYPE")
# CMake reads CUDAARCHS only when it first configures a build folder; passing it on makes a change
# of CUDAARCHS take effect in an existing folder too.
[ -n "${CUDAARCHS:-}" ] && configure_args+=("-DCMAKE_CUDA_ARCHITECTURES=$CUDAARCHS")
[ "${CI:-}" = true ] && configure_args+=(-DINTEROP_LAB_WERROR=ON)

started=$SECONDS
echo "build: configuring $build_dir (preset $preset${BUILD_TYPE:+, $BUILD_TYPE}${CUDAARCHS:+, CUDA architectures $CUDAARCHS})"
mkdir -p "$build_dir"
log="$build_dir/configure.log"
if ! cmake --preset "$preset" -B "$build_dir" "${configure_args[@]}" >"$log" 2>&1; then
  cat "$log" >&2
  echo "build: configuring failed (log: $log)" >&2
  exit 1
fi

jobs=$(nproc)
echo "build: building with $jobs jobs"
cmake --build "$build_dir" --parallel "$jobs" "${build_args[@]}"
echo "build: $build_dir is up to date ($((SECONDS - started))s)"
