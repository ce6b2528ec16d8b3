#!/usr/bin/env bash
# peers.sh: zcperf next to iperf3 and qperf on loopback, same pinning (client CPU 0,
# server CPU 1), alternating rounds, medians. See bench/README.md.
set -euo pipefail

NAME=peers
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
    cat <<EOT
Usage: $0 [--rounds N] [--duration S] [--sizes 64K,1M,4M] [--csv FILE] [--lab] [--mptcp]
       $0 --report FILE     reprint the table from an earlier CSV

Runs zcperf, iperf3 and qperf one after another for each message size, N rounds,
client on CPU $CLIENT_CPU and server on CPU $SERVER_CPU, and prints the medians.
  --rounds N     rounds (default $ROUNDS)
  --duration S   seconds per test, whole number (default $DURATION; >= 5 for CPU figures)
  --sizes LIST   message sizes, K/M/G are powers of 1024 (default $SIZES)
  --csv FILE     raw samples (default bench/out/peers-<timestamp>.csv); the tools'
                 raw outputs go next to it in <FILE without .csv>-raw/
  --lab          across the two-guest lab's link (scripts/lab.sh): clients in guest A,
                 servers in guest B; zcperf and iperf3 only
  --mptcp        MPTCP instead: zcperf -T mptcp against iperf3 --mptcp (iperf3 >= 3.17;
                 IPERF3=/path/to/iperf3 picks the binary), on loopback
EOT
}

MPTCP=
bench_option() { [[ $1 == --mptcp ]] && MPTCP=1 && BENCH_USED=1; return 0; }

bench_args "$@"
bench_report_only "$([[ -n $MPTCP ]] && echo mptcp || echo peers)"
bench_lab 3 "$@"   # --lab: zcperf (twice) and iperf3 in guest A, their servers in guest B
if [[ -n $LAB_SERVER ]]; then
    bench_setup iperf3
    log "in the lab: servers in guest B ($SERVER_IP), across the virtio-net link; qperf is not run here"
    log "$ROUNDS rounds x ${SIZES} x (zcperf, zcperf --rcvlowat=1, iperf3), ${DURATION}s each," \
        "client CPU $CLIENT_CPU (A), server CPU $SERVER_CPU (B)"
    log "raw samples: $CSV"
    bench_rounds zcperf "zcperf:tcp --rcvlowat=1" iperf3
    echo "zcperf vs iperf3 across the two-guest lab's link (TCG): $ROUNDS rounds, ${DURATION}s," \
        "client CPU $CLIENT_CPU in A, server CPU $SERVER_CPU in B ($(date -Is))"
    bench_report peers
    echo "raw samples: $CSV"
    exit 0
fi
if [[ -n $MPTCP ]]; then
    bench_setup "$IPERF3"
    "$IPERF3" --help 2>&1 | grep -q -- --mptcp ||
        die "$IPERF3 has no --mptcp (iperf3 3.17 or later has it; IPERF3=/path/to/iperf3 picks another)"
    log "$ROUNDS rounds x ${SIZES} x (zcperf -T mptcp, the same with --rcvlowat=1, iperf3 --mptcp), ${DURATION}s each," \
        "client CPU $CLIENT_CPU, server CPU $SERVER_CPU"
    log "raw samples: $CSV"
    bench_rounds zcperf:mptcp "zcperf:mptcp --rcvlowat=1" iperf3:--mptcp
    echo "zcperf -T mptcp vs iperf3 --mptcp on loopback: $ROUNDS rounds, ${DURATION}s, client CPU $CLIENT_CPU," \
        "server CPU $SERVER_CPU ($(date -Is))"
    bench_report mptcp
    echo "raw samples: $CSV"
    exit 0
fi
bench_setup iperf3 qperf

# qperf: one server for the whole run, already on the server CPU; -rca pins its per-test child too.
QPERF_PORT=$(free_port 19765)
taskset -c "$SERVER_CPU" qperf -lp "$QPERF_PORT" >"$RAW/qperf-server.log" 2>&1 &
QPERF_PID=$!
SERVER_PIDS+=("$QPERF_PID")
wait_listen "$QPERF_PORT" "$QPERF_PID" || die "qperf server did not start: $(cat "$RAW/qperf-server.log")"

run_qperf() {   # size bytes raw
    kill -0 "$QPERF_PID" 2>/dev/null || fail "qperf server" "$RAW/qperf-server.log"
    timeout "$LIMIT" qperf 127.0.0.1 -lp "$QPERF_PORT" -t "$DURATION" -m "$2" \
        -lca $((CLIENT_CPU + 1)) -rca $((SERVER_CPU + 1)) -uu -ub -v tcp_bw \
        >"$3" 2>&1 || fail qperf "$3"
}

log "$ROUNDS rounds x ${SIZES} x (zcperf iperf3 qperf), ${DURATION}s each, client CPU $CLIENT_CPU, server CPU $SERVER_CPU"
log "raw samples: $CSV"
# zcperf twice: as it runs by default, and with the kernel's own receive wake-ups (--rcvlowat=1,
# a wake-up per segment, what iperf3 and qperf get) to show what the threshold is worth.
bench_rounds zcperf "zcperf:tcp --rcvlowat=1" iperf3 qperf

echo "zcperf vs iperf3 vs qperf on loopback: $ROUNDS rounds, ${DURATION}s, client CPU $CLIENT_CPU, server CPU $SERVER_CPU ($(date -Is))"
bench_report peers
echo "raw samples: $CSV"
