#!/usr/bin/env bash
# The lab tests for real: `ctest -L lab` in guest A of the two-guest lab (scripts/lab.sh), against
# zcserver in guest B across the virtio-net link; then a lab left up (--up, COMMANDs, --down). CI runs
# this after the RDMA tests; on a plain host these tests skip with the reason.
#   scripts/test_lab.sh [extra ctest arguments, e.g. -R Irq or -V]
# LAB_TEST_TIMEOUT: seconds for the whole lab, boots included (default 900, so a hung test cannot
# hold CI; ctest's own per-test TIMEOUTs normally stop one much sooner).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build="${ZCPERF_BUILD_DIR:-$here/build}"
timeout=${LAB_TEST_TIMEOUT:-900}

"$here/scripts/bootstrap.sh" build
cd "$here"
log="$build/Testing/lab.log"
mkdir -p "$(dirname "$log")"
start=$SECONDS
# --no-tests=error: a label that matches nothing must fail, not pass as "0 tests". The tests must
# not skip in the lab: ZCPERF_LAB_SERVER is set there, so a skip is a defect and is listed below.
rc=0
args=
(($#)) && args=$(printf ' %q' "$@")   # printf with no arguments would still print one empty ''
"$here/scripts/lab.sh" --build "$build" --timeout "$timeout" -- \
    "ctest --test-dir $(printf %q "$build") -L lab --no-tests=error --output-on-failure$args" 2>&1 | tee "$log" ||
    rc=${PIPESTATUS[0]}
# One exception: a lab that could not make eth1, its offloading link (lab.sh says why, e.g. no
# /dev/net/tun), skips the tests of that link (named *OffloadingNic) with the reason.
skipped=$(grep "(Skipped)" "$log" || true)
if [[ -n $skipped ]] && grep -q "lab: no offloading second link (eth1)" "$log"; then
    grep "OffloadingNic" <<<"$skipped" | sed 's/^/test_lab: skipped, this lab has no eth1: /' >&2 || true
    skipped=$(grep -v "OffloadingNic" <<<"$skipped" || true)
fi
if [[ -n $skipped ]]; then
    echo "test_lab: these lab tests skipped inside the lab:" >&2
    echo "$skipped" >&2
    ((rc)) || rc=1
fi
# The lab left up (lab.sh --up, two COMMANDs, --down), unless a lab is up for this build already
# (the run above then used it, and stopping it here would surprise its owner).
if "$here/scripts/lab.sh" --build "$build" --status >/dev/null 2>&1; then
    echo "test_lab: a lab is up for $build: the --up/--down round trip (test_lab_reuse.sh --boot) not run" >&2
elif ! "$here/scripts/tests/test_lab_reuse.sh" --boot "$build" 2>&1 | tee -a "$log"; then
    ((rc)) || rc=1
fi
echo "test_lab: $((SECONDS - start)) s, lab boots included (status $rc)" >&2
exit "$rc"
