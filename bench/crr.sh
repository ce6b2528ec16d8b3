#!/usr/bin/env bash
# crr.sh: zcperf -t crr against the kernel's floor on this machine (bench/crr_floor.c: the least a
# connect/request/response/close loop can do, built here with cc), same message, same pinning (client
# CPU 0, server CPU 1), alternating rounds, medians; goal: zcperf at >= 0.9x the floor's transactions/s.
# Beside the rate, the CPU per transaction of both (the floor's two processes, zcperf's data threads on
# both sides): on a shared machine the rate swings with the other load, the CPU per transaction less.
# No TCP_CRR peer is packaged in Debian (netperf is non-free, neper is not packaged), hence the floor.
set -euo pipefail

NAME=crr
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ROUNDS=5
DURATION=3
SIZES=1

usage() {
    cat <<EOT
Usage: $0 [--rounds N] [--duration S] [--sizes BYTES] [--csv FILE] [--rt]
       $0 --report FILE     reprint the table from an earlier CSV

Runs crr_floor and zcperf -t crr alternately (which one first alternates too), N rounds of S seconds,
client on CPU $CLIENT_CPU and server on CPU $SERVER_CPU, and prints each round, the medians and the
ratios zcperf / floor of the transactions/s and of the CPU per transaction.
  --rounds N      rounds (default $ROUNDS)
  --duration S    seconds per run, whole number (default $DURATION)
  --sizes BYTES   request and response size (default $SIZES; one size)
  --csv FILE      the samples (default bench/out/crr-<timestamp>.csv), the runs' outputs beside it
  --rt            both under SCHED_FIFO priority 1 (chrt -f 1): on a machine shared with builds (root)
  ZCPERF=PATH     the zcperf to measure (default build/zcperf)
EOT
}

RATIOS=(zcperf_tps/floor_tps zcperf_cpu_us/floor_cpu_us)
bench_rounds_args "its floor runs both sides on one host" "$@"
[[ $SIZES =~ ^[0-9]+$ ]] || die "--sizes: one size in bytes"
[[ $(nproc) -ge 2 ]] || die "needs 2 CPUs (client and server pinned apart)"
bench_setup
build_floor crr_floor

floor_run() {   # round
    local raw=$RAW/r$1-floor.out
    timeout "$LIMIT" "${RT[@]}" "$RAW/crr_floor" "$DURATION" "$SIZES" "$CLIENT_CPU" "$SERVER_CPU" >"$raw" 2>&1 ||
        fail crr_floor "$raw"
    bench_row "$1" floor_tps "$(awk '{ printf "%.1f", $2 / $4 }' "$raw")"
    bench_row "$1" floor_cpu_us "$(awk '{ printf "%.2f", $6 / $2 * 1e6 }' "$raw")"
}
zcperf_run() {   # round
    local raw=$RAW/r$1-zcperf.json
    zcperf_json "$raw" -t crr -m "$SIZES" --cpu "$CLIENT_CPU,$SERVER_CPU"
    bench_row "$1" zcperf_tps "$(result_of "$raw" "'%.1f' % r['crr']['transactions_per_s']")"
    bench_row "$1" zcperf_cpu_us \
        "$(result_of "$raw" "'%.2f' % (r['crr']['local_proc_sd_us_per_tran'] + r['crr']['remote_proc_sd_us_per_tran'])")"
}

log "zcperf -t crr vs the kernel's floor (crr_floor.c), ${SIZES} B, ${DURATION} s x $ROUNDS rounds," \
    "client CPU $CLIENT_CPU, server CPU $SERVER_CPU; samples: $CSV"
for ((i = 1; i <= ROUNDS; i++)); do
    if ((i % 2)); then floor_run "$i"; zcperf_run "$i"; else zcperf_run "$i"; floor_run "$i"; fi
    log "round $i/$ROUNDS: $(tail -4 "$CSV" | cut -d, -f2- | tr '\n' ' ')load $(cut -d' ' -f1-3 /proc/loadavg)"
done
echo "crr: zcperf -t crr vs crr_floor, ${SIZES} B, ${DURATION} s x $ROUNDS rounds${RT:+ under ${RT[*]}}, client CPU $CLIENT_CPU," \
    "server CPU $SERVER_CPU, ended $(date -Is), load $(cut -d' ' -f1-3 /proc/loadavg) (goal: zcperf_tps/floor_tps >= 0.9)"
echo "tps: transactions/s; cpu_us: CPU us per transaction (floor: both processes; zcperf: both sides' data threads)"
bench_rounds_report "$CSV" "${RATIOS[@]}"
echo "samples: $CSV"
