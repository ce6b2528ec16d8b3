#!/usr/bin/python3
"""What --interval costs: zcperf with `--interval 0.1` against zcperf without, same
pinning (client CPU 0, server CPU 1, embedded server on loopback), in alternating rounds (each round
runs both, in an order that flips every round, so drift falls on both alike). Prints, per size, the
median of each round's throughput ratio (with / without; the target is >= 0.99) and of the service
demand ratios, and the interval clock's error at the edges: how late each sampler read its counters
after the edge it aimed at (start_s - index x interval, both sides, every edge but 0).

    bench/intervals.py                              # 5 rounds x 5 s x 64K,1M: about 2 min
    bench/intervals.py --rounds 9 --duration 10 --sizes 64K,1M,4M --interval 0.1

ZCPERF=/path/to/zcperf runs another binary than build/zcperf. Every run's figures go to the CSV
(default bench/out/intervals-<timestamp>.csv)."""
import argparse
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import zclib  # noqa: E402

FIELDS = ["round", "size", "intervals", "throughput_gbps", "local_sd_us_per_kb", "remote_sd_us_per_kb",
          "interval_rows", "edge_late_median_ms", "edge_late_max_ms"]


def run(zcperf, size, duration, interval):
    cmd = [zcperf, "-m", str(size), "-l", str(duration), "--cpu", "0,1", "-o", "json"]
    if interval:
        cmd += ["--interval", str(interval)]
    r = zclib.run_zcperf(cmd, duration)
    late = []
    for row in r.get("intervals", []):
        for side in ("local", "remote"):
            s = row.get(side)
            if s and s["index"] > 0:
                late.append((s["start_s"] - s["index"] * interval) * 1e3)
    return {"throughput_gbps": r["throughput_gbps"],
            "local_sd_us_per_kb": r["local"]["service_demand_us_per_kb"],
            "remote_sd_us_per_kb": r["remote"]["service_demand_us_per_kb"],
            "interval_rows": len(r.get("intervals", [])), "late": late}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--duration", type=float, default=5)
    ap.add_argument("--sizes", default="64K,1M")
    ap.add_argument("--interval", type=float, default=0.1)
    ap.add_argument("--csv")
    a = ap.parse_args()
    if a.rounds < 1 or a.duration <= 0 or a.interval < 0.01 or a.interval > a.duration:
        ap.error("--rounds >= 1, --duration > 0, and 0.01 <= --interval <= --duration")
    zcperf = os.environ.get("ZCPERF", os.path.join(ROOT, "build", "zcperf"))
    if not os.access(zcperf, os.X_OK):
        sys.exit(f"intervals.py: no zcperf at {zcperf} (build it, or set ZCPERF)")
    sizes = zclib.parse_sizes(a.sizes)
    csv_path = a.csv or os.path.join(ROOT, "bench", "out", time.strftime("intervals-%Y%m%d-%H%M%S.csv"))
    os.makedirs(os.path.dirname(csv_path), exist_ok=True)
    ratios = {s: {"tput": [], "lsd": [], "rsd": []} for s in sizes}
    late = {s: [] for s in sizes}
    try:
        for rnd in range(1, a.rounds + 1):
            for size in sizes:
                order = (0, a.interval) if rnd % 2 else (a.interval, 0)
                got = {}
                for iv in order:
                    print(f"[intervals] round {rnd}/{a.rounds} {zclib.size_label(size)} "
                          f"{'--interval ' + str(iv) if iv else 'no intervals'}", file=sys.stderr)
                    got[iv] = run(zcperf, size, a.duration, iv)
                    row = dict(got[iv], round=rnd, size=size, intervals=iv)
                    if got[iv]["late"]:
                        row["edge_late_median_ms"] = statistics.median(got[iv]["late"])
                        row["edge_late_max_ms"] = max(got[iv]["late"])
                    zclib.append_row(csv_path, FIELDS, row)
                off, on = got[0], got[a.interval]
                ratios[size]["tput"].append(on["throughput_gbps"] / off["throughput_gbps"])
                ratios[size]["lsd"].append(on["local_sd_us_per_kb"] / off["local_sd_us_per_kb"])
                ratios[size]["rsd"].append(on["remote_sd_us_per_kb"] / off["remote_sd_us_per_kb"])
                late[size] += on["late"]
    except (zclib.Bad, subprocess.TimeoutExpired, ValueError, KeyError) as e:
        sys.exit(f"intervals.py: {e}")
    print(f"--interval {a.interval:g} vs none: {a.rounds} rounds x {a.duration:g} s, client CPU 0, server CPU 1, "
          f"loopback; medians of the per-round ratios (with / without)")
    print(f"{'size':>6} {'Gb/s ratio':>10} {'(min..max)':>14} {'local SD':>9} {'remote SD':>9} "
          f"{'edge late ms: median':>21} {'p99':>7} {'max':>7}")
    for s in sizes:
        t = ratios[s]["tput"]
        lt = sorted(late[s])
        p99 = lt[min(len(lt) - 1, int(0.99 * len(lt)))] if lt else None
        print(f"{zclib.size_label(s):>6} {statistics.median(t):>10.3f} {min(t):>6.3f}..{max(t):<6.3f} "
              f"{statistics.median(ratios[s]['lsd']):>9.3f} {statistics.median(ratios[s]['rsd']):>9.3f} "
              f"{zclib.fmt(statistics.median(lt) if lt else None, '.3f'):>21} {zclib.fmt(p99, '.3f'):>7} "
              f"{zclib.fmt(max(lt) if lt else None, '.3f'):>7}")
    print(f"samples: {csv_path}")


if __name__ == "__main__":
    main()
