"""The IRQ-affinity sweep's plots (scripts/irq_sweep.py): throughput and service demand against message
size per CPU mapping, and a heat map of the mappings at each size. matplotlib is imported only here,
and only when plotting, so a sweep runs without it."""
import sys
import textwrap

import irq_sweep_stats
import zclib

TRANSPORT_WHAT = {
    "tcp": "copy: send()",
    "tcp-sendfile": "zero-copy: sendfile()",
    "tcp-msgzc": "zero-copy: MSG_ZEROCOPY",
    "tcp-uringzc": "zero-copy: io_uring SEND_ZC",
}


fnum = irq_sweep_stats.fnum  # one reading of a CSV cell, shared with the summary


def cpu_sort(v):
    return (0, int(v), "") if str(v).isdigit() else (1, 0, str(v))


def panel_name(r):
    name = r["transport"]
    if r.get("test") and r["test"] != "stream":
        name += " " + r["test"]
    if r.get("rx") and r["rx"] != "copy":
        name += " rx=" + r["rx"]
    return name


def load_for_plot(rows):
    good = [r for r in rows if fnum(r.get("throughput_gbps")) is not None]
    failed = len(rows) - len(good)
    # Repeated combinations (a retry, or the same sweep run twice) are averaged.
    acc = {}
    for r in good:
        k = (panel_name(r), r["client_cpu"], r["irq_cpu"], r["mem_node"], int(r["message_size"]))
        a = acc.setdefault(k, {"n": 0, "tput": [], "sd": [], "copied": []})
        a["n"] += 1
        a["tput"].append(fnum(r["throughput_gbps"]))
        if fnum(r.get("local_sd_us_per_kb")) is not None:
            a["sd"].append(fnum(r["local_sd_us_per_kb"]))
        if fnum(r.get("zc_copied_pct")) is not None:
            a["copied"].append(fnum(r["zc_copied_pct"]))
    data = {}
    for k, a in acc.items():
        data[k] = {"n": a["n"], "tput": sum(a["tput"]) / len(a["tput"]),
                   "sd": sum(a["sd"]) / len(a["sd"]) if a["sd"] else None,
                   "copied": sum(a["copied"]) / len(a["copied"]) if a["copied"] else None}
    return rows, good, failed, data


def context_lines(rows, good, failed, data):
    """The subtitle: what was held fixed, and what the IRQ column means on this host."""
    def values(col):
        return sorted({r.get(col, "") for r in rows if r.get(col, "") != ""}, key=cpu_sort)
    parts = [f"host {', '.join(values('host')) or '?'}",
             f"server CPU {', '.join(values('server_cpu')) or 'unpinned'}",
             f"-l {', '.join(values('duration_s'))} s per point"]
    if values("irq_side"):
        parts.append(f"--irq-cpus on the {'/'.join(values('irq_side'))} side")
    extra = [e for e in values("extra_args") if e]
    if extra:
        parts.append("zcperf " + " / ".join(extra))
    if failed:
        parts.append(f"{failed} failed run(s) left out")
    if any(d["n"] > 1 for d in data.values()):
        parts.append("repeated points averaged")
    lines = ["; ".join(parts)]
    pinned = [r for r in good if r.get("irq_cpu") not in ("", "none")]
    no_irq = pinned and all(r.get("irq_note") and not r.get("local_irqs") for r in pinned)
    if no_irq:
        note = pinned[0]["irq_note"].split(" | ")[0]
        lines.append(f"NO IRQs: {note} -- the IRQ core is only a label here")
    elif pinned:
        ints = [int(fnum(r.get("local_interrupts")) or 0) + int(fnum(r.get("remote_interrupts")) or 0) for r in pinned]
        lines.append(f"data device IRQs moved to the IRQ core for each run ({sum(ints) / len(ints):,.0f} interrupts per run on average)")
    return lines, bool(no_irq)


def mapping_label(client, irq, mem, show_mem):
    s = f"client {client if client != 'none' else 'unpinned'}, IRQ {irq if irq != 'none' else 'untouched'}"
    if client == irq and client.isdigit():
        s += " (same core)"
    if show_mem:
        s += f", mem {'any' if mem == 'any' else 'node ' + mem}"
    return s


