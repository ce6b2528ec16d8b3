#!/usr/bin/env bash
# udp.sh: zcperf's UDP paths next to iperf3 -u and sockperf on loopback, same pinning (client CPU 0,
# server CPU 1), alternating rounds, medians. Three comparisons:
#   throughput  1472-byte datagrams, unpaced: zcperf -T udp, iperf3 -u -b 0, sockperf tp
#               (received Mbit/s where the tool counts what arrived; sockperf tp counts what it sent,
#               so zcperf's sent rate is its like-for-like figure)
#   pingpong    64-byte datagrams: zcperf -t rr -T udp, sockperf pp (round trip, us)
#   sender      bytes per sender CPU-second (the sending thread's own CPU, getrusage): udp at 1472 B
#               per call, udp --batch 44 (sendmmsg, 64768 B per call), udp-gso and udp-msgzc at 64768 B
#               per call in 1472-byte segments
# See docs/udp.md for figures and conditions.
set -euo pipefail

NAME=udp
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
    cat <<EOT
Usage: $0 [--rounds N] [--duration S] [--csv FILE]
       $0 --report FILE     reprint the tables from an earlier CSV

Runs zcperf, iperf3 -u and sockperf one after another, N rounds, client on CPU $CLIENT_CPU and
server on CPU $SERVER_CPU, and prints the medians and zcperf's ratios to the peers.
iperf3 and sockperf come from Debian (apt-get install iperf3 sockperf); the script installs them
when they are missing and it runs as root.
  --rounds N     rounds (default $ROUNDS)
  --duration S   seconds per test, whole number (default $DURATION)
  --csv FILE     raw samples (default bench/out/udp-<timestamp>.csv), the tools' outputs beside it
EOT
}

bench_args "$@"
SUMMARY="$ROOT/bench/udp_summary.py"
if [[ -n $REPORT_ONLY ]]; then
    [[ -f $REPORT_ONLY ]] || die "no such CSV: $REPORT_ONLY"
    exec "$PY" "$SUMMARY" "$REPORT_ONLY"
fi
for t in iperf3 sockperf; do
    if ! command -v "$t" >/dev/null; then
        ((EUID == 0)) || die "$t not found: apt-get install -y iperf3 sockperf (the bench's peers)"
        log "installing the bench's peers from Debian: apt-get install -y iperf3 sockperf"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q iperf3 sockperf >&2 || die "apt-get failed"
    fi
done
SIZES=1472
bench_setup iperf3 sockperf
SOCKPERF_PORT=$(free_port 11211)

row() { echo "$1,$2,$3,$4" >>"$CSV"; }   # round,case,tool,value

zc() {   # raw args...: one zcperf run, JSON to raw
    local raw=$1
    shift
    timeout "$LIMIT" "$ZCPERF" "$@" -l "$DURATION" --cpu "$CLIENT_CPU,$SERVER_CPU" -o json >"$raw" 2>"$raw.err" ||
        { cat "$raw.err" >>"$raw"; fail zcperf "$raw"; }
}
jq_py() { "$PY" -c "import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print($2)" "$1"; }

sockperf_server() {
    taskset -c "$SERVER_CPU" sockperf sr -i 127.0.0.1 -p "$SOCKPERF_PORT" >"$RAW/sockperf-server.log" 2>&1 &
    SERVER_PIDS+=("$!")
    sleep 0.5
    kill -0 "$!" 2>/dev/null || fail "sockperf server" "$RAW/sockperf-server.log"
}

log "$ROUNDS rounds x (throughput 1472 B: zcperf, iperf3, sockperf; pingpong 64 B: zcperf, sockperf;" \
    "sender CPU: udp, udp --batch 44, udp-gso, udp-msgzc), ${DURATION}s each, client CPU $CLIENT_CPU, server CPU $SERVER_CPU"
