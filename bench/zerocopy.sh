#!/usr/bin/env bash
# zerocopy.sh: zcperf's zero-copy senders on loopback, same pinning as peers.sh (client
# CPU 0, server CPU 1): tcp-sendfile next to iperf3 -Z, and tcp, tcp-sendfile, tcp-msgzc,
# tcp-uringzc next to each other, alternating rounds, medians. See bench/README.md.
set -euo pipefail

NAME=zerocopy
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
    cat <<EOT
Usage: $0 [--rounds N] [--duration S] [--sizes 64K,1M,4M] [--csv FILE] [--lab]
       $0 --report FILE     reprint the tables from an earlier CSV

For each message size, N rounds, runs back to back: zcperf -T tcp, -T tcp-sendfile,
iperf3 -Z, zcperf -T tcp-msgzc and -T tcp-uringzc (receiver: plain recv), client on
CPU $CLIENT_CPU and server on CPU $SERVER_CPU, and prints the medians.
  --rounds N     rounds (default $ROUNDS)
  --duration S   seconds per test, whole number (default $DURATION; >= 5 for CPU figures)
  --sizes LIST   message sizes, K/M/G are powers of 1024 (default $SIZES)
  --csv FILE     raw samples (default bench/out/zerocopy-<timestamp>.csv); the tools'
                 raw outputs go next to it in <FILE without .csv>-raw/
  --lab          across the two-guest lab's link (scripts/lab.sh): clients in guest A,
                 servers in guest B
EOT
}

bench_args "$@"
bench_report_only zerocopy
bench_lab 5 "$@"   # --lab: across the two-guest lab's link, servers in guest B
bench_setup iperf3

# iperf3 -Z right after zcperf's sendfile, so the pair compared run closest in time;
# tcp (the copy baseline) first in each size.
CASES=(zcperf:tcp zcperf:tcp-sendfile iperf3:-Z zcperf:tcp-msgzc zcperf:tcp-uringzc)
log "$ROUNDS rounds x ${SIZES} x (${CASES[*]}), ${DURATION}s each, client CPU $CLIENT_CPU, server CPU $SERVER_CPU"
log "raw samples: $CSV"
bench_rounds "${CASES[@]}"

where="on loopback"
[[ -n $LAB_SERVER ]] && where="across the two-guest lab link (TCG), client in A, server in B"
echo "zcperf zero-copy senders $where: $ROUNDS rounds, ${DURATION}s, client CPU $CLIENT_CPU, server CPU $SERVER_CPU ($(date -Is))"
bench_report zerocopy
echo "raw samples: $CSV"
