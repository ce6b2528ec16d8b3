#!/usr/bin/env bash
# guest.sh: what each guest of scripts/lab.sh runs (as rdma_vm.sh's COMMAND), in the caller's directory.
#
#   guest.sh server CTL BUILD PORT             B: zcserver --allow-irq-affinity on its link address,
#                                              then serve lab-peer requests until CTL/stop appears
#   guest.sh client CTL BUILD PORT -- COMMAND  A: wait until B is serving, then bash -c "COMMAND"
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

server() {
    zcserver --bind "$RDMA_VM_IP" --port "$port" --allow-irq-affinity >"$ctl/zcserver.log" 2>&1 &
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
    echo "$RDMA_VM_IP:$port $RDMA_VM_GID_INDEX" >"$ctl/server.tmp" && mv "$ctl/server.tmp" "$ctl/server"
    # Above the tests' processes: busy-polling RDMA threads on both vCPUs delayed a request (a kill -9
    # for a test) by 18-90 s at the default priority. Requests still run at the default one.
    renice -n -10 $$ >/dev/null
    # lab-peer's requests, one at a time: REQ.sh (first line "# timeout S") -> REQ.out, REQ.err, REQ.rc.
    # Each look is a 9p round trip, which costs B's emulated CPUs: every 0.1 s for 5 s after a request
    # (tests ask in bursts), every second when idle (zcperf's "other processes" then stays near 1 %).
    local req id limit busy_until=0
    while [[ ! -e $ctl/stop ]]; do
        for req in "$ctl"/req/*.sh; do
            [[ -e $req ]] || continue
            busy_until=$((SECONDS + 5))
            id=${req##*/} id=${id%.sh}
            mv "$req" "$ctl/res/$id.sh" || continue
            read -r _ _ limit <"$ctl/res/$id.sh"
            timeout -k 5 "${limit:-60}" nice -n 10 bash "$ctl/res/$id.sh" >"$ctl/res/$id.out" 2>"$ctl/res/$id.err" \
                </dev/null
            echo $? >"$ctl/res/$id.rc.tmp" && mv "$ctl/res/$id.rc.tmp" "$ctl/res/$id.rc"
        done
        if ((SECONDS < busy_until)); then nap 0.1; else nap 1; fi
    done
    kill "$zc" 2>/dev/null
    wait "$zc" 2>/dev/null
    return 0
}

client() {
    [[ ${1:-} == -- ]] && shift
    local i
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
    local server gid
    read -r server gid <"$ctl/server"
    export ZCPERF_LAB_SERVER=$server ZCPERF_LAB_PEER_GID_INDEX=$gid ZCPERF_LAB_CTL=$ctl
    export ZCPERF_LAB_PEER="$here/peer.sh"
    exec 7>&-
    bash -c "$*"
}

main() {
    local rc
    case $role in
        server) server; rc=$? ;;
        client) client "$@"; rc=$? ;;
        *) echo "guest.sh: role must be server or client" >&2; rc=125 ;;
    esac
    exit "$rc"
}
main "$@"   # one line, read before it runs: an edit of this file meanwhile cannot change what follows
