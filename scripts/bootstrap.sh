#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to a built zcperf:
#   scripts/bootstrap.sh run    install what is missing, build, run a loopback test with a full report
#   scripts/bootstrap.sh test   install what is missing, build, run the whole test suite (ctest)
#   scripts/bootstrap.sh build  install what is missing and build only
#   scripts/bootstrap.sh package   install what is missing, build, write the .debs to build/packages (CPack)
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build="${ZCPERF_BUILD_DIR:-$here/build}"
mode="${1:-run}"

# Build and test dependencies, all from Debian's own packages.
# rdma-core's libibverbs-dev/librdmacm-dev: the RDMA transports (rsocket*, rdma-*) are in the default build.
# libhwloc-dev: the NUMA/PCI topology; libopenmpi-dev/openmpi-bin: zcperf-mpi and its tests (mpirun);
# munge, slurmctld, slurmd, slurm-client: the one-node Slurm of scripts/slurm_local.sh, which the srun
# test starts (label mpi); clang: the fuzz target; clang-format: CI's format check (scripts/check_format.sh);
# matplotlib: plots of the sweep scripts (Debian's /usr/bin/python3).
# help2man: the man pages, made from --help at build time; dpkg-dev (dpkg-shlibdeps) and file: the .debs'
# library dependencies (CPack); debootstrap: the fresh Debian root the .deb is tested in; systemd:
# systemd-analyze verify of the zcserver units (ctest -L install, docs/install.md); strace: the floor_calls test
# counts the loops' system calls per operation against bench/'s floors.
# chromium: the --html page opened headless, as a person's browser would (ctest -L html selects e2e-html, docs/compare.md).
# zlib1g-dev: --histogram-log's compressed histograms (HdrHistogram's V2 log is zlib's deflate);
# default-jre-headless, libhdrhistogram-java: HdrHistogram's own HistogramLogProcessor reads that log back
# in its test (histogram_log_script, docs/latency.md).
packages=(cmake ninja-build g++ pkg-config libboost-dev libboost-system-dev nlohmann-json3-dev libcli11-dev
          libfmt-dev libnuma-dev libhwloc-dev liburing-dev libssl-dev libibverbs-dev librdmacm-dev libgtest-dev
          iproute2 clang libclang-rt-dev clang-format python3-matplotlib libopenmpi-dev openmpi-bin munge
          slurmctld slurmd slurm-client help2man dpkg-dev file debootstrap systemd strace chromium
          zlib1g-dev default-jre-headless libhdrhistogram-java)

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
        echo "bootstrap: need root to install packages: $*" >&2; exit 1; fi
}

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "bootstrap: installing ${missing[*]}" >&2
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# ZCPERF_WERROR=ON (what .ci/run sets): compiler warnings are errors, so the build stays at zero.
cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DZCPERF_WERROR="${ZCPERF_WERROR:-OFF}" >/dev/null
targets=()
[ "$mode" = run ] && targets=(--target zcperf zcserver)  # the main job needs no test binaries
cmake --build "$build" -j"$(nproc)" "${targets[@]}"

case "$mode" in
    build) ;;
    package)
        # zcperf_*.deb (zcperf, zcserver, man pages, completion, units), zcperf-mpi_*, zcperf-scripts_*
        # (docs/install.md); each one's library dependencies by dpkg-shlibdeps, its version from git.
        cd "$build"
        cpack --config CPackConfig.cmake "${@:2}"
        ls -l "$build"/packages/*.deb
        ;;
    run)
        # The main job: a real loopback test (embedded server) with the full report. With two CPUs
        # or more, the client's data thread runs on CPU 0 and the server's on CPU 1.
        pin=()
        [ "$(nproc)" -ge 2 ] && pin=(--cpu 0,1)
        exec "$build/zcperf" -m 64K,1M -l 5 "${pin[@]}" "${@:2}"
        ;;
    test)
        cd "$build"
        exec ctest --output-on-failure "${@:2}"
        ;;
    *)
        echo "usage: $0 run|test|build|package [extra arguments for zcperf, ctest or cpack]" >&2
        exit 2
        ;;
esac
