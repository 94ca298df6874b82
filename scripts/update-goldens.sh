#!/bin/bash
# scripts/update-goldens.sh — the one command that writes the screenshot goldens: tests/golden/<scene>.png
# and the <scene>.json beside it (size, frame, GL renderer, filter, tolerance, interop-lab version).
# It builds interop-lab, renders each scene in cpu mode, headless, on Mesa llvmpipe, at the scene's fixed
# size and frame; compares the new image with the golden it replaces (interop-lab diff) and says what
# changed; then writes PNG + JSON. An unchanged image is left as it is. Review with git diff before
# committing. CI never runs this: CI compares with the goldens and never writes one.
#
#   scripts/update-goldens.sh [SCENE...]          (default: wave pattern postprocess)
#
# Exit codes: 0 done, 1 a failure (rendering, a golden that cannot be written), 2 a usage error (an unknown
# scene, or CI=true).
# Environment: PRESET, BUILD_DIR as in build.sh; INTEROP_LAB=path/to/interop-lab uses that binary instead
# of building; INTEROP_LAB_GOLDEN_DIR writes the goldens there instead of tests/golden (as the tests read
# them). New images and heat maps of what changed stay in BUILD_DIR/golden-update/.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
golden_dir=${INTEROP_LAB_GOLDEN_DIR:-$root/tests/golden}
build_dir=${BUILD_DIR:-build/${PRESET:-release}}
case "$build_dir" in
  /*) ;;
  *) build_dir="$root/$build_dir" ;;
esac

say() { echo "update-goldens: $*"; }
fail() {
  echo "update-goldens: $*" >&2
  exit 1
}
usage_error() {
  echo "update-goldens: $*" >&2
  echo "usage: scripts/update-goldens.sh [wave|pattern|postprocess]..." >&2
  exit 2
}

if [ "${CI:-}" = true ]; then
  echo "update-goldens: not under CI=true: goldens are written only by an explicit local run" >&2
  exit 2
fi

# scene    size     frame  filter  tolerance       other-renderer tolerance
#                                    (max_diff max_fraction, on the renderer that made it / on any other)
# pattern and postprocess are written by kernels: a last-bit difference in sinf may move a value by one.
# The wave is a rasterised mesh: another rasteriser may move an edge across pixel centres (Filament's
# renderdiff allows the same). The postprocess scene filters what GL rasterised, so on another
# renderer its edges show through the filter: on the H200's GL (NVIDIA, EGL) 8% of pixels differed, by at
# most 8/255 (2026-11-29); the wave and the pattern stayed within their own tolerance there.
# The pattern is wide enough for the window test to see it right of the panel (x >= 700).
goldens=(
  "wave        640x360  42  -      5 0.001   5 0.001"
  "pattern     960x540  42  -      1 0       1 0"
  "postprocess 640x360  42  sobel  1 0       12 0"
)

wanted=("$@")
for scene in "${wanted[@]}"; do
  printf '%s\n' "${goldens[@]}" | awk '{ print $1 }' | grep -qx -- "$scene" ||
    usage_error "unknown scene '$scene'; choose from: wave pattern postprocess"
done

# Every file this run may replace must be a file (or absent), in a directory it can write: checked before
# building and rendering, so a directory where a golden should be fails in a second, not as "new golden".
[ -e "$golden_dir" ] && [ ! -d "$golden_dir" ] && fail "$golden_dir is not a directory"
for line in "${goldens[@]}"; do
  read -r scene _ <<<"$line"
  if [ ${#wanted[@]} -gt 0 ] && ! printf '%s\n' "${wanted[@]}" | grep -qx -- "$scene"; then continue; fi
  for file in "$golden_dir/$scene.png" "$golden_dir/$scene.json"; do
    if [ -e "$file" ] && [ ! -f "$file" ]; then
      fail "$file exists but is not a regular file (a directory?); move it away and run again"
    fi
  done
done
if [ -d "$golden_dir" ] && [ ! -w "$golden_dir" ]; then fail "$golden_dir is not writable"; fi

# Replaces `target` with `source` through a temporary file beside it; mv -T never moves into a directory
# that appeared meanwhile. Any failure ends the run (never "new golden" for a file that was not written).
install_file() {
  local source=$1 target=$2
  cp "$source" "$target.tmp" || fail "cannot write $target.tmp"
  mv -T "$target.tmp" "$target" || { rm -f "$target.tmp"; fail "cannot replace $target"; }
}

if [ -n "${INTEROP_LAB:-}" ]; then
  app=$INTEROP_LAB
else
  bash "$root/scripts/build.sh" --target interop-lab
  app=$build_dir/app/interop-lab
fi
[ -x "$app" ] || fail "$app is not an executable interop-lab"

# Goldens come from Mesa's llvmpipe, the renderer CI has. On a machine with an NVIDIA EGL driver too,
# glvnd is told to load Mesa's alone.
mesa_vendor=/usr/share/glvnd/egl_vendor.d/50_mesa.json
[ -f "$mesa_vendor" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$mesa_vendor
renderer=$("$app" --doctor --headless 2>/dev/null | sed -n 's/^ *GL_RENDERER  *//p' | head -1 || true)
case "$renderer" in
  llvmpipe*) ;;
  "") fail "could not read the GL renderer from '$app --doctor --headless'" ;;
  *) fail "the headless GL renderer is '$renderer'; goldens are rendered by Mesa llvmpipe (install libegl-mesa0)" ;;
