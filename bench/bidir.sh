#!/usr/bin/env bash
# bidir.sh: zcperf --bidir's sum of both directions against two one-way runs (issue #28) on loopback,
# same message size, alternating rounds, medians. Two references:
#   together: `zcperf -t stream` and `zcperf -t maerts` as two processes at the same time, each with its
#             own embedded server: what --bidir replaces; goal: the bidir sum >= 0.9x their sum;
#   alone:    the two directions one after the other, each with the machine to itself (their sum is what
#             the host can do one way at a time; on a CPU-bound host both directions at once share it).
set -euo pipefail

ROUNDS=5
DURATION=3
SIZE=64K
ZCPERF=${ZCPERF:-$(dirname "${BASH_SOURCE[0]}")/../build/zcperf}

usage() {
    cat <<EOT
Usage: $0 [--rounds N] [--duration S] [--size BYTES]
Runs zcperf --bidir, stream and maerts at once as two processes, and each alone, N rounds of S seconds,
and prints each round and the median ratios of the bidir sum to each reference.
  --rounds N      rounds (default $ROUNDS)
  --duration S    seconds per run (default $DURATION)
  --size BYTES    message size (default $SIZE)
  ZCPERF=PATH     the zcperf to measure (default build/zcperf)
EOT
}

while [[ $# -gt 0 ]]; do
    case $1 in
        --rounds) ROUNDS=$2; shift 2 ;;
        --duration) DURATION=$2; shift 2 ;;
        --size) SIZE=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "bidir.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    esac
done
[[ -x $ZCPERF ]] || { echo "bidir.sh: no zcperf at $ZCPERF (build it, or set ZCPERF=...)" >&2; exit 2; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Sum of every result's Gb/s in a JSON report (--bidir's two, or a one-way run's one).
gbps() { python3 -c 'import json,sys; print("%.3f" % sum(r["throughput_gbps"] for r in json.load(open(sys.argv[1]))["results"]))' "$1"; }
run() { timeout $((DURATION + 30)) "$ZCPERF" -m "$SIZE" -l "$DURATION" -o json "$@"; }

echo "bidir: zcperf --bidir vs two one-way runs, ${SIZE}, ${DURATION} s x $ROUNDS rounds, loopback," \
    "$(date -Is), load $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-6s %10s %10s %10s %9s %9s\n" round bidir together alone vs_tog vs_alone
TOG=()
ALONE=()
for ((i = 1; i <= ROUNDS; i++)); do
    run --bidir >"$TMP/b.json"
    run -t stream >"$TMP/s.json" &
    p=$!
    run -t maerts >"$TMP/m.json"
    wait $p
    t=$(awk -v a="$(gbps "$TMP/s.json")" -v b="$(gbps "$TMP/m.json")" 'BEGIN { printf "%.3f", a + b }')
    run -t stream >"$TMP/s1.json"
    run -t maerts >"$TMP/m1.json"
    a=$(awk -v x="$(gbps "$TMP/s1.json")" -v y="$(gbps "$TMP/m1.json")" 'BEGIN { printf "%.3f", x + y }')
    b=$(gbps "$TMP/b.json")
    rt=$(awk -v b="$b" -v t="$t" 'BEGIN { printf "%.3f", b / t }')
    ra=$(awk -v b="$b" -v a="$a" 'BEGIN { printf "%.3f", b / a }')
    TOG+=("$rt")
    ALONE+=("$ra")
    printf "%-6s %10s %10s %10s %9s %9s\n" "$i" "$b" "$t" "$a" "$rt" "$ra"
done
median() { printf "%s\n" "$@" | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
echo "median bidir sum / two one-way runs together: $(median "${TOG[@]}") (goal >= 0.9)"
echo "median bidir sum / the two directions alone, one after the other: $(median "${ALONE[@]}")"
