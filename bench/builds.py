#!/usr/bin/python3
"""Two builds of zcperf side by side: did a change cost the hot loops anything? For each case
(workload, transport, message size), N rounds; each round runs the old and the new build once, in an
order that flips every round (a drift in the machine's load falls on both), on the same pinning
(client CPU 0, server CPU 1, embedded server, loopback). Prints per case the median throughput of each
build, the ratio new / old of the medians and the geometric mean of the rounds' ratios with its 95 %
t-interval (on the logs), and the same for the sender's process service demand (old / new, so that
above 1 is better for both). The goal for a refactor is >= 0.98x.

    bench/builds.py OLD_ZCPERF NEW_ZCPERF                          # 5 rounds x 3 s x 6 cases: ~3.5 min
    bench/builds.py old/zcperf build/zcperf --rounds 9 --cases stream:tcp:64K,rr:tcp:1

A case is WORKLOAD:TRANSPORT:SIZE (zcperf's -t, -T and -m). Every run goes to the CSV
(default bench/out/builds-<timestamp>.csv)."""
import argparse
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import irq_sweep_stats  # noqa: E402
import zclib  # noqa: E402

# The loops a refactor of kinds, counters or reports can touch: TCP copy at two sizes, MSG_ZEROCOPY
# (its completion counters), UDP (its own counters), request/response and connect/request/response.
DEFAULT_CASES = "stream:tcp:64K,stream:tcp:1M,stream:tcp-msgzc:1M,stream:udp:1472,rr:tcp:1,crr:tcp:1"
TRANSACTIONS = ("rr", "crr")  # shown per transaction: a transaction moves one message each way
FIELDS = ["round", "case", "build", "throughput_gbps", "send_proc_sd_us_per_kb", "recv_proc_sd_us_per_kb"]


def run(zcperf, case, duration, cpus):
    workload, transport, size = case.split(":")
    cmd = [zcperf, "-t", workload, "-T", transport, "-m", size, "-l", str(duration), "--cpu", cpus, "-o", "json"]
    r = zclib.run_zcperf(cmd, duration)
    return {"throughput_gbps": r["throughput_gbps"], "transactions": workload in TRANSACTIONS, "size": r["message_size"],
            "send_proc_sd_us_per_kb": r["local"]["process_service_demand_us_per_kb"],
            "recv_proc_sd_us_per_kb": r["remote"]["process_service_demand_us_per_kb"]}


def line(name, old, new, ratios, lower_is_better=False):
    """One figure's medians, their ratio (new / old, or old / new where lower is better) and the rounds' ratios."""
    st = irq_sweep_stats.ratio_stats(ratios)
    lo, hi = st["ci"]
    mo, mn = statistics.median(old), statistics.median(new)
    r = (mo / mn if mn else None) if lower_is_better else (mn / mo if mo else None)
    return (f"{name:<11} {zclib.fmt(mo, '.4g'):>9} {zclib.fmt(mn, '.4g'):>9} {zclib.fmt(r, '.3f'):>7}"
            f" {zclib.fmt(st['gmean'], '.3f'):>7} [{zclib.fmt(lo, '.3f')}, {zclib.fmt(hi, '.3f')}]")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old", help="the zcperf before the change")
    ap.add_argument("new", help="the zcperf after it")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--duration", type=int, default=3, help="seconds per run (whole seconds)")
    ap.add_argument("--cases", default=DEFAULT_CASES, help=f"WORKLOAD:TRANSPORT:SIZE,... (default {DEFAULT_CASES})")
    ap.add_argument("--cpu", default="0,1", help="client,server CPUs (zcperf's --cpu; default 0,1)")
    ap.add_argument("--csv")
    a = ap.parse_args()
    if a.rounds < 2 or a.duration < 1:
        ap.error("--rounds >= 2 (an interval needs two) and --duration >= 1")
    builds = {"old": a.old, "new": a.new}
    for b, path in builds.items():
        if not os.access(path, os.X_OK):
            sys.exit(f"builds.py: the {b} zcperf {path} is not an executable file")
    cases = [c for c in a.cases.split(",") if c]
    for c in cases:
        if c.count(":") != 2:
            ap.error(f"case '{c}' is not WORKLOAD:TRANSPORT:SIZE (e.g. stream:tcp:64K)")
    csv_path = a.csv or os.path.join(ROOT, "bench", "out", time.strftime("builds-%Y%m%d-%H%M%S.csv"))
    os.makedirs(os.path.dirname(os.path.abspath(csv_path)), exist_ok=True)
    got = {}  # (case, build) -> [run, ...], in round order
    try:
        for rnd in range(1, a.rounds + 1):
            for case in cases:
                for b in ("old", "new") if rnd % 2 else ("new", "old"):
                    print(f"[builds] round {rnd}/{a.rounds} {case} {b}", file=sys.stderr)
                    r = run(builds[b], case, a.duration, a.cpu)
                    got.setdefault((case, b), []).append(r)
                    zclib.append_row(csv_path, FIELDS, dict(r, round=rnd, case=case, build=b))
    except (zclib.Bad, subprocess.TimeoutExpired) as e:
        sys.exit(f"builds.py: {e}")
    print(f"new {a.new} / old {a.old}: {a.rounds} rounds x {a.duration} s, --cpu {a.cpu} ({time.strftime('%FT%T%z')})")
    print(f"{'case':<24} {'':<11} {'old':>9} {'new':>9} {'ratio':>7} {'gmean':>7} 95 % interval")
    for case in cases:
        old, new = got[(case, "old")], got[(case, "new")]
        # rr and crr: transactions/s and µs per transaction, from the receiver's bytes (one message each way)
        k = 1e9 / 8 / old[0]["size"] if old[0]["transactions"] else 1.0
        c = old[0]["size"] / 1024 if old[0]["transactions"] else 1.0
        unit, cunit = ("tps", "us/tran") if old[0]["transactions"] else ("Gb/s", "send us/KB")
        tput = [n["throughput_gbps"] / o["throughput_gbps"] for o, n in zip(old, new)]
        sd = [o["send_proc_sd_us_per_kb"] / n["send_proc_sd_us_per_kb"] for o, n in zip(old, new)
              if n["send_proc_sd_us_per_kb"] > 0]
        print(f"{case:<24} " + line(unit, [k * o["throughput_gbps"] for o in old], [k * n["throughput_gbps"] for n in new], tput))
        print(f"{'':<24} " + line(cunit, [c * o["send_proc_sd_us_per_kb"] for o in old],
                                  [c * n["send_proc_sd_us_per_kb"] for n in new], sd, lower_is_better=True))
    print("ratio: new / old of the medians (CPU: old / new, so above 1 is better for both); gmean: of the rounds'\n"
          "ratios with its 95 % t-interval on the logs; Gb/s counted by the receiver; CPU: the client process's\n"
          "(getrusage) per KB (1024 B) sent, or per transaction for rr and crr.")
    print(f"raw: {csv_path}")


if __name__ == "__main__":
    main()
