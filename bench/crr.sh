#!/usr/bin/env bash
# crr.sh: zcperf -t crr against the kernel's floor on this machine (bench/crr_floor.c: the least a
# connect/request/response/close loop can do, built here with cc), same message, same pinning (client
# CPU 0, server CPU 1), alternating rounds, medians; goal: zcperf at >= 0.9x the floor's transactions/s.
# No TCP_CRR peer is packaged in Debian (netperf is non-free, neper is not packaged), hence the floor.
set -euo pipefail

ROUNDS=5
DURATION=3
SIZE=1
CLIENT_CPU=0
SERVER_CPU=1
ZCPERF=${ZCPERF:-$(dirname "${BASH_SOURCE[0]}")/../build/zcperf}

usage() {
    cat <<EOT
Usage: $0 [--rounds N] [--duration S] [--size BYTES]
Runs crr_floor and zcperf -t crr alternately, N rounds of S seconds, client on CPU $CLIENT_CPU and
server on CPU $SERVER_CPU, and prints each round and the median ratio zcperf / floor.
  --rounds N      rounds (default $ROUNDS)
  --duration S    seconds per run (default $DURATION)
  --size BYTES    request and response size (default $SIZE)
  ZCPERF=PATH     the zcperf to measure (default build/zcperf)
EOT
}

while [[ $# -gt 0 ]]; do
    case $1 in
        --rounds) ROUNDS=$2; shift 2 ;;
        --duration) DURATION=$2; shift 2 ;;
        --size) SIZE=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "crr.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    esac
done
[[ -x $ZCPERF ]] || { echo "crr.sh: no zcperf at $ZCPERF (build it, or set ZCPERF=...)" >&2; exit 2; }
command -v cc >/dev/null || { echo "crr.sh: needs a C compiler (cc) for the floor loop" >&2; exit 2; }
[[ $(nproc) -ge 2 ]] || { echo "crr.sh: needs 2 CPUs (client and server pinned apart)" >&2; exit 2; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cc -O2 -o "$TMP/crr_floor" "$(dirname "${BASH_SOURCE[0]}")/crr_floor.c"

floor_rate() {
    timeout $((DURATION + 20)) "$TMP/crr_floor" "$DURATION" "$SIZE" "$CLIENT_CPU" "$SERVER_CPU" |
        awk '{ printf "%.1f\n", $2 / $4 }'
}
zcperf_rate() {
    timeout $((DURATION + 30)) "$ZCPERF" -t crr -m "$SIZE" -l "$DURATION" --cpu "$CLIENT_CPU,$SERVER_CPU" -o json |
        python3 -c 'import json,sys; r=json.load(sys.stdin)["results"][0]["crr"]; print("%.1f" % r["transactions_per_s"])'
}

echo "crr: zcperf -t crr vs the kernel's floor (crr_floor.c), ${SIZE} B, ${DURATION} s x $ROUNDS rounds," \
    "client CPU $CLIENT_CPU, server CPU $SERVER_CPU, $(date -Is), load $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-6s %14s %14s %8s\n" round floor_tps zcperf_tps ratio
RATIOS=()
for ((i = 1; i <= ROUNDS; i++)); do
    f=$(floor_rate)
    z=$(zcperf_rate)
    r=$(awk -v z="$z" -v f="$f" 'BEGIN { printf "%.3f", z / f }')
    RATIOS+=("$r")
    printf "%-6s %14s %14s %8s\n" "$i" "$f" "$z" "$r"
done
MEDIAN=$(printf "%s\n" "${RATIOS[@]}" | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
echo "median zcperf/floor: $MEDIAN (goal >= 0.9)"
