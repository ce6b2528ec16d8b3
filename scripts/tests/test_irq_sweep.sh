#!/usr/bin/env bash
# Smoke test of scripts/irq_sweep.py: a tiny loopback sweep (2 sizes x 1 client core x 1 IRQ mapping x
# 1 transport x 2 rounds, -l 0.3) into a temporary directory, run twice. The first run must leave 4 CSV
# rows without errors, the second round in reverse order, both PNGs and the summary; the second must find
# everything done, run nothing and leave the CSV unchanged. (The summary's figures: test_irq_sweep_stats.py.)
#
#   scripts/tests/test_irq_sweep.sh [PATH/TO/zcperf]      (default: $ZCPERF, else build/zcperf)
#
# Exit 0 pass, 1 fail, 77 skipped (no zcperf binary, or Debian's python3-matplotlib missing).
set -uo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
zcperf="${1:-${ZCPERF:-$here/../build/zcperf}}"
sweep="$here/irq_sweep.py"

if [ ! -x "$zcperf" ]; then echo "SKIP: no zcperf at $zcperf" >&2; exit 77; fi
if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
    echo "SKIP: /usr/bin/python3 has no matplotlib (apt-get install python3-matplotlib)" >&2; exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/irq_sweep_test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/sweep"
args=(--zcperf "$zcperf" --client-cpus 0 --irq-cpus 0 --sizes 64K,128K --transports tcp -l 0.3 --rounds 2 --out "$prefix")
fail() { echo "FAIL: $*" >&2; for f in "$tmp"/*.log; do echo "--- $f" >&2; cat "$f" >&2; done; exit 1; }

# The CSV's data rows as "transport size irq client round error": parsed with csv (the warnings column
# holds commas).
rows() {
    /usr/bin/python3 -c 'import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(r["transport"], r["message_size"], r["irq_cpu"], r["client_cpu"], r["round"],
          "ERROR:" + r["error"] if r["error"] else "ok")' "$1"
}

"$sweep" "${args[@]}" 2> "$tmp/run1.log" || fail "first run exited $?"
[ -s "$prefix.csv" ] || fail "no $prefix.csv"
got=$(rows "$prefix.csv")
want=$'tcp 65536 0 0 1 ok\ntcp 131072 0 0 1 ok\ntcp 131072 0 0 2 ok\ntcp 65536 0 0 2 ok'
[ "$got" = "$want" ] || fail "CSV rows after the first run:"$'\n'"$got"$'\n'"expected:"$'\n'"$want"
for png in "$prefix"_vs_size.png "$prefix"_heatmap.png; do
    [ -s "$png" ] || fail "no $png"
    [ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "$png is not a PNG"
done
[ -s "$prefix"_summary.txt ] || fail "no ${prefix}_summary.txt"
grep -q "no pairs to compare" "$prefix"_summary.txt || fail "summary of a sweep without pairs: $(cat "$prefix"_summary.txt)"
before=$(md5sum < "$prefix.csv")

"$sweep" "${args[@]}" 2> "$tmp/run2.log" || fail "second run exited $?"
grep -q "resuming: 4 of 4 combinations already done" "$tmp/run2.log" || fail "second run did not report 4 of 4 done"
grep -q "; 0 to run" "$tmp/run2.log" || fail "second run did not skip everything"
! grep -q '^\[' "$tmp/run2.log" || fail "second run ran a combination"
[ "$(md5sum < "$prefix.csv")" = "$before" ] || fail "second run changed the CSV"
[ -s "$prefix"_vs_size.png ] && [ -s "$prefix"_heatmap.png ] || fail "PNGs gone after the second run"

"$sweep" --summary-only --out "$prefix" > "$tmp/summary.out" 2> "$tmp/summary.log" || fail "--summary-only exited $?"
grep -q "no pairs to compare" "$tmp/summary.out" || fail "--summary-only printed: $(cat "$tmp/summary.out")"

# zclib's --explain categories (irq_sweep's and compare_paths' columns) are zcperf's, in its order.
got=$("$zcperf" -l 0.2 -o csv 2> "$tmp/csv.log" | head -n1 | tr ',' '\n' | sed -n 's/^local_explain_//p' |
      grep -vxE 'unit|sampled_busy_cpu_s|proc_stat_busy_cpu_s|per_unit' | tr '\n' ' ')
want=$(/usr/bin/python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import zclib
print(" ".join(zclib.EXPLAIN_CATEGORIES), end=" ")' "$here")
[ -n "$got" ] && [ "$got" = "$want" ] || fail "zcperf's CSV explain columns: '$got'; zclib.EXPLAIN_CATEGORIES: '$want'"

echo "PASS: irq_sweep wrote 4 rows in 2 alternating rounds, 2 PNGs and a summary, and the rerun skipped them all; zclib's explain categories are zcperf's" >&2
