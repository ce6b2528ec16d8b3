#!/usr/bin/env bash
# scripts/lab.sh's lab left up: --status, --down and a stale lab's clean-up (no boot: ctest runs these
# with a private cache), and with --boot the real round trip: --up, two COMMANDs in the same guests
# (output, stderr and exit status as a fresh lab gives them, state kept between them), --down leaving
# nothing behind. scripts/test_lab.sh runs it with --boot after the lab tests.
#   scripts/tests/test_lab_reuse.sh [--boot] BUILD_DIR
set -uo pipefail

boot=
[[ ${1:-} == --boot ]] && { boot=1; shift; }
build=$(cd "${1:?usage: test_lab_reuse.sh [--boot] BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")/../.." && pwd)
lab=$here/scripts/lab.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "test_lab_reuse: FAIL: $*" >&2; exit 1; }

if [[ -z $boot ]]; then
    [[ -x $build/zcperf ]] || { echo "test_lab_reuse: no zcperf in $build: skipped"; exit 77; }
    export RDMA_VM_CACHE=$tmp/cache   # a private cache: nothing of a real lab is touched
    out=$("$lab" --build "$build" --down 2>&1) || fail "--down with no lab up failed: $out"
    [[ $out == *"no lab is up"* ]] || fail "--down with no lab up said: $out"
    rc=0
    out=$("$lab" --build "$build" --status 2>&1) || rc=$?
    ((rc == 3)) || fail "--status with no lab up: status $rc ($out)"
    dir=$(sed -n 's/.*(it would be \(.*\))$/\1/p' <<<"$out")
    [[ $dir == "$tmp/cache/labs/up."* ]] || fail "--status named no directory: $out"

    # A stale lab: its supervisor is gone. It must be removed, never reused.
    true &
    dead=$!
    wait "$dead"
    mkdir -p "$dir/ctl/a-req"
    echo "$dead" >"$dir/pid"
    echo "lab: down after 12 s" >"$dir/lab.log"
    rc=0
    out=$("$lab" --build "$build" --status 2>&1) || rc=$?
    ((rc == 3)) && [[ $out == *"is gone"*"removing it"* ]] || fail "a stale lab was not reported: status $rc ($out)"
    [[ ! -e $dir ]] || fail "the stale lab's directory $dir is still there"

    # Bad use: a clear error (125), no boot.
    rc=0
    out=$("$lab" --build "$build" --up -- true 2>&1) || rc=$?
    ((rc == 125)) && [[ $out == *"take no COMMAND"* ]] || fail "--up with a COMMAND: status $rc ($out)"
    [[ ! -e $dir ]] || fail "--up with a COMMAND left $dir"
    rc=0
    out=$("$lab" --build "$build" --kernel 5.10 -- true 2>&1) || rc=$?
    ((rc == 125)) && [[ $out == *"--kernel wants 6.1, 6.12 or a kernel package"* ]] ||
        fail "--kernel 5.10: status $rc ($out)"
    rc=0
    out=$("$lab" --build "$build" --smc-no-ueid c -- true 2>&1) || rc=$?
    ((rc == 125)) && [[ $out == *"--smc-no-ueid wants a or b"* ]] || fail "--smc-no-ueid c: status $rc ($out)"
    [[ ! -e $dir ]] || fail "a bad --kernel or --smc-no-ueid left $dir"
    echo "test_lab_reuse: --status, --down, a stale lab and bad use: ok"
    exit 0
fi

# --boot: the real thing, bounded (a boot takes 40-150 s under TCG on a loaded host).
"$lab" --build "$build" --status >/dev/null 2>&1 && fail "a lab is already up for $build: scripts/lab.sh --down first"
cd "$here" || exit 1
"$lab" --build "$build" --timeout 600 --up >"$tmp/up.out" 2>&1 || { cat "$tmp/up.out" >&2; fail "--up failed"; }
trap '"$lab" --build "$build" --down >/dev/null 2>&1; rm -rf "$tmp"' EXIT
dir=$("$lab" --build "$build" --status | sed -n 's/^lab: up for .* in \([^ ]*\) .*/\1/p')
[[ -d $dir ]] || fail "--status after --up named no directory"
grep -q "scripts/lab.sh --down" "$tmp/up.out" || fail "--up did not say how to stop it: $(cat "$tmp/up.out")"

