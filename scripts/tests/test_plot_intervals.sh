#!/usr/bin/env bash
# Smoke test of scripts/plot_intervals.py: two short loopback runs with --interval (one -o json, one
# --json-stream), plotted alone and overlaid; the PNGs must be PNGs, and a report without intervals
# and a wrong number of --label must fail with a message.
#
#   scripts/tests/test_plot_intervals.sh [PATH/TO/zcperf]      (default: $ZCPERF, else build/zcperf)
#
# Exit 0 pass, 1 fail, 77 skipped (no zcperf binary, or Debian's python3-matplotlib missing).
set -uo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
zcperf="${1:-${ZCPERF:-$here/../build/zcperf}}"
plot="$here/plot_intervals.py"

if [ ! -x "$zcperf" ]; then echo "SKIP: no zcperf at $zcperf" >&2; exit 77; fi
if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
    echo "SKIP: /usr/bin/python3 has no matplotlib (apt-get install python3-matplotlib)" >&2; exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/plot_intervals_test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; for f in "$tmp"/*.log; do echo "--- $f" >&2; cat "$f" >&2; done; exit 1; }
is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]; }

"$zcperf" -l 1 -D 0.2 -m 64K -o json >"$tmp/a.json" 2>"$tmp/a.log" || fail "zcperf -o json exited $?"
"$zcperf" -l 1 -D 0.2 -m 1M --json-stream >"$tmp/b.jsonl" 2>"$tmp/b.log" || fail "zcperf --json-stream exited $?"
"$zcperf" -l 0.3 -m 64K -o json >"$tmp/none.json" 2>"$tmp/none.log" || fail "zcperf without -D exited $?"

"$plot" "$tmp/one.png" "$tmp/a.json" >"$tmp/one.log" 2>&1 || fail "one report: exited $?"
is_png "$tmp/one.png" || fail "one.png is not a PNG"
"$plot" "$tmp/both.png" "$tmp/a.json" "$tmp/b.jsonl" --label 64K --label 1M >"$tmp/both.log" 2>&1 ||
    fail "two reports overlaid: exited $?"
is_png "$tmp/both.png" || fail "both.png is not a PNG"

if "$plot" "$tmp/x.png" "$tmp/none.json" >"$tmp/bad1.out" 2>&1; then fail "a report without intervals was plotted"; fi
grep -q "no intervals (run zcperf with --interval SECS)" "$tmp/bad1.out" || fail "no reason given: $(cat "$tmp/bad1.out")"
if "$plot" "$tmp/x.png" "$tmp/a.json" "$tmp/b.jsonl" --label one >"$tmp/bad2.out" 2>&1; then
    fail "one --label for two reports was taken"
fi
grep -q "give one per report" "$tmp/bad2.out" || fail "no reason given: $(cat "$tmp/bad2.out")"
echo "plot_intervals.py: OK"
