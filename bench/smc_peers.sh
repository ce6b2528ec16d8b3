#!/usr/bin/env bash
# smc_peers.sh: iperf3 over SMC (every TCP socket made AF_SMC by a preload, as smc-tools' smc_run does)
# beside plain iperf3 over TCP, across the two-guest lab's link, same pinning (client CPU 0 in A, server
# CPU 1 in B), alternating rounds, medians; after each SMC test, the kernel's word on whether SMC-R
# carried the bytes (SMC_NETLINK_GET_STATS and GET_FBACK_STATS on both sides). See docs/smc.md.
set -euo pipefail

NAME=smc_peers
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

KERNEL=6.12   # the lab kernel on which SMC-R engages over rxe (docs/smc.md); 6.1's handshake hangs
SMCPY=$ROOT/scripts/lab/smc.py

usage() {
    cat <<EOT
Usage: $0 [--rounds N] [--duration S] [--sizes 64K,1M] [--csv FILE] [--kernel 6.12|6.1]
       $0 --report FILE     reprint the table from an earlier CSV

Boots the two-guest lab (scripts/lab.sh --kernel $KERNEL --smc: smc loaded and one UEID in both guests;
a lab already up with those options is used as it is) and runs, in guest A against guest B across eth0
(rxe0 on it), for each message size and round: iperf3 over TCP, then iperf3 over SMC (client and
server under the preload), client on CPU $CLIENT_CPU, server on CPU $SERVER_CPU. Each SMC test is
followed by what both kernels counted for it: connections that used SMC-R, the bytes SMC-R sent, and
the fallbacks to TCP with their reasons; a test whose connections fell back is marked so in the table
(its figure is TCP's).
  --rounds N     rounds (default $ROUNDS)
  --duration S   seconds per test, whole number (default $DURATION)
  --sizes LIST   message sizes, K/M/G are powers of 1024 (default $SIZES; iperf3 takes up to 1M)
  --csv FILE     raw samples (default bench/out/smc_peers-<timestamp>.csv); the SMC counts go to
                 <FILE without .csv>-raw/smc.csv
  --kernel K     the lab's kernel (default $KERNEL)
Environment: SMC_RUN=/path/to/smc_run runs smc-tools' wrapper instead of bench/smc_preload.c (built
here with cc); IPERF3 the iperf3 binary. The CPUs are emulated (TCG): compare ratios, not Gb/s.
EOT
}

bench_option() {
    [[ $1 == --kernel ]] || return 0
    KERNEL=${2:?--kernel needs 6.1 or 6.12}
    BENCH_USED=2
}

bench_args "$@"
SIZES=${SIZES/4M/}   # the common default's 4M is over iperf3's limit
SIZES=${SIZES%,}
if [[ -n $REPORT_ONLY ]]; then
    [[ -f $REPORT_ONLY ]] || die "no such CSV: $REPORT_ONLY"
    "$PY" "$ROOT/bench/smc_report.py" "$REPORT_ONLY" "${REPORT_ONLY%.csv}-raw/smc.csv"
    exit 0
fi

