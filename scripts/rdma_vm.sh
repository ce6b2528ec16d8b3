#!/usr/bin/env bash
# rdma_vm.sh: run a command where RDMA works, on a machine with no RDMA device.
#
#   scripts/rdma_vm.sh [options] -- COMMAND [ARGS...]
#
# Boots Debian's own kernel under QEMU (TCG: software emulation, no KVM needed) with Soft-RoCE
# (rdma_rxe) on a dummy netdev, and runs COMMAND in it, in the caller's directory. The guest's
# root is the host's root (read-only 9p with a tmpfs overlay: the guest may write anywhere, the
# writes are thrown away); the caller's directory and each --rw DIR are shared read-write at the
# same paths, so a build tree made on the host runs as is. COMMAND's stdout and stderr stream
# live to ours, and we exit with its status: 124 if it timed out, 125 if the VM itself failed.
# In the guest: RDMA_VM=1 RDMA_VM_DEV=rxe0 RDMA_VM_IP=198.18.0.1 RDMA_VM_GID_INDEX=1
# RDMA_VM_NETDEV=dummy0. TCG runs at roughly 1/100 of hardware speed: this is for functional
# tests, not for performance figures.
#
# It is also the guest builder of scripts/lab.sh (two guests, one virtio-net link): --link puts
# the guest on a point-to-point QEMU stream netdev (virtio-net with MSI-X; rxe then runs on its
# eth0), --numa splits CPUs and memory over NUMA nodes, --ip/--name/--mac name the guest, --tap adds a
# second virtio-net NIC (eth1) on a host tap with vnet_hdr, which offloads checksums and scatter-gather.
#
# Everything it needs comes from Debian: missing packages are installed with apt-get, the
# kernel package (what linux-image-amd64 depends on) is downloaded with apt-get download and
# unpacked into the cache (about 500 MB); the host's /boot and /lib/modules are never touched.
# The first run costs under a minute (a 70 MB download included); every later run only the boot:
# 8 s on an idle 2-CPU machine, up to 15 s on a busy one.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
INIT_SCRIPT=$HERE/rdma_vm/init.sh

# Runtime packages: the VM, what goes into the initramfs, and the RDMA user space the guest
# uses from the host's root (iproute2's `rdma` makes rxe0).
PACKAGES=(qemu-system-x86 busybox-static kmod cpio xz-utils iproute2 rdma-core ibverbs-providers
          ibverbs-utils rdmacm-utils perftest)
# Guest modules: virtio PCI + 9p (the shares), overlay (the writable root), dummy or virtio_net (the netdev),
# and the RDMA stack with rdma_rxe. rxe computes its ICRC through the crypto API's "crc32",
# which no module depends on by symbol, so one implementation is listed explicitly.
MODULES=(virtio_pci 9pnet_virtio 9p overlay dummy virtio_net ib_core ib_uverbs iw_cm ib_cm rdma_cm rdma_ucm
         ib_umad udp_tunnel ip6_udp_tunnel rdma_rxe crc32_generic crc32-pclmul libcrc32c crc32c)

if [[ $(id -u) -eq 0 ]]; then
    CACHE=${RDMA_VM_CACHE:-/var/cache/zcperf-rdma-vm}
else
    CACHE=${RDMA_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/zcperf-rdma-vm}
fi
TIMEOUT=900
MEM=2048
CPUS=$(nproc)
VERBOSE=
KEEP=
REBUILD=
SETUP_ONLY=
RW_DIRS=()
NUMA=1
LINK=            # listen:SOCKET or connect:SOCKET (a unix socket path); empty: no NIC, dummy0
IP=198.18.0.1/24
MAC=52:54:00:12:34:01
NAME=rdma-vm
NIC_NODE=        # with --link: the NUMA node the NIC sits on (empty: none, as a plain virtio device)
TAP=             # a host tap (made by the caller, e.g. scripts/lab.sh) for a second NIC, eth1; empty: none
TAP_IP=
TAP_MAC=52:54:00:12:35:01

