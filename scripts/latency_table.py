#!/usr/bin/python3
"""A latency table by message size: one column per combination, plus its ratio to a baseline.

Each combination is a set of zcperf arguments (a transport, a server, a pinning; later a memory
placement such as --buffer cuda on one side) run as `zcperf -t rr -m SIZES -o json ARGS`; rows are
the message sizes, cells the round-trip (or one-way) time in µs, and a ratio column per
combination against the baseline (the first combination unless --baseline names another), as in
the GPU-GPU / CPU-CPU tables of the field.

  scripts/latency_table.py --sizes 1..4K -l 5 \\
      --combo "pinned=--cpu 0,1" --combo "same-core=--cpu 0,0" --combo "unpinned="
  scripts/latency_table.py --combo "loopback=" --combo "veth=-H 198.18.0.2" --baseline loopback --metric p99
  scripts/latency_table.py --from "host-host=old.json" --from "gpu-gpu=gpu.json" --out bench/out/lat
  scripts/latency_table.py ... -- -P 1 --align 64          # anything after -- goes to every run
  scripts/latency_table.py --sizes 64 --combo "tcp=" --under-load 0,1,4   # columns tcp, tcp+load1, tcp+load4

--metric: mean (default), p50, p90, p99, p99.9, min, max of the RTT; --one-way halves them
(latency_us = RTT/2, OSU's and perftest's convention). Writes PREFIX.csv (one row per size, the
chosen metric and every combination's full set of percentiles), PREFIX.png (time against size, one
line per combination, with the ratios below), each run's report as PREFIX-LABEL.json, and prints the
table. Needs Debian's python3-matplotlib for the plot (hence /usr/bin/python3).
"""
import argparse
import csv
import json
import os
import re
import shlex
import subprocess
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zclib  # noqa: E402

PROG = "latency_table"
METRICS = ["mean", "p50", "p90", "p99", "p99.9", "min", "max"]


def die(msg):
    sys.exit(f"{PROG}: {msg}")


def label_and_value(text, what):
    if "=" not in text:
        die(f"{what} takes LABEL=..., got '{text}'")
    label, value = text.split("=", 1)
    label = label.strip()
    if not re.fullmatch(r"[A-Za-z0-9_.+-]+", label):
        die(f"{what} label '{label}' must be letters, digits, _ . + - (it names files)")
    return label, value


def run_combo(zcperf, label, args, sizes, extra, out_prefix):
    cmd = [zcperf, "-t", "rr", "-m", sizes, "-o", "json"] + shlex.split(args) + extra
    print(f"[{label}] " + " ".join(shlex.quote(c) for c in cmd), file=sys.stderr)
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        die(f"{label}: zcperf exited {done.returncode} without a report: {done.stderr.strip()[-1000:]}")
    with open(f"{out_prefix}-{label}.json", "w") as f:
        json.dump(report, f, indent=1)
    if done.returncode != 0 or report.get("errors"):
        die(f"{label}: zcperf failed (exit {done.returncode}): " + "; ".join(report.get("errors") or [done.stderr.strip()]))
    return report


def load_label(label, streams):
    """The column of a combination's results beside `streams` --under-load streams (0: the combination alone)."""
    return label if streams == 0 else f"{label}+load{streams}"


def rr_by_size(label, report):
    """column -> {message size -> {metric: RTT µs}, plus the transactions behind it}: one column per
    --under-load count the report holds (LABEL alone, LABEL+loadN beside N streams, with their Gb/s)."""
    out = {}
    for r in report.get("results", []):
        if r.get("test") != "rr" or "rr" not in r:
            die(f"{label}: the report holds a {r.get('test')} result, not rr")
        row = dict(r["rr"]["rtt_us"])
        row["transactions"] = r["rr"]["transactions"]
        row["transactions_per_s"] = r["rr"]["transactions_per_s"]
        load = r.get("under_load", {})
        if load.get("streams"):
            row["load_gbps"] = load["throughput_gbps"]
        column = out.setdefault(load_label(label, load.get("streams", 0)), {})
        size = int(r["message_size"])
        if size in column:
            die(f"{label}: two results for {size} B (several -T or -t in one combination?): make each its own --combo")
        column[size] = row
    if not out:
        die(f"{label}: no rr results in the report")
    return out


def build_rows(tables, labels, baseline, metric, scale):
    sizes = sorted({s for t in tables.values() for s in t})
    rows = []
    for s in sizes:
        row = {"message_size": s}
        for lab in labels:
            cell = tables[lab].get(s)
            row[lab] = cell[metric] * scale if cell else None
        for lab in labels:
            if lab == baseline:
                continue
            b, v = row[baseline], row[lab]
            row[f"{lab}/{baseline}"] = v / b if v is not None and b else None
        for lab in labels:  # every percentile, for whoever reads the CSV later
            cell = tables[lab].get(s) or {}
            for m in METRICS:
                row[f"{lab}_{m}_us"] = cell[m] * scale if m in cell else None
            row[f"{lab}_transactions"] = cell.get("transactions")
            if "load_gbps" in cell:  # --under-load: the streams beside it, counted by their receiver
                row[f"{lab}_load_gbps"] = cell["load_gbps"]
        rows.append(row)
    return rows


def print_table(rows, labels, baseline, metric, one_way):
    ratios = [f"{lab}/{baseline}" for lab in labels if lab != baseline]
    what = ("one-way latency (RTT/2)" if one_way else "round-trip time") + f", {metric}, µs"
    print(f"{what}; ratio columns: each combination over the baseline '{baseline}'")
    head = ["size"] + labels + ratios
    widths = [max(8, len(h)) for h in head]
    print("  ".join(h.rjust(w) for h, w in zip(head, widths)))
    for r in rows:
        cells = [zclib.size_label(r["message_size"])] + [zclib.fmt(r[lab]) for lab in labels] + [zclib.fmt(r[q], ".3g") for q in ratios]
        print("  ".join(c.rjust(w) for c, w in zip(cells, widths)))


