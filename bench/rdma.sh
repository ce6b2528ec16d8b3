#!/usr/bin/env bash
# rdma.sh: zcperf's RDMA paths next to the tools RDMA people trust, over one RDMA device,
# alternating rounds, medians and ratios:
#   zcperf -T rdma-write   vs  perftest ib_write_bw -F
#   zcperf -T rdma-send    vs  perftest ib_send_bw -F
#   zcperf -T rsocket      vs  librdmacm's rstream (rsockets)
# and with --messages the message tests, same size, same QPs, same inline and post list:
#   zcperf -t msgrate -T rdma-send --qps N  vs  ib_send_bw -q N   (message rate, MsgRate[Mpps])
#   zcperf -t rr -T rdma-send               vs  ib_send_lat       (latency = RTT/2: p50 vs t_typical)
#   zcperf -t rr -T rdma-write              vs  ib_write_lat
# On a host without an RDMA device it runs itself inside scripts/rdma_vm.sh's Soft-RoCE guest
# (TCG: figures there are about 1/100 of hardware and only tell whether zcperf keeps level with
# the peers under the same conditions). See docs/rdma-vm.md.
set -euo pipefail

NAME=rdma
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=scripts/rdma_vm/find_device.sh
source "$ROOT/scripts/rdma_vm/find_device.sh"
SIZES=64K,1M
LIBPY=$ROOT/bench/rdma_lib.py   # lib.py's parsers and CSV, plus perftest's and rstream's
ZCSERVER=${ZCSERVER:-$(dirname "$ZCPERF")/zcserver}
PAIRS=(zcperf:rdma-write ib_write_bw zcperf:rdma-send ib_send_bw zcperf:rsocket rstream)
PEERS_ONLY=
VM_TIMEOUT=
MESSAGES=
MSG_QPS=1
MSG_POSTLIST=1
MSG_INLINE=0
CQ_MODE=auto
PT_BW_EXTRA=()    # perftest's extra options: the bandwidth tools', the latency tools'
PT_LAT_EXTRA=()
ZC_EXTRA=()       # zcperf's, for every test

usage() {
    cat <<EOT
Usage: $0 [--rounds N] [--duration S] [--sizes 64K,1M] [--csv FILE] [--peers-only] [--vm-timeout S]
       $0 --report FILE     reprint the table from an earlier CSV

For each size, N rounds of: zcperf -T rdma-write, ib_write_bw, zcperf -T rdma-send, ib_send_bw,
zcperf -T rsocket, rstream; client on CPU $CLIENT_CPU, server on CPU $SERVER_CPU, over the first
RDMA device with a RoCE v2 IPv4 GID (or the guest's rxe0). Prints medians and zcperf/peer ratios.
  --rounds N      rounds (default $ROUNDS)
  --duration S    seconds per test, whole number (default $DURATION)
  --sizes LIST    message sizes, K/M/G are powers of 1024 (default $SIZES)
  --csv FILE      raw samples (default bench/out/rdma-<timestamp>.csv), raw outputs next to it
  --peers-only    only perftest and rstream (e.g. before zcperf has the RDMA transports)
  --vm-timeout S  without an RDMA device: limit for the whole guest run (default: duration+45 s per test
                  plus 10 min; under TCG a 5 s test takes 10-20 s with its set-up)
  --lab           across the two-guest lab's link (scripts/lab.sh): clients in guest A, servers
                  (the lab's zcserver, perftest's and rstream's) in guest B, rxe0 on each side's NIC
  --only T        just the pair whose zcperf transport is T (e.g. rsocket: zcperf -T rsocket vs rstream)
  --messages      the message tests instead (default sizes 2,4K): zcperf -t msgrate -T rdma-send vs
                  ib_send_bw's MsgRate, zcperf -t rr -T rdma-send / rdma-write vs ib_send_lat /
                  ib_write_lat; both tools get the same --qps, --postlist and --inline:
  --qps N         msgrate: QPs (zcperf --qps N on one thread, perftest -q N; default 1)
  --postlist N    msgrate: work requests per post (zcperf --postlist, perftest -l; default 1)
  --inline N      bytes sent inline (zcperf --inline, perftest -I; default 0, also for the latency tools)
  --cq-mode M     how both tools take completions (default $CQ_MODE): auto = each tool's default, which
                  match (the active side busy-polls, rdma-write's receiver / ib_write_bw's server sleep,
                  rdma-send's receiver / ib_send_bw's server poll); event = both sleep on the completion
                  channel (zcperf --cq-mode event, perftest -e; ib_write_* have no -e, they poll);
                  poll = zcperf --cq-mode poll on both sides, perftest as in auto (ib_write_bw's server has no CQ to poll)
A zcperf built without a transport gets a note in the table, not a failure.
EOT
}

# Our own options first; the rest are lib.sh's.
ORIG_ARGS=("$@")
args=()
while (($#)); do
    case $1 in
        --peers-only) PEERS_ONLY=1; shift ;;
        --vm-timeout) VM_TIMEOUT=${2:?}; shift 2 ;;
        --messages) MESSAGES=1; shift ;;
        --only) ONLY=${2:?}; shift 2 ;;
        --qps) MSG_QPS=${2:?}; shift 2 ;;
        --postlist) MSG_POSTLIST=${2:?}; shift 2 ;;
        --inline) MSG_INLINE=${2:?}; shift 2 ;;
        --cq-mode) CQ_MODE=${2:?}; shift 2 ;;
        *) args+=("$1"); shift ;;
    esac
