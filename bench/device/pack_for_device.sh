#!/bin/bash
# Packs the built binaries (stripped), the Debian shared libraries they need (from ldd) and the run
# scripts into DEST (e.g. the lead checkout's ignored .devcarry/) for the device tool's `carry`.
#   bench/device/pack_for_device.sh BUILD_DIR DEST
# A second folder packed from an older build serves run_on_h200.sh's `builds` step (BEFORE=that folder).
set -euo pipefail
BUILD=${1:-build}
DEST=${2:?destination folder}
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$DEST"
mkdir -p "$DEST/bin" "$DEST/lib" "$DEST/glibc"
bins=()
for b in zcperf zcserver tests/gpu/zcperf_gpu_tests; do
    # The GPU tests exist only in a build with CUDA; the benches need zcperf and zcserver alone.
    [[ -x $BUILD/$b || $b == tests/* ]] || { echo "pack_for_device: no $BUILD/$b: build first" >&2; exit 1; }
    [[ -x $BUILD/$b ]] && strip -o "$DEST/bin/$(basename $b)" "$BUILD/$b" && bins+=("$BUILD/$b")
done
# The peers of bench/udp.sh and bench/crr.sh, for the quiet-host benches (run_on_h200.sh peers): the
# lent machine has no apt and may have no C compiler, so they and the crr floor travel built.
# IPERF3=/path/to/iperf3 packs another build than the PATH's (Debian 12's 3.12 has no --mptcp; 3.17 has).
peers=()
for t in iperf3 sockperf ss; do
    src=$(command -v "$t" || true)
    [[ $t == iperf3 && -n ${IPERF3:-} ]] && src=$IPERF3
    if [[ -n $src ]]; then cp -L "$src" "$DEST/bin/$t" && peers+=("$DEST/bin/$t"); fi
done
mkdir -p "$DEST/floors"
cc -O2 -o "$DEST/floors/crr_floor" "$HERE/../crr_floor.c"
cc -O2 -pthread -o "$DEST/floors/flows_floor" "$HERE/../flows_floor.c"
for f in stream_floor udp_floor rr_floor; do cc -O2 -pthread -o "$DEST/floors/$f" "$HERE/../$f.c"; done
for lib in $(ldd "${bins[@]}" "${peers[@]}" | awk '/=> \//{print $3}' | sort -u); do
    case $(basename "$lib") in
        libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*) cp -L "$lib" "$DEST/glibc/" ;;
        *) cp -L "$lib" "$DEST/lib/" ;;
    esac
done
cp -L /lib64/ld-linux-x86-64.so.2 "$DEST/glibc/"
cp "$HERE/run_on_h200.sh" "$HERE/../gpu_matrix.sh" "$DEST/"
# The bench scripts travel with the binaries they were written for (the device copies the session's
# main checkout, which may be older than the build being packed).
mkdir -p "$DEST/bench"
cp "$HERE"/../*.sh "$HERE"/../*.py "$HERE"/../*.c "$HERE"/../*.h "$DEST/bench/"
# lib.py's floors report takes its interval from irq_sweep_stats.py
mkdir -p "$DEST/scripts" && cp "$HERE/../../scripts/zclib.py" "$HERE/../../scripts/irq_sweep_stats.py" "$DEST/scripts/"
du -sh "$DEST"
