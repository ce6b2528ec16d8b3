#!/usr/bin/env bash
# lab.sh: two hosts on one machine. Boots two QEMU guests, A (client side) and B (server side), each
# with 2 vCPUs on 2 NUMA nodes (CPU 0 on node 0, CPU 1 on node 1), linked by a virtio-net NIC pair
# (MSI-X vectors, a real driver's IRQs; each NIC on node 1) on a private point-to-point link, with
# Soft-RoCE (rxe0) on that NIC in both; B runs zcserver --allow-irq-affinity. Then runs COMMAND in A
# and exits with its status:
#
#   scripts/lab.sh [options] -- COMMAND [ARGS...]
#
# COMMAND runs like `ssh A COMMAND`: its words are joined and run by bash in A, in the current
# directory, with the build's zcperf and zcserver on PATH and these set:
#   ZCPERF_LAB_SERVER  B's zcserver, HOST:PORT (198.18.1.2:12875)
#   ZCPERF_LAB_PEER    a command that runs a command in B: "$ZCPERF_LAB_PEER" -- cat /proc/interrupts
#   RDMA_VM_IP, RDMA_VM_DEV, RDMA_VM_NETDEV, RDMA_VM_GID_INDEX  A's own (198.18.1.1, rxe0, eth0, ...)
# Both guests are built by scripts/rdma_vm.sh (its --link, --numa, --ip options); see docs/lab.md.
# Exit status: COMMAND's; 124 if --timeout ran out; 125 if the lab itself failed (the log's path is
# printed). Every wait is bounded.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$HERE")
if [[ $(id -u) -eq 0 ]]; then
    CACHE=${RDMA_VM_CACHE:-/var/cache/zcperf-rdma-vm}
else
    CACHE=${RDMA_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/zcperf-rdma-vm}
fi
TIMEOUT=1800
MEM=2048
PORT=12875
BUILD=${ZCPERF_BUILD_DIR:-$REPO/build}
VERBOSE=
KEEP=
RW_ARGS=()

usage() {
    cat <<EOT
Usage: $0 [options] -- COMMAND [ARGS...]
Boots guests A and B (2 vCPUs on 2 NUMA nodes each, virtio-net link, rxe0 on it, zcserver in B) and
runs COMMAND through bash in A, e.g.
  $0 -- 'zcperf -H \$ZCPERF_LAB_SERVER -t tcp-msgzc --irq-cpus 1,1 --mem-node 1,1'
  $0 -- ctest --test-dir build -L lab          (what scripts/test_lab.sh does)
Options:
  --timeout S   stop both guests after S seconds, boots included (default $TIMEOUT)
  --mem MB      memory of each guest, split over its 2 nodes (default $MEM)
  --port P      zcserver's control port in B (default $PORT)
  --build DIR   the build whose zcperf/zcserver go on PATH (default \$ZCPERF_BUILD_DIR or $BUILD)
  --rw DIR      share DIR read-write with both guests (the current directory always is); repeatable
  -v            show both guests' consoles on stderr
  --keep        keep the lab directory (consoles, B's output, zcserver's log) and print its path
Needs root (QEMU is run by scripts/rdma_vm.sh, which installs what is missing). Exit status:
COMMAND's; 124: --timeout ran out; 125: the lab failed (its log's path is printed).
EOT
}

die() { echo "lab: $*" >&2; exit 125; }

