#!/bin/bash
# scripts/format.sh — the project's C++ layout (.clang-format: Google style, 110 columns) on every tracked
# C++ and CUDA file, with Debian's clang-format (setup.sh installs it).
#
#   scripts/format.sh          check: lists what differs and exits 1 if anything does (CI runs this)
#   scripts/format.sh --fix    rewrites the files in place
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
case "${1:-}" in
  "") mode=check ;;
  --fix) mode=fix ;;
  *) echo "format: unknown argument '$1' (usage: scripts/format.sh [--fix])" >&2; exit 2 ;;
esac
bash "$root/scripts/setup.sh"

mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.cu' '*.h')
if [ "$mode" = fix ]; then
  clang-format -i "${files[@]}"
  echo "format: ${#files[@]} files laid out as .clang-format says"
  exit 0
fi
report=$(mktemp)
trap 'rm -f "$report"' EXIT
if ! clang-format --dry-run -Werror "${files[@]}" 2>"$report"; then
  grep -E '^[^ ].*: (warning|error):' "$report" | cut -d: -f1 | sort | uniq -c |
    awk '{ print "format: " $2 ": " $1 " place(s) differ from .clang-format" }'
  echo "format: FAILED — run scripts/format.sh --fix, then the tests" >&2
  exit 1
fi
echo "format: ${#files[@]} C++ files, all as .clang-format says ($(clang-format --version | sed 's/ (.*//'))"