# Outside the lab: build the preload here (a compiler under TCG is slow) and run this script in A.
PRELOAD=${SMC_PRELOAD:-}
if [[ -z ${ZCPERF_LAB_SERVER:-} ]]; then
    [[ -n ${SMC_RUN:-} ]] || {
        command -v cc >/dev/null || die "needs a C compiler (cc) for bench/smc_preload.c, or SMC_RUN=/path/to/smc_run"
        mkdir -p "$ROOT/bench/out"
        PRELOAD=$ROOT/bench/out/smc_preload.so
        cc -O2 -shared -fPIC -o "$PRELOAD" "$ROOT/bench/smc_preload.c" -ldl || die "cannot build bench/smc_preload.c"
    }
    IFS=, read -ra sizes <<<"$SIZES"
    SMC_PRELOAD=$PRELOAD exec "$ROOT/scripts/lab.sh" --kernel "$KERNEL" --smc --rw "$ROOT" \
        --timeout $((ROUNDS * ${#sizes[@]} * 2 * (DURATION + 90) + 400)) -- \
        "SMC_PRELOAD=$(printf %q "$PRELOAD") $(printf '%q ' "$0" "$@")"
fi
[[ -n ${ZCPERF_LAB_SMC:-} ]] || die "the lab has no SMC set-up: run it with scripts/lab.sh --smc (--down a lab up without it)"
[[ $ZCPERF_LAB_SMC != *FAILED* ]] || die "the lab's SMC set-up failed: $ZCPERF_LAB_SMC"

# The prefix that runs a command over SMC: smc-tools' smc_run, or our preload.
if [[ -n ${SMC_RUN:-} ]]; then SMC_PREFIX=("$SMC_RUN")
else
    [[ -f $PRELOAD ]] || die "no preload library ($PRELOAD)"
    SMC_PREFIX=(env "LD_PRELOAD=$PRELOAD")
fi

bench_setup iperf3
SMC_CSV=$RAW/smc.csv
echo "round,size,client_smc_conns,server_smc_conns,rdma_tx_bytes,client_fallbacks,server_fallbacks,reasons" >"$SMC_CSV"

# smc_counts: one line of the counters that say whether SMC-R engaged, here and in B.
smc_counts() {   # here|peer
    local cmd=("$PY" "$SMCPY" stats --json)
    local q=("$PY" -c 'import json,sys; d=json.load(sys.stdin); r=d["smcr"]; f=d["fallback_total"]
print(r["clnt_v1_succ"] + r["clnt_v2_succ"], r["srv_v1_succ"] + r["srv_v2_succ"], r["tx_bytes"],
      f.get("client", 0), f.get("server", 0), ";".join("%s:%s" % kv for side in d["fallback"].values() for kv in side.items()).replace(" ", "_") or "-")')
    # 120 s: a Python start in a TCG guest took over 60 s once, with the host's load at 16
    if [[ $1 == here ]]; then "${cmd[@]}" | "${q[@]}"
    else "$ZCPERF_LAB_PEER" --timeout 120 -- "$(printf '%q ' "${cmd[@]}") | $(printf '%q ' "${q[@]}")"; fi
}
counted() { [[ $1 =~ ^[0-9]+\ [0-9]+\ [0-9]+\ [0-9]+\ [0-9]+\  ]]; }   # a line of smc_counts

# iperf3 over SMC: lib.sh's runner with both sides under the prefix, then the counts' differences.
eval "tcp_run_iperf3() $(declare -f run_iperf3 | tail -n +2)"
run_iperf3() {   # size bytes raw [variant]
    if [[ ${4:-} != smc ]]; then tcp_run_iperf3 "$@"; return; fi
    local a0 b0 a1 b1
    a0=$(smc_counts here) || true
    b0=$(smc_counts peer) || true
    IPERF_PID=$(server_start "$3.server" "${SMC_PREFIX[@]}" "$IPERF3" -s -1 -A "$SERVER_CPU" -p "$IPERF_PORT")
    wait_listen "$IPERF_PORT" "$IPERF_PID" || fail "iperf3 server (SMC)" "$3.server"
    timeout "$LIMIT" "${SMC_PREFIX[@]}" "$IPERF3" -c "$SERVER_IP" -p "$IPERF_PORT" -A "$CLIENT_CPU" -l "$2" \
        -t "$DURATION" -J >"$3" 2>"$3.err" || { server_stop "$IPERF_PID"; cat "$3.err" >>"$3"; fail "iperf3 (SMC)" "$3"; }
    server_wait "$IPERF_PID" "$3.server" || true
    IPERF_PID=
    a1=$(smc_counts here) || true
    b1=$(smc_counts peer) || true
    # A side whose counts could not be read is "na" in the CSV, never a difference with a missing number.
    local ac0 at0 af0 _ ac1 at1 af1 bs0 bf0 bs1 bf1 reasons=-
    local conns_a=na bytes=na falls_a=na conns_b=na falls_b=na
    if counted "$a0" && counted "$a1"; then
        read -r ac0 _ at0 af0 _ _ <<<"$a0"
        read -r ac1 _ at1 af1 _ reasons <<<"$a1"
        conns_a=$((ac1 - ac0)) bytes=$((at1 - at0)) falls_a=$((af1 - af0))
    else log "  SMC: A's counters could not be read: '$a0' '$a1'"; fi
    if counted "$b0" && counted "$b1"; then
        read -r _ bs0 _ _ bf0 _ <<<"$b0"
        read -r _ bs1 _ _ bf1 _ <<<"$b1"
        conns_b=$((bs1 - bs0)) falls_b=$((bf1 - bf0))
    else log "  SMC: B's counters could not be read: '$b0' '$b1'"; fi
    echo "$r,$1,$conns_a,$conns_b,$bytes,$falls_a,$falls_b,$reasons" >>"$SMC_CSV"   # r: bench_rounds' round
    log "  SMC: client connections over SMC-R $conns_a, server $conns_b; bytes sent by SMC-R $bytes;" \
        "fallbacks client $falls_a, server $falls_b"
}

log "in the lab ($(uname -r)): iperf3 over TCP and over SMC ($([[ -n ${SMC_RUN:-} ]] && echo "$SMC_RUN" || echo bench/smc_preload.c))," \
    "servers in guest B ($SERVER_IP), client CPU $CLIENT_CPU (A), server CPU $SERVER_CPU (B); $ZCPERF_LAB_SMC"
log "$ROUNDS rounds x ${SIZES} x (iperf3, iperf3 over SMC, zcperf -T tcp, zcperf -T smc), ${DURATION}s each; raw samples: $CSV"
# zcperf's -T smc and -T tcp beside them, with the same pinning (lib.sh's run_zcperf: --cpu CLIENT,SERVER);
# --require-smc makes a fallback end that test instead of measuring TCP under SMC's name.
CASES=(iperf3 iperf3:smc zcperf:tcp "zcperf:smc --require-smc")
bench_rounds "${CASES[@]}"
echo "iperf3 over SMC vs TCP across the two-guest lab's eth0 ($(uname -r), rxe0, TCG): $ROUNDS rounds," \
    "${DURATION}s, client CPU $CLIENT_CPU in A, server CPU $SERVER_CPU in B ($(date -Is))"
"$PY" "$ROOT/bench/smc_report.py" "$CSV" "$SMC_CSV"
echo "raw samples: $CSV"