# 1: output and stderr apart, the exit status, the lab's variables; leaves a mark in A and B's zcserver's pid.
start=$SECONDS
rc=0
"$lab" --build "$build" --timeout 120 -- \
    'hostname; echo to-stderr >&2; echo "$ZCPERF_LAB_SERVER"; echo mark >/tmp/lab-reuse-mark;
     "$ZCPERF_LAB_PEER" -- pgrep -x zcserver; exit 7' \
    >"$tmp/1.out" 2>"$tmp/1.err" || rc=$?
((rc == 7)) || fail "the first COMMAND's status was $rc, not 7: $(cat "$tmp/1.out" "$tmp/1.err")"
[[ $(sed -n 1p "$tmp/1.out") == lab-a ]] || fail "the first COMMAND did not run in A: $(cat "$tmp/1.out")"
[[ $(sed -n 2p "$tmp/1.out") == 198.18.1.2:* ]] || fail "ZCPERF_LAB_SERVER not set: $(cat "$tmp/1.out")"
zc=$(sed -n 3p "$tmp/1.out")
[[ $zc =~ ^[0-9]+$ ]] || fail "no zcserver pid from B: $(cat "$tmp/1.out")"
grep -qx to-stderr "$tmp/1.err" || fail "stderr did not come back on stderr: $(cat "$tmp/1.err")"
grep -q to-stderr "$tmp/1.out" && fail "stderr came back on stdout"
echo "test_lab_reuse: first COMMAND in $((SECONDS - start)) s (no boot)"

# 2: the same guests (A's mark, B's zcserver), and a real test across the link.
rc=0
"$lab" --build "$build" --timeout 120 -- \
    'cat /tmp/lab-reuse-mark; "$ZCPERF_LAB_PEER" -- pgrep -x zcserver;
     zcperf -H $ZCPERF_LAB_SERVER -T tcp -l 2 -o json' \
    >"$tmp/2.out" 2>"$tmp/2.err" || rc=$?
((rc == 0)) || fail "the second COMMAND failed ($rc): $(cat "$tmp/2.err")"
[[ $(sed -n 1p "$tmp/2.out") == mark ]] || fail "the second COMMAND ran in another A (no mark)"
zc2=$(sed -n 2p "$tmp/2.out")
[[ $zc2 == "$zc" ]] || fail "B's zcserver changed between COMMANDs ($zc, then $zc2)"
grep -q '"throughput_gbps"' "$tmp/2.out" || fail "zcperf gave no result: $(tail -n 5 "$tmp/2.err")"

# A COMMAND past its --timeout: 124, and the lab stays up.
rc=0
"$lab" --build "$build" --timeout 3 -- 'sleep 30' >/dev/null 2>&1 || rc=$?
((rc == 124)) || fail "a COMMAND past --timeout gave $rc, not 124"
"$lab" --build "$build" --status >/dev/null || fail "the lab went down after a COMMAND's --timeout"

"$lab" --build "$build" --down >"$tmp/down.out" 2>&1 || fail "--down failed: $(cat "$tmp/down.out")"
[[ ! -e $dir ]] || fail "--down left $dir"
pgrep -f -- "addr.path=$dir/link.sock" >/dev/null && fail "--down left a QEMU of $dir running"
# eth1's host taps and bridge (lab.sh's offload_up) name the lab's directory in the bridge's alias
grep -lsF -- ": $dir" /sys/class/net/*/ifalias && fail "--down left eth1's host bridge of $dir"
"$lab" --build "$build" --status >/dev/null 2>&1 && fail "--status says up after --down"
echo "test_lab_reuse: --up, two COMMANDs, a --timeout, --down: ok"