done
[[ -n $MESSAGES ]] && SIZES=2,4K
case $CQ_MODE in
    auto) ;;
    poll) ZC_EXTRA=(--cq-mode poll) ;;
    event) ZC_EXTRA=(--cq-mode event) ;;   # perftest's -e: see perftest_pair
    *) die "--cq-mode wants auto, poll or event" ;;
esac
bench_args "${args[@]}"
bench_report_only "$([[ -n $MESSAGES ]] && echo rdma_messages || echo rdma)"

bench_lab 6 "${ORIG_ARGS[@]}"   # --lab: clients in guest A, servers in guest B
# No RDMA device here: run this same command in the Soft-RoCE guest. The guest writes the CSV
# through a read-write share of bench/out (or of --csv's directory).
if [[ -z ${RDMA_VM:-} ]] && ! rdma_find_device; then
    log "$RDMA_FIND_ERROR: running in the Soft-RoCE guest (scripts/rdma_vm.sh)"
    outdir=$ROOT/bench/out
    [[ -n $CSV ]] && outdir=$(dirname "$(realpath -m "$CSV")")
    mkdir -p "$outdir"
    IFS=, read -ra sizes <<<"$SIZES"
    tests=$((ROUNDS * ${#sizes[@]} * 6))
    exec "$ROOT/scripts/rdma_vm.sh" --timeout "${VM_TIMEOUT:-$((tests * (DURATION + 45) + 600))}" \
        --rw "$outdir" -- "$0" "${ORIG_ARGS[@]}"
fi
rdma_find_device || die "$RDMA_FIND_ERROR"
# Where the servers are: this host's RDMA address, or guest B's in the lab (its GID index is B's own).
PEER_IP=$RDMA_IP
PEER_GID=$RDMA_GID
if [[ -n $LAB_SERVER ]]; then
    PEER_IP=$SERVER_IP
    PEER_GID=${ZCPERF_LAB_PEER_GID_INDEX:-$RDMA_GID}
fi

if [[ -n $MESSAGES ]]; then
    PAIRS=(zcperf:msgrate-rdma-send ib_send_bw zcperf:rr-rdma-send ib_send_lat zcperf:rr-rdma-write ib_write_lat)
    # The peers get exactly the zcperf options of their pair (and both of them the same inline size:
    # the latency tools' own default is 236 B inline).
    PT_BW_EXTRA+=(-q "$MSG_QPS" -l "$MSG_POSTLIST" -I "$MSG_INLINE")
    PT_LAT_EXTRA+=(-I "$MSG_INLINE")
fi
if [[ -n ${ONLY:-} ]]; then
    for ((i = 0; i < ${#PAIRS[@]}; i += 2)); do
        [[ ${PAIRS[i]} == "zcperf:$ONLY" ]] && PAIRS=("${PAIRS[i]}" "${PAIRS[i + 1]}") && break
    done
    ((${#PAIRS[@]} == 2)) || die "--only $ONLY: no such pair (zcperf transports: rdma-write, rdma-send, rsocket)"
fi
if [[ -n $PEERS_ONLY ]]; then
    CASES=(ib_write_bw ib_send_bw rstream)
    [[ -n $MESSAGES ]] && CASES=(ib_send_bw ib_send_lat ib_write_lat)
    # bench_setup insists on a zcperf binary; a peers-only run does not need one.
    [[ -x $ZCPERF ]] || ZCPERF=/bin/true
else
    CASES=("${PAIRS[@]}")
fi
bench_setup ib_write_bw ib_send_bw rstream ib_send_lat ib_write_lat
LIMIT=$((DURATION * 4 + 60))   # under TCG set-up and teardown take seconds; a hang still ends
PORT=$(free_port 18515)
next_port() { PORT=$((PORT + 1)); }   # a fresh port per test: no wait for the last one's close

# zcperf: one zcserver bound to the device's address for the whole run, on the server CPU (the
# lab's own in guest B; --cpu pins its data threads there).
ZC_ADDR=$LAB_SERVER
if [[ -z $PEERS_ONLY && -z $LAB_SERVER ]]; then
    [[ -x $ZCSERVER ]] || die "$ZCSERVER not found; build first"
    ZC_PORT=$(free_port 12875)
    taskset -c "$SERVER_CPU" "$ZCSERVER" --bind "$RDMA_IP" --port "$ZC_PORT" >"$RAW/zcserver.log" 2>&1 &
    SERVER_PIDS+=($!)
    wait_listen "$ZC_PORT" "$!" || die "zcserver did not start: $(cat "$RAW/zcserver.log")"
    ZC_ADDR=$RDMA_IP:$ZC_PORT
fi

run_zcperf() {   # size bytes raw transport | msgrate-TRANSPORT | rr-TRANSPORT
    local rc=0 test=stream transport=$4 extra=()
    case $4 in
        msgrate-*) test=msgrate transport=${4#msgrate-}
                   extra=(--qps "$MSG_QPS" --postlist "$MSG_POSTLIST" --inline "$MSG_INLINE") ;;
        rr-*) test=rr transport=${4#rr-} extra=(--inline "$MSG_INLINE") ;;
    esac
    timeout "$LIMIT" "$ZCPERF" -H "$ZC_ADDR" -t "$test" -T "$transport" -m "$2" -l "$DURATION" \
        "${extra[@]}" "${ZC_EXTRA[@]}" \
        --cpu "$CLIENT_CPU,$SERVER_CPU" -o json >"$3" 2>"$3.err" || rc=$?
    ((rc == 0)) && return 0
    # A zcperf without this transport (not built with RDMA, or older than it) is a note.
    if grep -qE "unknown transport|is not in this build" "$3.err"; then
        grep -oE "(unknown transport|transport '[^']*' is not in this build).*" "$3.err" | head -n1 >"$3.skip"
        return 3
    fi
    cat "$3.err" >>"$3"
    fail zcperf "$3"
}

# The peers run a count, not a time: perftest's -D mode counts only a window between margins,
# and with a full send queue of 1 MiB messages on a slow link it reported 0 or half the
# iterations; rstream has no time option at all. So each (tool, size) first moves 32 MiB to
# learn its speed, and each measured run then gets the count that takes about DURATION s.
declare -A RATE=()   # bytes/s by "tool size"
count_for() {   # tool size bytes calibration-runner...: sets COUNT for DURATION seconds
    local key="$1 $2" bytes=$3 cal=$RAW/calibration-$1-$2.out
    shift 3
    if [[ -z ${RATE[$key]:-} ]]; then
        # 32 MiB, but no more than 20000 messages: small messages go by message rate, not bytes
        local n=$(((32 << 20) / bytes + 1))
        ((n > 20000)) && n=20000
        "$@" "$bytes" "$n" "$cal"
        RATE[$key]=$("$PY" "$LIBPY" rate "${key% *}" "$cal")
        log "calibration, $key: $((RATE[$key] / 1000000)) MB/s"
    fi
    COUNT=$(((RATE[$key] * DURATION + bytes - 1) / bytes))
}

# One perftest pair moving COUNT messages. perftest turns CPU cycles into time with a clock rate
# it measures itself; under TCG that sometimes fails ("Correlation coefficient r^2 < 0.9") and it
# prints 0.00 for a transfer that did happen, so such a run is taken again.
perftest_pair() {   # tool bytes count raw
    local tool=$1 try rc crc
    for try in 1 2 3; do
        next_port
        local a=(-F -d "$RDMA_DEV" -s "$2" -n "$3" -p "$PORT")
        case $tool in
            *_lat) a+=("${PT_LAT_EXTRA[@]}") ;;
            *) a+=("${PT_BW_EXTRA[@]}") ;;
        esac
        # perftest has no events for WRITE ("Events feature not available on WRITE verb"): ib_write_* poll
        [[ $CQ_MODE == event && $tool == ib_send_* ]] && a+=(-e)
        # lib.sh's cleanup stops the server on the way out
        IPERF_PID=$(server_start "$4.server" taskset -c "$SERVER_CPU" timeout "$LIMIT" "$tool" "${a[@]}" -x "$PEER_GID")
        wait_listen "$PORT" "$IPERF_PID" || fail "$tool server" "$4.server"
        crc=0
        taskset -c "$CLIENT_CPU" timeout "$LIMIT" "$tool" "${a[@]}" -x "$RDMA_GID" "$PEER_IP" >"$4" 2>&1 || crc=$?
        rc=0
        server_wait "$IPERF_PID" "$4.server" || rc=$?
        IPERF_PID=
        ((crc == 0 && rc == 0)) || { cat "$4.server" >>"$4"; fail "$tool (client $crc, server $rc)" "$4"; }
        # The parser checks that perftest moved exactly this.
        echo "# rdma.sh: $tool -s $2 -n $3" >>"$4"
        grep -q "Correlation coefficient" "$4" || return 0
        log "$tool: its clock calibration failed (r^2 < 0.9), measuring again ($try/3)"
    done
    fail "$tool: clock calibration failed 3 times" "$4"
}
run_perftest() {   # tool size bytes raw
    count_for "$1" "$2" "$3" perftest_pair "$1"
    perftest_pair "$1" "$3" "$COUNT" "$4"
}
run_ib_write_bw() { run_perftest ib_write_bw "$@"; }
run_ib_send_bw() { run_perftest ib_send_bw "$@"; }

# The latency tools: -n iterations, each one round trip; sized from a 200-iteration calibration
# (its mean one-way time) to last about DURATION seconds.
declare -A LAT_US=()
run_perftest_lat() {   # tool size bytes raw
    local key="$1 $2" cal=$RAW/calibration-$1-$2.out
    if [[ -z ${LAT_US[$key]:-} ]]; then
        perftest_pair "$1" "$3" 200 "$cal"
        LAT_US[$key]=$("$PY" "$LIBPY" lat "$cal")
        log "calibration, $key: $(printf %.1f "${LAT_US[$key]}") us one way"
    fi
    perftest_pair "$1" "$3" "$("$PY" -c "print(max(200, int($DURATION * 1e6 / (2 * ${LAT_US[$key]}))))")" "$4"
}
run_ib_send_lat() { run_perftest_lat ib_send_lat "$@"; }
run_ib_write_lat() { run_perftest_lat ib_write_lat "$@"; }

# rstream: -C transfers of -S bytes to the server and -C back, -I times.
rstream_pair() {   # bytes count raw
    next_port
    local a=(-S "$1" -C "$2" -I 1 -p "$PORT") try crc rc
    IPERF_PID=$(server_start "$3.server" taskset -c "$SERVER_CPU" timeout "$LIMIT" rstream "${a[@]}")
    # The server listens through rdma_cm, which ss cannot see: retry a refused connection.
    for try in $(seq 40); do
        crc=0
        taskset -c "$CLIENT_CPU" timeout "$LIMIT" rstream -s "$PEER_IP" "${a[@]}" >"$3" 2>&1 || crc=$?
        ((crc == 0)) && break
        server_alive "$IPERF_PID" "$3.server" || break
        sleep 0.5
    done
    rc=0
    server_wait "$IPERF_PID" "$3.server" || rc=$?
    IPERF_PID=
    ((crc == 0 && rc == 0)) || { cat "$3.server" >>"$3"; fail "rstream (client $crc, server $rc)" "$3"; }
    # rstream prints counts rounded (1600 -> "1k"): the parser takes the exact ones from here.
    echo "# rdma.sh: rstream -S $1 -C $2 -I 1" >>"$3"
}
run_rstream() {   # size bytes raw
    # each transfer goes there and back: half the count moves DURATION seconds' worth
    count_for rstream "$1" "$2" rstream_pair
    rstream_pair "$2" $(((COUNT + 1) / 2)) "$3"
}

log "$ROUNDS rounds x $SIZES x (${CASES[*]}), ${DURATION}s each, on $RDMA_DEV ($RDMA_IP, GID index $RDMA_GID)${LAB_SERVER:+ to guest B ($PEER_IP) across the lab link}${RDMA_VM:+ in the Soft-RoCE guest}${MESSAGES:+; qps $MSG_QPS, postlist $MSG_POSTLIST, inline $MSG_INLINE}; CQ mode $CQ_MODE"
log "raw samples: $CSV"
bench_rounds "${CASES[@]}"

echo "zcperf vs perftest and rstream on $RDMA_DEV${LAB_SERVER:+ from guest A to guest B across the lab virtio-net link}${RDMA_VM:+ (Soft-RoCE in a TCG guest)}: $ROUNDS rounds, ${DURATION}s, client CPU $CLIENT_CPU, server CPU $SERVER_CPU, CQ mode $CQ_MODE ($(date -Is))"
if [[ -n $MESSAGES ]]; then
    echo "message tests: msgrate with $MSG_QPS QP(s) on one thread, postlist $MSG_POSTLIST, inline $MSG_INLINE B (rr: inline $MSG_INLINE B)"
    bench_report rdma_messages
else
    bench_report rdma
fi
echo "raw samples: $CSV"
