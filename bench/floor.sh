#!/usr/bin/env bash
# floor.sh: zcperf against the kernel's floor on every loopback path: the least a C loop can
# do to move the same bytes the same way (bench/stream_floor.c, udp_floor.c, rr_floor.c, crr_floor.c,
# sharing bench/floor.h; built here with cc), same sizes, socket options and pinning as zcperf's defaults
# (client or sender on CPU 0, server or receiver on CPU 1). Alternating rounds: each round runs every
# path's pair back to back, floor first in odd rounds and zcperf first in even ones, so a drift of the
# machine's load falls on both. One line per path: the ratio zcperf/floor of the medians (Gb/s counted
# by the receiver, or transactions/s), a 95 % interval over the rounds' pairwise ratios, and beside it
# each one's CPU per KB (per transaction for rr and crr): zcperf's data threads, the floor's two loops.
# Goal: >= 0.98x on every path.
set -euo pipefail

NAME=floor
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ROUNDS=5
DURATION=3
ALL_PATHS=tcp,tcp-sendfile,tcp-msgzc,rx-trunc,rx-zerocopy,udp,udp-mmsg,udp-gso,udp-gro,rr,udp-rr,crr
PATHS=$ALL_PATHS
TIME_LIMIT=0

usage() {
    cat <<EOT
Usage: $0 [--rounds N] [--duration S] [--paths LIST] [--time-limit S] [--csv FILE] [--rt]
       $0 --report FILE     reprint the lines from an earlier CSV

Runs zcperf and its floor on each path, N rounds (default $ROUNDS) of S seconds (default $DURATION),
client on CPU $CLIENT_CPU and server on CPU $SERVER_CPU, and prints one line per path:
  PATH zcperf/floor RATIO [LOW, HIGH]  rates  CPU per KB or per transaction
  --paths LIST   comma-separated, of: $ALL_PATHS
                 (default all). tcp*: 1 MiB sends (-T tcp, tcp-sendfile, tcp-msgzc); rx-*: -T tcp with
                 --rx trunc, zerocopy; udp: 1472 B datagrams (--rx copy, udp-mmsg --rx mmsg); udp-gso:
                 44 x 1472 B calls (-T udp-gso; udp-gro with --rx gro); rr, udp-rr: 1 B each way; crr: a
                 connection per 1 B transaction
  --time-limit S start no round that the last one's length says would end past S seconds (a lent
                 machine's command limit): fewer rounds, each whole; the report says how many ran
  --csv FILE     the samples (default bench/out/floor-<timestamp>.csv), the runs' outputs beside it
  --rt           both under SCHED_FIFO priority 1 (chrt -f 1; root)
  ZCPERF=PATH    the zcperf to measure (default build/zcperf); FLOORS_DIR=DIR floors built already
EOT
}
bench_option() {
    case $1 in
        --paths) PATHS=${2:?}; BENCH_USED=2 ;;
        --time-limit) TIME_LIMIT=${2:?}; BENCH_USED=2 ;;
    esac
}

# zcperf's arguments, the floor's program and mode, the message size and the unit of each path.
declare -A ZC_ARGS=([tcp]="-T tcp" [tcp-sendfile]="-T tcp-sendfile" [tcp-msgzc]="-T tcp-msgzc"
    [rx-trunc]="-T tcp --rx trunc" [rx-zerocopy]="-T tcp --rx zerocopy" [udp]="-T udp" [udp-mmsg]="-T udp --rx mmsg"
    [udp-gso]="-T udp-gso" [udp-gro]="-T udp-gso --rx gro" [rr]="-t rr" [udp-rr]="-t rr -T udp" [crr]="-t crr")
declare -A FLOOR=([tcp]="stream_floor send,recv" [tcp-sendfile]="stream_floor sendfile,recv"
    [tcp-msgzc]="stream_floor msgzc,recv" [rx-trunc]="stream_floor send,trunc"
    [rx-zerocopy]="stream_floor send,zerocopy"
    [udp]="udp_floor send,recv" [udp-mmsg]="udp_floor send,mmsg" [udp-gso]="udp_floor gso,recv"
    [udp-gro]="udp_floor gso,gro" [rr]="rr_floor tcp" [udp-rr]="rr_floor udp" [crr]="crr_floor")
declare -A SIZE=([udp]=1472 [udp-mmsg]=1472 [udp-gso]=$((44 * 1472)) [udp-gro]=$((44 * 1472)) [rr]=1 [udp-rr]=1 [crr]=1)
transactions() { [[ $1 == rr || $1 == udp-rr || $1 == crr ]]; }

if [[ " $* " == *" --report "* ]]; then   # the CSV carries every figure the lines need
    bench_args "$@"
    [[ -f $REPORT_ONLY ]] || die "no such CSV: $REPORT_ONLY"
    exec "$PY" "$LIBPY" floors "$REPORT_ONLY"
fi
bench_args "$@"
[[ -z $LAB_RUN ]] || die "--lab: not for this script (its floors run both sides on one host)"
IFS=, read -ra PATH_LIST <<<"$PATHS"
for p in "${PATH_LIST[@]}"; do [[ -n ${FLOOR[$p]:-} ]] || die "--paths: unknown path '$p' (known: $ALL_PATHS)"; done
[[ $TIME_LIMIT =~ ^[0-9]+$ ]] || die "--time-limit wants whole seconds"
[[ $(nproc) -ge 2 ]] || die "needs 2 CPUs (client and server pinned apart)"
bench_setup
for f in stream_floor udp_floor rr_floor; do build_floor "$f" -pthread; done
build_floor crr_floor

