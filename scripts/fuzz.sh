#!/bin/bash
# scripts/fuzz.sh — libFuzzer (clang, with AddressSanitizer and UndefinedBehaviorSanitizer) on the two
# parsers that read files from outside: the PNG reader (tests/fuzz/fuzz_png.cpp) and the golden JSON parser
# (tests/fuzz/fuzz_golden_json.cpp). Each target is compiled with clang++ straight from the few sources it
# needs (no CUDA, no GL), then runs SECONDS seconds from a seed corpus: tests/fuzz/corpus/<target>/ plus
# the goldens in tests/golden, copied at run time. Fails on any crash, leak, sanitizer report or timeout;
# libFuzzer then leaves the input that did it in BUILD_DIR (crash-*, leak-*, timeout-*).
#
#   scripts/fuzz.sh [SECONDS]      (default 30 per target; CI runs 30, run longer by hand)
#
# Installs clang and libFuzzer's runtime (Debian: clang, libclang-rt-14-dev) when missing (root or sudo).
# Environment: BUILD_DIR (default build/fuzz).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

say() { echo "fuzz: $*" >&2; }
usage_error() {
  say "$*"
  say "usage: scripts/fuzz.sh [SECONDS]   (seconds per target, default 30)"
  exit 2
}

[ $# -le 1 ] || usage_error "one argument at most"
seconds=${1:-30}
case "$seconds" in
  '' | *[!0-9]* | 0*) usage_error "'$seconds' is not a whole number of seconds of at least 1" ;;
esac

build_dir=${BUILD_DIR:-build/fuzz}
case "$build_dir" in
  /*) ;;
  *) build_dir="$root/$build_dir" ;;
esac

# libFuzzer's runtime is a Recommends of clang on Debian 12, which setup.sh's --no-install-recommends skips.
packages=(clang libclang-rt-14-dev libpng-dev nlohmann-json3-dev)
missing=()
for package in "${packages[@]}"; do
  [ "$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null)" = "install ok installed" ] || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  as_root=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { say "not root and no sudo: as root, run apt-get install ${missing[*]}"; exit 1; }
    as_root=(sudo -n)
  fi
  "${as_root[@]}" apt-get -q -o Dpkg::Use-Pty=0 update >/dev/null
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -o Dpkg::Use-Pty=0 install -y \
    --no-install-recommends "${missing[@]}" >/dev/null || { say "apt-get install ${missing[*]} failed"; exit 1; }
fi

mkdir -p "$build_dir"
flags=(-std=c++17 -g -O1 -I "$root" -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
       -fno-omit-frame-pointer -Wall -Wextra -Werror)

# target name, its sources, its libraries; the seed folder is tests/fuzz/corpus/<name without fuzz_>.
build() {
  local name=$1
  shift
  local started=$SECONDS
  clang++ "${flags[@]}" "$@" -o "$build_dir/$name"
  say "built $name in $((SECONDS - started))s"
}
build fuzz_png tests/fuzz/fuzz_png.cpp app/image/image_io.cpp app/os/signals.cpp app/os/os_posix.cpp -lpng  # the writer honours stop signals
build fuzz_golden_json tests/fuzz/fuzz_golden_json.cpp app/image/golden.cpp

status=0
for target in png golden_json; do
  seeds=$build_dir/seeds-$target
  corpus=$build_dir/corpus-$target  # what libFuzzer finds; kept between runs, so longer runs build on it
  rm -rf "$seeds"
  mkdir -p "$seeds" "$corpus"
  cp tests/fuzz/corpus/$target/* "$seeds/"
  case $target in
    png) cp tests/golden/*.png "$seeds/" ;;
    golden_json) cp tests/golden/*.json "$seeds/" ;;
  esac
  say "fuzz_$target: ${seconds}s from $(ls "$seeds" | wc -l) seeds"
  set +e
  (cd "$build_dir" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "./fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    "$corpus" "$seeds" >"fuzz_$target.log" 2>&1)
  result=$?
  set -e
  if [ $result -eq 0 ]; then
    say "fuzz_$target: clean ($(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$build_dir/fuzz_$target.log" | awk '{ print $2 }') runs)"
  else
    # From the sanitizer's or libFuzzer's first report line on, else the log's end.
    log=$build_dir/fuzz_$target.log
    first=$(grep -n -m1 -E 'ERROR: |runtime error: |deadly signal|Timeout|out-of-memory' "$log" | cut -d: -f1 || true)
    if [ -n "$first" ]; then tail -n +"$first" "$log" | head -80 >&2; else tail -40 "$log" >&2; fi
    say "fuzz_$target: FAILED (exit $result); log: $build_dir/fuzz_$target.log, input: $build_dir/crash-* / leak-* / timeout-*"
    status=1
  fi
done
exit $status
