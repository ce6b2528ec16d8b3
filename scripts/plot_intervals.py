#!/usr/bin/python3
"""Throughput and both sides' CPU over time, from zcperf's intervals (--interval): one PNG, one run or
several overlaid (one line each per result; a run made with -i has its repetitions one after another).

    zcperf -l 30 -D 0.5 -o json > a.json
    scripts/plot_intervals.py intervals.png a.json [b.json ...] [--label NAME ...]

Reads -o json reports or --json-stream output. The top panel is the counting side's rate (Gb/s;
rr: transactions/s; msgrate: messages/s), stalls (a whole interval without a byte) shaded; the bottom
panel is each side's whole-host CPU % (local solid, remote dashed). matplotlib (Debian's
python3-matplotlib) is imported only to draw."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zclib  # noqa: E402


def series(result):
    """(x edges, rate, local cpu, remote cpu, stall spans, unit) of one result; repetitions follow on."""
    rows = result.get("intervals")
    if not rows:
        raise zclib.Bad(f"{zclib.result_label(result)}: no intervals (run zcperf with --interval SECS)")
    test = result["test"]
    key, unit = {"rr": ("transactions_per_s", "transactions/s"),
                 "msgrate": ("messages_per_s", "messages/s")}.get(test, ("throughput_gbps", "Gb/s"))
    xs, rate, lcpu, rcpu, stalls = [], [], [], [], []
    offset, run, run_end = 0.0, None, 0.0
    for row in rows:
        if row.get("iteration", 1) != run:  # a repetition's times start again at 0
            offset += run_end
            run = row.get("iteration", 1)
        start, end = offset + row["start_s"], offset + row["end_s"]
        run_end = row["end_s"]
        xs.append((start, end))
        rate.append(row[key])
        lcpu.append(row["local"]["cpu_util_pct"] if row.get("local") else None)
        rcpu.append(row["remote"]["cpu_util_pct"] if row.get("remote") else None)
        if row.get("stall"):
            stalls.append((start, end))
    return xs, rate, lcpu, rcpu, stalls, unit


def steps(xs, ys):
    """A step line: each value held over its interval (None leaves a gap)."""
    px, py = [], []
    for (a, b), y in zip(xs, ys):
        px += [a, b]
        py += [y, y] if y is not None else [float("nan")] * 2
    return px, py


def main():
    ap = argparse.ArgumentParser(prog=zclib.command_name(), description=__doc__.split("\n\n")[0])
    ap.add_argument("png", help="the picture to write")
    ap.add_argument("reports", nargs="+", help="zcperf -o json reports or --json-stream output")
    ap.add_argument("--label", action="append", default=[], help="a name per report, in order (default: its file)")
    ap.add_argument("--title", default="zcperf intervals")
    a = ap.parse_args()
    if a.label and len(a.label) != len(a.reports):
        ap.error(f"{len(a.label)} --label for {len(a.reports)} reports: give one per report, or none")
    lines = []
    try:
        for i, path in enumerate(a.reports):
            name = a.label[i] if a.label else os.path.basename(path)
            results = zclib.load_results(path)
            for r in results:
                label = name if len(results) == 1 else f"{name}: {zclib.result_label(r)}"
                lines.append((label, series(r)))
    except (OSError, zclib.Bad, KeyError) as e:
        sys.exit(f"plot_intervals.py: {e}")
    units = {s[5] for _, s in lines}
    if len(units) > 1:
        sys.exit("plot_intervals.py: the reports mix " + " and ".join(sorted(units)) + "; plot them apart")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_intervals.py: needs matplotlib (apt-get install python3-matplotlib)")
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(10, 6.5))
    for n, (label, (xs, rate, lcpu, rcpu, stalls, unit)) in enumerate(lines):
        color = f"C{n % 10}"
        top.plot(*steps(xs, rate), color=color, label=label)
        for a0, b0 in stalls:
            top.axvspan(a0, b0, color=color, alpha=0.15, lw=0)
        bottom.plot(*steps(xs, lcpu), color=color, label=f"{label} local")
        bottom.plot(*steps(xs, rcpu), color=color, ls="--", label=f"{label} remote")
    top.set_ylabel(units.pop())
    top.set_ylim(bottom=0)
    top.set_title(a.title + " (shaded: stalls, nothing moved)")
    top.legend(fontsize="small")
    bottom.set_ylabel("CPU % of each side's host")
    bottom.set_ylim(0, 100)
    bottom.set_xlabel("seconds from the start of the measured interval")
    bottom.legend(fontsize="small", ncol=2, loc="lower left")
    fig.tight_layout()
    fig.savefig(a.png, dpi=110)
    print(f"wrote {a.png}")


if __name__ == "__main__":
    main()
