#!/bin/bash
# scripts/windows-cross.sh — builds the Windows pieces of interop-lab on Linux with mingw-w64
# (tests/windows, -Werror) into build/windows, and runs what Wine can run. Prints one `windows-cross:` line
# per check and a last one with the totals; exit 0 when everything built and every run passed or was
# skipped with its reason.
#
# Needs g++-mingw-w64-x86-64-posix, wine64 and xvfb (scripts/setup.sh installs them), the CUDA Toolkit's
# headers (/usr/local/cuda/include, or CUDA_INCLUDE_DIR), python3-glad, and for interop-lab.exe's libpng and
# zlib Debian's source packages (scripts/windows-deps.sh, cached in build/windows-deps).
# Environment: BUILD_DIR (default build/windows).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build_dir=${BUILD_DIR:-build/windows}
started=$SECONDS

bash scripts/setup.sh

# libpng and zlib for interop-lab.exe, from Debian's source packages (built once, then cached).
deps_prefix=$(bash scripts/windows-deps.sh)
cmake -S tests/windows -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_TOOLCHAIN_FILE="$root/cmake/mingw-w64-x86_64.cmake" -DWINDOWS_DEPS_PREFIX="$deps_prefix" >/dev/null
cmake --build "$build_dir" --parallel "$(nproc)"
echo "windows-cross: built the Windows pieces with mingw-w64 -Werror in $((SECONDS - started))s (the app and interop" \
  "libraries compile for Windows; the D3D11 and D3D12 backends, interop-lab.exe and the checks below link)"

# Wine: Debian's wine64 installs its loader outside PATH. A prefix of its own inside the build folder
# keeps ~/.wine untouched (its first start takes about 10 s). Direct3D needs an X server: Xvfb, with
# Wine's wined3d drawing through Mesa's llvmpipe.
wine=$(command -v wine64 || true)
[ -n "$wine" ] || wine=/usr/lib/wine/wine64
wineserver=$(command -v wineserver || true)
[ -n "$wineserver" ] || wineserver=/usr/lib/wine/wineserver
if [ ! -x "$wine" ]; then
  echo "windows-cross: SKIPPED the Wine runs: no wine64 (apt-get install wine64; scripts/setup.sh does)"
  exit 0
fi
if ! command -v xvfb-run >/dev/null; then
  echo "windows-cross: SKIPPED the Wine runs: no xvfb-run for Wine's X server (apt-get install xvfb)"
  exit 0
fi
# winedbg off: a program that faults ends with an error instead of waiting in Wine's debugger.
export WINEPREFIX="$root/$build_dir/wineprefix" WINEDEBUG=-all WINEDLLOVERRIDES="winedbg.exe=d"
# One X server per run; the Wine server is stopped before the X server goes, so it does not complain. No
# run may take more than 10 minutes (the slowest takes about 30 s): a hang fails the run, never the CI.
run_windows() {
  # shellcheck disable=SC2016  # expanded by the inner bash, inside the X server's lifetime
  timeout 600 xvfb-run -a -s "-screen 0 1280x1024x24" \
    bash -c '"$@"; status=$?; "$WINESERVER" -k 2>/dev/null; exit $status' run_windows "$wine" "$@"
}
export WINESERVER=$wineserver

if [ ! -d "$WINEPREFIX" ]; then
  # Its messages (64-bit Wine without the 32-bit half) say nothing about the runs below.
  run_windows wineboot --init >/dev/null 2>&1 || true
fi

passed=0 failed=0 skipped=0
if run_windows "$build_dir/os_win32_check.exe"; then
  echo "windows-cross: os_win32_check passed under Wine (atomic replace, exclusive create, stop signals)"
  passed=$((passed + 1))
else
  echo "windows-cross: os_win32_check FAILED under Wine"
  failed=$((failed + 1))
fi

if run_windows "$build_dir/d3d_device_check.exe"; then
  echo "windows-cross: d3d_device_check passed under Wine (D3D11/D3D12 adapter by LUID, D3D11 registrations" \
    "up to the CUDA call)"
  passed=$((passed + 1))
else
  echo "windows-cross: d3d_device_check FAILED under Wine"
  failed=$((failed + 1))
fi

# The doctor's Direct3D/DXGI section on Wine's adapters, for no CUDA device. 77: DXGI lists no adapter
# here, and the check printed why.
status=0
run_windows "$build_dir/dxgi_doctor_check.exe" --under-wine || status=$?
if [ "$status" -eq 0 ]; then
  echo "windows-cross: dxgi_doctor_check passed under Wine (DXGI adapters with LUID and D3D11 feature level," \
    "CUDA devices matched by LUID)"
  passed=$((passed + 1))
