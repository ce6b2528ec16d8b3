#!/bin/busybox sh
# /init of the Soft-RoCE guest that scripts/rdma_vm.sh boots. It runs from the initramfs, which
# holds only busybox, a few kernel modules (/mods, loaded in the order of /mods/order) and this
# file. It makes the host's root the guest's root (read-only 9p + a tmpfs overlay, so the guest
# can write anywhere and its writes vanish with the VM), mounts the run directory and the
# read-write shares over it at their host paths, brings up rxe0 on its netdev (dummy0, or eth0
# when rdma_vm.sh --link gave the guest a virtio-net NIC; <run dir>/net says which), sets eth1's
# address with --tap, and runs <run dir>/cmd.sh there. The host reads <run dir>/stdout, stderr and
# rc; anything that goes wrong before the command runs lands in <run dir>/vm_error and on the
# console, and the host then exits 125.
/bin/busybox mkdir -p /bin /dev /proc /sys /lower /upper /newroot
/bin/busybox --install -s /bin
export PATH=/bin
mount -t devtmpfs dev /dev
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sys /sys

NEWROOT=/newroot
RUN=

log() { read -r up _ </proc/uptime; echo "rdma-vm [$up s] $*"; }

# Before the command runs, any failure powers the VM off without an rc file: the host reports
# the VM as failed (125) and prints this console.
fail() {
    log "FAILED: $*"
    [ -n "$RUN" ] && [ -d "$NEWROOT$RUN" ] && echo "$*" >>"$NEWROOT$RUN/vm_error"
    sync
    poweroff -f
}

for arg in $(cat /proc/cmdline); do
    case $arg in rdma_vm.run=*) RUN=${arg#rdma_vm.run=} ;; esac
done
[ -n "$RUN" ] || fail "no rdma_vm.run= on the kernel command line"

# Modules in dependency order (worked out on the host with modprobe --show-depends). A missing
# crc32 accelerator is no loss as long as one crc32 implementation loads; the rest is required.
while read -r mod; do
    insmod "/mods/$mod" 2>/dev/null || case $mod in
        crc32-pclmul.ko|crc32_generic.ko) log "optional module $mod not loaded" ;;
        *) fail "insmod $mod: $(insmod "/mods/$mod" 2>&1)" ;;
    esac
done </mods/order
log "modules loaded"

# The host's root, read-only (cache=loose: it does not change under us, and caching saves
# most of the 9p round trips), with a tmpfs on top so the guest can write anywhere.
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=loose,ro hostroot /lower ||
    fail "cannot mount the host root (9p tag hostroot)"
mount -t tmpfs -o mode=0755 upper /upper
mkdir -p /upper/data /upper/work
mount -t overlay -o lowerdir=/lower,upperdir=/upper/data,workdir=/upper/work overlay $NEWROOT ||
    fail "cannot mount the overlay root"
mount -t proc proc $NEWROOT/proc
mount -t sysfs sys $NEWROOT/sys
mount -t devtmpfs dev $NEWROOT/dev
mkdir -p $NEWROOT/dev/pts $NEWROOT/dev/shm
mount -t devpts -o newinstance,ptmxmode=0666 devpts $NEWROOT/dev/pts
mount -t tmpfs -o mode=1777 shm $NEWROOT/dev/shm
mount -t tmpfs -o mode=0755 run $NEWROOT/run

# Read-write shares at their host paths (cache=mmap: the host sees every write at once, which
# is what lets it stream stdout and stderr live). The run directory first: it says which
# other shares exist.
mount_share() {   # tag path
    mkdir -p "$NEWROOT$2" 2>/dev/null
    mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=mmap "$1" "$NEWROOT$2"
}
mount_share rdmavm_run "$RUN" || { RUN=; fail "cannot mount the run directory (9p tag rdmavm_run)"; }
while read -r tag path; do
    mount_share "$tag" "$path" || fail "cannot mount $path (9p tag $tag)"
done <"$NEWROOT$RUN/shares"

# The guest kernel's modules at the usual place, so modprobe works inside the guest (the host
# runs another kernel): the host's cache of the unpacked kernel package, already depmod'ed.
KVER=$(uname -r)
read -r KTREE <"$NEWROOT$RUN/kernel_tree"
mkdir -p "$NEWROOT/lib/modules/$KVER"
mount --bind "$NEWROOT$KTREE/lib/modules/$KVER" "$NEWROOT/lib/modules/$KVER" ||
    log "no module tree for $KVER: modprobe will not work in the guest"
