#!/usr/bin/python3
"""Copy vs zero-copy, side by side: runs zcperf once over several transports and message sizes (or
reads a saved JSON report) and draws throughput and both sides' service demand against message size,
one line per path, with the ratio to the first (baseline) path.

  scripts/compare_paths.py -T tcp,tcp-sendfile,tcp-msgzc,tcp-uringzc -m 4K..4M --cpu 0,1 -l 5
  scripts/compare_paths.py -T udp,udp-gso,udp-msgzc --gso-size 1472 -m 16K,63K -b 2G --rx gro
  scripts/compare_paths.py --from run.json          # plot a report made earlier (zcperf -o json)
  scripts/compare_paths.py -T tcp,tcp-msgzc -m 64K,1M --explain --cpu 0,1 -l 5   # ... and why

Writes OUT.json (the zcperf report), OUT.csv (one row per path and size) and OUT.png. With --explain
(zcperf's: each side's CPU by kernel category), the CSV gains each side's category µs/KB, the deltas
against the baseline path are printed, and OUT-explain.png has a stacked bar per path and size, per side.
Needs Debian's python3-matplotlib (it uses /usr/bin/python3 on purpose).
"""
import argparse
import csv
import json
import os
import subprocess
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zclib  # noqa: E402



def run_zcperf(args, extra):
    zcperf = args.zcperf or zclib.program("zcperf")
    if not zcperf or not os.access(zcperf, os.X_OK):
        sys.exit(f"compare_paths: {zclib.missing_program(args.zcperf or 'zcperf', '--zcperf')}")
    cmd = [zcperf, "-T", args.transports, "-m", args.sizes, "-o", "json"] + extra
    print("running:", " ".join(cmd), file=sys.stderr)
    done = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"compare_paths: zcperf failed (exit {done.returncode}); its report: {done.stdout[-2000:]}")
    return json.loads(done.stdout)


def udp_columns(r):
    """UDP paths: the receiver's loss and jitter, datagrams per sender call, GRO's coalesced buffers."""
    sides = [r["local"], r["remote"]]
    rx = next((s["udp"] for s in sides if s.get("udp", {}).get("rx_mode")), {})
    tx_side = next((s for s in sides if s.get("role") == "send"), {})
    tx = tx_side.get("udp", {})
    calls = tx_side.get("ops", 0)
    return {
        "udp_loss_pct": rx.get("loss_pct", ""),
        "udp_jitter_ms": rx.get("jitter_ms", ""),
        "udp_datagrams_per_call": tx["datagrams"] / calls if tx.get("datagrams") and calls else "",
        "udp_gro_buffers": rx.get("gro_buffers", ""),
    }


def rows_of(report):
    rows = []
    for r in report["results"]:
        label = r["transport"] + ("" if r.get("rx", "copy") == "copy" else "/" + r["rx"])
        base = r.get("baseline") or {}
        rows.append({
            "path": label,
            "test": r["test"],
            "message_size": r["message_size"],
            "throughput_gbps": r["throughput_gbps"],
            "local_sd_us_per_kb": r["local"]["service_demand_us_per_kb"],
            "remote_sd_us_per_kb": r["remote"]["service_demand_us_per_kb"],
            "local_proc_sd_us_per_kb": r["local"]["process_service_demand_us_per_kb"],
            "remote_proc_sd_us_per_kb": r["remote"]["process_service_demand_us_per_kb"],
            "zc_copied_pct": r["local"]["zerocopy"].get("copied_pct", ""),
            "throughput_ratio": base.get("throughput_ratio", 1.0 if not base else ""),
            "local_sd_ratio": base.get("local_service_demand_ratio", 1.0 if not base else ""),
            **udp_columns(r),
        })
        for side in ("local", "remote"):
            e = r[side].get("explain") or {}
            for cat, v in (e.get("per_unit") or {}).items():
                rows[-1][f"{side}_explain_{cat}"] = v
            for cat, v in (e.get("delta_vs_baseline_per_unit") or {}).items():
                rows[-1][f"{side}_explain_delta_{cat}"] = v
    return rows


def explained(rows):
    return any(k.startswith("local_explain_") for r in rows for k in r)


def delta_text(r, side):
    """'data copy −0.140, zero-copy bookkeeping +0.030' from a row's deltas against the baseline."""
    parts = [(k[len(side) + len("_explain_delta_"):], v) for k, v in r.items()
             if k.startswith(f"{side}_explain_delta_") and abs(v) >= 0.0005]
    parts.sort(key=lambda kv: -abs(kv[1]))
    return ", ".join(f"{k} {'−' if v < 0 else '+'}{abs(v):.3f}" for k, v in parts)