elif [ "$status" -eq 77 ]; then
  echo "windows-cross: SKIPPED dxgi_doctor_check: Wine lists no DXGI adapter here (the reason is above)"
  skipped=$((skipped + 1))
else
  echo "windows-cross: dxgi_doctor_check FAILED under Wine"
  failed=$((failed + 1))
fi

# The Direct3D apps' live switches, their keys and their panels. Its "SKIPPED <api>:" lines (no device of the API in this Wine, and why)
# skip that API's runs below too.
status=0
app_check_output=$(run_windows "$build_dir/d3d_app_check.exe" 2>&1) || status=$?
echo "$app_check_output"
# Wine 8.0 on a busy machine could fault in a thread of its own after a window closed (execute access to an
# unmapped address, every check so far passed; d3d_app_check now holds GLFW's joystick libraries loaded,
# after which it was not seen again): should it happen, one more run, said in the line below. A check
# that failed, or a second fault, fails.
wine_fault=""
if [ "$status" -ne 0 ] && [ "$status" -ne 77 ] && grep -q "Unhandled page fault" <<<"$app_check_output" &&
  ! grep -q "^FAIL" <<<"$app_check_output"; then
  wine_fault=" (on its second run: the first ended in a fault in Wine's own thread after its checks so far passed)"
  status=0
  app_check_output=$(run_windows "$build_dir/d3d_app_check.exe" 2>&1) || status=$?
  echo "$app_check_output"
fi
for api in d3d11 d3d12; do
  no_device=0
  ! grep -q "^SKIPPED $api:" <<<"$app_check_output" || no_device=1
  printf -v "no_${api}_device" %d "$no_device"
done
if [ "$status" -eq 0 ]; then
  echo "windows-cross: d3d_app_check passed under Wine (the D3D11 and D3D12 apps' live scene, mode and size" \
    "switches, headless and in a window, give a fresh run's frames; a CUDA mode refused, the cpu mode running on;" \
    "the keys: next scene, F12's numbered screenshots, next mode, Esc ending the run, V, F11 filling the screen" \
    "and back; the panel over the frame only, hidden by F1)$wine_fault"
  passed=$((passed + 1))
elif [ "$status" -eq 77 ]; then
  echo "windows-cross: d3d_app_check SKIPPED an API under Wine (no device of it here: the reason is above); the" \
    "other passed"
  skipped=$((skipped + 1))
else
  echo "windows-cross: d3d_app_check FAILED under Wine"
  failed=$((failed + 1))
fi

# Every golden's scene, drawn by the Direct3D 11 and 12 backends with the scenes' CPU reference (D3D12
# through Wine's vkd3d on lavapipe) by the app, interop-lab.exe --headless --mode cpu, rendering up to the
# golden's frame and writing its --screenshot. The Linux build's windows_frame_check judges them (the goldens'
# own comparison) at their tolerance for another renderer; its interop-lab answers for the command line below.
linux_build=${LINUX_BUILD_DIR:-build/release}
if [ -f "$linux_build/build.ninja" ]; then
  cmake --build "$linux_build" --target windows_frame_check interop-lab >/dev/null
else
  BUILD_DIR=$linux_build bash scripts/build.sh -DINTEROP_LAB_BUILD_TESTS=ON --target windows_frame_check \
    --target interop-lab >/dev/null
fi
frame_check="$linux_build/tests/windows_frame_check"
linux_app="$linux_build/app/interop-lab"
app="$build_dir/interop-lab.exe"
for api in d3d11 d3d12; do
  no_device_here=no_${api}_device
  if [ "${!no_device_here}" -eq 1 ]; then
    echo "windows-cross: SKIPPED the $api frames: Wine has no $api device here (d3d_app_check said why, above)"
    skipped=$((skipped + 1))
    continue
  fi
  app_frames="$build_dir/app-frames/$api"
  rm -rf "$app_frames"
  mkdir -p "$app_frames"
  while read -r scene width height frame filter; do
    app_args=(--api "$api" --headless --mode cpu --scene "$scene" --size "${width}x$height" --frames $((frame + 1))
              --screenshot "$app_frames/$scene.png")
    [ -z "$filter" ] || app_args+=(--filter "$filter")
    # A run that fails says why on stderr; the comparison below then reports its screenshot missing.
    run_windows "$app" "${app_args[@]}" || true
  done < <("$frame_check" list tests/golden)
  if "$frame_check" compare tests/golden "$app_frames" "interop-lab.exe --api $api"; then
    echo "windows-cross: interop-lab.exe --api $api --headless --mode cpu screenshots under Wine match every golden"
    passed=$((passed + 1))
  else
    echo "windows-cross: interop-lab.exe --api $api --headless --mode cpu screenshots under Wine: some FAILED (see" \
      "above; actual and heat map in $app_frames)"
    failed=$((failed + 1))
  fi
