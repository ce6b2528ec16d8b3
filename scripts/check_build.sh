#!/usr/bin/env bash
# Is the build that was just tested complete? CI runs this after the README's test command: a build
# that silently lost a transport (rdma-core missing when it was configured) or a set of tests (a test
# label nobody registered any more) passes its own tests, so it is checked against what must be there.
#   scripts/check_build.sh [BUILD_DIR]     (default: build/, or $ZCPERF_BUILD_DIR)
# ctest runs it too (test check_build, label e2e-scripts), so a new transport or label that is not added
# here fails where it was added, not only in CI.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${ZCPERF_BUILD_DIR:-$here/build}}

# Every transport of the card, in the registry's order (zcperf --version's "transports:" line).
transports="tcp tcp-sendfile tcp-msgzc tcp-uringzc mptcp mptcp-sendfile rsocket rsocket-iomap rdma-write rdma-send rdma-read smc tls ktls ktls-sendfile udp udp-gso udp-msgzc"
# Every test label (ctest -L): gpu and rdma tests are registered everywhere and skip with the reason
# where there is no GPU or RDMA device (mpi where zcperf-mpi or Slurm is missing, so zcperf-mpi is
# checked below); fuzz needs clang with libFuzzer, which bootstrap.sh installs.
labels="e2e-flood e2e-html e2e-irq e2e-loopback e2e-netns e2e-scripts e2e-zerocopy fuzz gpu install lab mpi rdma unit"

fail=0
for prog in zcperf zcserver; do
    [ -x "$build/$prog" ] || { echo "check_build: $build/$prog is missing: build first (scripts/bootstrap.sh build)" >&2; exit 1; }
    got=$("$build/$prog" --version | sed -n 's/^transports: //p')
    if [ "$got" != "$transports" ]; then
        echo "check_build: $prog has transports '$got', expected '$transports'" >&2
        "$build/$prog" --version | sed 's/^/    /' >&2
        fail=1
    fi
done
# zcperf-mpi is built when Open MPI is found (bootstrap.sh installs libopenmpi-dev): its tests skip
# without it, so a build that lost it would pass them.
if ! "$build/zcperf" --version | grep -q '^zcperf-mpi: built' || [ ! -x "$build/zcperf-mpi" ]; then
    echo "check_build: zcperf-mpi was not built: $("$build/zcperf" --version | grep '^zcperf-mpi' || true)" >&2
    fail=1
fi
# The man pages are made when help2man is found (bootstrap.sh installs it); without them their tests
# (cli_docs_cover_*) are not registered, so a build that lost help2man would pass.
for page in zcperf.1 zcserver.8 zcperf-mpi.1; do
    [ -s "$build/man/$page.gz" ] || { echo "check_build: no man page $build/man/$page.gz (help2man missing?)" >&2; fail=1; }
done
got=$(ctest --test-dir "$build" --print-labels | sed -n 's/^ *\([a-z0-9-]\+\)$/\1/p' | sort | tr '\n' ' ')
if [ "${got% }" != "$labels" ]; then
    echo "check_build: test labels '${got% }', expected '$labels'" >&2
    fail=1
fi
if [ "$fail" -ne 0 ]; then
    echo "check_build: the build is incomplete (see above); configure output: cmake -S . -B $build" >&2
    exit 1
fi
echo "check_build: complete: transports $transports; zcperf-mpi; man pages; test labels $labels"