def transport_title(name, copied):
    t = name.split()[0]
    title = f"{name}  ({TRANSPORT_WHAT.get(t, t)})"
    if copied is not None and copied > 50:
        title += f"\nkernel copied {copied:.0f}% of the zero-copy bytes anyway"
    return title


def plot_vs_size(csv_path, png, rows, good, failed, data):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    panels = list(dict.fromkeys(k[0] for k in data))
    pairs = sorted({(k[1], k[2]) for k in data}, key=lambda m: (cpu_sort(m[0]), cpu_sort(m[1])))
    clients = sorted({m[0] for m in pairs}, key=cpu_sort)
    irqs = sorted({m[1] for m in pairs}, key=cpu_sort)
    mems = sorted({k[3] for k in data}, key=lambda v: (v != "any", cpu_sort(v)))
    sizes = sorted({k[4] for k in data})
    colours = plt.get_cmap("tab10" if len(clients) <= 10 else "tab20").colors
    markers = "osD^v<>PX*hd"
    factored = len(pairs) > 16  # too many mappings to name one by one: explain the encoding instead

    def style_of(client, irq):
        same = client == irq and client.isdigit()
        return dict(color=colours[clients.index(client) % len(colours)], marker=markers[irqs.index(irq) % len(markers)],
                    linewidth=2.8 if same else 1.4, markersize=7 if same else 5.5, alpha=0.9)

    # One pair of rows (throughput, send service demand) per memory placement; one column per transport.
    ncol, nrow = len(panels), 2 * len(mems)
    legend_w = 3.9
    fig, axes = plt.subplots(nrow, ncol, figsize=(6.2 * ncol + legend_w, 4.3 * nrow + 1.2), sharey="row",
                             squeeze=False)
    for j, p in enumerate(panels):
        copied = [d["copied"] for k, d in data.items() if k[0] == p and d["copied"] is not None]
        axes[0][j].set_title(transport_title(p, sum(copied) / len(copied) if copied else None), fontsize=12,
                             fontweight="bold")
        for mi, mem in enumerate(mems):
            ax_t, ax_s = axes[2 * mi][j], axes[2 * mi + 1][j]
            for client, irq in pairs:
                pts = sorted((k[4], d) for k, d in data.items() if k[:4] == (p, client, irq, mem))
                if not pts:
                    continue
                ax_t.plot([s for s, _ in pts], [d["tput"] for _, d in pts], **style_of(client, irq))
                sd = [(s, d["sd"]) for s, d in pts if d["sd"] is not None]
                ax_s.plot([s for s, _ in sd], [v for _, v in sd], **style_of(client, irq))
    for j in range(ncol):  # after all lines are in: a shared y axis must see every column's data
        for i, ax in enumerate(axes[:, j]):
            ax.set_xscale("log", base=2)
            ax.set_xticks(sizes)
            ax.set_xticklabels([zclib.size_label(s) for s in sizes])
            ax.minorticks_off()
            ax.grid(True, alpha=0.3)
            ax.set_ylim(bottom=0)
            ax.tick_params(labelleft=True)
            if i == nrow - 1:
                ax.set_xlabel("message size (bytes per send call, log2 scale)")
    for parity in (0, 1):  # one y scale per metric across memory placements too, so the rows compare
        top = max(ax.get_ylim()[1] for ax in axes[parity::2, 0])
        for ax in axes[parity::2, 0]:
            ax.set_ylim(0, top)
    for mi, mem in enumerate(mems):
        where = "" if len(mems) == 1 else ("\nbuffers anywhere" if mem == "any" else f"\nbuffers on node {mem}")
        axes[2 * mi][0].set_ylabel("throughput (Gb/s)" + where, fontsize=11)
        axes[2 * mi + 1][0].set_ylabel("send service demand\n(µs CPU per KB, client host)" + where, fontsize=11)

    if not factored:
        handles = [Line2D([], [], label=mapping_label(c, q, "", False), **style_of(c, q)) for c, q in pairs]
        fig.legend(handles=handles, loc="upper left", bbox_to_anchor=(1 - (legend_w - 0.1) / fig.get_figwidth(), 0.86),
                   fontsize=10, title="mapping\n(colour = client core,\nmarker = IRQ core,\nthick = same core)",
                   title_fontsize=10)
    else:
        x0 = 1 - (legend_w - 0.1) / fig.get_figwidth()
        lc = fig.legend(handles=[Line2D([], [], color=colours[i % len(colours)], linewidth=3, label=f"client {c}")
                                 for i, c in enumerate(clients)],
                        loc="upper left", bbox_to_anchor=(x0, 0.86), fontsize=9.5, title="colour = client core",
                        title_fontsize=10, ncol=1 if len(clients) <= 16 else 2)
        fig.add_artist(lc)
        fig.legend(handles=[Line2D([], [], color="dimgray", linestyle="none", marker=markers[i % len(markers)],
                                   label=f"IRQ {q}") for i, q in enumerate(irqs)]
                   + [Line2D([], [], color="dimgray", linewidth=2.8, label="thick: IRQ on\nthe client's core")],
                   loc="upper left", bbox_to_anchor=(x0 + 0.4 / fig.get_figwidth() * 4.5, 0.86), fontsize=9.5,
                   title="marker = IRQ core", title_fontsize=10)
    lines, no_irq = context_lines(rows, good, failed, data)
    mem_txt = "" if len(mems) > 1 else (f"; buffers {'wherever they fall' if mems[0] == 'any' else 'on NUMA node ' + mems[0]}")
    figh = fig.get_figheight()
    fig.suptitle("Throughput and send service demand vs message size, per client core / IRQ core mapping" + mem_txt,
                 fontsize=14, fontweight="bold", y=1 - 0.1 / figh, va="top")
    fig.text(0.5, 1 - 0.5 / figh, "\n".join(lines), ha="center", va="top", fontsize=10,
             color="firebrick" if no_irq else "dimgray")
    fig.tight_layout(rect=(0, 0, 1 - legend_w / fig.get_figwidth(), 1 - 0.9 / figh))
    fig.savefig(png, dpi=100)
    plt.close(fig)


