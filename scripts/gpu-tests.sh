#!/bin/bash
# scripts/gpu-tests.sh — runs the test binaries that need a GPU (and the GL ones beside them) directly,
# for a GPU server where the binaries were copied from the build machine: CTest's files hold the build
# machine's absolute paths, so CTest cannot run there.
#
#   scripts/gpu-tests.sh [BUILD_DIR]        (default build/release; binaries under BUILD_DIR/tests)
#
# Headless (EGL device platform) always; in a GLFW window as well when DISPLAY is set (on a server
# without a display: Xvfb plus __GLX_VENDOR_LIBRARY_NAME=nvidia, so the window's GL runs on the GPU).
# Exit status: 0 when every binary passed. A test that skipped says why; on a GPU server, none should.
set -u
build_dir=${1:-build/release}
status=0

# A GPU server must run the GPU tests, not skip them: with INTEROP_LAB_REQUIRE_GPUS set, a test that
# finds fewer CUDA devices with working interop than that fails instead of skipping.
if [ -z "${INTEROP_LAB_REQUIRE_GPUS:-}" ] && command -v nvidia-smi >/dev/null; then
  INTEROP_LAB_REQUIRE_GPUS=$(nvidia-smi --list-gpus 2>/dev/null | grep -c '^GPU ' || true)
fi
export INTEROP_LAB_REQUIRE_GPUS=${INTEROP_LAB_REQUIRE_GPUS:-1}
echo "=== GPU tests must find $INTEROP_LAB_REQUIRE_GPUS CUDA device(s) with GL interop (INTEROP_LAB_REQUIRE_GPUS)"

run() {
  local label=$1
  shift
  echo "=== $label: $(basename "$1")"
  "$@" --gtest_brief=1 || status=1
}

# The one frame loop on the null backend, whose CUDA cases (the array source's device pictures, the view
# drawn through CUDA, the device switch) need the GPU.
run headless "$build_dir/tests/loop_tests"
run headless "$build_dir/tests/gpu_tests"
run headless "$build_dir/tests/gl_tests"
# Frames published to another process in CUDA memory (interop/publish.hpp: its device-slot tests) and the
# library linked alone, as another project links it, on the GPU's own EGL (no glad loaded).
run headless "$build_dir/tests/unit_tests" --gtest_filter='Publish*'
[ -x "$build_dir/tests/consumer_gl_tests" ] && run headless "$build_dir/tests/consumer_gl_tests"
# The fault drill with device slots (tests/publish/kill_drill.py): a publisher of known frames and
# interop-lab --attach viewers, each killed with SIGKILL in turn. Here it must run on the GPU: a missing
# publish_pattern or interop-lab, or device slots the GPU cannot export, fail it.
drill_pattern="$build_dir/tests/publish_pattern"
drill_app="$build_dir/app/interop-lab"
echo "=== kill drill: device slots"
if [ -x "$drill_pattern" ] && [ -x "$drill_app" ]; then
  /usr/bin/python3 "$(dirname "$0")/../tests/publish/kill_drill.py" --app "$drill_app" --pattern "$drill_pattern" \
      --memory device || status=1
else
  echo "kill drill: FAILED: no $drill_pattern or $drill_app (build the publish_pattern and interop-lab targets)"
  status=1
fi
# Vulkan -> CUDA -> Vulkan through imported memory and a timeline semaphore (the validation layer runs
# where VK_LAYER_PATH finds it).
[ -x "$build_dir/tests/vulkan_tests" ] && run headless "$build_dir/tests/vulkan_tests"
if [ -n "${DISPLAY:-}" ]; then
  INTEROP_LAB_TEST_PLATFORM=window run window "$build_dir/tests/gpu_tests"
  INTEROP_LAB_TEST_PLATFORM=window run window "$build_dir/tests/gl_tests"
  run window "$build_dir/tests/window_tests"
else
  echo "=== window: skipped, no DISPLAY (start Xvfb to run the window tests)"
fi
# The Python package (python/tests: Lab, Viewer, your own GL objects) against BUILD_DIR/python, where its
# library was built, with CuPy / PyTorch / cuda.core as installed in PYTHON (default python3); windows
# too when DISPLAY is set.
python=${PYTHON:-python3}
tests_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../python/tests" && pwd)
if [ -f "$build_dir/python/interop_lab/libinterop_lab_bridge.so" ] && "$python" -c "import pytest" 2>/dev/null; then
  echo "=== python: $tests_dir"
  package_dir="$(cd "$build_dir" && pwd)/python"
  (cd "$(mktemp -d)" && PYTHONPATH="$package_dir" "$python" -m pytest -q -rs "$tests_dir") || status=1
else
  echo "=== python: skipped, no $build_dir/python/interop_lab/libinterop_lab_bridge.so or no pytest"
fi

# The browser desk (--serve) with CUDA in the loop, in headless Chromium (tests/web/test_desk.py; exit 77,
# a skip that says why, where Chromium is not installed).
app="$build_dir/app/interop-lab"
if [ -x "$app" ]; then
  for desk_case in "vulkan staging" "gl interop"; do
    read -r desk_api desk_mode <<<"$desk_case"
    echo "=== desk: --api $desk_api --mode $desk_mode"
    /usr/bin/python3 "$(dirname "$0")/../tests/web/test_desk.py" --app "$app" --api "$desk_api" --mode "$desk_mode"
    desk_status=$?
    [ $desk_status -eq 0 ] || [ $desk_status -eq 77 ] || status=1
  done
fi
# What the desk serves equals the frame, for every scene of every mode CUDA drives (no browser needed:
# tests/web/served_frames.py decodes the JPEGs with Pillow and compares them with --screenshot's).
if [ -x "$app" ] && "$python" -c "import PIL, numpy" 2>/dev/null; then
  all=wave,pattern,postprocess
  for served_case in "gl interop $all" "gl reregister $all" "gl pbo $all" "gl buffer $all" "gl staging $all" \
                     "gl external $all" "gl exported wave,pattern" "gl eglstream pattern" "vulkan external $all" \
                     "vulkan exported $all" "vulkan buffer $all" "vulkan staging $all"; do
    read -r served_api served_mode served_scenes <<<"$served_case"
    "$python" "$(dirname "$0")/../tests/web/served_frames.py" --app "$app" --api "$served_api" \
        --mode "$served_mode" --scenes "$served_scenes" || status=1
  done
else
  echo "=== served frames: skipped, no $app or no Pillow/NumPy for $python"
fi
exit $status
