#!/usr/bin/env bash
# guest.sh: what each guest of scripts/lab.sh runs (as rdma_vm.sh's COMMAND), in the caller's directory.
#
#   guest.sh server CTL BUILD PORT             B: zcserver --allow-irq-affinity on all its addresses (eth0's,
#                                              eth1's), then serve lab-peer requests (CTL/req) until CTL/stop
#   guest.sh client CTL BUILD PORT -- COMMAND  A: wait until B is serving, then bash -c "COMMAND"
#   guest.sh agent CTL BUILD PORT              A of a lab left up (lab.sh --up): wait until B is serving,
#                                              then serve the host's requests (CTL/a-req) until CTL/stop
#
# CTL is a directory both guests (and the host) share read-write over 9p; nothing of the lab's own
# chatter goes over the link, so its interface counters and IRQ counts are the tests' alone.
# Every wait here is bounded; a failure says what failed and where its log is.
set -uo pipefail

role=$1 ctl=$2 build=$3 port=$4
shift 4
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export PATH="$build:$PATH" ZCPERF_LAB=1
mkdir -p "$ctl/req" "$ctl/res"

# Sleeps without forking (a fork costs milliseconds under TCG): a read that times out on a fifo
# nobody writes (the guests have no /dev/fd for <(...)).
nap_fifo=$(mktemp -u /tmp/lab-nap.XXXXXX)
mkfifo "$nap_fifo" && exec 7<>"$nap_fifo"
rm -f "$nap_fifo"
nap() { read -r -t "$1" -u 7 || true; }

# Serves requests from DIR (lab-peer's for B, the host's for A), one at a time, until CTL/stop:
# DIR/ID.sh (first line "# timeout S") is moved to RES/ID.sh and run by bash there, its output going to
# RES/ID.out and RES/ID.err as it comes (the requester follows them), then RES/ID.rc.
# The agent runs at nice -10, above the tests' processes: busy-polling RDMA threads on both vCPUs
# delayed a request (a kill -9 for a test) by 18-90 s at the default priority. Requests run at the
# default one. Each look is a 9p round trip, which costs the emulated CPUs: every 0.1 s for 5 s after a
# request (tests ask in bursts), every second when idle (zcperf's "other processes" then stays near 1 %).
serve_requests() {   # DIR RES
    local dir=$1 res=$2 req id limit busy_until=0
    mkdir -p "$dir" "$res"
    renice -n -10 $$ >/dev/null
    while [[ ! -e $ctl/stop ]]; do
        for req in "$dir"/*.sh; do
            [[ -e $req ]] || continue
            busy_until=$((SECONDS + 5))
            id=${req##*/} id=${id%.sh}
            mv "$req" "$res/$id.sh" || continue
            read -r _ _ limit <"$res/$id.sh"
            timeout -k 5 "${limit:-60}" nice -n 10 bash "$res/$id.sh" >"$res/$id.out" 2>"$res/$id.err" </dev/null 7>&-
            echo $? >"$res/$id.rc.tmp" && mv "$res/$id.rc.tmp" "$res/$id.rc"
        done
        if ((SECONDS < busy_until)); then nap 0.1; else nap 1; fi
    done
}

# lab.sh --smc: SMC's modules, the UEID (none in the guest --smc-no-ueid names) and, with --smc-pnet, the
# PNET ID of rxe0 and eth0; ZCPERF_LAB_SMC_SETUP is "UEID NO_UEID_GUEST [PNETID]". What was set goes to
# CTL/smc-a or CTL/smc-b (A's ZCPERF_LAB_SMC says both). A failure is said and kept in that file.
smc_setup() {   # a|b
    [[ -n ${ZCPERF_LAB_SMC_SETUP:-} ]] || return 0
    local ueid none pnet args=() out
    read -r ueid none pnet <<<"$ZCPERF_LAB_SMC_SETUP"
    if [[ $none == "$1" ]]; then args+=(--no-ueid); else args+=(--ueid "$ueid"); fi
    [[ -z $pnet ]] || args+=(--pnet "$pnet" --ib "${RDMA_VM_DEV:-rxe0}" --eth "${RDMA_VM_NETDEV:-eth0}")
    if out=$(/usr/bin/python3 "$here/smc.py" setup "${args[@]}" 2>&1); then
        echo "$1: $out" >"$ctl/smc-$1"
    else
        echo "$1: FAILED: $out" | tee "$ctl/smc-$1" >&2
    fi
}

