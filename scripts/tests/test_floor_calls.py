#!/usr/bin/python3
"""CI's cheap guard of zcperf's cost per operation: zcperf's stream, UDP and rr loops make no more system calls per operation
than the kernel's floor for the same path (bench/stream_floor.c, udp_floor.c, rr_floor.c). Both run under
strace -f for a short test on loopback; in each side's data thread (the one that makes the most data
calls), every system call between its first and its last data call is counted, and divided by the
operations it did: messages sent (bytes sent / -m) for a sender and for both sides of rr, data-returning
receive calls for a stream receiver. Under strace the loops run slowly, which changes no count per
operation a loop makes by design; a regression that adds a call per message (a poll, a getsockopt, a
clock that is not the vDSO's) adds 1. Counts only, never speeds: CI's load cannot make it fail.

    scripts/tests/test_floor_calls.py ZCPERF FLOORS_DIR     (exit 0 pass, 1 fail, 77 skipped: no strace,
                                                             or ptrace not permitted here)
"""
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

SLACK = 0.15  # calls per operation zcperf may make beyond its floor: a timeout's EAGAIN now and then
SEND = {"sendto", "sendmsg", "send", "sendfile", "sendmmsg"}  # no read/write: the loops use neither, setup does
RECV = {"recvfrom", "recvmsg", "recv", "recvmmsg"}
DURATION = "0.5"
MIN_OPS = 20  # operations per side for a count per operation to mean anything

# path: zcperf's arguments, the floor's command (after DIR/), the message size, and per side how an
# operation is counted: "sent" (bytes sent / size) or "received" (receive calls that returned data).
PATHS = {
    "tcp": (["-T", "tcp"], ["stream_floor", "send,recv"], 1 << 20, {"tx": "sent", "rx": "received"}),
    "rx-trunc": (["-T", "tcp", "--rx", "trunc"], ["stream_floor", "send,trunc"], 1 << 20,
                 {"tx": "sent", "rx": "received"}),
    "udp": (["-T", "udp"], ["udp_floor", "send,recv"], 1472, {"tx": "sent", "rx": "received"}),
    "udp-mmsg": (["-T", "udp", "--rx", "mmsg"], ["udp_floor", "send,mmsg"], 1472, {"tx": "sent", "rx": "received"}),
    "udp-gso": (["-T", "udp-gso"], ["udp_floor", "gso,recv"], 44 * 1472, {"tx": "sent", "rx": "received"}),
    "rr": (["-t", "rr"], ["rr_floor", "tcp"], 1, {"tx": "sent", "rx": "sent"}),
    "udp-rr": (["-t", "rr", "-T", "udp"], ["rr_floor", "udp"], 1, {"tx": "sent", "rx": "sent"}),
}

CALL = re.compile(r"^(\d+)\s+(\w+)\((.*?)(\) += (-?\d+|\?)|<unfinished \.\.\.>)")
RESUMED = re.compile(r"^(\d+)\s+<\.\.\. (\w+) resumed>.*?= (-?\d+)")


def calls_by_thread(log):
    """Each thread's system calls in order, as [name, return value or None while unknown]."""
    threads = collections.defaultdict(list)
    pending = {}
    for line in log.splitlines():
        m = CALL.match(line)
        if m:
            call = [m.group(2), int(m.group(5)) if m.group(5) not in (None, "?") else None]
            threads[m.group(1)].append(call)
            if m.group(4).startswith("<unfinished"):
                pending[m.group(1)] = call
            continue
        m = RESUMED.match(line)
        if m and m.group(1) in pending:
            pending.pop(m.group(1))[1] = int(m.group(3))
    return threads


def side_figures(calls, size, how):
    """(calls per operation, operations) over the thread's loop: its first to its last data call."""
    data = [i for i, (name, _) in enumerate(calls) if name in SEND | RECV]
    window = calls[data[0]:data[-1] + 1]
    if how == "sent":
        ops = sum(r for name, r in window if name in SEND and r and r > 0) / size
    else:
        ops = sum(1 for name, r in window if name in RECV and r and r > 0)
    return (len(window) / ops if ops else float("inf")), ops


def data_threads(threads):
    """tx and rx: the two threads with the most data calls; tx sends first (the sender, rr's initiator)."""
    def count(t, kinds):
        return sum(1 for name, r in threads[t] if name in kinds and r and r > 0)
    tx = max(threads, key=lambda t: count(t, SEND))
    rest = [t for t in threads if t != tx]
    rx = max(rest, key=lambda t: count(t, RECV) + count(t, SEND))
    if count(tx, SEND) == count(rx, SEND) or count(rx, RECV) > 0 and count(tx, RECV) > 0:
        # rr: both send and receive; the initiator's first data call is a send
        first = {t: next(n for n, _ in threads[t] if n in SEND | RECV) for t in (tx, rx)}
        if first[tx] in RECV and first[rx] in SEND:
            tx, rx = rx, tx
    return tx, rx


def traced(cmd, tmp, name):
    log = os.path.join(tmp, name + ".strace")
    p = subprocess.run(["strace", "-f", "-qq", "-o", log] + cmd, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} under strace exited {p.returncode}: {p.stderr[-1500:]}")
    with open(log) as f:
        threads = calls_by_thread(f.read())
    return threads


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    zcperf, floors = sys.argv[1:]
    if not shutil.which("strace"):
        print("SKIP: no strace (apt-get install strace)")
        return 77
    if subprocess.run(["strace", "-qq", "-o", os.devnull, "true"], capture_output=True).returncode != 0:
        print("SKIP: strace cannot trace here (ptrace not permitted)")
        return 77
    cpus = ["0", "1"] if (os.cpu_count() or 1) >= 2 else ["-1", "-1"]
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        for path, (args, floor, size, how) in PATHS.items():
            pin = ["--cpu", ",".join(cpus)] if cpus[0] != "-1" else []
            figures = {}
            for who, cmd in (("zcperf", [zcperf] + args + ["-l", DURATION, "-o", "json"] + pin),
                             ("floor", [os.path.join(floors, floor[0]), floor[1], DURATION, str(size)] + cpus)):
                # Too few operations to tell (a loaded host stalls a traced run now and then): run it again,
                # twice at most. A sample's size only; the counts per operation are never retried.
                for _ in range(3):
                    threads = traced(cmd, tmp, f"{path}-{who}")
                    tx, rx = data_threads(threads)
                    figures[who] = {side: side_figures(threads[t], size, how[side])
                                    for side, t in (("tx", tx), ("rx", rx))}
                    if min(ops for _, ops in figures[who].values()) >= MIN_OPS:
                        break
            for side in ("tx", "rx"):
                (z, zops), (f, fops) = figures["zcperf"][side], figures["floor"][side]
                ok = zops >= MIN_OPS and fops >= MIN_OPS and z <= f + SLACK
                print(f"{path:<8} {side}: zcperf {z:.3f} calls/op ({zops:.0f} ops), floor {f:.3f} ({fops:.0f} ops)"
                      f"{'' if ok else '  FAIL'}")
                if not ok:
                    failed.append(f"{path} {side}")
    if failed:
        print(f"FAIL: more system calls per operation than the floor (+{SLACK}), or too few operations to "
              f"tell: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