usage() {
    cat <<EOT
Usage: $0 [options] -- COMMAND [ARGS...]
Runs COMMAND in a QEMU guest with Soft-RoCE (rxe0 on dummy0, 198.18.0.1), in the current
directory, and exits with its status (124: timed out, 125: the VM failed).
  --timeout S   kill the VM after S seconds, boot included (default $TIMEOUT)
  --mem MB      guest memory (default $MEM)
  --cpus N      guest CPUs (default: nproc, $CPUS)
  --rw DIR      share DIR read-write too (the current directory always is); repeatable
  --numa N      split the CPUs and the memory over N NUMA nodes (default $NUMA; CPUs must divide)
  --link listen:SOCK|connect:SOCK
                a virtio-net NIC (eth0, MSI-X) on a point-to-point QEMU stream netdev over the unix
                socket SOCK, instead of dummy0; the listening guest must start first (scripts/lab.sh)
  --ip A/P      the RDMA netdev's address (default $IP)
  --mac MAC     the NIC's MAC with --link (default $MAC)
  --nic-node N  with --link: put the NIC on NUMA node N (behind a PCI root bus of that node)
  --tap TAP     with --link: a second virtio-net NIC, eth1, on the host's tap TAP with vnet_hdr (QEMU
                then offers checksum offload and TSO, and the guest's driver scatter-gather), beside eth0
                on the same bus; TAP must exist (ip tuntap add dev TAP mode tap vnet_hdr; root)
  --tap-ip A/P  eth1's address (needed with --tap); --tap-mac MAC its MAC (default $TAP_MAC)
  --name NAME   the guest's hostname and rdma link name prefix (default $NAME)
  -v            show the guest console (boot log of /init) on stderr
  --keep        keep the run directory (console log, cmd.sh, outputs) and print its path
  --rebuild     download and rebuild the kernel cache and initramfs first
  --setup-only  prepare the cache and exit (no COMMAND)
Environment: RDMA_VM_CACHE (cache, now $CACHE), RDMA_VM_KPKG (kernel package,
default: what linux-image-amd64 depends on). The caller's environment is passed to COMMAND.
EOT
}

die() { echo "rdma_vm: $*" >&2; exit 125; }
note() { echo "rdma_vm: $*" >&2; }

