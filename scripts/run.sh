#!/bin/bash
# scripts/run.sh — installs what is missing, builds the app (Release) and runs it with the given
# arguments; exits with the app's exit code.
#
#   scripts/run.sh [interop-lab arguments...]     e.g. scripts/run.sh --scene pattern --mode cpu
#
# Without a display (no DISPLAY), a run that opens a window runs under Xvfb (xvfb-run), so the app runs on
# a machine without a display too; the runs that open none (opens_window below) run as they are, so
# --doctor reports the machine's own GL, not Xvfb's. PRESET and BUILD_DIR as in build.sh.
#
# Sourced (`source scripts/run.sh`), it only defines opens_window, for the tests.

# Whether `interop-lab "$@"` opens a window on a machine without a display, as the app decides (app/main.cpp,
# app/cli/cli.cpp): the diff command, --headless, --serve (the desk runs headless), --doctor (it checks GL
# through EGL there), --bench (headless unless --bench-window), --list, --help and --version open none.
# Returns 0 when it opens one.
opens_window() {
  [ "${1:-}" = diff ] && return 1
  local bench=false bench_window=false arg
  for arg in "$@"; do
    case "$arg" in
      --headless | --serve | --serve=* | --doctor | --list | --help | -h | --version) return 1 ;;
      --bench) bench=true ;;
      --bench-window) bench_window=true ;;
    esac
  done
  [ "$bench" = false ] || [ "$bench_window" = true ]
}

[ "${BASH_SOURCE[0]}" = "$0" ] || return 0
set -euo pipefail

# The app runs in the caller's folder, so relative paths (--screenshot out.png) mean what they say.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${BUILD_DIR:-build/${PRESET:-release}}
case "$build_dir" in
  /*) ;;
  *) build_dir="$root/$build_dir" ;;
esac

# Build output goes to stderr: stdout is the app's alone (scripts/run.sh --list | ...).
bash "$root/scripts/build.sh" --target interop-lab >&2

app=("$build_dir/app/interop-lab" "$@")

if [ -z "${DISPLAY:-}" ] && opens_window "$@"; then
  if command -v xvfb-run >/dev/null; then
    echo "run: no DISPLAY: running in a virtual X server (xvfb-run); pass --headless for EGL without X" >&2
    exec xvfb-run -a -s "-screen 0 1920x1080x24 -noreset" "${app[@]}"
  fi
  echo "run: no DISPLAY and no xvfb-run: the window will not open; pass --headless or install xvfb" >&2
fi
exec "${app[@]}"