log "raw samples: $CSV"
echo "round,case,tool,value" >"$CSV"
sockperf_server
for ((r = 1; r <= ROUNDS; r++)); do
    # Throughput at 1472-byte datagrams, as fast as each sends.
    raw=$RAW/r$r-tp-zcperf.json
    zc "$raw" -T udp -m 1472 -S 4M
    row "$r" tp_received zcperf "$(jq_py "$raw" "r['throughput_gbps']*1000")"
    # Sent over -l, as the peers count it (zcperf's sender interval also holds the end marker's exchange).
    row "$r" tp_sent zcperf "$(jq_py "$raw" "r['local']['bytes']*8/$DURATION/1e6")"
    row "$r" tp_loss_pct zcperf "$(jq_py "$raw" "r['remote']['udp']['loss_pct']")"
    raw=$RAW/r$r-tp-iperf3.json
    IPERF_PID=$(server_start "$raw.server" iperf3 -s -1 -A "$SERVER_CPU" -p "$IPERF_PORT")
    wait_listen "$IPERF_PORT" "$IPERF_PID" || fail "iperf3 server" "$raw.server"
    timeout "$LIMIT" iperf3 -c 127.0.0.1 -p "$IPERF_PORT" -A "$CLIENT_CPU" -u -b 0 -l 1472 -t "$DURATION" -J \
        >"$raw" 2>"$raw.err" || fail iperf3 "$raw"
    server_wait "$IPERF_PID" "$raw.server" || true
    IPERF_PID=
    row "$r" tp_received iperf3 "$("$PY" -c "import json,sys; e=json.load(open(sys.argv[1]))['end']; print(e['sum_received']['bits_per_second']/1e6)" "$raw")"
    row "$r" tp_sent iperf3 "$("$PY" -c "import json,sys; e=json.load(open(sys.argv[1]))['end']; print(e['sum_sent']['bits_per_second']/1e6)" "$raw")"
    row "$r" tp_loss_pct iperf3 "$("$PY" -c "import json,sys; e=json.load(open(sys.argv[1]))['end']; print(e['sum_received']['lost_percent'])" "$raw")"
    raw=$RAW/r$r-tp-sockperf.out
    timeout "$LIMIT" taskset -c "$CLIENT_CPU" sockperf tp -i 127.0.0.1 -p "$SOCKPERF_PORT" -m 1472 -t "$DURATION" \
        >"$raw" 2>&1 || fail sockperf "$raw"
    row "$r" tp_sent sockperf "$(sed -n 's/.*BandWidth is .*(\([0-9.]*\) Mbps).*/\1/p' "$raw")"
    sleep 0.5
    # Ping-pong, 64-byte datagrams: mean round trip.
    raw=$RAW/r$r-pp-zcperf.json
    zc "$raw" -T udp -t rr -m 64
    row "$r" pp_rtt_us zcperf "$(jq_py "$raw" "r['rr']['rtt_us']['mean']")"
    raw=$RAW/r$r-pp-sockperf.out
    timeout "$LIMIT" taskset -c "$CLIENT_CPU" sockperf pp -i 127.0.0.1 -p "$SOCKPERF_PORT" -m 64 -t "$DURATION" \
        >"$raw" 2>&1 || fail sockperf "$raw"
    # sockperf's latency is half the round trip
    row "$r" pp_rtt_us sockperf "$(sed -n 's/.*Summary: Latency is \([0-9.]*\) usec.*/\1/p' "$raw" | awk '{print 2*$1}')"
    # The sender's own CPU per byte: one datagram per call, sendmmsg, GSO, GSO + MSG_ZEROCOPY.
    for v in "udp:-m 1472" "udp-batch44:-m 1472 --batch 44" "udp-gso:--gso-size 1472 -m 64768" \
        "udp-msgzc:--gso-size 1472 -m 64768"; do
        tool=${v%%:*}
        read -ra a <<<"${v#*:}"
        raw=$RAW/r$r-cpu-$tool.json
        zc "$raw" -T "${tool%-batch44}" "${a[@]}" -S 4M
        row "$r" sender_MB_per_cpu_s "$tool" \
            "$(jq_py "$raw" "r['local']['bytes']/1e6/(r['local']['process_user_s']+r['local']['process_sys_s'])")"
        row "$r" sender_Mbit_s "$tool" "$(jq_py "$raw" "r['local']['bytes']*8/$DURATION/1e6")"
        row "$r" received_Mbit_s "$tool" "$(jq_py "$raw" "r['throughput_gbps']*1000")"
        row "$r" copied_pct "$tool" "$(jq_py "$raw" "r['local'].get('zerocopy',{}).get('copied_pct',0)")"
        log "round $r/$ROUNDS  $tool: $(tail -1 "$CSV")"
    done
    log "round $r/$ROUNDS done"
done
echo "zcperf UDP vs iperf3 -u vs sockperf on loopback: $ROUNDS rounds, ${DURATION}s, client CPU $CLIENT_CPU," \
    "server CPU $SERVER_CPU ($(date -Is))"
"$PY" "$SUMMARY" "$CSV"
echo "raw samples: $CSV"
