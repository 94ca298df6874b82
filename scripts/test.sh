#!/bin/bash
# scripts/test.sh — installs what is missing, builds everything with the tests (Release) and runs
# every test through CTest; exits with CTest's exit code.
#
#   scripts/test.sh [ctest arguments...]     e.g. scripts/test.sh -R Cli   or   scripts/test.sh -j2
#
# Without a display (no DISPLAY), CTest runs under Xvfb (xvfb-run) so that the window tests get an
# X server; the EGL tests need none. Tests whose hardware is absent (a CUDA GPU, GL interop) skip
# and say why. One test at a time by default: Mesa's llvmpipe already uses every core.
# PRESET, BUILD_DIR, BUILD_TYPE, CUDAARCHS and CI as in build.sh.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build_dir=${BUILD_DIR:-build/${PRESET:-release}}
started=$SECONDS

bash "$root/scripts/build.sh" -DINTEROP_LAB_BUILD_TESTS=ON

ctest_command=(ctest --test-dir "$build_dir" --output-on-failure --no-tests=error --timeout 600 -j1 "$@")
if [ -z "${DISPLAY:-}" ]; then
  if command -v xvfb-run >/dev/null; then
    echo "test: no DISPLAY: the tests run in a virtual X server (xvfb-run)"
    ctest_command=(xvfb-run -a -s "-screen 0 1920x1080x24 -noreset" "${ctest_command[@]}")
  else
    echo "test: no DISPLAY and no xvfb-run: the window tests will fail; install xvfb" >&2
  fi
fi

log="$build_dir/ctest.log"
set +e
"${ctest_command[@]}" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e

# --output-on-failure hides why a test skipped; GoogleTest wrote it to CTest's full log, after the
# "file:line: Skipped" line (the first line of the GTEST_SKIP message).
skip_reasons=$(awk '
  / Skipped$/ { getline reason; next }
  /^\[  SKIPPED \] .* \([0-9]+ ms\)$/ { print "  " $4 ": " (reason == "" ? "(no reason given)" : reason); reason = "" }
' "$build_dir/Testing/Temporary/LastTest.log" 2>/dev/null || true)
if [ -n "$skip_reasons" ]; then
  echo "test: skipped, with their reasons:"
  echo "$skip_reasons"
fi

# The Python package (python/), when it was built: pip installs it (python/pyproject.toml, building in
# $build_dir) into a fresh virtual environment over Debian's Python, whose NumPy and pytest (setup.sh)
# it sees, and pytest runs its tests against the installed package from outside the source tree.
# Without a GPU its GPU tests skip.
python_status=0
python_summary=""
absolute_build_dir=$build_dir
[[ $absolute_build_dir = /* ]] || absolute_build_dir=$root/$absolute_build_dir
python_dir=$absolute_build_dir/python
if [ -f "$python_dir/interop_lab/libinterop_lab_bridge.so" ]; then
  echo "test: the Python package (pip install into a virtual environment, then python/tests with pytest)"
  python_log="$build_dir/pytest.log"
  # The viewer's window tests need a display: the same virtual X server as CTest's when there is none.
  python_display=(env)
  if [ -z "${DISPLAY:-}" ] && command -v xvfb-run >/dev/null; then
    python_display=(xvfb-run -a -s "-screen 0 1920x1080x24 -noreset")
  fi
  venv=$(mktemp -d -t interop_lab_venv.XXXXXX)
  trap 'rm -rf "$venv"' EXIT
  set +e
  {
    /usr/bin/python3 -m venv --system-site-packages "$venv/env" &&
      INTEROP_LAB_CMAKE_BUILD_DIR="$absolute_build_dir" "$venv/env/bin/pip" install --no-build-isolation --no-index \
        --quiet "$root/python" &&
      (cd "$venv" && INTEROP_LAB_INSTALLED=1 "${python_display[@]}" "$venv/env/bin/python" -m pytest -q -rs \
        -p no:cacheprovider "$root/python/tests")
  } 2>&1 | tee "$python_log"
  python_status=${PIPESTATUS[0]}
  set -e
  python_summary=", pytest: $(tail -1 "$python_log" | sed 's/=//g; s/^ *//; s/ *$//')"
fi

# One line to end on: CTest's own count, plus how many tests skipped (CTest lists them as "(Skipped)").
counts=$(grep -E 'tests passed, [0-9]+ tests? failed out of' "$log" | tail -1 || true)
skipped=$(grep -c '(Skipped)$' "$log" || true)
elapsed=$((SECONDS - started))
if [ "$status" -eq 0 ] && [ "$python_status" -eq 0 ]; then
  echo "test: PASSED — ${counts:-no count from ctest}, $skipped skipped${python_summary} — ${elapsed}s"
else
  echo "test: FAILED (ctest exit code $status, pytest exit code $python_status) — ${counts:-no count from ctest}, $skipped skipped${python_summary} — log: $log"
  [ "$status" -ne 0 ] || status=$python_status
fi
exit "$status"