esac
version=$("$app" --version | awk '{ print $2 }')
json_string() { printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')"; }

work=$build_dir/golden-update
mkdir -p "$work" "$golden_dir"
say "renderer: $renderer; interop-lab $version; new images in $work"

changed=0
for line in "${goldens[@]}"; do
  read -r scene size frame filter max_diff max_fraction other_max_diff other_max_fraction <<<"$line"
  if [ ${#wanted[@]} -gt 0 ] && ! printf '%s\n' "${wanted[@]}" | grep -qx "$scene"; then continue; fi
  new=$work/$scene.png
  golden=$golden_dir/$scene.png
  args=(--scene "$scene" --mode cpu --headless --no-ui --size "$size" --frames $((frame + 1)) --screenshot "$new")
  [ "$filter" != - ] && args+=(--filter "$filter")
  # time = frame / 60 and the screenshot is the last frame: --frames N+1 shows frame N.
  "$app" "${args[@]}" >"$work/$scene.log" 2>&1 || { cat "$work/$scene.log" >&2; fail "rendering $scene failed"; }

  if [ ! -e "$golden" ]; then
    install_file "$new" "$golden"
    say "$scene: new golden ($size, frame $frame)"
    changed=1
  else
    set +e
    identical=$("$app" diff "$golden" "$new" --max-diff 0 2>&1)
    identical_status=$?
    set -e
    if [ $identical_status -eq 0 ]; then
      say "$scene: unchanged"
    else
      set +e
      verdict=$("$app" diff "$golden" "$new" --max-diff "$max_diff" --max-fraction "$max_fraction" \
        --heatmap "$work/$scene-heatmap.png" 2>&1)
      status=$?
      set -e
      case $status in
        0) say "$scene: changed within its tolerance: $verdict" ;;
        1) say "$scene: CHANGED beyond its tolerance: $verdict" ;;
        *) say "$scene: replaced: $identical" ;;
      esac
      [ $status -le 1 ] && say "  heat map: $work/$scene-heatmap.png"
      install_file "$new" "$golden"
      changed=1
    fi
  fi

  json=$golden_dir/$scene.json
  {
    echo "{"
    echo "  \"scene\": \"$scene\","
    echo "  \"image\": \"$scene.png\","
    echo "  \"width\": ${size%x*},"
    echo "  \"height\": ${size#*x},"
    echo "  \"frame\": $frame,"
    echo "  \"mode\": \"cpu\","
    echo "  \"renderer\": $(json_string "$renderer"),"
    [ "$filter" != - ] && echo "  \"filter\": \"$filter\","
    echo "  \"tolerance\": { \"max_diff\": $max_diff, \"max_fraction\": $max_fraction },"
    echo "  \"other_renderer_tolerance\": { \"max_diff\": $other_max_diff, \"max_fraction\": $other_max_fraction },"
    echo "  \"interop_lab_version\": \"$version\","
    echo "  \"written_by\": \"scripts/update-goldens.sh\""
    echo "}"
  } >"$json.tmp" || fail "cannot write $json.tmp"
  if cmp -s "$json.tmp" "$json"; then
    rm "$json.tmp"
  else
    mv -T "$json.tmp" "$json" || { rm -f "$json.tmp"; fail "cannot replace $json"; }
    say "$scene: wrote $json"
    changed=1
  fi
done

if [ $changed -eq 1 ]; then
  say "done; review with: git status tests/golden && git diff tests/golden"
else
  say "done; every golden is as it was"
fi
