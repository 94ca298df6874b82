#!/bin/bash
# scripts/windows-cross.sh — builds the Windows pieces of interop-lab on Linux with mingw-w64
# (tests/windows, -Werror) into build/windows, and runs what Wine can run. Prints one `windows-cross:` line
# per check and a last one with the totals; exit 0 when everything built and every run passed or was
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
echo "windows-cross: built the Windows pieces with mingw-w64 -Werror in $((SECONDS - started))s (the app and interop" \
  "libraries compile for Windows; the D3D11 and D3D12 backends and the checks below link)"

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
export WINEPREFIX="$root/$build_dir/wineprefix" WINEDEBUG=-all
# One X server per run; the Wine server is stopped before the X server goes, so it does not complain.
run_windows() {
  # shellcheck disable=SC2016  # expanded by the inner bash, inside the X server's lifetime
  xvfb-run -a -s "-screen 0 1280x1024x24" bash -c '"$@"; status=$?; "$WINESERVER" -k 2>/dev/null; exit $status' \
    run_windows "$wine" "$@"
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

# Every golden's scene, drawn by the Direct3D 11 and 12 backends with the scenes' CPU reference (D3D12
# through Wine's vkd3d on lavapipe), judged by the Linux build's windows_frame_check (the goldens' own
# comparison) at their tolerance for another renderer.
linux_build=${LINUX_BUILD_DIR:-build/release}
if [ -f "$linux_build/build.ninja" ]; then
  cmake --build "$linux_build" --target windows_frame_check >/dev/null
else
  BUILD_DIR=$linux_build bash scripts/build.sh -DINTEROP_LAB_BUILD_TESTS=ON --target windows_frame_check >/dev/null
fi
frame_check="$linux_build/tests/windows_frame_check"
for api in d3d11 d3d12; do
  frames="$build_dir/frames/$api"
  rm -rf "$frames"
  mkdir -p "$frames"
  no_device=0
  while read -r scene width height frame filter; do
    scene_args=("$scene" "$width" "$height" "$frame")
    [ -z "$filter" ] || scene_args+=("$filter")
    # A frame that fails says why on stderr; the comparison below then reports it missing. 77: this Wine
    # has no device of the API, and the message said what is missing.
    status=0
    run_windows "$build_dir/d3d_frames.exe" "$api" "$frames/$scene.rgba" "${scene_args[@]}" || status=$?
    [ "$status" -ne 77 ] || no_device=1
  done < <("$frame_check" list tests/golden)
  if [ "$no_device" -eq 1 ]; then
    echo "windows-cross: SKIPPED the $api frames: Wine has no $api device here (the reason is above)"
    skipped=$((skipped + 1))
  elif "$frame_check" compare tests/golden "$frames" "$api"; then
    echo "windows-cross: $api frames under Wine match every golden"
    passed=$((passed + 1))
  else
    echo "windows-cross: $api frames under Wine: some FAILED (see above; actual and heat map in $frames)"
    failed=$((failed + 1))
  fi
done
echo "windows-cross: $passed passed, $failed failed, $skipped skipped under Wine ($((SECONDS - started))s in all)"
[ "$failed" -eq 0 ]
