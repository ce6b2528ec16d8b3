#!/usr/bin/env bash
# Does every tracked C++ file match .clang-format? CI runs this (.ci/run). With --fix, rewrites them.
#   scripts/check_format.sh [--fix]
# Exit 0: all formatted; 1: some are not (listed, with `--fix` to apply); 2: no clang-format 14.
set -euo pipefail
cd "$(dirname "$0")/.."
cf=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$cf" ] || ! "$cf" --version | grep -q 'version 14\.'; then
    echo "check_format: needs clang-format 14 (apt-get install clang-format); other versions lay out differently" >&2
    exit 2
fi
mapfile -t files < <(git ls-files '*.cpp' '*.hpp')
if [ "${1:-}" = --fix ]; then
    "$cf" -i --style=file "${files[@]}"
    echo "check_format: formatted ${#files[@]} files"
    exit 0
fi
bad=()
for f in "${files[@]}"; do
    "$cf" --style=file --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
    printf 'check_format: not formatted: %s\n' "${bad[@]}" >&2
    echo "check_format: ${#bad[@]} of ${#files[@]} files differ from .clang-format; run scripts/check_format.sh --fix" >&2
    exit 1
fi
# clang-format cannot break a long string literal, so the column limit is checked on its own.
long=$(awk 'length > 120 { print FILENAME ":" FNR ": " length " columns" }' "${files[@]}")
if [ -n "$long" ]; then
    sed 's/^/check_format: line over 120 columns: /' <<<"$long" >&2
    exit 1
fi
echo "check_format: ${#files[@]} files match .clang-format, no line over 120 columns"