def plot_heatmap(csv_path, png, rows, good, failed, data):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle
    import numpy as np

    panels = list(dict.fromkeys(k[0] for k in data))
    mems = sorted({k[3] for k in data}, key=lambda v: (v != "any", cpu_sort(v)))
    clients = sorted({k[1] for k in data}, key=cpu_sort)
    irqs = sorted({k[2] for k in data}, key=cpu_sort)
    largest = {p: max(k[4] for k in data if k[0] == p) for p in panels}
    metrics = [("tput", "throughput (Gb/s)", "viridis", "higher is better"),
               ("sd", "send service demand (µs/KB)", "magma_r", "lower is better")]
    nrows, ncol = len(mems) * len(metrics), len(panels)
    big = max(len(clients), len(irqs)) > 4
    cell = 0.8 if big else 1.5
    pw, ph = max(3.8, cell * len(irqs) + 1.2), max(2.8, cell * len(clients) + 1.1)
    top_in, bottom_in, left_in, right_in, cbar_in = 1.25, 0.65, 0.9, 1.3, 0.25
    figw = left_in + pw * ncol + right_in
    figh = top_in + ph * nrows + bottom_in
    fig, axes = plt.subplots(nrows, ncol + 1, figsize=(figw, figh), squeeze=False,
                             gridspec_kw={"width_ratios": [1] * ncol + [cbar_in / pw]})
    fig.subplots_adjust(left=left_in / figw, right=1 - (right_in - cbar_in - 0.1) / figw,
                        top=1 - top_in / figh, bottom=bottom_in / figh, hspace=0.42, wspace=0.3)
    for mi, mem in enumerate(mems):
        for ki, (key, name, cmap, better) in enumerate(metrics):
            row = mi * len(metrics) + ki
            mats = []
            for p in panels:
                m = np.full((len(clients), len(irqs)), np.nan)
                for a, c in enumerate(clients):
                    for b, q in enumerate(irqs):
                        d = data.get((p, c, q, mem, largest[p]))
                        if d and d[key] is not None:
                            m[a, b] = d[key]
                mats.append(m)
            # One colour scale per row, shared by the transports, so copy and zero-copy compare by colour.
            finite = np.concatenate([m[np.isfinite(m)] for m in mats])
            vmin, vmax = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
            if vmax - vmin < 1e-9:
                vmin, vmax = vmin * 0.95, vmax * 1.05 + 1e-9
            cm = plt.get_cmap(cmap).copy()
            cm.set_bad("lightgray")
            im = None
            for j, (p, m) in enumerate(zip(panels, mats)):
                ax = axes[row][j]
                im = ax.imshow(np.ma.masked_invalid(m), cmap=cm, vmin=vmin, vmax=vmax, aspect="auto")
                for a in range(len(clients)):
                    for b in range(len(irqs)):
                        v = m[a, b]
                        same = clients[a] == irqs[b] and clients[a].isdigit()
                        if not np.isfinite(v):
                            ax.text(b, a, "n/a", ha="center", va="center", fontsize=9, color="dimgray")
                            continue
                        r_, g_, b_, _ = cm((v - vmin) / (vmax - vmin))
                        ink = "white" if 0.299 * r_ + 0.587 * g_ + 0.114 * b_ < 0.5 else "black"
                        ax.text(b, a, f"{v:.2f}" if key == "tput" else f"{v:.3f}", ha="center", va="center",
                                fontsize=8 if big else 12, fontweight="bold", color=ink)
                        if same:  # an inset frame, so neighbouring cells do not look framed too
                            ax.add_patch(Rectangle((b - 0.44, a - 0.44), 0.88, 0.88, fill=False, edgecolor=ink,
                                                   linewidth=1.8, linestyle="--"))
                            if not big:
                                ax.text(b, a + 0.25, "same core", ha="center", va="center", fontsize=8, color=ink)
                ax.set_xticks(range(len(irqs)))
                ax.set_xticklabels([q if q != "none" else "untouched" for q in irqs])
                ax.set_yticks(range(len(clients)))
                ax.set_yticklabels([c if c != "none" else "unpinned" for c in clients])
                ax.set_xlabel("IRQ core", fontsize=9.5)
                ax.set_ylabel("client core", fontsize=9.5)
                memtxt = "buffers wherever they fall" if mem == "any" else f"buffers on NUMA node {mem}"
                ax.set_title(f"{p}: {name}\n{zclib.size_label(largest[p])} messages, {memtxt}", fontsize=10.5)
            cb = fig.colorbar(im, cax=axes[row][ncol])
            cb.set_label(f"{name}, {better}", fontsize=9)
    lines, no_irq = context_lines(rows, good, failed, data)
    fig.suptitle("Client core x IRQ core at the largest message size (dashed frame: IRQ core = client core)",
                 fontsize=12.5, fontweight="bold", y=1 - 0.12 / figh, va="top")
    fig.text(0.5, 1 - 0.5 / figh, "\n".join(lines), ha="center", va="top", fontsize=9,
             color="firebrick" if no_irq else "dimgray", wrap=True)
    fig.savefig(png, dpi=100)
    plt.close(fig)