main() {
    while (($#)); do
        case $1 in
            --timeout) TIMEOUT=${2:?--timeout needs seconds}; shift 2 ;;
            --mem)     MEM=${2:?--mem needs MB}; shift 2 ;;
            --port)    PORT=${2:?--port needs a port}; shift 2 ;;
            --build)   BUILD=${2:?--build needs a directory}; shift 2 ;;
            --rw)      RW_ARGS+=(--rw "${2:?--rw needs a directory}"); shift 2 ;;
            -v|--verbose) VERBOSE=1; shift ;;
            --keep)    KEEP=1; shift ;;
            -h|--help) usage; exit 0 ;;
            --)        shift; break ;;
            *)         echo "lab: unknown option $1" >&2; usage >&2; exit 125 ;;
        esac
    done
    (($#)) || { usage >&2; exit 125; }
    [[ $TIMEOUT =~ ^[1-9][0-9]*$ ]] || die "--timeout wants whole seconds"
    [[ $MEM =~ ^[1-9][0-9]*$ ]] && ((MEM % 2 == 0)) || die "--mem wants an even number of MB"
    [[ $PORT =~ ^[1-9][0-9]*$ ]] && ((PORT < 65536)) || die "--port wants a port number"
    [[ -d $BUILD ]] || die "no build directory $BUILD: run scripts/bootstrap.sh build first"
    BUILD=$(cd "$BUILD" && pwd)
    [[ -x $BUILD/zcperf && -x $BUILD/zcserver ]] ||
        die "no zcperf/zcserver in $BUILD: run scripts/bootstrap.sh build first"
    [[ $(id -u) -eq 0 ]] || command -v sudo >/dev/null || die "the lab needs root (QEMU's packages, the guests' set-up)"

    # Ready the cache first (packages, kernel, initramfs), so the boot below is the boot only.
    "$HERE/rdma_vm.sh" --setup-only >/dev/null 2>&1 ||
        { "$HERE/rdma_vm.sh" --setup-only; die "the guest builder (scripts/rdma_vm.sh --setup-only) failed"; }

    mkdir -p "$CACHE/labs"
    LAB=$(mktemp -d "$CACHE/labs/lab.XXXXXX")
    mkdir -p "$LAB/ctl"
    SOCK=$LAB/link.sock   # the link: a unix stream socket between the two QEMUs (no host networking)

    guest() {   # name ip mac listen|connect [COMMAND...]; run in the background: the job is then rdma_vm.sh itself
        local name=$1 ip=$2 mac=$3 mode=$4
        shift 4
        local extra=()
        [[ -n $VERBOSE ]] && extra+=(-v)
        [[ -n $KEEP ]] && extra+=(--keep)
        exec "$HERE/rdma_vm.sh" --name "$name" --cpus 2 --numa 2 --mem "$MEM" --timeout "$TIMEOUT" \
            --link "$mode:$SOCK" --nic-node 1 --ip "$ip" --mac "$mac" --rw "$LAB/ctl" "${RW_ARGS[@]}" "${extra[@]}" \
            -- "$@"
    }

    B_PID= A_PID=
    stop_guests() {
        local p
        for p in $A_PID $B_PID; do kill "$p" 2>/dev/null || true; done   # rdma_vm.sh stops its QEMU on TERM
        for p in $A_PID $B_PID; do wait "$p" 2>/dev/null || true; done
        A_PID= B_PID=
    }
    trap 'stop_guests; exit 130' INT
    trap 'stop_guests; exit 143' TERM
    trap 'stop_guests' EXIT

    started=$SECONDS
    guest lab-b 198.18.1.2/24 52:54:00:12:34:02 listen \
        "$HERE/lab/guest.sh" server "$LAB/ctl" "$BUILD" "$PORT" >"$LAB/b.log" 2>&1 &
    B_PID=$!
    # A's QEMU must find B's listening socket (QEMU 7.2 does not retry a connect).
    for ((i = 0; i < 300; i++)); do
        [[ -S $SOCK ]] && break
        kill -0 "$B_PID" 2>/dev/null || break
        sleep 0.1
    done
    if [[ ! -S $SOCK ]]; then
        KEEP=1
        tail -n 20 "$LAB/b.log" >&2
        die "guest B's QEMU did not open the link socket within 30 s; B's log: $LAB/b.log"
    fi

    guest lab-a 198.18.1.1/24 52:54:00:12:34:01 connect \
        "$HERE/lab/guest.sh" client "$LAB/ctl" "$BUILD" "$PORT" -- "$@" &
    A_PID=$!
    rc=0
    wait "$A_PID" || rc=$?
    A_PID=

    # B stops serving, powers off and its rdma_vm.sh exits; bounded, then stopped by force.
    touch "$LAB/ctl/stop"
    for ((i = 0; i < 300; i++)); do kill -0 "$B_PID" 2>/dev/null || break; sleep 0.1; done
    b_rc=0
    if kill -0 "$B_PID" 2>/dev/null; then
        stop_guests
        b_rc=1
    else
        wait "$B_PID" || b_rc=$?
        B_PID=
    fi
    echo "$((SECONDS - started))" >"$LAB/seconds"

    if ((rc == 124 || rc == 125)) || ((b_rc != 0)); then
        KEEP=1
        if ((b_rc != 0)); then
            echo "lab: guest B ended badly (status $b_rc); its last lines:" >&2
            tail -n 15 "$LAB/b.log" >&2
        fi
        echo "lab: logs kept in $LAB (b.log: guest B; ctl/zcserver.log: B's zcserver)" >&2
    fi
    if [[ -n $KEEP ]]; then echo "lab: lab directory: $LAB" >&2; else rm -rf "$LAB"; fi
    exit "$rc"
}
main "$@"   # one line, read before it runs: editing this file meanwhile cannot change a running lab