server() {
    smc_setup b
    # All addresses: eth0's and, where the lab has it, eth1's (a test's data goes over the link its control
    # connection came in on: zcserver binds the data socket to that connection's local address).
    zcserver --port "$port" --allow-irq-affinity >"$ctl/zcserver.log" 2>&1 &
    local zc=$! i
    for ((i = 0; i < 600; i++)); do   # 60 s
        grep -q "listening on" "$ctl/zcserver.log" 2>/dev/null && break
        kill -0 "$zc" 2>/dev/null || break
        nap 0.1
    done
    if ! grep -q "listening on" "$ctl/zcserver.log"; then
        echo "zcserver did not start in B (log: $ctl/zcserver.log): $(tail -n 3 "$ctl/zcserver.log")" \
            >"$ctl/server.failed"
        cat "$ctl/server.failed" >&2
        kill "$zc" 2>/dev/null
        return 1
    fi
    echo "$RDMA_VM_IP:$port $RDMA_VM_GID_INDEX ${RDMA_VM_TAP_IP:+$RDMA_VM_TAP_IP:$port}" >"$ctl/server.tmp" &&
        mv "$ctl/server.tmp" "$ctl/server"
    serve_requests "$ctl/req" "$ctl/res"
    kill "$zc" 2>/dev/null
    wait "$zc" 2>/dev/null
    return 0
}

# Waits until B is serving, then sets what COMMAND finds in A (ZCPERF_LAB_SERVER, ...).
await_server() {
    local i
    smc_setup a
    for ((i = 0; i < 1200; i++)); do   # 120 s: B boots alongside A, but may be slower
        [[ -e $ctl/server || -e $ctl/server.failed ]] && break
        nap 0.1
    done
    if [[ ! -e $ctl/server ]]; then
        echo "lab: guest B is not serving after 120 s:" \
            "$(cat "$ctl/server.failed" 2>/dev/null || echo "no word from it")" >&2
        echo "lab: B's console and output: $(dirname "$ctl")/b.log" >&2
        return 125
    fi
    local server gid offload
    read -r server gid offload <"$ctl/server"
    export ZCPERF_LAB_SERVER=$server ZCPERF_LAB_PEER_GID_INDEX=$gid ZCPERF_LAB_CTL=$ctl
    export ZCPERF_LAB_PEER="$here/peer.sh"
    if [[ -n ${ZCPERF_LAB_SMC_SETUP:-} ]]; then
        ZCPERF_LAB_SMC=$(cat "$ctl/smc-a" "$ctl/smc-b" 2>/dev/null | paste -sd';')
        export ZCPERF_LAB_SMC
    fi
    unset ZCPERF_LAB_SMC_SETUP
    # eth1, the offloading link: B's zcserver across it, or why the lab has none (lab.sh's offload_up).
    if [[ -n $offload ]]; then export ZCPERF_LAB_SERVER_OFFLOAD=$offload
    else export ZCPERF_LAB_NO_OFFLOAD="$(cat "$ctl/no-offload" 2>/dev/null || echo "B has no eth1")"; fi
}

client() {
    [[ ${1:-} == -- ]] && shift
    await_server || return
    exec 7>&-
    bash -c "$*"
}

# A left up: the host (lab.sh -- COMMAND) is the requester; "ready" tells it A is serving.
agent() {
    await_server || return
    # The request directories before "ready": the host writes its first request the moment it sees it.
    mkdir -p "$ctl/a-req" "$ctl/a-res"
    echo "$(hostname) $ZCPERF_LAB_SERVER ${ZCPERF_LAB_SERVER_OFFLOAD:-}" >"$ctl/a-ready.tmp" && mv "$ctl/a-ready.tmp" "$ctl/a-ready"
    serve_requests "$ctl/a-req" "$ctl/a-res"
}

main() {
    local rc
    case $role in
        server) server; rc=$? ;;
        client) client "$@"; rc=$? ;;
        agent) agent; rc=$? ;;
        *) echo "guest.sh: role must be server, client or agent" >&2; rc=125 ;;
    esac
    exit "$rc"
}
main "$@"   # one line, read before it runs: an edit of this file meanwhile cannot change what follows
