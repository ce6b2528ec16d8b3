#!/usr/bin/env bash
# The lab tests for real: `ctest -L lab` in guest A of the two-guest lab (scripts/lab.sh), against
# zcserver in guest B across the virtio-net link; the SMC tests (named *Smc*) twice more in labs on
# Debian's 6.12 kernel, where SMC-R engages over rxe: SMC set up on both guests, then guest B left without
# a UEID (every connection falls back, the reason named); then a lab left up (--up, COMMANDs, --down).
# CI runs this after the RDMA tests; on a plain host these tests skip with the reason.
#   scripts/test_lab.sh [ctest arguments, e.g. -R Irq or -V: then the default lab alone runs them]
# LAB_TEST_TIMEOUT: seconds for each lab, its boot included (default 900, so a hung test cannot
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
: >"$log"
# lab LAB_OPTIONS... -- CTEST_SELECTION...: one lab's boot, its tests and its end, appended to the log.
lab() {
    local opts=() ctest_args=
    while [[ $1 != -- ]]; do opts+=("$1"); shift; done
    shift
    (($#)) && ctest_args=$(printf ' %q' "$@")
    echo "test_lab: lab ${opts[*]:-(default)}: ctest -L lab$ctest_args" | tee -a "$log" >&2
    "$here/scripts/lab.sh" --build "$build" --timeout "$timeout" "${opts[@]}" -- \
        "ctest --test-dir $(printf %q "$build") -L lab --no-tests=error --output-on-failure$ctest_args$args" 2>&1 |
        tee -a "$log" || { local status=${PIPESTATUS[0]}; ((rc)) || rc=$status; }
}
if (($#)); then
    lab --  # the arguments choose the tests: the default lab only
else
    lab -- -E Smc
    lab --kernel 6.12 --smc -- -R Smc
    lab --kernel 6.12 --smc --smc-no-ueid b -- -R Smc
fi
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