# The kernel's own module requests (request_module: kTLS's cipher, "gcm(aes)" and its parts, a qdisc)
# run /proc/sys/kernel/modprobe in this initramfs, whose root has no module tree, so they failed
# (kTLS's setsockopt SOL_TLS then said ENOENT): send them to the guest's root.
printf '#!/bin/busybox sh\nexec /bin/busybox chroot %s /sbin/modprobe "$@"\n' "$NEWROOT" >/bin/guest-modprobe
chmod 755 /bin/guest-modprobe
echo /bin/guest-modprobe >/proc/sys/kernel/modprobe
log "root and shares mounted"

# NETDEV ADDRESS/PREFIX RDMA_DEV HOSTNAME, written by rdma_vm.sh. The address is in RFC 2544's
# benchmark range (198.18.0.0/15): not loopback (rdma_cm refuses 127/8), never routed.
read -r NETDEV CIDR RDMA_DEV NAME <"$NEWROOT$RUN/net" || fail "no $RUN/net"
IP=${CIDR%/*}
hostname "$NAME"
ip link set lo up
# The dummy module makes dummy0 when it loads (numdummies=1); traffic to its address loops back
# inside the guest kernel. eth0 is the virtio-net NIC of --link (its probe may trail insmod).
# MTU 9000 lets RoCE use its largest MTU, 4096.
for _ in $(seq 100); do [ -d /sys/class/net/$NETDEV ] && break; sleep 0.05; done
[ -d /sys/class/net/$NETDEV ] || [ $NETDEV != dummy0 ] || ip link add $NETDEV type dummy
[ -d /sys/class/net/$NETDEV ] || fail "no $NETDEV"
{ ip addr add $CIDR dev $NETDEV && ip link set $NETDEV mtu 9000 up; } || fail "cannot set up $NETDEV"
# eth1 of rdma_vm.sh --tap (<run dir>/tap: NETDEV ADDRESS/PREFIX): a second NIC, its address only (MTU
# 1500, the host tap's: a host bridge forwards nothing longer); no RDMA device on it.
if [ -s "$NEWROOT$RUN/tap" ]; then
    read -r TAPDEV TAPCIDR <"$NEWROOT$RUN/tap"
    for _ in $(seq 100); do [ -d /sys/class/net/$TAPDEV ] && break; sleep 0.05; done
    { ip addr add $TAPCIDR dev $TAPDEV && ip link set $TAPDEV up; } || fail "cannot set up $TAPDEV ($TAPCIDR)"
fi
chroot $NEWROOT rdma link add $RDMA_DEV type rxe netdev $NETDEV ||
    fail "rdma link add $RDMA_DEV type rxe netdev $NETDEV failed"

# The RoCE v2 GID of the IPv4 address (::ffff:198.18.0.1 is ...:ffff:c612:0001) is the one
# perftest's -x and verbs code need; the kernel adds it from a work queue, so wait for it and
# report its index.
gid_index=
want=$(echo "$IP" | { IFS=. read -r a b c d; printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' $a $b $c $d; })
for _ in $(seq 600); do   # 30 s: a --link guest may wait for its peer's QEMU to connect
    for g in /sys/class/infiniband/$RDMA_DEV/ports/1/gids/*; do
        [ "$(cat "$g" 2>/dev/null)" = $want ] && gid_index=${g##*/} && break 2
    done
    sleep 0.05
done
[ -n "$gid_index" ] || fail "$RDMA_DEV has no GID for $IP"
for _ in $(seq 600); do
    read -r state <"/sys/class/infiniband/$RDMA_DEV/ports/1/state"
    case $state in *ACTIVE*) break ;; esac
    sleep 0.05
done
case $state in *ACTIVE*) ;; *) fail "$RDMA_DEV port 1 is $state, not ACTIVE (is the link's peer up?)" ;; esac
log "$RDMA_DEV up on $NETDEV $IP, GID index $gid_index"

# Registered memory is pinned memory: RDMA programs need an unlimited RLIMIT_MEMLOCK.
ulimit -l unlimited
log "running the command"
chroot $NEWROOT /usr/bin/env -i RDMA_VM_GID_INDEX="$gid_index" /bin/bash "$RUN/cmd.sh" \
    </dev/null >>"$NEWROOT$RUN/stdout" 2>>"$NEWROOT$RUN/stderr"
echo $? >"$NEWROOT$RUN/rc"
log "command exited $(cat "$NEWROOT$RUN/rc")"
sync
poweroff -f
