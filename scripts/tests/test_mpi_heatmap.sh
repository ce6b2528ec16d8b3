#!/usr/bin/env bash
# scripts/mpi_heatmap.py end to end: a real 3-rank matrix run (stream and rr), its PNGs and text
# matrices, and a report that is not zcperf-mpi's refused with a clear error.
#   test_mpi_heatmap.sh ZCPERF_MPI MPIRUN
# Exit 0 pass, 1 fail, 77 skipped (no zcperf-mpi in this build, or no matplotlib for /usr/bin/python3).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-} mpirun=${2:-}
[ -n "$bin" ] && [ -x "$bin" ] || { echo "SKIP: zcperf-mpi is not in this build (no MPI at configure time)" >&2; exit 77; }
/usr/bin/python3 -c 'import matplotlib' 2>/dev/null || { echo "SKIP: /usr/bin/python3 has no matplotlib (apt-get install python3-matplotlib)" >&2; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

timeout 120 "$mpirun" --allow-run-as-root --oversubscribe --timeout 100 -np 3 "$bin" --pattern matrix -t stream,rr \
    -l 0.2 -o json > "$work/m.json" || fail "zcperf-mpi matrix run failed"
"$here/scripts/mpi_heatmap.py" "$work/m.json" --out "$work/m" > "$work/out.txt" || fail "mpi_heatmap.py failed: $(cat "$work/out.txt")"
for f in m-stream-tcp-1M-gbps.png m-rr-tcp-1-latency_us.png m-rr-tcp-1-rate.png; do
    [ -s "$work/$f" ] || fail "$f was not written: $(cat "$work/out.txt")"
    head -c 8 "$work/$f" | grep -q PNG || fail "$f is not a PNG"
done
# 3 ranks: 6 ordered pairs per test, each a number in its row; the diagonal is '-'.
rows=$(grep -cE '^ +[0-9]+ +(-|[0-9.]+) +(-|[0-9.]+) +(-|[0-9.]+)$' "$work/out.txt")
[ "$rows" -eq 9 ] || fail "expected 9 matrix rows (3 maps x 3 ranks), got $rows: $(cat "$work/out.txt")"
echo '{"results": []}' > "$work/zcperf.json"
if "$here/scripts/mpi_heatmap.py" "$work/zcperf.json" 2> "$work/err.txt"; then fail "a zcperf report was accepted"; fi
grep -q "not zcperf-mpi's report" "$work/err.txt" || fail "unclear error: $(cat "$work/err.txt")"
echo "PASS: matrix maps from a real 3-rank run"
