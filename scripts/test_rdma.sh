#!/usr/bin/env bash
# The RDMA tests for real on any machine: builds if needed (scripts/bootstrap.sh build), then runs
# `ctest -L rdma` inside the Soft-RoCE guest of scripts/rdma_vm.sh. This is what CI calls after
# the README's test command; on a host without an RDMA device a plain `ctest` skips these tests.
#   scripts/test_rdma.sh [extra ctest arguments, e.g. -R smoke or -V]
# RDMA_TEST_TIMEOUT: seconds for the whole VM run, boot included (default 1800, so CI stays under
# an hour even if a test hangs; ctest's own per-test TIMEOUTs normally stop one much sooner).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build="${ZCPERF_BUILD_DIR:-$here/build}"
timeout=${RDMA_TEST_TIMEOUT:-1800}

"$here/scripts/bootstrap.sh" build
cd "$here"
log="$build/Testing/rdma-vm.log"
mkdir -p "$(dirname "$log")"
# --no-tests=error: a label that matches nothing must fail, not pass as "0 tests".
rc=0
"$here/scripts/rdma_vm.sh" --timeout "$timeout" -- \
    ctest --test-dir "$build" -L rdma --no-tests=error --output-on-failure "$@" 2>&1 | tee "$log" || rc=${PIPESTATUS[0]}

# A test that skips inside the guest (GTEST_SKIP, exit 77) passes CTest; name them so that a
# skip nobody expected is seen.
if grep -q "(Skipped)" "$log"; then
    echo "test_rdma: these rdma tests skipped inside the guest:" >&2
    grep "(Skipped)" "$log" >&2
fi
exit "$rc"
