#!/usr/bin/python3
"""The N x N maps of a zcperf-mpi matrix run: throughput of every ordered pair (row: the
client rank, column: the server rank), and for rr the one-way latency too; one PNG per test, transport
and message size, and the same matrices as text.

    mpirun -np 8 zcperf-mpi --pattern matrix -t stream,rr -l 2 -o json > matrix.json
    scripts/mpi_heatmap.py matrix.json --out matrix        # matrix-stream-tcp-1M-gbps.png, ...

A pair that failed is blank in the map and named below it. Debian's python3-matplotlib (for
/usr/bin/python3) is needed for the PNGs only; --text prints the matrices without it."""
import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zclib  # noqa: E402


def load(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise zclib.Bad(f"{path}: not a zcperf-mpi JSON report ({e}); write one with -o json")
    if "pairs" not in doc or "run" not in doc:
        raise zclib.Bad(f"{path}: no 'pairs': this is not zcperf-mpi's report (zcperf-mpi ... -o json)")
    return doc


def matrices(doc):
    """{(test, transport, size): {"n": N, "gbps": {(c, s): v}, "latency_us": {...}, "failed": [...]}}"""
    n = int(doc["run"]["ranks"])
    rounds = {r["round"]: r for r in doc.get("rounds", [])}
    out = {}
    for p in doc["pairs"]:
        rd = rounds.get(p["round"], {})
        res = p.get("result")
        key = (res["test"], res["transport"], int(res["message_size"])) if res else (
            rd.get("test", "?"), rd.get("transport", "?"), int(rd.get("message_size", 0)))
        m = out.setdefault(key, {"n": n, "gbps": {}, "rate": {}, "latency_us": {}, "failed": []})
        cs = (int(p["client_rank"]), int(p["server_rank"]))
        if res is None:
            m["failed"].append(f"{cs[0]} -> {cs[1]}: {p.get('error', '')}")
            continue
        m["gbps"][cs] = float(res["throughput_gbps"])
        rr, msgrate = res.get("rr"), res.get("msgrate")
        if rr:
            m["rate"][cs] = float(rr["transactions_per_s"])
            m["latency_us"][cs] = float(rr["latency_us"]["mean"])
        if msgrate:
            m["rate"][cs] = float(msgrate["messages_per_s"])
    return out


def text_table(n, cells, title, spec):
    lines = [title, "client\\server " + " ".join(f"{s:>9}" for s in range(n))]
    for c in range(n):
        row = [("-" if c == s else zclib.fmt(cells.get((c, s)), spec)) for s in range(n)]
        lines.append(f"{c:>13} " + " ".join(f"{v:>9}" for v in row))
    return "\n".join(lines)


def plot(n, cells, title, unit, path, failed):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    grid = [[cells.get((c, s), math.nan) for s in range(n)] for c in range(n)]
    fig, ax = plt.subplots(figsize=(2 + 0.5 * n, 1.6 + 0.5 * n))
    im = ax.imshow(grid, cmap="viridis", interpolation="nearest")
    fig.colorbar(im, ax=ax, label=unit)
    ax.set_xlabel("server rank")
    ax.set_ylabel("client rank")
    ticks = range(n) if n <= 32 else range(0, n, max(1, n // 16))
    ax.set_xticks(list(ticks))
    ax.set_yticks(list(ticks))
    if n <= 12:
        for (c, s), v in cells.items():
            ax.text(s, c, f"{v:.3g}", ha="center", va="center", color="w", fontsize=7)
    ax.set_title(title, fontsize=9)
    if failed:
        fig.text(0.01, 0.01, "failed: " + "; ".join(failed)[:200], fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(prog=zclib.command_name(), description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("report", help="zcperf-mpi -o json output of a --pattern matrix run")
    ap.add_argument("--out", default="matrix", help="prefix of the PNG files (default: matrix)")
    ap.add_argument("--text", action="store_true", help="print the matrices only, no PNG")
    a = ap.parse_args()
    if not a.text:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print("mpi_heatmap: no matplotlib for this python (apt-get install python3-matplotlib; run "
                  "/usr/bin/python3), or use --text", file=sys.stderr)
            return 2
    try:
        doc = load(a.report)
    except zclib.Bad as e:
        print(f"mpi_heatmap: {e}", file=sys.stderr)
        return 2
    if doc["run"].get("pattern") != "matrix":
        print(f"mpi_heatmap: note: pattern {doc['run'].get('pattern')}, not matrix: the map has only its pairs",
              file=sys.stderr)
    written = []
    for (test, transport, size), m in sorted(matrices(doc).items()):
        label = f"{test} {transport} {zclib.size_label(size)}"
        if test == "rr":
            maps = [("latency_us", "one-way latency, us (mean RTT/2)", ".2f"), ("rate", "transactions/s", ".0f")]
        elif test == "msgrate":
            maps = [("rate", "messages/s", ".0f")]
        else:
            maps = [("gbps", "Gb/s", ".3f")]
        for field, unit, spec in maps:
            cells = m[field]
            print(text_table(m["n"], cells, f"{label}: {unit}", spec))
            for f in m["failed"]:
                print(f"  failed: {f}")
            print()
            if a.text:
                continue
            path = f"{a.out}-{test}-{transport}-{zclib.size_label(size)}-{field}.png"
            plot(m["n"], cells, f"zcperf-mpi {label}: {unit}\nrow: client rank, column: server rank", unit, path,
                 m["failed"])
            written.append(path)
    for p in written:
        print(f"wrote {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
