#!/usr/bin/env bash
# RDMA smoke test: proves that this machine (or the Soft-RoCE guest of scripts/rdma_vm.sh) really
# moves data over RDMA, with rdma-core's own tools and no zcperf code:
#   1. the device's port 1 is ACTIVE (ibv_devinfo);
#   2. ib_write_bw -F: raw verbs, RC RDMA WRITE, the GID given by index; both sides exit 0 and
#      report exactly the bytes and iterations asked for;
#   3. ib_send_bw -F -R: RC SEND, connected through rdma_cm;
#   4. rstream -T v: rsockets (librdmacm) with every byte verified by rstream itself;
#   5. the device's own packet counter grew by at least the packets those bytes need, so the
#      bytes went through the RDMA device and not through some fallback.
# Exit 0: all passed; 1: a check failed (the reason is printed); 77: no RDMA device here (CTest's
# SKIP_RETURN_CODE; on a host without one, run it through scripts/rdma_vm.sh).
#
# Which device, address and GID: RDMA_VM_DEV, RDMA_VM_IP, RDMA_VM_GID_INDEX (set by
# scripts/rdma_vm.sh), else the first device with a RoCE v2 GID of an IPv4 address
# (scripts/rdma_vm/find_device.sh).
set -euo pipefail

SKIP=77
SIZE=65536
ITERS=200          # 200 x 64 KiB = 12.5 MiB per perftest run: about 1 s under TCG
RS_COUNT=100       # rstream: 100 x 64 KiB each way, verified
PORT_BASE=${RDMA_SMOKE_PORT:-18515}
T=60               # no step may hang a CI run; under TCG each takes 1-3 s
WORK=$(mktemp -d)
PIDS=()

cleanup() {
    local p
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

# In the rdma_vm.sh guest a missing device is the harness's failure, never a reason to skip:
# a skipped test there would let a broken harness pass CI.
skip() {
    [[ -z ${RDMA_VM:-} ]] || fail "inside the rdma_vm.sh guest, but: $*"
    echo "SKIP: $*"
    exit $SKIP
}
fail() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }

# shellcheck source=scripts/rdma_vm/find_device.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/rdma_vm/find_device.sh"

find_device() {
    rdma_find_device || skip "$RDMA_FIND_ERROR; on a host without an RDMA device run: scripts/test_rdma.sh (or scripts/rdma_vm.sh -- ctest --test-dir build -L rdma)"
    DEV=$RDMA_DEV IP=$RDMA_IP GID=$RDMA_GID
}