def write_csv(path, rows):
    cols = list(rows[0])
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if v is None else (f"{v:.10g}" if isinstance(v, float) else v)) for k, v in r.items()})


def plot(path, rows, labels, baseline, metric, one_way, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 7.5), sharex=True, gridspec_kw={"height_ratios": [3, 1.4]})
    sizes = [r["message_size"] for r in rows]
    for lab in labels:
        pts = [(r["message_size"], r[lab]) for r in rows if r[lab] is not None]
        top.plot([x for x, _ in pts], [y for _, y in pts], marker="o", label=lab + (" (baseline)" if lab == baseline else ""))
        if lab != baseline:
            q = [(r["message_size"], r[f"{lab}/{baseline}"]) for r in rows if r[f"{lab}/{baseline}"] is not None]
            bottom.plot([x for x, _ in q], [y for _, y in q], marker="o", label=f"{lab}/{baseline}")
    top.set_xscale("log", base=2)
    top.set_yscale("log")
    top.set_ylabel(("one-way latency (RTT/2)" if one_way else "round-trip time") + f", {metric}, µs")
    top.grid(True, which="both", alpha=0.3)
    top.legend()
    bottom.axhline(1.0, color="grey", lw=0.8)
    bottom.set_ylabel(f"ratio to {baseline}")
    bottom.set_xlabel("message size, bytes (one message each way per transaction)")
    bottom.set_xticks(sizes)
    bottom.set_xticklabels([zclib.size_label(s) for s in sizes], rotation=45)
    bottom.grid(True, alpha=0.3)
    if len(labels) > 1:
        bottom.legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(prog=zclib.command_name(), description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--combo", action="append", default=[], metavar="LABEL=ARGS",
                    help="a column: a label and the zcperf arguments that make it (may be empty)")
    ap.add_argument("--from", dest="sources", action="append", default=[], metavar="LABEL=REPORT.json",
                    help="a column from a saved zcperf -t rr -o json report instead of a run")
    ap.add_argument("--baseline", help="the label the ratios divide by (default: the first column)")
    ap.add_argument("--sizes", default="1..4K", help="zcperf -m: 1,64,4K or a doubling range 1..1M (default 1..4K)")
    ap.add_argument("-l", "--duration", default="2", help="seconds per size and combination (default 2)")
    ap.add_argument("--metric", default="mean", choices=METRICS, help="which figure the table shows (default mean)")
    ap.add_argument("--one-way", action="store_true", help="show RTT/2 (OSU's and perftest's latency) instead of RTT")
    ap.add_argument("--out", default="latency", help="output prefix (default: latency)")
    ap.add_argument("--zcperf", help="zcperf binary (default: the installed one, a checkout's build/zcperf, or PATH)")
    ap.add_argument("--under-load", metavar="N,N..[:TRANSPORT]",
                    help="also run each combination beside N stream connections (zcperf --under-load): a column "
                         "LABEL+loadN per N (0: LABEL alone), with the streams' Gb/s in the CSV")
    ap.add_argument("--no-plot", action="store_true", help="CSV and table only")
    args, extra = ap.parse_known_args()
    if extra and extra[0] == "--":
        extra = extra[1:]
    elif extra:
        die(f"unknown options {extra}; put zcperf options for every run after --")

    columns = [("run",) + label_and_value(c, "--combo") for c in args.combo] + \
              [("file",) + label_and_value(s, "--from") for s in args.sources]
    if not columns:
        die("give at least one --combo LABEL=ARGS or --from LABEL=REPORT.json")
    names = [c[1] for c in columns]
    if len(set(names)) != len(names):
        die(f"labels must differ: {names}")
    if args.baseline and not any(re.fullmatch(re.escape(n) + r"(\+load[0-9]+)?", args.baseline) for n in names):
        die(f"--baseline '{args.baseline}' is not one of the columns {names} (or LABEL+loadN with --under-load)")
    zcperf = args.zcperf or zclib.program("zcperf")
    if any(kind == "run" for kind, _, _ in columns) and not (zcperf and os.access(zcperf, os.X_OK)):
        die(zclib.missing_program(args.zcperf or "zcperf", "--zcperf"))
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)

    load = ["--under-load", args.under_load] if args.under_load else []
    tables, commands = {}, []
    for kind, label, value in columns:
        if kind == "run":
            report = run_combo(zcperf, label, value, args.sizes, ["-l", args.duration] + load + extra, args.out)
        else:
            try:
                with open(value) as f:
                    report = json.load(f)
            except (OSError, json.JSONDecodeError) as e:
                die(f"{label}: cannot read {value}: {e}")
        tables.update(rr_by_size(label, report))
        commands.append(f"{label}: {report.get('run', {}).get('command_line', value)}")
    labels = list(tables)
    baseline = args.baseline or labels[0]
    if baseline not in labels:
        die(f"--baseline '{baseline}' is not one of the columns {labels}")

    scale = 0.5 if args.one_way else 1.0
    rows = build_rows(tables, labels, baseline, args.metric, scale)
    write_csv(args.out + ".csv", rows)
    print_table(rows, labels, baseline, args.metric, args.one_way)
    written = [args.out + ".csv"]
    if not args.no_plot:
        try:
            plot(args.out + ".png", rows, labels, baseline, args.metric, args.one_way, "\n".join(commands))
            written.append(args.out + ".png")
        except ImportError:
            die("matplotlib is missing: apt-get install python3-matplotlib (or use --no-plot)")
    print("wrote " + " ".join(written), file=sys.stderr)


if __name__ == "__main__":
    main()
