#!/usr/bin/env bash
# lab.sh: two hosts on one machine. Boots two QEMU guests, A (client side) and B (server side), each
# with 2 vCPUs on 2 NUMA nodes (CPU 0 on node 0, CPU 1 on node 1), linked by a virtio-net NIC pair
# (MSI-X vectors, a real driver's IRQs; each NIC on node 1) on a private point-to-point link, with
# Soft-RoCE (rxe0) on that NIC in both; B runs zcserver --allow-irq-affinity. A second link, eth1, offloads
# what eth0 cannot (checksums, scatter-gather, TSO): each guest's second virtio-net NIC sits on a host tap
# with vnet_hdr, the two taps joined by a host bridge without an address (root and /dev/net/tun needed;
# without them the lab has eth0 only and says why). Then runs COMMAND in A and exits with its status:
#
#   scripts/lab.sh [options] -- COMMAND [ARGS...]
#
# COMMAND runs like `ssh A COMMAND`: its words are joined and run by bash in A, in the current
# directory, with the build's zcperf and zcserver on PATH and these set:
#   ZCPERF_LAB_SERVER  B's zcserver, HOST:PORT (198.18.1.2:12875)
#   ZCPERF_LAB_SERVER_OFFLOAD  the same zcserver across eth1 (198.18.2.2:12875); unset without eth1, and
#                      ZCPERF_LAB_NO_OFFLOAD then says why
#   ZCPERF_LAB_PEER    a command that runs a command in B: "$ZCPERF_LAB_PEER" -- cat /proc/interrupts
#   RDMA_VM_IP, RDMA_VM_DEV, RDMA_VM_NETDEV, RDMA_VM_GID_INDEX  A's own (198.18.1.1, rxe0, eth0, ...)
# Both guests are built by scripts/rdma_vm.sh (its --link, --numa, --ip options); see docs/lab.md.
# --kernel 6.12 boots Debian 12's 6.12 (bookworm-security) instead of its 6.1; --smc sets SMC up in both
# guests (scripts/lab/smc.py: modules, one UEID; docs/smc.md).
# Exit status: COMMAND's; 124 if --timeout ran out; 125 if the lab itself failed (the log's path is
# printed). Every wait is bounded.
#
#   scripts/lab.sh --up [options]     boot the lab and leave it up (in the background, for --timeout s)
#   scripts/lab.sh -- COMMAND         then runs COMMAND in that lab's A (no boot), as above
#   scripts/lab.sh --down             stop it
# A lab left up is found by its build directory (one per build); guest A then serves the host's
# requests through the shared directory, as B serves lab-peer's (scripts/lab/guest.sh).
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
RW_DIRS=()
KERNEL=6.1   # the guests' kernel: 6.1 (Debian 12's own), 6.12 (its security suite's), or a package name
SMC=         # --smc: smc and smc_diag loaded in both guests, one UEID on both (scripts/lab/smc.py setup)
SMC_NO_UEID= # --smc-no-ueid a|b: that guest gets none (its peer's handshake then declines, a TCP fallback)
SMC_PNET=    # --smc-pnet: a PNET ID for rxe0 and eth0 too (what 6.1 needs to find rxe; its handshake then hangs)
MODE=run     # run (reuse a lab that is up, else boot one for COMMAND), up, down, serve (the lab left up)
GIVEN=" "    # the options given, checked against a lab that is up