def plot_explain(rows, png, title):
    """A stacked bar per path and size, per side: each category's µs per unit, as zcperf --explain has it."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # zcperf's report order, other processes' user time on top (on a shared host it can dwarf the rest)
    order = [c for c in zclib.EXPLAIN_CATEGORIES if c != "other_process"] + ["other_process"]
    found = {k[len("local_explain_"):] for r in rows for k in r
             if k.startswith("local_explain_") and not k.startswith("local_explain_delta_")}
    cats = [c for c in order if c in found] + sorted(found - set(order))
    labels = [f"{r['path']}\n{zclib.size_label(r['message_size'])}" for r in rows]
    fig, axes = plt.subplots(1, 2, figsize=(max(10, 1.4 * len(rows) * 2), 6))
    colors = plt.get_cmap("tab20").colors
    for ax, side in zip(axes, ("local", "remote")):
        bottom = [0.0] * len(rows)
        for i, c in enumerate(cats):
            vals = [r.get(f"{side}_explain_{c}", 0.0) or 0.0 for r in rows]
            if not any(vals):
                continue
            ax.bar(range(len(rows)), vals, bottom=bottom, label=c, color=colors[i % len(colors)])
            bottom = [b + v for b, v in zip(bottom, vals)]
        ax.set_xticks(range(len(rows)))
        ax.set_xticklabels(labels, fontsize=8)
        ax.set_ylabel("CPU per unit, µs (stream: per KB; rr: per transaction)")
        ax.set_title(f"{side} side: where the CPU went", fontsize=10)
        ax.grid(True, axis="y", alpha=0.3)
    axes[1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def plot(rows, png, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = list(dict.fromkeys(r["path"] for r in rows))
    fig, axes = plt.subplots(1, 3, figsize=(16, 5))
    panels = [("throughput_gbps", "throughput, Gb/s (receiver's count)"),
              ("local_sd_us_per_kb", "local (sender) service demand, µs/KB"),
              ("remote_sd_us_per_kb", "remote (receiver) service demand, µs/KB")]
    sizes = sorted({r["message_size"] for r in rows})
    for ax, (key, label) in zip(axes, panels):
        for p in paths:
            pts = sorted((r["message_size"], r[key]) for r in rows if r["path"] == p)
            ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", label=p)
        ax.set_xscale("log", base=2)
        ax.set_xticks(sizes)
        ax.set_xticklabels([zclib.size_label(s) for s in sizes], rotation=45)
        ax.set_xlabel("message size (bytes per call)")
        ax.set_title(label, fontsize=10)
        ax.grid(True, alpha=0.3)
        ax.set_ylim(bottom=0)
    axes[0].legend()
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def main():
    ap = argparse.ArgumentParser(prog=zclib.command_name(), description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-T", "--transports", default="tcp,tcp-sendfile,tcp-msgzc,tcp-uringzc")
    ap.add_argument("-m", "--sizes", default="4K..4M")
    ap.add_argument("--from", dest="source", help="plot this saved zcperf JSON report instead of running")
    ap.add_argument("--out", default="compare", help="output prefix (default: compare)")
    ap.add_argument("--zcperf", help="zcperf binary (default: the installed one, a checkout's build/zcperf, or PATH)")
    args, extra = ap.parse_known_args()  # anything else goes to zcperf (-H, --cpu, -l, --rx, ...)
    if args.source:
        with open(args.source) as f:
            report = json.load(f)
    else:
        report = run_zcperf(args, extra)
        with open(args.out + ".json", "w") as f:
            json.dump(report, f, indent=1)
    rows = rows_of(report)
    fields = list(dict.fromkeys(k for r in rows for k in r))
    if not rows:
        sys.exit("compare_paths: the report has no results: " + "; ".join(report.get("errors", [])))
    with open(args.out + ".csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
    run = report.get("run", {})
    plot(rows, args.out + ".png", f"{run.get('command_line', '')}\n{run.get('local_host', '')} -> {run.get('server', '')}")
    for r in rows:
        print(f"{r['path']:<22} {zclib.size_label(r['message_size']):>6} {r['throughput_gbps']:8.2f} Gb/s  "
              f"SD {r['local_sd_us_per_kb']:.3f}/{r['remote_sd_us_per_kb']:.3f} µs/KB  "
              f"vs baseline {r['throughput_ratio'] if r['throughput_ratio'] == '' else round(r['throughput_ratio'], 2)}x")
    written = f"{args.out}.json {args.out}.csv {args.out}.png"
    if explained(rows):
        plot_explain(rows, args.out + "-explain.png", f"{run.get('command_line', '')}")
        written += f" {args.out}-explain.png"
        for r in rows:
            for side in ("local", "remote"):
                if text := delta_text(r, side):
                    print(f"{r['path']:<22} {zclib.size_label(r['message_size']):>6} {side:<6} vs baseline: {text}")
    print(f"wrote {written}", file=sys.stderr)


if __name__ == "__main__":
    main()
