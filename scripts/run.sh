#!/bin/bash
# scripts/run.sh — installs what is missing, builds the app (Release) and runs it with the given
# arguments; exits with the app's exit code.
#
#   scripts/run.sh [interop-lab arguments...]     e.g. scripts/run.sh --scene pattern --mode cpu
#
# Without a display (no DISPLAY) and without --headless, the window opens under Xvfb (xvfb-run),
# so the app runs on a machine without a display too. PRESET and BUILD_DIR as in build.sh.
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

needs_window=true
for arg in "$@"; do
  case "$arg" in
    --headless | --help | -h | --version | --list) needs_window=false ;;
  esac
done

if [ "$needs_window" = true ] && [ -z "${DISPLAY:-}" ]; then
  if command -v xvfb-run >/dev/null; then
    echo "run: no DISPLAY: running in a virtual X server (xvfb-run); pass --headless for EGL without X" >&2
    exec xvfb-run -a -s "-screen 0 1920x1080x24 -noreset" "${app[@]}"
  fi
  echo "run: no DISPLAY and no xvfb-run: the window will not open; pass --headless or install xvfb" >&2
fi
exec "${app[@]}"
