#!/usr/bin/env bash
# latency.sh: zcperf -t rr next to qperf tcp_lat and sockperf ping-pong on loopback, same pinning
# (client CPU 0, server CPU 1), alternating rounds, medians of the round-trip time; and under load:
# zcperf's rr beside 1 and 4 stream connections (--under-load) next to sockperf's under-load mode at the
# message rate zcperf's rr ran alone in that round. See bench/README.md.
set -euo pipefail

NAME=latency
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
SIZES=1,64,4K
UNDER_LOAD=1,4   # --under-load's counts: zcperf rows beside that many streams (none: "")
bench_option() {
    case $1 in
        --under-load) UNDER_LOAD=${2?}; BENCH_USED=2 ;;
    esac
}
LIBPY=$ROOT/bench/latency_lib.py   # lib.sh's loop calls this one's parse/skip/report

usage() {
    cat <<EOT
Usage: $0 [--rounds N] [--duration S] [--sizes 1,64,4K] [--under-load 1,4] [--csv FILE] [--rt]
       $0 --report FILE     reprint the table from an earlier CSV

Request/response round trips: zcperf -t rr, qperf tcp_lat (one-way latency, doubled) and sockperf
ping-pong --full-rtt, one after another for each size, N rounds, client on CPU $CLIENT_CPU and
server on CPU $SERVER_CPU, and prints the medians and zcperf's ratio to each.
  --rounds N     rounds (default $ROUNDS)
  --duration S   seconds per test, whole number (default $DURATION)
  --sizes LIST   message sizes in bytes, K/M/G are powers of 1024 (default $SIZES)
  --under-load L also zcperf's rr beside N stream connections for each N of L (zcperf --under-load N, the
                 streams over tcp, unpinned) and sockperf under-load at the rate zcperf's rr ran alone
                 in that round (default $UNDER_LOAD; "" for none)
  --csv FILE     raw samples (default bench/out/latency-<timestamp>.csv); the tools' raw outputs
                 go next to it in <FILE without .csv>-raw/
  --rt           run every tool's client and server under SCHED_FIFO priority 1 (chrt -f 1), the same
                 for all three: on a machine shared with builds, a woken thread otherwise waits for
                 the CPU behind them and the round trip measures the scheduler (root)
EOT
}

bench_args "$@"
bench_report_only latency
bench_setup qperf sockperf
LOAD0=$(cut -d" " -f1-3 /proc/loadavg)

QPERF_PORT=$(free_port 19765)
"${RT[@]}" taskset -c "$SERVER_CPU" qperf -lp "$QPERF_PORT" >"$RAW/qperf-server.log" 2>&1 &
QPERF_PID=$!
SERVER_PIDS+=("$QPERF_PID")
wait_listen "$QPERF_PORT" "$QPERF_PID" || die "qperf server did not start: $(cat "$RAW/qperf-server.log")"

SOCKPERF_PORT=$(free_port 19877)
"${RT[@]}" taskset -c "$SERVER_CPU" sockperf server --tcp -i 127.0.0.1 -p "$SOCKPERF_PORT" >"$RAW/sockperf-server.log" 2>&1 &
SOCKPERF_PID=$!
SERVER_PIDS+=("$SOCKPERF_PID")
wait_listen "$SOCKPERF_PORT" "$SOCKPERF_PID" || die "sockperf server did not start: $(cat "$RAW/sockperf-server.log")"

run_zcperf() {   # size bytes raw [variant: "loadN", N stream connections beside the rr]
    local load=()
    [[ ${4:-} == load* ]] && load=(--under-load "${4#load}")
    timeout "$LIMIT" "${RT[@]}" "$ZCPERF" -t rr -m "$2" -l "$DURATION" --cpu "$CLIENT_CPU,$SERVER_CPU" "${load[@]}" \
        -o json >"$3" 2>"$3.err" || { cat "$3.err" >>"$3"; fail zcperf "$3"; }
}

run_qperf() {    # -lca/-rca count CPUs from 1; the server's per-test child is pinned with -rca
    kill -0 "$QPERF_PID" 2>/dev/null || fail "qperf server" "$RAW/qperf-server.log"
    timeout "$LIMIT" "${RT[@]}" qperf 127.0.0.1 -lp "$QPERF_PORT" -t "$DURATION" -m "$2" \
        -lca $((CLIENT_CPU + 1)) -rca $((SERVER_CPU + 1)) -v tcp_lat >"$3" 2>&1 || fail qperf "$3"
}

run_sockperf() { # sockperf's messages are 14..65507 B (its header; a UDP datagram's payload): smaller
                 # sizes run at 14, noted; larger ones are skipped (its server drops the connection)
    kill -0 "$SOCKPERF_PID" 2>/dev/null || fail "sockperf server" "$RAW/sockperf-server.log"
    if (($2 > 65507)); then
        echo "over sockperf's maximum message of 65507 B" >"$3.skip"
        return 3
    fi
    local m=$2 mode=(ping-pong)
    ((m < 14)) && m=14
    if [[ ${4:-} == underload ]]; then   # sockperf's own load: messages at the rate zcperf's rr ran alone
        local mps
        # $r: bench_rounds' round (zcperf alone ran before this case in it)
        mps=$("$PY" "$LIBPY" rate "$CSV" "$r" "$1") || { echo "no zcperf rate to match this round" >"$3.skip"; return 3; }
        mode=(under-load --mps="$mps")
    fi
    timeout "$LIMIT" "${RT[@]}" taskset -c "$CLIENT_CPU" sockperf "${mode[@]}" --tcp -i 127.0.0.1 -p "$SOCKPERF_PORT" \
        -m "$m" -t "$DURATION" --full-rtt >"$3" 2>&1 || fail sockperf "$3"
}

log "$ROUNDS rounds x ${SIZES} x (zcperf qperf sockperf${UNDER_LOAD:+; under load: zcperf beside $UNDER_LOAD streams, sockperf under-load}), ${DURATION}s each, client CPU $CLIENT_CPU, server CPU $SERVER_CPU${RT:+, all under ${RT[*]}}"
log "raw samples: $CSV"
LOAD_CASES=()
IFS=, read -ra LOAD_COUNTS <<<"$UNDER_LOAD"
for n in "${LOAD_COUNTS[@]}"; do LOAD_CASES+=("zcperf:load$n"); done
((${#LOAD_CASES[@]})) && LOAD_CASES+=(sockperf:underload)
bench_rounds zcperf qperf sockperf "${LOAD_CASES[@]}"

echo "zcperf rr vs qperf tcp_lat vs sockperf ping-pong on loopback: $ROUNDS rounds, ${DURATION}s, client CPU $CLIENT_CPU, server CPU $SERVER_CPU${RT:+, every tool under ${RT[*]}} ($(date -Is))"
echo "load average before/after: $LOAD0 / $(cut -d' ' -f1-3 /proc/loadavg)"
bench_report latency
echo "raw samples: $CSV"
