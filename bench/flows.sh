#!/usr/bin/env bash
# flows.sh: 1000 flows' aggregate against -P 2 on loopback. Both zcperf runs use two
# stream threads per side: -P 2 (one connection per thread) and -P 2 --flows 500 (500 connections per
# thread, served over one epoll each), against one zcserver. Beside them the kernel's floor for each
# (bench/flows_floor.c, built here with cc: blocking send/recv for one flow per thread, one level-
# triggered epoll and one call per ready flow for many): whether a gap is zcperf's cost or the kernel's
# shows in flows/floor_flows against floor_flows/floor_P2. Alternating rounds (the order turns each
# round), no pinning for any, medians; goal: flows/P2 >= 0.9. CPU per GB (all threads of both sides)
# is kept too.
set -euo pipefail

NAME=flows
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ROUNDS=5
DURATION=5
SIZES=64K
FLOWS=500
ZCSERVER=${ZCSERVER:-$(dirname "$ZCPERF")/zcserver}

usage() {
    cat <<EOT
Usage: $0 [--rounds N] [--duration S] [--sizes BYTES] [--flows N] [--csv FILE] [--rt]
       $0 --report FILE     reprint the table from an earlier CSV

Runs zcperf -P 2, zcperf -P 2 --flows N (default $FLOWS: $((2 * FLOWS)) connections) and flows_floor
with 1 and N flows per thread, N rounds (default $ROUNDS) of S seconds (default $DURATION), -m BYTES
(default $SIZES), against one zcserver on loopback, and prints every round, the medians and the ratios.
--rt runs all of them (zcserver too) under SCHED_FIFO priority 1 (chrt -f 1; root): on a machine shared
with builds the epoll loops otherwise get less CPU than -P 2's blocking ones. ZCPERF=/path/to/zcperf
(zcserver beside it) runs another build.
EOT
}
bench_option() {
    case $1 in
        --flows) FLOWS=${2:?}; BENCH_USED=2 ;;
    esac
}

RATIOS=(flows/P2 flows/floor_flows floor_flows/floor_P2 P2/floor_P2 flows_cpu_s_per_GB/floor_flows_cpu_s_per_GB
    P2_cpu_s_per_GB/floor_P2_cpu_s_per_GB)
bench_rounds_args "its floor runs both sides on one host" "$@"
[[ $FLOWS =~ ^[1-9][0-9]*$ ]] || die "--flows wants a positive integer"
[[ -x $ZCSERVER ]] || die "no zcserver at $ZCSERVER (build it, or set ZCSERVER=...)"
bench_setup
BYTES=$(to_bytes "$SIZES")
build_floor flows_floor -pthread

PORT=$(free_port 19555)
"${RT[@]}" "$ZCSERVER" --bind 127.0.0.1 --port "$PORT" >"$RAW/zcserver.log" 2>&1 &
SERVER_PIDS+=("$!")
wait_listen "$PORT" "$!" || fail zcserver "$RAW/zcserver.log"
ZCPERF_HOST=(-H "127.0.0.1:$PORT")

# Gb/s, and CPU seconds per GB moved of all the data threads of both sides (the floor: its process).
zcperf_run() {   # round case zcperf-arguments...: a run fails on any per-flow count mismatch
    local raw=$RAW/r$1-$2.json
    zcperf_json "$raw" -m "$SIZES" "${@:3}"
    bench_row "$1" "$2" "$(result_of "$raw" "'%.3f' % r['throughput_gbps']")"
    bench_row "$1" "$2_cpu_s_per_GB" "$(result_of "$raw" "'%.3f' % (sum(r[s]['process_user_s'] + \
r[s]['process_sys_s'] for s in ('local', 'remote')) / (r['bytes'] / 1e9))")"
    [[ $2 == P2 ]] || bench_row "$1" jain "$(result_of "$raw" "'%.4f' % r['local']['flows']['jain_index']")"
}
floor_run() {   # round case flows-per-thread
    local raw=$RAW/r$1-$2.out
    timeout "$LIMIT" "${RT[@]}" "$RAW/flows_floor" "$DURATION" "$BYTES" "$3" 2 >"$raw" 2>&1 || fail flows_floor "$raw"
    bench_row "$1" "$2" "$(awk '{ printf "%.3f", $6 }' "$raw")"
    bench_row "$1" "$2_cpu_s_per_GB" "$(awk '{ printf "%.3f", $8 / ($2 / 1e9) }' "$raw")"
}

log "zcperf -P 2 and -P 2 --flows $FLOWS, flows_floor 1 and $FLOWS flows x 2 threads, -m $SIZES," \
    "${DURATION} s x $ROUNDS rounds, loopback, unpinned; samples: $CSV"
CASES=("zcperf_run P2 -P 2" "zcperf_run flows -P 2 --flows $FLOWS" "floor_run floor_P2 1" "floor_run floor_flows $FLOWS")
for ((i = 1; i <= ROUNDS; i++)); do
    for ((k = 0; k < ${#CASES[@]}; k++)); do
        read -ra c <<<"${CASES[(k + i - 1) % ${#CASES[@]}]}"   # each round starts one case later
        "${c[0]}" "$i" "${c[@]:1}"
    done
    log "round $i/$ROUNDS: $(grep "^$i," "$CSV" | grep -v _cpu_ | cut -d, -f2- | tr '\n' ' ')load $(cut -d' ' -f1-3 /proc/loadavg)"
done
echo "flows: $((2 * FLOWS)) connections over 2 threads a side vs one each (-P 2), -m $SIZES, ${DURATION} s x $ROUNDS" \
    "rounds${RT:+ under ${RT[*]}}, loopback, ended $(date -Is), load $(cut -d' ' -f1-3 /proc/loadavg) (goal: flows/P2 >= 0.9)"
echo "P2, flows: zcperf's Gb/s; floor_P2, floor_flows: flows_floor's; *_cpu_s_per_GB: CPU s per GB of all data threads"
bench_rounds_report "$CSV" "${RATIOS[@]}"
echo "samples: $CSV"