def plot_explain(csv_path, png, good):
    """--explain's categories per point: a stacked bar (µs/KB by kernel category) per mapping and size, per side,
    averaged over the point's rows, so what moves with the IRQ core shows as a band that grows or shrinks."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cats = sorted({k[len("local_explain_"):] for r in good for k in r if k.startswith("local_explain_")})
    points = {}
    for r in good:
        key = (r["transport"], cpu_sort(r["client_cpu"]), cpu_sort(r["irq_cpu"]), int(r["message_size"]))
        points.setdefault(key, []).append(r)
    keys = sorted(points)
    labels = [f"{t}\nc{c[1]} irq{i[1]}\n{zclib.size_label(m)}" for t, c, i, m in keys]
    fig, axes = plt.subplots(2, 1, figsize=(max(8, 0.9 * len(keys)), 9))
    colors = plt.get_cmap("tab20").colors
    for ax, side in zip(axes, ("local", "remote")):
        bottom = [0.0] * len(keys)
        for n, c in enumerate(cats):
            vals = []
            for k in keys:
                xs = [fnum(r.get(f"{side}_explain_{c}")) for r in points[k]]
                xs = [x for x in xs if x is not None]
                vals.append(sum(xs) / len(xs) if xs else 0.0)
            if not any(vals):
                continue
            ax.bar(range(len(keys)), vals, bottom=bottom, label=c, color=colors[n % len(colors)])
            bottom = [b + v for b, v in zip(bottom, vals)]
        ax.set_xticks(range(len(keys)))
        ax.set_xticklabels(labels, fontsize=7)
        ax.set_ylabel(f"{side} CPU, µs/KB")
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].legend(fontsize=7, ncol=4)
    rounds = {irq_sweep_stats.round_of(r) for r in good}
    fig.suptitle(f"{csv_path}: where the CPU went, by kernel category (zcperf --explain)"
                 + (f", mean of {len(rounds)} rounds" if len(rounds) > 1 else ""), fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)


def plot_ratios(csv_path, png, comps):
    """The summary's ratios (irq_sweep_stats): per pair, each round's ratio as a dot, the geometric mean and
    its 95 % interval as a bar; pooled lines on top, bold. A bar that crosses 1 resolves no difference."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

    kinds = [k for k in ("irq", "zerocopy", "interaction") if any(c["kind"] == k for c in comps)]
    heights = [len([c for c in comps if c["kind"] == k]) for k in kinds]
    fig, axes = plt.subplots(len(kinds), 1, figsize=(10, 1.2 + 0.32 * sum(heights) + 0.9 * len(kinds)),
                             gridspec_kw={"height_ratios": [h + 1.5 for h in heights]}, squeeze=False)
    for ax, kind in zip(axes[:, 0], kinds):
        mine = sorted((c for c in comps if c["kind"] == kind),
                      key=lambda c: (not c["pooled"], c["transport"], str(c["size"]), c["label"]))
        for y, c in enumerate(mine):
            colour = "black" if c["pooled"] else "tab:blue"
            ax.scatter(c["ratios"], [y] * len(c["ratios"]), s=12, color="tab:gray", alpha=0.6, zorder=2)
            if c["ci"][0] is not None:
                ax.plot(c["ci"], [y, y], color=colour, linewidth=3 if c["pooled"] else 1.8, zorder=3)
            if c["gmean"] is not None:
                ax.scatter([c["gmean"]], [y], marker="D", s=36, color=colour, zorder=4)
        ax.axvline(1.0, color="firebrick", linewidth=1, linestyle="--")
        ax.set_xscale("log")
        # plain numbers (0.5, 1, 2), not powers of ten: the ratios span well under a decade
        ax.xaxis.set_major_locator(LogLocator(base=10, subs=(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0, 1.2, 1.5)))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_yticks(range(len(mine)))
        ax.set_yticklabels([c["label"] for c in mine], fontsize=8)
        for t, c in zip(ax.get_yticklabels(), mine):
            t.set_fontweight("bold" if c["pooled"] else "normal")
        ax.invert_yaxis()
        ax.grid(True, axis="x", alpha=0.3, which="both")
        ax.set_title("\n".join(textwrap.wrap(irq_sweep_stats.KIND_TITLES[kind], 110)), fontsize=9.5)
    axes[-1][0].set_xlabel("ratio (log scale): dots = rounds, diamond = geometric mean, bar = 95 % t-interval "
                           "over rounds", fontsize=9)
    fig.suptitle(f"{csv_path}: paired ratios of the sender's service demand", fontsize=10.5)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)


