#!/usr/bin/env bash
# Copy vs zero-copy under every client-core / IRQ-core / memory placement: runs scripts/irq_sweep.py once
# over a copy path (tcp) and a zero-copy path with the same arguments, so each combination is measured for
# both back to back and the plots put the two transports side by side.
#
#   scripts/copy_vs_zerocopy_sweep.sh [--zc tcp-msgzc|tcp-sendfile|tcp-uringzc] [--copy tcp] [irq_sweep.py options] [-- zcperf args]
#   scripts/copy_vs_zerocopy_sweep.sh --client-cpus 0,1 --server-cpu 1 --irq-cpus 0,1 --mem-nodes any,0 \
#       -l 5 -H server:12875 --out bench/out/bzcopy
#   scripts/copy_vs_zerocopy_sweep.sh --zc tcp-sendfile --out bench/out/sendfile     # sendfile instead
#   scripts/copy_vs_zerocopy_sweep.sh --copy udp --zc udp-msgzc -- --gso-size 1472 -b 2G   # UDP
#
# Default output prefix: bench/out/copy_vs_<zc> in a checkout, ./copy_vs_<zc> when installed
# (zcperf-copy-vs-zerocopy) (CSV + two PNGs). Stop it with Ctrl-C and run the same command again to resume.
# Options other than --zc/--copy go to irq_sweep.py unchanged (see its --help).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
zc=tcp-msgzc
copy=tcp
args=()
have_out=0
while [ $# -gt 0 ]; do
    case "$1" in
        --zc) zc="${2:?--zc needs a transport}"; shift 2 ;;
        --zc=*) zc="${1#--zc=}"; shift ;;
        --copy) copy="${2:?--copy needs a transport}"; shift 2 ;;
        --copy=*) copy="${1#--copy=}"; shift ;;
        -T|--transports|--transports=*|-T*)
            echo "copy_vs_zerocopy_sweep: the transports are --copy ($copy) and --zc ($zc); leave out $1" >&2; exit 2 ;;
        --) args+=("$@"); break ;;
        --out|--out=*) have_out=1; args+=("$1"); shift ;;
        -h|--help) echo "usage: ${ZCPERF_COMMAND:-$(basename "$0")} [--zc PATH] [--copy PATH] [irq_sweep options] [-- zcperf args]"
            awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        *) args+=("$1"); shift ;;
    esac
done
case "$zc" in
    tcp-sendfile|tcp-msgzc|tcp-uringzc|udp-gso|udp-msgzc) ;;
    *) echo "copy_vs_zerocopy_sweep: --zc must be tcp-sendfile, tcp-msgzc, tcp-uringzc, udp-gso or udp-msgzc," \
            "not '$zc'" >&2; exit 2 ;;
esac
if [ "$have_out" -eq 0 ]; then
    out="copy_vs_$zc"  # installed (zcperf-copy-vs-zerocopy): into the current folder
    if [ -d "$here/../bench" ]; then mkdir -p "$here/../bench/out"; out="$here/../bench/out/$out"; fi
    args=(--out "$out" "${args[@]}")
fi
exec "$here/irq_sweep.py" --transports "$copy,$zc" "${args[@]}"