need_tools() {
    local t missing=()
    for t in ibv_devinfo ib_write_bw ib_send_bw rstream timeout; do
        command -v "$t" >/dev/null || missing+=("$t")
    done
    ((${#missing[@]} == 0)) || skip "missing ${missing[*]} (apt-get install ibverbs-utils perftest rdmacm-utils)"
}

# Packets the device has sent, from its own counters: rxe has hw_counters/sent_pkts, hardware
# ports have counters/port_xmit_packets. Empty if the device has neither.
sent_packets() {
    local p=/sys/class/infiniband/$DEV/ports/1
    cat "$p/hw_counters/sent_pkts" 2>/dev/null || cat "$p/counters/port_xmit_packets" 2>/dev/null || true
}

check_port_active() {
    ibv_devinfo -d "$DEV" >"$WORK/devinfo" 2>&1 || { cat "$WORK/devinfo"; fail "ibv_devinfo -d $DEV failed"; }
    grep -q "state:.*PORT_ACTIVE" "$WORK/devinfo" || { cat "$WORK/devinfo"; fail "$DEV port 1 is not ACTIVE"; }
    ok "$DEV port 1 ACTIVE ($(grep -m1 -o 'link_layer:.*' "$WORK/devinfo" | tr -s '\t ' ' '), GID index $GID, $IP)"
}

# A server in the background, then its client; both must exit 0. Servers listen on a TCP port
# (perftest's exchange) or through rdma_cm (perftest -R, rsockets), which ss cannot see, so a
# client that fails while its server is still waiting is simply tried again, for a while.
run_pair() {   # name server-output client-output -- server-command... -- client-command...
    local name=$1 sout=$2 cout=$3; shift 4
    local server=() client=()
    while [[ $1 != -- ]]; do server+=("$1"); shift; done
    shift
    client=("$@")
    timeout $T "${server[@]}" >"$sout" 2>&1 &
    local spid=$! crc src=0
    PIDS+=("$spid")
    sleep 0.3
    for _ in $(seq 40); do
        crc=0
        timeout $T "${client[@]}" >"$cout" 2>&1 || crc=$?
        ((crc == 0)) && break
        kill -0 "$spid" 2>/dev/null || break   # the server gave up too: a real failure
        sleep 0.5
    done
    wait "$spid" || src=$?
    if ((crc != 0 || src != 0)); then
        echo "---- $name client ----"; tail -n 20 "$cout"
        echo "---- $name server ----"; tail -n 20 "$sout"
        fail "$name: client exit status $crc, server $src"
    fi
}

# The perftest result line: "#bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]"
# and its numbers. Bytes and iterations must be what was asked; prints the average. The
# bandwidth is not checked: perftest converts CPU cycles to time with a clock rate it measures
# itself, and under TCG that sometimes fails ("Correlation coefficient r^2 < 0.9") and it prints
# 0.00 for a transfer that did happen. The device's packet counter checks the data instead.
check_perftest_result() {   # file what
    awk -v size=$SIZE -v iters=$ITERS -v what="$2" '
        /#bytes/ && /#iterations/ { hdr = 1; next }
        hdr && NF >= 4 && $1 ~ /^[0-9]+$/ && !done {
            done = 1
            if ($1 != size || $2 != iters) { printf "%s: %s bytes x %s iterations, wanted %d x %d\n", what, $1, $2, size, iters; bad = 1 }
            else print $4
        }
        END {
            if (!done) printf "%s: no result line\n", what
            exit (!done || bad)
        }' "$1"
}

# One perftest pair; both sides must report the requested transfer.
run_perftest() {   # tool port extra-flags...
    local tool=$1 port=$2; shift 2
    local args=(-F -d "$DEV" -x "$GID" -s "$SIZE" -n "$ITERS" -p "$port" "$@")
    run_pair "$tool" "$WORK/$tool.server" "$WORK/$tool.client" -- "$tool" "${args[@]}" -- "$tool" "${args[@]}" "$IP"
    local cbw sbw
    cbw=$(check_perftest_result "$WORK/$tool.client" "$tool client") || { cat "$WORK/$tool.client"; fail "$cbw"; }
    sbw=$(check_perftest_result "$WORK/$tool.server" "$tool server") || { cat "$WORK/$tool.server"; fail "$sbw"; }
    ok "$tool $* -s $SIZE -n $ITERS: $((SIZE * ITERS)) bytes, client ${cbw} MB/s, server ${sbw} MB/s"
}

# rstream sends C transfers of S bytes to the server and gets them back, I times; -T v makes
# both sides check every byte.
run_rstream() {   # port
    local args=(-S "$SIZE" -C "$RS_COUNT" -I 1 -T v -p "$1")
    run_pair rstream "$WORK/rstream.server" "$WORK/rstream.client" -- rstream "${args[@]}" -- rstream -s "$IP" "${args[@]}"
    # "name bytes xfers iters total time Gb/sec usec/xfer" then "custom 64k 100 1 12m 0.74s 0.14 ..."
    local line bytes xfers iters time gbps
    line=$(awk '$1 == "custom" && NF >= 8' "$WORK/rstream.client")
    [[ -n $line ]] || { cat "$WORK/rstream.client"; fail "rstream: no result line"; }
    read -r _ bytes xfers iters _ time gbps _ <<<"$line"
    [[ $bytes == 64k && $xfers == "$RS_COUNT" && $iters == 1 ]] ||
        fail "rstream moved $bytes x $xfers x $iters, wanted 64k x $RS_COUNT x 1"
    ok "rstream -T v (rsockets, data verified): $((2 * SIZE * RS_COUNT)) bytes in $time, $gbps Gb/s"
}

find_device
need_tools
echo "RDMA smoke test on $DEV ($IP, GID index $GID)${RDMA_VM:+, inside the rdma_vm.sh guest}"
check_port_active
before=$(sent_packets)
run_perftest ib_write_bw "$PORT_BASE"
run_perftest ib_send_bw $((PORT_BASE + 1)) -R
run_rstream $((PORT_BASE + 2))
after=$(sent_packets)
if [[ -n $before && -n $after ]]; then
    # Each side's data counts once at least, in packets of at most 4096 bytes (the largest RoCE MTU).
    min=$(((2 * SIZE * ITERS + 2 * SIZE * RS_COUNT) / 4096))
    (((after - before) >= min)) || fail "$DEV sent $((after - before)) packets, fewer than the $min the data needs"
    ok "$DEV's counter: $((after - before)) packets sent (the data needs at least $min)"
else
    echo "note: $DEV has no packet counter this test knows; packet check not done"
fi
echo "PASS"
