# scripts/rdma_vm/find_device.sh (sourced): which RDMA device, IPv4 address and GID index to test
# over. tests/rdma/smoke.sh and bench/rdma.sh share it.
#   rdma_find_device   sets RDMA_DEV, RDMA_IP, RDMA_GID; returns 1 with the reason in
#                      RDMA_FIND_ERROR when there is nothing to test over
# Inside scripts/rdma_vm.sh's guest the answer is its RDMA_VM_* variables. Elsewhere it is the
# first device whose port 1 has a RoCE v2 GID of an IPv4 address (::ffff:a.b.c.d): that is what
# perftest's -x and rdma_cm over IP need, and the address is the one to bind servers to.
# shellcheck shell=bash disable=SC2034  # it sets variables for the caller

rdma_find_device() {
    local ib=/sys/class/infiniband d g v
    RDMA_DEV='' RDMA_IP='' RDMA_GID='' RDMA_FIND_ERROR=''
    if [[ -n ${RDMA_VM_DEV:-} ]]; then
        RDMA_DEV=$RDMA_VM_DEV RDMA_IP=${RDMA_VM_IP:?} RDMA_GID=${RDMA_VM_GID_INDEX:?}
        [[ -d $ib/$RDMA_DEV ]] && return 0
        RDMA_FIND_ERROR="RDMA_VM_DEV=$RDMA_DEV, but $ib/$RDMA_DEV does not exist"
        return 1
    fi
    if ! compgen -G "$ib/*" >/dev/null; then
        RDMA_FIND_ERROR="no RDMA device ($ib is empty or missing)"
        return 1
    fi
    for d in "$ib"/*; do
        for g in "$d"/ports/1/gids/*; do
            v=$(cat "$g" 2>/dev/null) || continue
            [[ $v == 0000:0000:0000:0000:0000:ffff:* ]] || continue
            [[ $(cat "$d/ports/1/gid_attrs/types/${g##*/}" 2>/dev/null) == "RoCE v2" ]] || continue
            v=${v#0000:0000:0000:0000:0000:ffff:}
            v=${v//:/}
            RDMA_DEV=${d##*/} RDMA_GID=${g##*/}
            RDMA_IP=$((16#${v:0:2})).$((16#${v:2:2})).$((16#${v:4:2})).$((16#${v:6:2}))
            return 0
        done
    done
    RDMA_FIND_ERROR="no RDMA device with a RoCE v2 GID of an IPv4 address (InfiniBand fabrics are not covered)"
    return 1
}