parse_args() {
    while (($#)); do
        case $1 in
            --timeout)    TIMEOUT=${2:?--timeout needs seconds}; shift 2 ;;
            --mem)        MEM=${2:?--mem needs MB}; shift 2 ;;
            --cpus)       CPUS=${2:?--cpus needs a count}; shift 2 ;;
            --rw)         RW_DIRS+=("$(cd "${2:?--rw needs a directory}" && pwd)") || exit 125; shift 2 ;;
            --numa)       NUMA=${2:?--numa needs a count}; shift 2 ;;
            --link)       LINK=${2:?--link needs listen:SOCKET or connect:SOCKET}; shift 2 ;;
            --ip)         IP=${2:?--ip needs ADDRESS/PREFIX}; shift 2 ;;
            --mac)        MAC=${2:?--mac needs a MAC address}; shift 2 ;;
            --nic-node)   NIC_NODE=${2:?--nic-node needs a node}; shift 2 ;;
            --tap)        TAP=${2:?--tap needs a host tap}; shift 2 ;;
            --tap-ip)     TAP_IP=${2:?--tap-ip needs ADDRESS/PREFIX}; shift 2 ;;
            --tap-mac)    TAP_MAC=${2:?--tap-mac needs a MAC address}; shift 2 ;;
            --name)       NAME=${2:?--name needs a name}; shift 2 ;;
            -v|--verbose) VERBOSE=1; shift ;;
            --keep)       KEEP=1; shift ;;
            --rebuild)    REBUILD=1; shift ;;
            --setup-only) SETUP_ONLY=1; shift ;;
            -h|--help)    usage; exit 0 ;;
            --)           shift; break ;;
            *)            echo "rdma_vm: unknown option $1" >&2; usage >&2; exit 125 ;;
        esac
    done
    COMMAND=("$@")
    [[ $TIMEOUT =~ ^[1-9][0-9]*$ ]] || die "--timeout wants whole seconds"
    [[ $MEM =~ ^[1-9][0-9]*$ ]] || die "--mem wants MB"
    [[ $CPUS =~ ^[1-9][0-9]*$ ]] || die "--cpus wants a count"
    [[ $NUMA =~ ^[1-9][0-9]*$ ]] && ((CPUS % NUMA == 0 && MEM % NUMA == 0)) ||
        die "--numa wants a count that divides --cpus ($CPUS) and --mem ($MEM)"
    [[ -z $LINK || $LINK =~ ^(listen|connect):/[^,[:space:]]+$ ]] ||
        die "--link wants listen:SOCKET or connect:SOCKET, an absolute path without commas or blanks"
    [[ $IP =~ ^([0-9]{1,3}\.){3}[0-9]{1,3}/[0-9]{1,2}$ ]] || die "--ip wants ADDRESS/PREFIX, e.g. 198.18.0.1/24"
    [[ $MAC =~ ^([0-9a-f]{2}:){5}[0-9a-f]{2}$ ]] || die "--mac wants a lower-case MAC, e.g. 52:54:00:12:34:01"
    [[ -z $NIC_NODE || ( $NIC_NODE =~ ^[0-9]$ && NIC_NODE -lt NUMA && -n $LINK ) ]] ||
        die "--nic-node wants a node below --numa ($NUMA), with --link"
    [[ $NAME =~ ^[a-z][a-z0-9-]*$ ]] || die "--name wants a host name (a-z, 0-9, -)"
    if [[ -n $TAP ]]; then
        [[ -n $LINK ]] || die "--tap adds eth1 beside --link's eth0: give --link too"
        [[ $TAP =~ ^[A-Za-z0-9_.-]{1,15}$ && -d /sys/class/net/$TAP ]] ||
            die "--tap $TAP: no such host interface; make it first (ip tuntap add dev $TAP mode tap vnet_hdr)"
        [[ $TAP_IP =~ ^([0-9]{1,3}\.){3}[0-9]{1,3}/[0-9]{1,2}$ ]] || die "--tap wants --tap-ip ADDRESS/PREFIX too"
        [[ $TAP_MAC =~ ^([0-9a-f]{2}:){5}[0-9a-f]{2}$ && $TAP_MAC != "$MAC" ]] ||
            die "--tap-mac wants a lower-case MAC other than --mac's"
    fi
    [[ -n $SETUP_ONLY || ${#COMMAND[@]} -gt 0 ]] || { usage >&2; exit 125; }
    # The run directory's path goes on the kernel command line, which splits at blanks.
    [[ $CACHE != *[[:space:]]* ]] || die "the cache path must not contain blanks: $CACHE"
}

as_root() {
    if [[ $(id -u) -eq 0 ]]; then "$@"
    elif command -v sudo >/dev/null; then sudo "$@"
    else die "need root for: $*"; fi
}

install_missing_packages() {
    local missing
    # One dpkg-query for all of them: on a busy machine each call costs a noticeable fraction of a second.
    mapfile -t missing < <(dpkg-query -W -f='${Package} ${Status}\n' "${PACKAGES[@]}" 2>/dev/null |
        awk -v want="${PACKAGES[*]}" '$NF == "installed" { ok[$1] = 1 }
            END { n = split(want, w, " "); for (i = 1; i <= n; i++) if (!ok[w[i]]) print w[i] }')
    ((${#missing[@]})) || return 0
    note "installing ${missing[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null
}

# The kernel package to boot: $RDMA_VM_KPKG, else the one chosen before (so later runs need
# no package lists and stay on one kernel), else what linux-image-amd64 depends on now.
resolve_kernel_package() {
    if [[ -n ${RDMA_VM_KPKG:-} ]]; then KPKG=$RDMA_VM_KPKG; return; fi
    if [[ -z $REBUILD && -s $CACHE/kernel-package ]]; then KPKG=$(<"$CACHE/kernel-package"); return; fi
    KPKG=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '$1 == "Depends:" { print $2; exit }')
    if [[ -z $KPKG ]]; then   # a fresh machine may have no package lists yet
        as_root apt-get update -qq
        KPKG=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '$1 == "Depends:" { print $2; exit }')
    fi
    [[ -n $KPKG ]] || die "cannot tell which kernel package linux-image-amd64 depends on"
    echo "$KPKG" >"$CACHE/kernel-package"
}

# Unpacks the kernel package into $CACHE/kernel/<package>/ and indexes its modules there.
# No maintainer script runs: only the files are wanted.
unpack_kernel() {
    KTREE=$CACHE/kernel/$KPKG
    if [[ -n $REBUILD ]]; then rm -rf "$KTREE" "$CACHE/debs/${KPKG}_"*.deb; fi
    if [[ ! -e $KTREE/.unpacked ]]; then
        mkdir -p "$CACHE/debs"
        local deb
        deb=$(find "$CACHE/debs" -name "${KPKG}_*.deb" | head -n1)
        if [[ -z $deb ]]; then
            note "downloading $KPKG"
            # apt-get download as root warns that the _apt user cannot write here; harmless.
            (cd "$CACHE/debs" && apt-get download -q "$KPKG" >download.log 2>&1) ||
                { cat "$CACHE/debs/download.log" >&2; die "apt-get download $KPKG failed"; }
            deb=$(find "$CACHE/debs" -name "${KPKG}_*.deb" | head -n1)
        fi
        note "unpacking $(basename "$deb")"
        rm -rf "$KTREE.tmp"
        mkdir -p "$KTREE.tmp"
        dpkg-deb -x "$deb" "$KTREE.tmp"
        local kver
        kver=$(ls "$KTREE.tmp/lib/modules")
        depmod -b "$KTREE.tmp" "$kver"
        touch "$KTREE.tmp/.unpacked"
        rm -rf "$KTREE"
        mv "$KTREE.tmp" "$KTREE"
    fi
    KVER=$(ls "$KTREE/lib/modules")
    [[ $KVER =~ ^[^[:space:]]+$ ]] || die "expected one kernel version in $KTREE/lib/modules, found: $KVER"
}

# QEMU boots an uncompressed vmlinux through its PVH entry point (Debian has CONFIG_PVH=y):
# under TCG that is 4-8 s faster than SeaBIOS plus the bzImage's own decompressor. The
# vmlinux is the bzImage's compressed payload, which its boot protocol header locates
# (setup_sects at 0x1f1, payload_offset and payload_length at 0x248 and 0x24c, counted from the
# protected-mode code after the setup sectors): xz in Debian's 6.1, zstd in its 6.12, followed by
# the unpacked size (4 bytes, little-endian), which checks the result.
extract_vmlinux() {
    VMLINUX=$KTREE/vmlinux
    [[ -s $VMLINUX ]] && return 0
    local bz=$KTREE/boot/vmlinuz-$KVER setup off len magic
    [[ -f $bz ]] || die "no $bz in $KPKG"
    setup=$(od -An -tu1 -j $((0x1f1)) -N1 "$bz" | tr -d ' ')
    off=$(od -An -tu4 -j $((0x248)) -N4 "$bz" | tr -d ' ')
    len=$(od -An -tu4 -j $((0x24c)) -N4 "$bz" | tr -d ' ')
    [[ $setup =~ ^[0-9]+$ && $off =~ ^[0-9]+$ && $len =~ ^[1-9][0-9]*$ ]] || die "$bz: no bzImage header"
    ((setup == 0)) && setup=4   # the boot protocol's rule for old images
    off=$(((setup + 1) * 512 + off))
    magic=$({ tail -c +$((off + 1)) "$bz" || true; } | head -c 6 | od -An -tx1 | tr -d ' ')
    local unpack size
    size=$(od -An -tu4 -j $((off + len - 4)) -N4 "$bz" | tr -d ' ')
    case $magic in
        fd377a585a00) unpack=(xz -dc --single-stream) ;;
        28b52ffd*)    # zstd only for kernels that need it (6.12), so the default set-up installs nothing more
                      if ! command -v zstd >/dev/null; then PACKAGES=(zstd); install_missing_packages; fi
                      unpack=(zstd -dcq) ;;
        *)            die "$bz: payload is neither xz nor zstd (magic $magic)" ;;
    esac
    # tail and head die of SIGPIPE once the payload is read; only the unpacker's status matters.
    if { tail -c +$((off + 1)) "$bz" | head -c $((len - 4)) || true; } | "${unpack[@]}" >"$VMLINUX.tmp" 2>/dev/null &&
        [[ $(head -c4 "$VMLINUX.tmp" | od -An -tx1 | tr -d ' ') == 7f454c46 ]] &&
        [[ $(stat -c %s "$VMLINUX.tmp") == "$size" ]]; then
        mv "$VMLINUX.tmp" "$VMLINUX"
        return 0
    fi
    rm -f "$VMLINUX.tmp"
    die "cannot unpack the kernel in $bz (${unpack[0]} payload at byte $off, $len bytes)"
}

# The initramfs: busybox-static, the modules in load order, and /init. Its name carries a hash
# of what goes in, so a change to init.sh or to the module list rebuilds it.
build_initramfs() {
    local key
    key=$( { echo "$KPKG ${MODULES[*]}"; cat "$INIT_SCRIPT" /bin/busybox; } | sha256sum | cut -c1-16)
    INITRAMFS=$CACHE/initramfs-$key.cpio.gz
    [[ -z $REBUILD && -s $INITRAMFS ]] && return 0
    note "building the initramfs"
    local dir line mod seen=" "
    dir=$(mktemp -d)
    mkdir -p "$dir/bin" "$dir/mods"
    cp /bin/busybox "$dir/bin/busybox"
    cp "$INIT_SCRIPT" "$dir/init"
    chmod 755 "$dir/init"
    # modprobe lists a module's dependencies first ("insmod PATH [params]"), or "builtin NAME".
    # -C /dev/null: the host's modprobe.d says nothing about the guest.
    for mod in "${MODULES[@]}"; do
        modprobe -C /dev/null -d "$KTREE" -S "$KVER" --show-depends "$mod" >"$dir/deps" 2>&1 ||
            die "module $mod: $(cat "$dir/deps")"
        while read -r line; do
            [[ $line == insmod\ * ]] || continue
            line=${line#insmod }
            local path=${line%% *} base
            base=$(basename "$path")
            [[ $seen == *" $base "* ]] && continue
            seen+="$base "
            case $base in
                *.ko) cp "$path" "$dir/mods/$base" ;;
                *.ko.xz) xz -dc "$path" >"$dir/mods/${base%.xz}"; base=${base%.xz} ;;
                *) die "unexpected module file $path" ;;
            esac
            echo "$base" >>"$dir/mods/order"
        done <"$dir/deps"
    done
    rm -f "$dir/deps"
    (cd "$dir" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) >"$INITRAMFS.tmp"
    rm -rf "$dir"
    # Other versions stay a day: worktrees with another init.sh share this cache and would
    # otherwise rebuild theirs on every run.
    find "$CACHE" -maxdepth 1 -name 'initramfs-*.cpio.gz' -mtime +1 -delete
    mv "$INITRAMFS.tmp" "$INITRAMFS"
}

