#!/usr/bin/env bash
# Smoke test of scripts/latency_table.py: two combinations (pinned across CPUs, unpinned) x two sizes
# on loopback, -l 0.2, into a temporary directory. The CSV must have one row per size with both
# columns, the ratio column and every percentile; the PNG must be a PNG; a second table made from
# the saved reports (--from) with the other baseline must give the inverse ratios; --under-load 0,1
# must add the column beside one stream with its Gb/s; bad arguments must fail with a message.
#
#   scripts/tests/test_latency_table.sh [PATH/TO/zcperf]      (default: $ZCPERF, else build/zcperf)
#
# Exit 0 pass, 1 fail, 77 skipped (no zcperf binary, or Debian's python3-matplotlib missing).
set -uo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
zcperf="${1:-${ZCPERF:-$here/../build/zcperf}}"
table="$here/latency_table.py"

if [ ! -x "$zcperf" ]; then echo "SKIP: no zcperf at $zcperf" >&2; exit 77; fi
if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
    echo "SKIP: /usr/bin/python3 has no matplotlib (apt-get install python3-matplotlib)" >&2; exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/latency_table_test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; for f in "$tmp"/*.log; do echo "--- $f" >&2; cat "$f" >&2; done; exit 1; }

"$table" --zcperf "$zcperf" --sizes 1,64 -l 0.2 --combo "pinned=--cpu 0,1" --combo "unpinned=" \
    --out "$tmp/lat" >"$tmp/run1.out" 2>"$tmp/run1.log" || fail "first run exited $?"
[ -s "$tmp/lat.csv" ] || fail "no lat.csv"
[ "$(head -c 8 "$tmp/lat.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "lat.png is not a PNG"
[ -s "$tmp/lat-pinned.json" ] && [ -s "$tmp/lat-unpinned.json" ] || fail "the runs' reports were not kept"
grep -q "ratio columns: each combination over the baseline 'pinned'" "$tmp/run1.out" || fail "no table printed"

# Rows, columns, and the ratio really being unpinned/pinned.
/usr/bin/python3 - "$tmp/lat.csv" <<'PY' || fail "CSV check"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["message_size"] for r in rows] == ["1", "64"], rows
for r in rows:
    for c in ("pinned", "unpinned", "unpinned/pinned", "pinned_p50_us", "pinned_p99.9_us", "unpinned_max_us",
              "pinned_transactions"):
        assert r.get(c) not in (None, ""), (c, r)
    p, u, q = float(r["pinned"]), float(r["unpinned"]), float(r["unpinned/pinned"])
    assert p > 0 and u > 0 and abs(q - u / p) < 1e-3 * q, r
    assert float(r["pinned_min_us"]) <= float(r["pinned_p50_us"]) <= float(r["pinned_p99_us"]) <= float(r["pinned_max_us"]), r
    assert abs(float(r["pinned"]) - float(r["pinned_mean_us"])) < 1e-3, r
PY

# From the saved reports, the other baseline and one-way p50: the ratio inverts, the values halve.
"$table" --from "pinned=$tmp/lat-pinned.json" --from "unpinned=$tmp/lat-unpinned.json" --baseline unpinned \
    --metric p50 --one-way --no-plot --out "$tmp/again" >"$tmp/run2.out" 2>"$tmp/run2.log" || fail "--from run exited $?"
/usr/bin/python3 - "$tmp/lat.csv" "$tmp/again.csv" <<'PY' || fail "--from CSV check"
import csv, sys
a = list(csv.DictReader(open(sys.argv[1])))
b = list(csv.DictReader(open(sys.argv[2])))
for x, y in zip(a, b):
    assert abs(float(y["pinned"]) - float(x["pinned_p50_us"]) / 2) <= 1e-6 * float(y["pinned"]), (x, y)
    want = float(x["pinned_p50_us"]) / float(x["unpinned_p50_us"])
    assert abs(float(y["pinned/unpinned"]) - want) < 1e-3 * want, (x, y)
PY
grep -q "one-way latency (RTT/2), p50" "$tmp/run2.out" || fail "--one-way table not labelled"

# --under-load: a column per count, the load's Gb/s beside it, the ratio against the combination alone.
"$table" --zcperf "$zcperf" --sizes 64 -l 0.3 --combo "tcp=" --under-load 0,1 --no-plot --out "$tmp/load" \
    >"$tmp/load.out" 2>"$tmp/load.log" || fail "--under-load run exited $?"
/usr/bin/python3 - "$tmp/load.csv" <<'PY' || fail "--under-load CSV check"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["message_size"] for r in rows] == ["64"], rows
r = rows[0]
for c in ("tcp", "tcp+load1", "tcp+load1/tcp", "tcp+load1_p99_us", "tcp+load1_load_gbps"):
    assert r.get(c) not in (None, ""), (c, r)
assert float(r["tcp+load1_load_gbps"]) > 0, r
assert abs(float(r["tcp+load1/tcp"]) - float(r["tcp+load1"]) / float(r["tcp"])) < 1e-3 * float(r["tcp+load1/tcp"]), r
assert "tcp_load_gbps" not in r, r  # alone: no load column
PY

"$table" --zcperf "$zcperf" --combo "a=" --baseline b --out "$tmp/x" 2>"$tmp/bad1.log" && fail "unknown baseline accepted"
grep -q "is not one of the columns" "$tmp/bad1.log" || fail "unknown baseline: no clear error"
"$table" --zcperf "$zcperf" --combo "a=-T tcp-msgzc" --sizes 1 -l 0.2 --out "$tmp/y" 2>"$tmp/bad2.log" && fail "bad combo accepted"
grep -q "rr runs over tcp" "$tmp/bad2.log" || fail "zcperf's refusal not passed on"
rm -f "$tmp"/bad*.log

echo "PASS: latency_table wrote the table, CSV and PNG, rebuilt it from the saved reports, refused bad input" >&2
