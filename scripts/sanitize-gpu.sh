#!/bin/bash
# scripts/sanitize-gpu.sh — runs the test binaries that launch CUDA work (gpu_tests, and gl_tests, whose
# golden tests run every CUDA mode on a GPU) under compute-sanitizer, once per tool: memcheck (with
# --leak-check full), racecheck, initcheck and synccheck. Prints one line per tool ("memcheck: 0 errors")
# and fails on any finding, or when a test fails under a tool. Each run's log is kept.
#
#   scripts/sanitize-gpu.sh [--tool NAME]... [BUILD_DIR]
#
#   --tool NAME   run only this tool (repeatable; default all four, one after another). Do not run
#                 several at once on one GPU: the leak test reads the device's free memory, which
#                 another process changes.
#   BUILD_DIR     default build/release; binaries under BUILD_DIR/tests
#
# Environment: COMPUTE_SANITIZER  its path (default /usr/local/cuda/bin/compute-sanitizer, else PATH;
#                                 on a GPU server, where the binaries were copied, point it at the copy)
#              SANITIZE_LOGS      where the logs go (default BUILD_DIR/sanitize)
#              SANITIZE_TIMEOUT   seconds one binary may run under one tool (default 1200); past it: a failure
#              GTEST_FILTER       GoogleTest's own: to run some tests only
# CUDA API errors are not reported (--report-api-errors no): the tests provoke some on purpose to check
# the advice (mapping a mapped resource, asking a buffer for an array), and the app checks every call's
# result anyway, so an unexpected one already fails a test.
# NVTX is on (--nvtx yes): interop::ScopedMap declares each mapped GL buffer initialised through NVTX's
# memory API, since initcheck cannot see what GL wrote there (the pbo mode's input copy, for one).
# On a machine without an NVIDIA GPU it says so and exits 0 without running anything.
set -u
# It runs only where a GPU is: the GPU tests must run, not skip (tests/support/app_fixture.hpp).
export INTEROP_LAB_REQUIRE_GPUS=${INTEROP_LAB_REQUIRE_GPUS:-1}
all_tools=(memcheck racecheck initcheck synccheck)
tools=()
build_dir=build/release
while [ $# -gt 0 ]; do
  case $1 in
    --tool)
      if [ $# -lt 2 ] || [[ ! " ${all_tools[*]} " =~ " $2 " ]]; then
        echo "sanitize-gpu: --tool takes one of: ${all_tools[*]}" >&2
        exit 2
      fi
      tools+=("$2")
      shift 2
      ;;
    -h | --help)
      sed -n '2,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
      exit 0
      ;;
    -*)
      echo "sanitize-gpu: unknown option $1 (see --help)" >&2
      exit 2
      ;;
    *)
      build_dir=$1
      shift
      ;;
  esac
done
[ ${#tools[@]} -eq 0 ] && tools=("${all_tools[@]}")
logs=${SANITIZE_LOGS:-$build_dir/sanitize}

gpu_present() {
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi -L 2>/dev/null | grep -q '^GPU '
    return
  fi
  [ -d /proc/driver/nvidia/gpus ] && [ -n "$(ls -A /proc/driver/nvidia/gpus 2>/dev/null)" ]
}

if ! gpu_present; then
  echo "sanitize-gpu: no NVIDIA GPU on this machine: nothing was run under compute-sanitizer"
  exit 0
fi

sanitizer=${COMPUTE_SANITIZER:-}
if [ -z "$sanitizer" ]; then
  if [ -x /usr/local/cuda/bin/compute-sanitizer ]; then
    sanitizer=/usr/local/cuda/bin/compute-sanitizer
  else
    sanitizer=$(command -v compute-sanitizer || true)
  fi
fi
if [ -z "$sanitizer" ] || [ ! -x "$sanitizer" ]; then
  echo "sanitize-gpu: compute-sanitizer not found (${COMPUTE_SANITIZER:-looked at /usr/local/cuda/bin and PATH});" \
    "set COMPUTE_SANITIZER=/path/to/compute-sanitizer" >&2
  exit 1
fi

binaries=()
for name in gpu_tests gl_tests; do
  binary=$build_dir/tests/$name
  if [ ! -x "$binary" ]; then
    echo "sanitize-gpu: $binary is missing: build it first (scripts/build.sh --target $name)" >&2
    exit 1
  fi
  binaries+=("$binary")
done
mkdir -p "$logs"
echo "sanitize-gpu: $("$sanitizer" --version | grep -m1 -i version); logs in $logs"

status=0
for tool in "${tools[@]}"; do
  options=(--tool "$tool" --error-exitcode 1 --report-api-errors no --nvtx yes)
  [ "$tool" = memcheck ] && options+=(--leak-check full)
  errors=0
  incomplete=false
  failed=()
  started=$SECONDS
  for binary in "${binaries[@]}"; do
    log=$logs/$tool-$(basename "$binary").log
    timeout "${SANITIZE_TIMEOUT:-1200}" "$sanitizer" "${options[@]}" "$binary" --gtest_brief=1 >"$log" 2>&1
    exit_code=$?
    if [ $exit_code -eq 124 ]; then
      failed+=("$(basename "$binary") (ran past ${SANITIZE_TIMEOUT:-1200}s: see $log)")
      incomplete=true
      continue
    fi
    # Every run ends with "========= ERROR SUMMARY: 3 errors", racecheck's with "========= RACECHECK
    # SUMMARY: 2 hazards displayed (1 errors, 1 warnings)"; racecheck's warnings count as findings too.
    found=$(sed -n -e 's/^========= ERROR SUMMARY: \([0-9]*\) error.*/\1/p' \
      -e 's/^========= RACECHECK SUMMARY: .*(\([0-9]*\) errors*, \([0-9]*\) warnings*).*/\1 \2/p' "$log" | tail -1)
    if [ -z "$found" ]; then
      failed+=("$(basename "$binary") (no summary, exit $exit_code: see $log)")
      incomplete=true
      continue
    fi
    found=$(echo "$found" | awk '{ print $1 + $2 }')
    errors=$((errors + found))
    if [ "$found" -gt 0 ]; then
      failed+=("$(basename "$binary") ($found, see $log)")
    elif [ "$exit_code" -ne 0 ]; then
      failed+=("$(basename "$binary") (tests failed, exit $exit_code: see $log)")
    fi
  done
  line="$tool: $errors errors"
  [ "$incomplete" = true ] && line="$line in the runs that finished"
  line="$line ($((SECONDS - started))s)"
  if [ ${#failed[@]} -gt 0 ]; then
    status=1
    line="$line — FAILED: ${failed[*]}"
  fi
  echo "$line"
done
exit $status