usage() {
    cat <<EOT
Usage: $0 [options] -- COMMAND [ARGS...]
       $0 --up [options]      boot the lab and leave it up for the next commands
       $0 --down              stop the lab that is up
       $0 --status            is one up?
Boots guests A and B (2 vCPUs on 2 NUMA nodes each, virtio-net link eth0, rxe0 on it, zcserver in B;
eth1: a second link over host taps that offloads checksums and scatter-gather) and runs COMMAND
through bash in A, e.g.
  $0 -- 'zcperf -H \$ZCPERF_LAB_SERVER -t tcp-msgzc --irq-cpus 1,1 --mem-node 1,1'
  $0 -- 'zcperf -H \$ZCPERF_LAB_SERVER_OFFLOAD -T udp-gso,udp-msgzc'   (across eth1)
  $0 -- ctest --test-dir build -L lab          (what scripts/test_lab.sh does)
With a lab up (--up, for this --build) COMMAND runs in it at once, without a boot: its output and
exit status come back the same way, and state in the guests (files in /tmp, IRQ settings) carries over.
Options:
  --up          boot and stay up in the background for --timeout S (default 3600 then); print how to
                use and stop it. Its shares (the current directory, --rw) and --mem/--port are fixed then
  --down        stop the lab that is up for this --build (bounded; removes its directory unless --keep)
  --status      say whether a lab is up for this --build, and where (exit status 0: up, 3: not)
  --timeout S   stop both guests after S seconds, boots included (default $TIMEOUT); with a lab up:
                the limit of COMMAND alone (124 when it runs out, the lab stays up)
  --mem MB      memory of each guest, split over its 2 nodes (default $MEM)
  --port P      zcserver's control port in B (default $PORT)
  --build DIR   the build whose zcperf/zcserver go on PATH (default \$ZCPERF_BUILD_DIR or $BUILD)
  --rw DIR      share DIR read-write with both guests (the current directory always is); repeatable
  --kernel K    the guests' kernel: 6.1 (default: what Debian 12's linux-image-amd64 depends on), 6.12
                (the newest linux-image-6.12.*+deb12-amd64 of bookworm-security, downloaded once into
                the cache: 107 MB, 175 MB unpacked), or a Debian kernel package's name
  --smc         set SMC up in both guests: modprobe smc smc_diag and the UEID $SMC_UEID on both
                (scripts/lab/smc.py setup); A then has ZCPERF_LAB_SMC (what was set). On 6.12 SMC-R
                engages over rxe0; on 6.1 every connection falls back (no SMC device). See docs/smc.md
  --smc-no-ueid a|b  with --smc: leave that guest without a UEID (the handshake then falls back to TCP:
                the fallback a user without one would see)
  --smc-pnet    with --smc: give rxe0 and eth0 the PNET ID $SMC_PNETID in both guests, which 6.1 needs to
                find rxe for SMC-R at all; on 6.1 the handshake then hangs for good (docs/smc.md)
  -v            show both guests' consoles on stderr
  --keep        keep the lab directory (consoles, B's output, zcserver's log) and print its path
Needs root (QEMU is run by scripts/rdma_vm.sh, which installs what is missing); eth1 needs root and
/dev/net/tun on the host (without them the lab says so and has eth0 only). Exit status:
COMMAND's; 124: --timeout ran out; 125: the lab failed (its log's path is printed).
EOT
}

die() { echo "lab: $*" >&2; exit 125; }

SMC_UEID=ZCPERF-LAB   # the user-defined EID both guests get: SMC-Rv2 peers must share one
SMC_PNETID=ZCPERFLAB  # the PNET ID of rxe0 and eth0 with --smc-pnet

smc_config() { [[ -z $SMC ]] || echo "on${SMC_NO_UEID:+,no-ueid-$SMC_NO_UEID}${SMC_PNET:+,pnet}"; }   # for a lab's config