def plot_all(prefix, rows, prog):
    """PREFIX_vs_size.png and PREFIX_heatmap.png from the sweep's finished rows (of PREFIX.csv)."""
    csv_path = prefix + ".csv"
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print(f"{prog}: no matplotlib for {sys.executable}; apt-get install python3-matplotlib, then "
              f"{sys.argv[0]} --plot-only --out {prefix}", file=sys.stderr)
        return 1
    rows, good, failed, data = load_for_plot(rows)
    if not data:
        print(f"{prog}: nothing to plot in {csv_path} ({len(rows)} rows, none with a result)", file=sys.stderr)
        return 1
    outs = [prefix + "_vs_size.png", prefix + "_heatmap.png"]
    plot_vs_size(csv_path, outs[0], rows, good, failed, data)
    plot_heatmap(csv_path, outs[1], rows, good, failed, data)
    if any(fnum(r.get("local_explain_copy")) is not None for r in good):
        outs.append(prefix + "_explain.png")
        plot_explain(csv_path, outs[-1], good)
    comps = irq_sweep_stats.comparisons(good)
    if any(c["n"] > 1 for c in comps):
        outs.append(prefix + "_ratios.png")
        plot_ratios(csv_path, outs[-1], comps)
    print(f"{prog}: wrote {' '.join(outs)}", file=sys.stderr)
    return 0