done

# The Direct3D windows (GLFW, a DXGI flip-model swap chain, the frame put upright into the back buffer: drawn
# in D3D11, copied row by row in D3D12) under Wine in Xvfb: every golden's scene with --no-ui, its --screenshot
# read from the back buffer (what the window shows), judged against the golden and against the headless
# screenshot, which it must equal byte for byte (the frame shown texel for pixel; a ShowImage scene's image
# through the renderer's draw_image); then one with the panel and vsync on. In D3D11 its screenshot must differ from the
# same frame without it (the panel was drawn over it). In D3D12 it must run; its screenshot may equal the frame
# without it, since under Wine's vkd3d ImGui's font reads zeros through its descriptor table, and the line says
# which was seen (d3d_app_check checks that the frame outside the panel's rectangle is untouched).
check_window() {
  local api=$1 window_frames="$build_dir/window-frames/$1" panel_scene="" panel_args=() window_args=() status=0
  rm -rf "$window_frames"
  mkdir -p "$window_frames/panel"
  while read -r scene width height frame filter; do
    window_args=(--api "$api" --mode cpu --scene "$scene" --size "${width}x$height" --frames $((frame + 1)))
    [ -z "$filter" ] || window_args+=(--filter "$filter")
    run_windows "$app" "${window_args[@]}" --no-ui --screenshot "$window_frames/$scene.png" || true
    [ -n "$panel_scene" ] || { panel_scene=$scene; panel_args=("${window_args[@]}"); }
  done < <("$frame_check" list tests/golden)
  local not_exact=()
  for shown in "$window_frames"/*.png; do
    "$linux_app" diff "$shown" "$build_dir/app-frames/$api/$(basename "$shown")" --max-diff 0 >/dev/null ||
      not_exact+=("$(basename "$shown" .png)")
  done
  [ ${#not_exact[@]} -eq 0 ] || echo "the window's ${not_exact[*]} differ from the headless screenshots"
  if "$frame_check" compare tests/golden "$window_frames" "interop-lab.exe --api $api in a window" &&
    [ ${#not_exact[@]} -eq 0 ]; then
    echo "windows-cross: interop-lab.exe --api $api in a window (--no-ui) under Wine: what the window shows" \
      "matches every golden and is the headless frame byte for byte"
    passed=$((passed + 1))
  else
    echo "windows-cross: interop-lab.exe --api $api in a window under Wine: some FAILED (see above; actual and" \
      "heat map in $window_frames)"
    failed=$((failed + 1))
  fi
  local panel_shot="$window_frames/panel/$panel_scene.png" without_panel="$window_frames/$panel_scene.png"
  local compared=0  # diff: 0 the same, 1 different, 2 a screenshot missing or unreadable
  # --vsync on: the one run whose presents wait for the display (sync interval 1), --frames' default being off.
  run_windows "$app" "${panel_args[@]}" --vsync on --screenshot "$panel_shot" || status=$?
  # Wine has crashed this run with SIGSEGV after its screenshot was written, once in about ten (2026-12-07;
  # not seen on Windows, not reproduced in six runs after it): one more run, said in the verdict.
  local again=""
  if [ "$status" -eq 139 ]; then
    again=" (its first run crashed under Wine, exit 139; run again)"
    status=0
    rm -f "$panel_shot"
    run_windows "$app" "${panel_args[@]}" --vsync on --screenshot "$panel_shot" || status=$?
  fi
  "$linux_app" diff "$panel_shot" "$without_panel" >/dev/null 2>&1 || compared=$?
  local verdict
  if [ "$status" -ne 0 ] || [ "$compared" -gt 1 ]; then
    verdict="FAILED (exit $status; its screenshot $panel_shot or the one without the panel, $without_panel, is"
    verdict+=" missing or unreadable)"
  elif [ "$compared" -eq 1 ]; then
    verdict="it ran and the panel shows over the $panel_scene frame"
  elif [ "$api" = d3d12 ]; then
    verdict="it ran; the panel drew nothing visible (vkd3d reads zeros through ImGui's descriptor table), the"
    verdict+=" window shows the $panel_scene frame byte for byte"
  else
    verdict="FAILED: it ran, but $panel_shot shows no panel over $without_panel"
  fi
  echo "windows-cross: interop-lab.exe --api $api in a window with the panel (vsync on) under Wine: $verdict$again"
  case $verdict in
    FAILED*) failed=$((failed + 1)) ;;
    *) passed=$((passed + 1)) ;;
  esac
}
for api in d3d11 d3d12; do
  no_device_here=no_${api}_device
  if [ "${!no_device_here}" -eq 1 ]; then
    echo "windows-cross: SKIPPED the $api window: Wine has no $api device here (d3d_app_check said why, above)"
    skipped=$((skipped + 1))
  else
    check_window "$api"
  fi
done

# interop-lab.exe's command line under Wine: --list and --version the same as the Linux build's (one parser,
# one table, both systems); the CUDA modes refused because this build has no CUDA (exit 1, saying so); a bad
# --api a usage error (exit 2); the APIs not built in refused, naming the ones that are (exit 1).
cli_problems=()
# expect_run EXIT PATTERN ARGS...: the app exits EXIT and its output matches the extended regex PATTERN.
expect_run() {
  local expected=$1 pattern=$2 output status=0
  shift 2
  output=$(run_windows "$app" "$@" 2>&1) || status=$?
  if [ "$status" -ne "$expected" ] || ! grep -Eq -- "$pattern" <<<"$output"; then
    cli_problems+=("interop-lab.exe $*: exit $status (expected $expected), output: $output")
  fi
}
# same_as_linux ARGS...: the app's stdout (without Windows' CRs) and exit code are the Linux app's.
same_as_linux() {
  local windows linux status=0 linux_status=0
  windows=$(run_windows "$app" "$@" | tr -d '\r') || status=$?
  linux=$("$linux_app" "$@") || linux_status=$?
  if [ "$status" -ne "$linux_status" ] || [ "$windows" != "$linux" ]; then
    cli_problems+=("interop-lab.exe $* (exit $status, Linux $linux_status) differs from the Linux build's:" \
      "$(diff <(echo "$linux") <(echo "$windows") | head -n 8)")
  fi
}
same_as_linux --list
same_as_linux --version
same_as_linux diff tests/golden/wave.png tests/golden/postprocess.png  # libpng and the comparison on Windows
for mode in staging interop reregister external; do
  expect_run 1 "^interop-lab: --mode $mode is unavailable: this interop-lab.exe was built without CUDA.*--mode $mode needs a CUDA build" \
    --api d3d11 --headless --mode "$mode" --frames 1
done
expect_run 1 "built without CUDA.*--mode external needs a CUDA build" --api d3d12 --headless --mode external --frames 1
expect_run 2 "^interop-lab: --api nope: unknown graphics API" --api nope --headless
for api in vulkan gl; do
  expect_run 1 "^interop-lab: --api $api .* is not in this build of interop-lab; it has --api d3d11 and --api d3d12" \
    --api "$api" --headless --mode cpu --frames 1
done
# --doctor from the API table's Direct3D row in a build without GL: the DXGI section, and a verdict that says
# the build has no OpenGL (exit 1: CUDA-GL interop is not there).
expect_run 1 "^verdict: CUDA-GL interop is unavailable: this build of interop-lab has no OpenGL" --doctor
expect_run 1 "^Direct3D / DXGI" --doctor
if [ ${#cli_problems[@]} -eq 0 ]; then
  echo "windows-cross: interop-lab.exe's command line under Wine: --list, --version and diff as the Linux build's, the" \
    "CUDA modes refused (no CUDA in this build), --api nope a usage error, gl and vulkan not in this build," \
    "--doctor without GL"
  passed=$((passed + 1))
else
  printf '%s\n' "${cli_problems[@]}"
  echo "windows-cross: interop-lab.exe's command line under Wine: ${#cli_problems[@]} check(s) FAILED (above)"
  failed=$((failed + 1))
fi
echo "windows-cross: $passed passed, $failed failed, $skipped skipped under Wine ($((SECONDS - started))s in all)"
[ "$failed" -eq 0 ]