# --kernel: the Debian kernel package the guests boot, for scripts/rdma_vm.sh (RDMA_VM_KPKG); 6.1 leaves
# rdma_vm.sh its own choice (what linux-image-amd64 depends on), so the default lab is unchanged. 6.12
# is Debian 12's security suite's (bookworm-security): the newest one the package lists name, chosen
# once and kept in the cache (a newer one needs rm $CACHE/kernel-package-6.12).
resolve_kernel() {
    local kpkg sources
    case $KERNEL in
        6.1) return 0 ;;
        6.12)
            kpkg=$(cat "$CACHE/kernel-package-6.12" 2>/dev/null || true)
            if [[ -z $kpkg ]]; then
                newest_612() { apt-cache pkgnames linux-image-6.12. 2>/dev/null |
                    grep -E '^linux-image-6\.12\.[0-9]+\+deb12-amd64$' | sort -V | tail -n 1; }
                kpkg=$(newest_612)
                if [[ -z $kpkg ]]; then
                    if ! grep -rqs 'bookworm-security' /etc/apt/sources.list /etc/apt/sources.list.d/; then
                        sources=/etc/apt/sources.list.d/zcperf-bookworm-security.sources
                        echo "lab: --kernel 6.12 comes from Debian 12's security suite, which apt does not know here: adding $sources" >&2
                        printf '%s\n' 'Types: deb' 'URIs: http://deb.debian.org/debian-security' \
                            'Suites: bookworm-security' 'Components: main' \
                            'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' >"$sources" ||
                            die "cannot write $sources (root?)"
                    fi
                    apt-get update -qq >/dev/null 2>&1 || true
                    kpkg=$(newest_612)
                fi
                [[ -n $kpkg ]] || die "--kernel 6.12: no linux-image-6.12.*+deb12-amd64 in apt's lists (bookworm-security);" \
                    "check apt-get update, or name a package: --kernel linux-image-..."
                mkdir -p "$CACHE" && echo "$kpkg" >"$CACHE/kernel-package-6.12"
            fi ;;
        linux-image-*) kpkg=$KERNEL ;;
        *) die "--kernel wants 6.1, 6.12 or a kernel package's name (linux-image-...), not $KERNEL" ;;
    esac
    export RDMA_VM_KPKG=$kpkg
}

# The lab left up for a build: one directory per build directory, found again by its name.
up_dir() { echo "$CACHE/labs/up.$(printf %s "$BUILD" | sha256sum | cut -c1-12)"; }