floor_run() {   # round path
    local raw=$RAW/r$1-$2-floor.out p=$2 size=${SIZE[$2]:-1048576}
    local -a f
    read -ra f <<<"${FLOOR[$p]}"
    if [[ ${f[0]} == crr_floor ]]; then   # its own arguments and line: transactions N seconds S cpu_s C
        timeout "$LIMIT" "${RT[@]}" "$RAW/crr_floor" "$DURATION" "$size" "$CLIENT_CPU" "$SERVER_CPU" >"$raw" 2>&1 ||
            fail crr_floor "$raw"
        bench_row "$1" "$p/floor" "$(awk '{ printf "%.1f", $2 / $4 }' "$raw")"
        bench_row "$1" "$p/floor_cpu" "$(awk '{ printf "%.3f", $6 / $2 * 1e6 }' "$raw")"
        return
    fi
    timeout "$LIMIT" "${RT[@]}" "$RAW/${f[0]}" "${f[1]}" "$DURATION" "$size" "$CLIENT_CPU" "$SERVER_CPU" >"$raw" 2>&1 ||
        fail "${f[0]}" "$raw"
    # floor.h's line: bytes B seconds S ops N calls_tx T calls_rx R cpu_s C ...
    if transactions "$p"; then
        bench_row "$1" "$p/floor" "$(awk '{ printf "%.1f", $6 / $4 }' "$raw")"
        bench_row "$1" "$p/floor_cpu" "$(awk '{ printf "%.3f", $12 / $6 * 1e6 }' "$raw")"
    else
        bench_row "$1" "$p/floor" "$(awk '{ printf "%.4f", $2 * 8 / $4 / 1e9 }' "$raw")"
        bench_row "$1" "$p/floor_cpu" "$(awk '{ printf "%.5f", $12 * 1e6 / ($2 / 1024) }' "$raw")"
    fi
}
zcperf_run() {   # round path
    local raw=$RAW/r$1-$2-zcperf.json p=$2
    local -a a
    read -ra a <<<"${ZC_ARGS[$p]}"
    [[ -z ${SIZE[$p]:-} ]] || a+=(-m "${SIZE[$p]}")
    zcperf_json "$raw" "${a[@]}" --cpu "$CLIENT_CPU,$SERVER_CPU"
    local cpu="sum(r[s]['process_user_s'] + r[s]['process_sys_s'] for s in ('local', 'remote'))"
    if [[ $p == crr ]]; then
        bench_row "$1" "$p/zcperf" "$(result_of "$raw" "'%.1f' % r['crr']['transactions_per_s']")"
        bench_row "$1" "$p/zcperf_cpu" "$(result_of "$raw" "'%.3f' % ($cpu / r['crr']['transactions'] * 1e6)")"
    elif transactions "$p"; then
        bench_row "$1" "$p/zcperf" "$(result_of "$raw" "'%.1f' % r['rr']['transactions_per_s']")"
        bench_row "$1" "$p/zcperf_cpu" "$(result_of "$raw" "'%.3f' % ($cpu / r['rr']['transactions'] * 1e6)")"
    else
        bench_row "$1" "$p/zcperf" "$(result_of "$raw" "'%.4f' % r['throughput_gbps']")"
        bench_row "$1" "$p/zcperf_cpu" "$(result_of "$raw" "'%.5f' % ($cpu * 1e6 / (r['bytes'] / 1024))")"
    fi
}

log "zcperf vs the kernel's floors, paths $PATHS, ${DURATION} s x $ROUNDS rounds, client CPU $CLIENT_CPU," \
    "server CPU $SERVER_CPU; samples: $CSV"
for ((i = 1; i <= ROUNDS; i++)); do
    if ((TIME_LIMIT > 0 && i > 1 && SECONDS + SECONDS / (i - 1) > TIME_LIMIT)); then
        log "stopping after $((i - 1)) rounds: another would end past --time-limit $TIME_LIMIT s"
        ROUNDS=$((i - 1))
        break
    fi
    for p in "${PATH_LIST[@]}"; do
        if ((i % 2)); then floor_run "$i" "$p"; zcperf_run "$i" "$p"; else zcperf_run "$i" "$p"; floor_run "$i" "$p"; fi
        log "round $i/$ROUNDS $p: $(grep "^$i,$p/" "$CSV" | cut -d, -f2- | tr '\n' ' ')" \
            "load $(cut -d' ' -f1-3 /proc/loadavg)"
    done
done
echo "floor: zcperf vs the kernel's floors, ${DURATION} s x $ROUNDS rounds${RT:+ under ${RT[*]}}," \
    "client CPU $CLIENT_CPU," \
    "server CPU $SERVER_CPU, $(nproc) CPUs, ended $(date -Is), load $(cut -d' ' -f1-3 /proc/loadavg) (goal: >= 0.98)"
"$PY" "$LIBPY" floors "$CSV"
echo "samples: $CSV"