# All of the above, once at a time: concurrent runs wait here instead of unpacking the same
# kernel twice.
prepare_cache() {
    mkdir -p "$CACHE"
    exec 9>"$CACHE/lock"
    flock 9
    install_missing_packages
    resolve_kernel_package
    unpack_kernel
    extract_vmlinux
    build_initramfs
    flock -u 9
    exec 9>&-
}

# Writes what the guest's /init reads: cmd.sh (the caller's environment and directory, our
# RDMA_VM_* variables, then the command), the shares to mount, and the kernel tree to bind.
write_run_dir() {
    RUN_DIR=$(mktemp -d "$CACHE/runs/run.XXXXXX")
    : >"$RUN_DIR/stdout"
    : >"$RUN_DIR/stderr"
    echo "$KTREE" >"$RUN_DIR/kernel_tree"
    NETDEV=dummy0
    [[ -n $LINK ]] && NETDEV=eth0
    echo "$NETDEV $IP rxe0 $NAME" >"$RUN_DIR/net"   # what /init sets up
    [[ -z $TAP ]] || echo "eth1 $TAP_IP" >"$RUN_DIR/tap"   # and this too, with --tap

    # Read-write shares: the caller's directory and the --rw ones, parents before children;
    # a directory inside one already shared is covered by it. The host root is never shared
    # writable: from / the guest's writes stay in its overlay.
    local d s i=0 skip
    : >"$RUN_DIR/shares"
    SHARE_ARGS=()
    while read -r d; do
        [[ -n $d ]] || continue
        if [[ $d == / ]]; then note "not sharing / read-write: the guest's writes there are discarded"; continue; fi
        skip=
        for s in "${SHARED[@]}"; do [[ $d == "$s" || $d == "$s"/* ]] && skip=1; done
        [[ -n $skip ]] && continue
        SHARED+=("$d")
        echo "rdmavm_rw$i $d" >>"$RUN_DIR/shares"
        SHARE_ARGS+=(-virtfs "local,path=${d//,/,,},mount_tag=rdmavm_rw$i,security_model=none,multidevs=remap")
        i=$((i + 1))
    done < <(printf '%s\n' "$PWD" "${RW_DIRS[@]}" | awk '{ print length, $0 }' | sort -n | cut -d' ' -f2-)

    {
        echo "# generated by rdma_vm.sh: the caller's environment, then the command"
        local name
        while IFS= read -r -d '' kv; do
            name=${kv%%=*}
            [[ $name =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || continue
            case $name in PWD|OLDPWD|SHLVL|_|BASH_FUNC_*|RDMA_VM*) continue ;; esac
            printf 'export %s=%q\n' "$name" "${kv#*=}"
        done < <(env -0)
        echo "export RDMA_VM=1 RDMA_VM_DEV=rxe0 RDMA_VM_IP=${IP%/*} RDMA_VM_NETDEV=$NETDEV"
        echo 'export RDMA_VM_GID_INDEX=${RDMA_VM_GID_INDEX:-1}   # /init passes the index it found'
        [[ -z $TAP ]] || echo "export RDMA_VM_TAP_NETDEV=eth1 RDMA_VM_TAP_IP=${TAP_IP%/*}"
        printf 'cd %q || exit 125\n' "$PWD"
        printf 'exec'
        printf ' %q' "${COMMAND[@]}"
        printf '\n'
    } >"$RUN_DIR/cmd.sh"
}

QEMU_PID=
TAIL_PIDS=()

# Both run from traps, under set -e: nothing in them may fail.
stop_vm() {
    if [[ -n $QEMU_PID ]]; then
        kill "$QEMU_PID" 2>/dev/null || true   # timeout passes the signal on to QEMU
        wait "$QEMU_PID" 2>/dev/null || true
    fi
    QEMU_PID=
}

cleanup() {
    stop_vm
    local p
    for p in "${TAIL_PIDS[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
    TAIL_PIDS=()
    if [[ -n ${RUN_DIR:-} && -z $KEEP && -z ${KEEP_ON_FAILURE:-} ]]; then rm -rf "$RUN_DIR"; fi
    return 0
}

# Boots the guest under `timeout` (so the time limit also covers a hung boot) and follows the
# command's output files until QEMU is gone; tail --pid reads them once more after that, so
# nothing written just before poweroff is lost.
# The NUMA nodes (each with its share of the CPUs and of the memory) and the NIC, if any.
machine_args() {
    MACHINE_ARGS=()
    local i per=$((CPUS / NUMA))
    if ((NUMA > 1)); then
        for ((i = 0; i < NUMA; i++)); do
            MACHINE_ARGS+=(-object "memory-backend-ram,id=m$i,size=$((MEM / NUMA))M"
                           -numa "node,nodeid=$i,cpus=$((i * per))-$((i * per + per - 1)),memdev=m$i")
        done
    fi
    if [[ -z $LINK ]]; then MACHINE_ARGS+=(-nic none); return; fi
    # A stream netdev: one queue pair, so MSI-X vectors config, input.0 and output.0 (6 allows 2).
    local server=off
    [[ $LINK == listen:* ]] && server=on
    local bus=()
    if [[ -n $NIC_NODE ]]; then   # an extra PCI root bus on that node: the NIC then has a NUMA node
        # Only bridges plug into a pxb: pxb -> pci-bridge -> the NIC.
        MACHINE_ARGS+=(-device "pxb,id=pxb$NIC_NODE,bus_nr=$((16 * (NIC_NODE + 1))),numa_node=$NIC_NODE,bus=pci.0"
                       -device "pci-bridge,id=br$NIC_NODE,bus=pxb$NIC_NODE,chassis_nr=$((NIC_NODE + 1)),addr=1")
        bus=(",bus=br$NIC_NODE,addr=1")
    fi
    MACHINE_ARGS+=(-netdev "stream,id=n0,server=$server,addr.type=unix,addr.path=${LINK#*:}"
                   -device "virtio-net-pci,netdev=n0,mac=$MAC,vectors=6${bus[*]}")
    [[ -n $TAP ]] || return 0
    # eth1: after eth0 on the same bus (the next slot), so the guest probes and names it second.
    [[ -n $NIC_NODE ]] && bus=(",bus=br$NIC_NODE,addr=2")
    MACHINE_ARGS+=(-netdev "tap,id=n1,ifname=$TAP,script=no,downscript=no,vnet_hdr=on"
                   -device "virtio-net-pci,netdev=n1,mac=$TAP_MAC,vectors=6${bus[*]}")
}

boot_and_run() {
    # no_timer_check: on a loaded host the emulated timer can look broken to the kernel's IO-APIC
    # check, which then panics ("IO-APIC + timer doesn't work"); the check proves nothing under TCG.
    local append="console=ttyS0 quiet loglevel=3 panic=-1 mitigations=off cryptomgr.notests no_timer_check"
    append+=" rdma_vm.run=$RUN_DIR"
    : >"$RUN_DIR/console.log"
    machine_args
    timeout "$TIMEOUT" qemu-system-x86_64 \
        -accel tcg,thread=multi -cpu max -m "$MEM" -smp "$CPUS" \
        -nodefaults -no-reboot -display none -serial "file:$RUN_DIR/console.log" \
        -kernel "$VMLINUX" -initrd "$INITRAMFS" -append "$append" \
        -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
        -virtfs "local,path=${RUN_DIR//,/,,},mount_tag=rdmavm_run,security_model=none,multidevs=remap" \
        "${SHARE_ARGS[@]}" "${MACHINE_ARGS[@]}" >"$RUN_DIR/qemu.log" 2>&1 &   # shares first: on pci.0
    QEMU_PID=$!
    tail -q -n +1 -s 0.2 -f --pid="$QEMU_PID" "$RUN_DIR/stdout" &
    TAIL_PIDS+=($!)
    tail -q -n +1 -s 0.2 -f --pid="$QEMU_PID" "$RUN_DIR/stderr" >&2 &
    TAIL_PIDS+=($!)
    if [[ -n $VERBOSE ]]; then
        tail -q -n +1 -s 0.2 -f --pid="$QEMU_PID" "$RUN_DIR/console.log" >&2 &
        TAIL_PIDS+=($!)
    fi
    local qrc=0
    wait "$QEMU_PID" || qrc=$?
    QEMU_PID=
    local p
    for p in "${TAIL_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
    TAIL_PIDS=()
    QEMU_STATUS=$qrc
}

show_console_tail() {
    echo "---- guest console (last 30 lines) ----" >&2
    tail -n 30 "$RUN_DIR/console.log" >&2
    if [[ -s $RUN_DIR/qemu.log ]]; then
        echo "---- qemu ----" >&2
        tail -n 10 "$RUN_DIR/qemu.log" >&2
    fi
}

main() {
    parse_args "$@"
    prepare_cache
    if [[ -n $SETUP_ONLY ]]; then
        note "ready: $KPKG, $VMLINUX, $INITRAMFS"
        exit 0
    fi
    mkdir -p "$CACHE/runs"
    SHARED=()
    trap cleanup EXIT
    trap 'stop_vm; exit 130' INT
    trap 'stop_vm; exit 143' TERM
    write_run_dir
    boot_and_run

    local rc
    if [[ $QEMU_STATUS -eq 124 ]]; then
        KEEP_ON_FAILURE=1
        note "timed out after $TIMEOUT s; run directory kept: $RUN_DIR"
        show_console_tail
        rc=124
    elif [[ -s $RUN_DIR/rc ]]; then
        rc=$(<"$RUN_DIR/rc")
    else
        KEEP_ON_FAILURE=1
        note "the VM failed (qemu exit status $QEMU_STATUS) before the command finished; run directory kept: $RUN_DIR"
        [[ -s $RUN_DIR/vm_error ]] && note "guest: $(cat "$RUN_DIR/vm_error")"
        show_console_tail
        rc=125
    fi
    [[ -n $KEEP ]] && note "run directory: $RUN_DIR"
    exit "$rc"
}

main "$@"