# A lab left up is alive while its supervisor (lab.sh --serve, pid in DIR/pid) runs; anything else
# there is stale: its QEMUs (found by the lab's own socket path in their arguments) are stopped and
# the directory removed, so it is never reused.
lab_alive() {   # DIR
    local pid
    pid=$(cat "$1/pid" 2>/dev/null) || return 1
    [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null && grep -qa -- "--serve" "/proc/$pid/cmdline" 2>/dev/null
}
lab_qemus() { pgrep -f -- "addr.path=$1/link.sock" || true; }   # DIR: its guests' QEMUs, if any are left
remove_lab() {   # DIR: stops what is left of it and removes it, bounded
    local dir=$1 p i
    for p in $(lab_qemus "$dir"); do kill "$p" 2>/dev/null || true; done
    for ((i = 0; i < 100; i++)); do [[ -z $(lab_qemus "$dir") ]] && break; sleep 0.1; done
    for p in $(lab_qemus "$dir"); do kill -9 "$p" 2>/dev/null || true; done
    offload_down "$dir"
    if [[ -n $KEEP ]]; then echo "lab: lab directory kept: $dir" >&2; else rm -rf "$dir"; fi
}
# The offloading link, eth1 in both guests: two host taps with vnet_hdr, so QEMU offers each guest's
# virtio-net checksum offload and TSO (VIRTIO_NET_F_CSUM, HOST_TSO4/6) and the driver sets scatter-gather
# and hardware checksumming, which the stream netdev of eth0 cannot carry; a bridge without an address
# joins them (IPv6 off on all three, so the host adds no traffic of its own). Their names come from the
# lab directory's path (one set per lab, found again by --down and a stale lab's clean-up); the bridge's
# alias names the lab.sh that made them, so links whose maker died by kill -9 go at the next lab's start.
offload_names() {   # DIR: sets OFF_BR, OFF_TAP_A, OFF_TAP_B (15 characters at most: IFNAMSIZ)
    OFF_BR=zcl$(printf %s "$1" | sha256sum | cut -c1-8)
    OFF_TAP_A=${OFF_BR}a OFF_TAP_B=${OFF_BR}b
}
offload_del() {   # BRIDGE: it and its two taps, where they exist
    local d
    for d in "$1a" "$1b" "$1"; do
        if [[ -e /sys/class/net/$d ]]; then ip link del "$d" 2>/dev/null || true; fi
    done
}
offload_down() { offload_names "$1"; offload_del "$OFF_BR"; }   # DIR
offload_sweep() {   # removes the links of labs whose lab.sh is gone
    local br alias pid
    for br in /sys/class/net/zcl*/bridge; do
        [[ -d $br ]] || continue
        br=${br%/bridge} br=${br##*/}
        alias=$(cat "/sys/class/net/$br/ifalias" 2>/dev/null) || continue
        [[ $alias =~ ^zcperf-lab\ pid\ ([0-9]+): ]] || continue
        pid=${BASH_REMATCH[1]}
        kill -0 "$pid" 2>/dev/null && grep -qa lab.sh "/proc/$pid/cmdline" 2>/dev/null && continue
        echo "lab: removing $br and its taps, left by a lab that is gone ($alias)" >&2
        offload_del "$br"
    done
}
# Makes eth1's host side for the lab in DIR; where it cannot (not root, no /dev/net/tun, no bridge in
# this kernel) it says why, on stderr and in DIR/ctl/no-offload (A's ZCPERF_LAB_NO_OFFLOAD), and the lab
# runs with eth0 only. Sets OFFLOAD_A and OFFLOAD_B: each guest's rdma_vm.sh options (empty without eth1).
offload_up() {   # DIR
    local dir=$1 why='' d
    OFFLOAD_A=() OFFLOAD_B=()
    rm -f "$dir/ctl/no-offload"
    offload_names "$dir"
    if [[ $(id -u) -ne 0 ]]; then why="not root: eth1's host taps and bridge need root"
    elif [[ ! -c /dev/net/tun ]]; then why="no /dev/net/tun on the host: eth1 runs on host taps"
    else
        offload_sweep
        offload_del "$OFF_BR"   # a lab directory is new, but its name may be an old one's
        if why=$( {
            ip link add "$OFF_BR" type bridge stp_state 0 forward_delay 0 &&
                ip link set "$OFF_BR" alias "zcperf-lab pid $$: $dir" &&
                ip tuntap add dev "$OFF_TAP_A" mode tap vnet_hdr &&
                ip tuntap add dev "$OFF_TAP_B" mode tap vnet_hdr &&
                for d in "$OFF_BR" "$OFF_TAP_A" "$OFF_TAP_B"; do
                    if [[ -e /proc/sys/net/ipv6/conf/$d ]]; then echo 1 >"/proc/sys/net/ipv6/conf/$d/disable_ipv6"; fi
                done &&
                ip link set "$OFF_TAP_A" master "$OFF_BR" up &&
                ip link set "$OFF_TAP_B" master "$OFF_BR" up &&
                ip link set "$OFF_BR" up
        } 2>&1 >/dev/null); then
            why=''
        else
            why="cannot make eth1's host taps and bridge: ${why:-a command failed silently}"
            why=${why//$'\n'/; }
            offload_del "$OFF_BR"
        fi
    fi
    if [[ -n $why ]]; then
        echo "$why" >"$dir/ctl/no-offload"
        echo "lab: no offloading second link (eth1): $why; the lab runs with eth0 only" >&2
        return 0
    fi
    OFFLOAD_A=(--tap "$OFF_TAP_A" --tap-ip 198.18.2.1/24 --tap-mac 52:54:00:12:35:01)
    OFFLOAD_B=(--tap "$OFF_TAP_B" --tap-ip 198.18.2.2/24 --tap-mac 52:54:00:12:35:02)
}

clean_stale() {   # DIR
    [[ -d $1 ]] || return 0
    lab_alive "$1" && return 0
    echo "lab: the lab left up in $1 is gone (its guests stopped$( [[ -s $1/lab.log ]] &&
        echo ": $(tail -n 1 "$1/lab.log")")); removing it" >&2
    remove_lab "$1"
}

# Boots B, then A running guest.sh ROLE (client -- COMMAND, or agent), in LAB; returns A's status
# once B is stopped too. Every wait is bounded; the guests are stopped on any exit.
run_guests() {   # ROLE [-- COMMAND...]
    local role=$1
    shift
    mkdir -p "$LAB/ctl"
    SOCK=$LAB/link.sock   # the link: a unix stream socket between the two QEMUs (no host networking)

    guest() {   # name ip mac listen|connect eth1-options [COMMAND...]; in the background: the job is then rdma_vm.sh itself
        local name=$1 ip=$2 mac=$3 mode=$4 extra
        read -ra extra <<<"$5"
        shift 5
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
    trap 'stop_guests; offload_down "$LAB"' EXIT

    started=$SECONDS
    offload_up "$LAB"
    guest lab-b 198.18.1.2/24 52:54:00:12:34:02 listen "${OFFLOAD_B[*]}" \
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

    guest lab-a 198.18.1.1/24 52:54:00:12:34:01 connect "${OFFLOAD_A[*]}" "$HERE/lab/guest.sh" "$role" "$LAB/ctl" "$BUILD" "$PORT" "$@" &
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
    offload_down "$LAB"
    echo "$((SECONDS - started))" >"$LAB/seconds"

    if ((rc == 124 || rc == 125)) || ((b_rc != 0)); then
        KEEP=1
        if ((b_rc != 0)); then
            echo "lab: guest B ended badly (status $b_rc); its last lines:" >&2
            tail -n 15 "$LAB/b.log" >&2
        fi
        echo "lab: logs kept in $LAB (b.log: guest B; ctl/zcserver.log: B's zcserver)" >&2
    fi
    return "$rc"
}

# --up: a supervisor (this script, --serve) runs the lab in the background, detached from the
# terminal; we wait, bounded, until A serves requests or the supervisor has ended.
lab_up() {
    local dir i
    dir=$(up_dir)
    clean_stale "$dir"
    if [[ -d $dir ]]; then
        echo "lab: a lab is already up for $BUILD ($dir); scripts/lab.sh --down stops it" >&2
        return 0
    fi
    mkdir -p "$CACHE/labs"
    mkdir "$dir" || die "cannot create $dir"
    mkdir -p "$dir/ctl"
    printf '%s\n' "$PWD" "${RW_DIRS[@]}" >"$dir/shares"
    echo "MEM=$MEM PORT=$PORT KERNEL=$KERNEL SMC=$(smc_config)" >"$dir/config"
    local opts=(--timeout "$TIMEOUT" --mem "$MEM" --port "$PORT" --build "$BUILD" --kernel "$KERNEL" "${RW_ARGS[@]}")
    [[ -n $SMC ]] && opts+=(--smc)
    [[ -n $SMC_NO_UEID ]] && opts+=(--smc-no-ueid "$SMC_NO_UEID")
    [[ -n $SMC_PNET ]] && opts+=(--smc-pnet)
    [[ -n $VERBOSE ]] && opts+=(-v)
    setsid "$HERE/lab.sh" "${opts[@]}" --serve "$dir" </dev/null >"$dir/lab.log" 2>&1 &
    local spawned=$! boot=$((TIMEOUT < 400 ? TIMEOUT : 400)) started=$SECONDS
    for ((i = 0; i < boot * 10; i++)); do
        [[ -e $dir/ctl/a-ready ]] && break
        kill -0 "$spawned" 2>/dev/null || break
        sleep 0.1
    done
    if [[ ! -e $dir/ctl/a-ready ]]; then
        echo "lab: the lab did not come up within $boot s; its log ($dir/lab.log) ends:" >&2
        tail -n 15 "$dir/lab.log" >&2
        kill "$spawned" 2>/dev/null || true   # rdma_vm.sh stops its QEMU on TERM
        wait "$spawned" 2>/dev/null || true
        KEEP=1 lab_down "$dir" >/dev/null 2>&1
        exit 125
    fi
    cat <<EOT
lab: up in $((SECONDS - started)) s ($dir), for $TIMEOUT s at most;
  A serves COMMANDs, B's zcserver is $(cut -d' ' -f2 "$dir/ctl/a-ready") (eth0), $(
    [[ -s $dir/ctl/no-offload ]] && echo "no eth1: $(<"$dir/ctl/no-offload")" ||
        echo "$(cut -d' ' -f3 "$dir/ctl/a-ready") (eth1, offloading)")
  $0 -- 'zcperf -H \$ZCPERF_LAB_SERVER -T tcp -l 5'    runs in A, no boot (same --build)
  $0 --down                                           stops it
Shared read-write: $(paste -sd' ' "$dir/shares"); logs: $dir/lab.log (A), b.log (B)
EOT
}

# --serve DIR: the lab left up. A runs guest.sh's agent; ends with --down (DIR/ctl/stop) or --timeout.
lab_serve() {
    LAB=$1
    local rc=0
    echo $$ >"$LAB/pid"   # before any guest: what lab_alive and --down look for
    run_guests agent || rc=$?   # A's console output goes to our log, lab.log
    echo "lab: down after $(cat "$LAB/seconds" 2>/dev/null || echo ?) s (A's status $rc)"
    exit "$rc"
}

# --down: asks the guests to stop, bounded; the supervisor is then stopped by force if need be.
lab_down() {   # [DIR]
    local dir=${1:-$(up_dir)} pid i
    if [[ ! -d $dir ]]; then echo "lab: no lab is up for $BUILD" >&2; return 0; fi
    if lab_alive "$dir"; then
        pid=$(<"$dir/pid")
        touch "$dir/ctl/stop"
        # 60 s: a running COMMAND ends first
        for ((i = 0; i < 600; i++)); do lab_alive "$dir" || break; sleep 0.1; done
        if lab_alive "$dir"; then
            echo "lab: the lab did not stop within 60 s; stopping its guests" >&2
            kill "$pid" 2>/dev/null || true
            for ((i = 0; i < 300; i++)); do lab_alive "$dir" || break; sleep 0.1; done
            kill -9 "$pid" 2>/dev/null || true
        fi
    fi
    remove_lab "$dir"
    echo "lab: down" >&2
}

lab_status() {
    local dir
    dir=$(up_dir)
    clean_stale "$dir"
    if [[ -d $dir ]]; then
        echo "lab: up for $BUILD in $dir (supervisor pid $(<"$dir/pid"), since $(date -r "$dir/pid" +%T)," \
            "shares $(paste -sd' ' "$dir/shares"))"
        exit 0
    fi
    echo "lab: no lab is up for $BUILD (it would be $dir)"
    exit 3
}

# -- COMMAND in the lab that is up: a request in A's directory (as lab-peer's in B's), its output
# followed as it is written, its status returned. One COMMAND at a time (a lock), each bounded.
run_in_lab() {   # DIR COMMAND...
    local dir=$1 ctl=$1/ctl s d ok id
    shift
    # The guests see the host through the shares fixed at --up: COMMAND's directory and --rw must be in one.
    for d in "$PWD" "${RW_DIRS[@]}"; do
        ok=
        while read -r s; do [[ $d == "$s" || $d == "$s"/* ]] && ok=1; done <"$dir/shares"
        [[ -n $ok ]] || die "the lab that is up shares $(paste -sd' ' "$dir/shares") read-write, not $d:" \
            "run from there, or scripts/lab.sh --down and --up again from here (--rw DIR)"
    done
    local mem port kernel smc
    read -r mem port kernel smc <<<"$(sed 's/[A-Z]*=//g' "$dir/config")"
    [[ $GIVEN != *" mem "* || $MEM == "$mem" ]] || die "the lab that is up has --mem $mem: lab.sh --down first"
    [[ $GIVEN != *" port "* || $PORT == "$port" ]] || die "the lab that is up has --port $port: lab.sh --down first"
    [[ $GIVEN != *" kernel "* || $KERNEL == "${kernel:-6.1}" ]] ||
        die "the lab that is up runs --kernel ${kernel:-6.1}: lab.sh --down first"
    [[ $GIVEN != *" smc "* || $(smc_config) == "$smc" ]] ||
        die "the lab that is up has SMC set up as ${smc:-off} (--smc, --smc-no-ueid): lab.sh --down first"
    exec 8>"$dir/run.lock"
    flock -w "$TIMEOUT" 8 || die "another COMMAND held the lab for $TIMEOUT s (--timeout)"
    id=$(date +%s%N).$$
    mkdir -p "$ctl/a-req"   # a lab up by an older guest.sh made it only after "ready"
    {
        echo "# timeout $TIMEOUT"
        echo "# from lab.sh: the caller's environment (but PATH: A's has the build first), then the command"
        local kv name
        while IFS= read -r -d '' kv; do
            name=${kv%%=*}
            [[ $name =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || continue
            case $name in PATH|PWD|OLDPWD|SHLVL|_|BASH_FUNC_*|RDMA_VM*|ZCPERF_LAB*) continue ;; esac
            printf 'export %s=%q\n' "$name" "${kv#*=}"
        done < <(env -0)
        printf 'cd %q || exit 125\n' "$PWD"
        printf '%s\n' "$*"
    } >"$ctl/a-req/.$id.tmp"
    mv "$ctl/a-req/.$id.tmp" "$ctl/a-req/$id.sh"
    # A looks every second when idle: 30 s unanswered means A is hung (or too loaded to be of use).
    local res=$ctl/a-res/$id waiter limit=$((TIMEOUT + 30)) started=$SECONDS
    (
        while [[ ! -e $res.rc ]] && lab_alive "$dir"; do
            if [[ -e $ctl/a-req/$id.sh ]] && ((SECONDS - started > 30)) ||
                ((SECONDS - started > limit)); then break; fi
            sleep 0.2
        done
    ) &
    waiter=$!
    touch "$res.out" "$res.err"   # A truncates and writes them; tail follows by name
    tail -q -n +1 -s 0.2 -F --pid="$waiter" "$res.out" 2>/dev/null &
    local t1=$!
    tail -q -n +1 -s 0.2 -F --pid="$waiter" "$res.err" >&2 2>/dev/null &
    local t2=$!
    trap 'kill $waiter $t1 $t2 2>/dev/null; exit 130' INT
    trap 'kill $waiter $t1 $t2 2>/dev/null; exit 143' TERM
    wait "$waiter" || true
    wait "$t1" "$t2" || true
    if [[ -s $res.rc ]]; then
        local rc
        rc=$(<"$res.rc")
        rm -f "$res".*
        exit "$rc"
    fi
    if ! lab_alive "$dir"; then
        die "the lab ended while COMMAND ran (its --timeout, or --down?); its log: $dir/lab.log"
    elif [[ -e $ctl/a-req/$id.sh ]]; then
        rm -f "$ctl/a-req/$id.sh"
        die "guest A did not take COMMAND within 30 s: the lab is hung; its logs: $dir/lab.log, $dir/b.log;" \
            "scripts/lab.sh --down stops it"
    fi
    die "guest A did not finish COMMAND within $limit s (--timeout $TIMEOUT + 30): the lab is hung;" \
        "its logs: $dir/lab.log; scripts/lab.sh --down stops it"
}

main() {
    local serve_dir=
    while (($#)); do
        case $1 in
            --timeout) TIMEOUT=${2:?--timeout needs seconds}; GIVEN+="timeout "; shift 2 ;;
            --mem)     MEM=${2:?--mem needs MB}; GIVEN+="mem "; shift 2 ;;
            --port)    PORT=${2:?--port needs a port}; GIVEN+="port "; shift 2 ;;
            --build)   BUILD=${2:?--build needs a directory}; shift 2 ;;
            --kernel)  KERNEL=${2:?--kernel needs 6.1, 6.12 or a package}; GIVEN+="kernel "; shift 2 ;;
            --smc)     SMC=1; GIVEN+="smc "; shift ;;
            --smc-no-ueid) SMC_NO_UEID=${2:?--smc-no-ueid needs a or b}; GIVEN+="smc "; shift 2 ;;
            --smc-pnet) SMC_PNET=1; GIVEN+="smc "; shift ;;
            --rw)      RW_ARGS+=(--rw "${2:?--rw needs a directory}")
                       RW_DIRS+=("$(cd "$2" && pwd)") || exit 125; shift 2 ;;
            -v|--verbose) VERBOSE=1; shift ;;
            --keep)    KEEP=1; shift ;;
            --up)      MODE=up; shift ;;
            --down)    MODE=down; shift ;;
            --status)  MODE=status; shift ;;
            --serve)   MODE=serve; serve_dir=${2:?}; shift 2 ;;   # internal: the lab --up left running
            -h|--help) usage; exit 0 ;;
            --)        shift; break ;;
            *)         echo "lab: unknown option $1" >&2; usage >&2; exit 125 ;;
        esac
    done
    if [[ $MODE == run ]]; then (($#)) || { usage >&2; exit 125; }
    else (($# == 0)) || die "--up and --down take no COMMAND: scripts/lab.sh --up, then scripts/lab.sh -- COMMAND"; fi
    [[ $MODE == up && $GIVEN != *" timeout "* ]] && TIMEOUT=3600
    [[ $TIMEOUT =~ ^[1-9][0-9]*$ ]] || die "--timeout wants whole seconds"
    [[ $MEM =~ ^[1-9][0-9]*$ ]] && ((MEM % 2 == 0)) || die "--mem wants an even number of MB"
    [[ $PORT =~ ^[1-9][0-9]*$ ]] && ((PORT < 65536)) || die "--port wants a port number"
    [[ -z $SMC_NO_UEID || $SMC_NO_UEID == a || $SMC_NO_UEID == b ]] || die "--smc-no-ueid wants a or b (the guest)"
    [[ -z $SMC_NO_UEID && -z $SMC_PNET ]] || SMC=1
    [[ -d $BUILD ]] || die "no build directory $BUILD: run scripts/bootstrap.sh build first"
    BUILD=$(cd "$BUILD" && pwd)
    case $MODE in
        down) lab_down; exit 0 ;;
        status) lab_status ;;
        run) clean_stale "$(up_dir)"; [[ -d $(up_dir) ]] && run_in_lab "$(up_dir)" "$@" ;;
    esac
    [[ -x $BUILD/zcperf && -x $BUILD/zcserver ]] ||
        die "no zcperf/zcserver in $BUILD: run scripts/bootstrap.sh build first"
    [[ $(id -u) -eq 0 ]] || command -v sudo >/dev/null || die "the lab needs root (QEMU's packages, the guests' set-up)"
    resolve_kernel
    # What guest.sh reads (the caller's environment reaches both guests): the SMC set-up asked for.
    if [[ -n $SMC ]]; then
        export ZCPERF_LAB_SMC_SETUP="$SMC_UEID ${SMC_NO_UEID:--} ${SMC_PNET:+$SMC_PNETID}"
    else
        unset ZCPERF_LAB_SMC_SETUP
    fi
    [[ $MODE == serve ]] && lab_serve "$serve_dir"

    # Ready the cache first (packages, kernel, initramfs), so the boot below is the boot only.
    "$HERE/rdma_vm.sh" --setup-only >/dev/null 2>&1 ||
        { "$HERE/rdma_vm.sh" --setup-only; die "the guest builder (scripts/rdma_vm.sh --setup-only) failed"; }
    [[ $MODE == up ]] && { lab_up; exit 0; }

    mkdir -p "$CACHE/labs"
    LAB=$(mktemp -d "$CACHE/labs/lab.XXXXXX")
    rc=0
    run_guests client -- "$@" || rc=$?
    if [[ -n $KEEP ]]; then echo "lab: lab directory: $LAB" >&2; else rm -rf "$LAB"; fi
    exit "$rc"
}
main "$@"   # one line, read before it runs: editing this file meanwhile cannot change a running lab
