"""The IRQ-affinity sweep's paired comparisons (scripts/irq_sweep.py --rounds N): what the seed-003
study asks, with an interval over repeated rounds instead of one run per point.

Two kinds of pair, each matched within one round (so both runs saw the same conditions on a noisy host):
  irq       the client's NIC IRQs on the client's own core against another core: same transport, size,
            client core, memory placement (ratio own / other)
  zerocopy  a zero-copy transport against its copy path (tcp's against tcp, udp-msgzc against udp-gso):
            same size, client core, IRQ core, placement (ratio zero-copy / copy)
Each pair's figure is the ratio of the sender's (local) service demand per round. Over the rounds: the
median, the range, and the geometric mean with a 95 % Student-t interval on the log ratios (rounds are
the independent samples; with 5 rounds a bootstrap over rounds can do no better than the sample's
min..max, a t-interval on logs is the usual choice for ratios). Pooled lines take, per round, the
geometric mean over a group's points, then the same interval over rounds. With --explain the same pairs
give each category's per-round difference in µs/KB (A - B), mean with a 95 % t-interval; a category
"moves" when its interval excludes 0. No third-party modules: the summary runs where the sweep runs."""
import math

import zclib

# Zero-copy transports and the copy path each is compared against, when both are in the sweep: the same
# sender but for the copy (udp-msgzc is udp-gso's GSO send with MSG_ZEROCOPY).
COPY_PATH = {"tcp-msgzc": "tcp", "tcp-uringzc": "tcp", "tcp-sendfile": "tcp", "udp-msgzc": "udp-gso"}
METRIC = "local_sd_us_per_kb"
COPIED = "zc_copied_pct"  # what the zero-copy sender's completions said the kernel copied anyway, %
SIDES = ("local", "remote")

# What identifies a point apart from round (and the two fields a pair varies: irq_cpu, transport).
POINT_FIELDS = ("transport", "test", "rx", "client_cpu", "server_cpu", "irq_cpu", "irq_side", "mem_node",
                "message_size", "duration_s", "host", "extra_args")

# Student's t, 97.5 % quantile, by degrees of freedom (1-30); beyond, the Cornish-Fisher expansion.
_T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
         2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
         2.045, 2.042]


def t975(df):
    if df < 1:
        return math.inf
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959964
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)


def fnum(x):
    try:
        v = float(x)
        return v if math.isfinite(v) else None
    except (TypeError, ValueError):
        return None


def median(xs):
    s = sorted(xs)
    n = len(s)
    return None if n == 0 else (s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2)


def mean_ci(xs):
    """Mean and its 95 % t-interval; the interval is (None, None) with fewer than two values."""
    n = len(xs)
    if n == 0:
        return None, (None, None)
    m = sum(xs) / n
    if n < 2:
        return m, (None, None)
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    h = t975(n - 1) * sd / math.sqrt(n)
    return m, (m - h, m + h)


def ratio_stats(ratios):
    """Median, range, geometric mean and its 95 % t-interval (computed on the logs) of positive ratios."""
    logs = [math.log(r) for r in ratios if r and r > 0]
    m, (lo, hi) = mean_ci(logs)
    return {"n": len(logs), "median": median(ratios), "min": min(ratios) if ratios else None,
            "max": max(ratios) if ratios else None, "gmean": math.exp(m) if m is not None else None,
            "ci": (math.exp(lo), math.exp(hi)) if lo is not None else (None, None)}


def delta_stats(deltas):
    """The per-round differences in µs/KB (first - second): mean and its 95 % t-interval."""
    m, ci = mean_ci(deltas)
    return {"delta": m, "delta_ci": ci}


def round_of(row):
    return str(row.get("round") or "1")  # a CSV from before --rounds: one round


def round_key(r):
    return (not r.isdigit(), int(r) if r.isdigit() else 0, r)


def categories_of(rows):
    """The explain categories present in the rows, per side, in column order."""
    cats = []
    for r in rows:
        for k in r:
            if k.startswith("local_explain_") and k[len("local_explain_"):] not in cats:
                cats.append(k[len("local_explain_"):])
    return cats


def index_points(rows):
    """{(point fields..., round): averaged row of numbers} over the rows with a finite METRIC (retries averaged)."""
    acc = {}
    for r in rows:
        if fnum(r.get(METRIC)) is None:
            continue
        key = tuple(str(r.get(f, "")) for f in POINT_FIELDS) + (round_of(r),)
        acc.setdefault(key, []).append(r)
    out = {}
    for key, rs in acc.items():
        avg = {}
        for col in rs[0]:
            vals = [fnum(x.get(col)) for x in rs]
            vals = [v for v in vals if v is not None]
            if vals and (col in (METRIC, COPIED) or "_explain_" in col):
                avg[col] = sum(vals) / len(vals)
        out[key] = avg
    return out


def _pairs(points):
    """[(kind, group, a_key_without_round, b_key_without_round)]: the matched points of each kind."""
    f = {name: i for i, name in enumerate(POINT_FIELDS)}
    keys = sorted({k[:-1] for k in points})
    have = set(keys)
    transports = {k[f["transport"]] for k in keys}
    out = []
    for k in keys:
        client, irq = k[f["client_cpu"]], k[f["irq_cpu"]]
        # irq: this point has the IRQs on the client's own core; each other IRQ core is a partner
        if client.isdigit() and irq == client:
            others = sorted({o[f["irq_cpu"]] for o in keys if o[f["irq_cpu"]].isdigit() and o[f["irq_cpu"]] != client},
                            key=int)
            for q in others:
                b = list(k)
                b[f["irq_cpu"]] = q
                if tuple(b) in have:
                    out.append(("irq", k[f["transport"]], k, tuple(b)))
        # zerocopy: this point is a zero-copy transport; its copy path at the same everything else is its partner
        t = k[f["transport"]]
        if COPY_PATH.get(t) in transports:
            b = list(k)
            b[f["transport"]] = COPY_PATH[t]
            if tuple(b) in have:
                out.append(("zerocopy", t, k, tuple(b)))
    return out


def point_label(kind, a, b):
    f = {name: i for i, name in enumerate(POINT_FIELDS)}
    size_txt = zclib.size_label(a[f["message_size"]])
    mem = a[f["mem_node"]]
    where = f"client {a[f['client_cpu']]}" + ("" if mem in ("", "any") else f" mem {mem}")
    if kind == "irq":
        return f"{a[f['transport']]} {size_txt} {where}: IRQ {a[f['irq_cpu']]} / IRQ {b[f['irq_cpu']]}"
    return f"{a[f['transport']]} / {b[f['transport']]} {size_txt} {where} IRQ {a[f['irq_cpu']]}"


def _category_deltas(per_round, cats):
    """{side: {cat: {mean, ci, base}}} from per_round = [(a_row, b_row)], one entry per round."""
    out = {}
    for side in SIDES:
        for c in cats:
            col = f"{side}_explain_{c}"
            d = [a[col] - b[col] for a, b in per_round if col in a and col in b]
            if len(d) < 1:
                continue
            m, ci = mean_ci(d)
            base = [b[col] for a, b in per_round if col in a and col in b]
            out.setdefault(side, {})[c] = {"n": len(d), "mean": m, "ci": ci, "base": sum(base) / len(base)}
    return out


def moves(d):
    lo, hi = d["ci"]
    return lo is not None and (lo > 0 or hi < 0)


def comparisons(rows):
    """Every matched pair's per-round ratios and category deltas, plus pooled lines per kind and transport
    (all points, and per message size), plus the interaction: per round, copy's pooled IRQ ratio over each
    zero-copy transport's (does the IRQ core matter more for the copy path, the seed's claim?)."""
    points = index_points(rows)
    cats = categories_of(rows)
    rounds = sorted({k[-1] for k in points}, key=round_key)
    f = {name: i for i, name in enumerate(POINT_FIELDS)}
    result = []
    by_group = {}  # (kind, transport, size or "all") -> {round: [(ratio, a_row, b_row)]}
    for kind, transport, a, b in _pairs(points):
        per_round = [(r, points[a + (r,)], points[b + (r,)]) for r in rounds
                     if a + (r,) in points and b + (r,) in points]
        if not per_round:
            continue
        ratios = [pa[METRIC] / pb[METRIC] for _, pa, pb in per_round if pb[METRIC] > 0]
        copied = [pa[COPIED] for _, pa, _ in per_round if COPIED in pa] if kind == "zerocopy" else []
        result.append({"kind": kind, "pooled": False, "label": point_label(kind, a, b), "transport": transport,
                       "size": int(a[f["message_size"]]), "rounds": [r for r, _, _ in per_round], "ratios": ratios,
                       "copied": copied,
                       **ratio_stats(ratios), **delta_stats([pa[METRIC] - pb[METRIC] for _, pa, pb in per_round]),
                       "categories": _category_deltas([(pa, pb) for _, pa, pb in per_round], cats)})
        for group in ((kind, transport, "all"), (kind, transport, int(a[f["message_size"]]))):
            g = by_group.setdefault(group, {})
            for r, pa, pb in per_round:
                if pb[METRIC] > 0:
                    g.setdefault(r, []).append((pa[METRIC] / pb[METRIC], pa, pb))
    pooled_ratio, pooled_delta = {}, {}  # (kind, transport, size) -> {round: pooled ratio / mean difference}
    sizes = {}
    for kind, transport, size in by_group:
        sizes.setdefault((kind, transport), set()).add(size)
    for (kind, transport, size), g in sorted(by_group.items(), key=lambda kv: (kv[0][0], kv[0][1], str(kv[0][2]))):
        npoints = max(len(v) for v in g.values())
        per_round, deltas, pairs = {}, {}, []
        for r, items in g.items():
            if len(items) < npoints:  # a round that lost a point would pool a different set of points
                continue
            per_round[r] = math.exp(sum(math.log(x) for x, _, _ in items) / len(items))
            deltas[r] = sum(pa[METRIC] - pb[METRIC] for _, pa, pb in items) / len(items)
            # a category's pooled delta in a round: the mean over the round's points
            mean_a, mean_b = {}, {}
            for col in items[0][1]:
                if "_explain_" in col and all(col in pa and col in pb for _, pa, pb in items):
                    mean_a[col] = sum(pa[col] for _, pa, _ in items) / len(items)
                    mean_b[col] = sum(pb[col] for _, _, pb in items) / len(items)
            pairs.append((mean_a, mean_b))
        pooled_ratio[(kind, transport, size)], pooled_delta[(kind, transport, size)] = per_round, deltas
        ratios = [per_round[r] for r in sorted(per_round, key=round_key)]
        size_txt = "all sizes" if size == "all" else zclib.size_label(size)
        label = (f"{transport}: IRQ own core / other, {size_txt}" if kind == "irq"
                 else f"{transport} / {COPY_PATH[transport]}, {size_txt}")
        # a pool of one point repeats that point's line; one size's pool repeats the all-sizes one
        if npoints < 2 or (size != "all" and len(sizes[(kind, transport)]) == 2):
            continue
        result.append({"kind": kind, "pooled": True, "label": label, "transport": transport, "size": size,
                       "points": npoints, "rounds": sorted(per_round, key=round_key), "ratios": ratios,
                       **ratio_stats(ratios),
                       **delta_stats(list(deltas.values())), "categories": _category_deltas(pairs, cats)})
    for zc, copy_path in COPY_PATH.items():
        copy, other = pooled_ratio.get(("irq", copy_path, "all")), pooled_ratio.get(("irq", zc, "all"))
        if not copy or not other:
            continue
        both = sorted(set(copy) & set(other), key=round_key)
        ratios = [copy[r] / other[r] for r in both]
        d_copy, d_other = pooled_delta[("irq", copy_path, "all")], pooled_delta[("irq", zc, "all")]
        result.append({"kind": "interaction", "pooled": True, "transport": zc, "size": "all",
                       "label": f"IRQ ratio of {copy_path} / IRQ ratio of {zc}, all sizes", "rounds": both,
                       "ratios": ratios, **ratio_stats(ratios),
                       **delta_stats([d_copy[r] - d_other[r] for r in both]), "categories": {}})
    return result


def _f(x, spec=".3f"):
    return "-" if x is None else format(x, spec)


def verdict(c):
    lo, hi = c["ci"]
    if lo is None:
        return "one round: no interval"
    if lo > 1:
        return f"higher: +{(lo - 1) * 100:.0f}% at least"
    if hi < 1:
        return f"lower: -{(1 - hi) * 100:.0f}% at least"
    return f"not resolved: {-(1 - lo) * 100:+.0f}%..{(hi - 1) * 100:+.0f}%"


KIND_TITLES = {
    "irq": "IRQ on the client's own core against the other core: sender (local) service demand, own / other",
    "zerocopy": "zero-copy against copy: sender (local) service demand, zero-copy / its copy path (tcp, udp-gso)",
    "interaction": "does the IRQ core matter more for the copy path? its own/other ratio over the zero-copy one's "
                   "(below 1: own-core IRQs favour copy more)",
}


def format_summary(comps, max_categories=6):
    """The summary as text: per kind, the pooled lines first, then each point; under each line the
    categories that move (95 % interval excludes 0), largest first."""
    if not comps:
        return ("no pairs to compare: the sweep needs an IRQ core equal to a client core and another IRQ core, "
                "or a zero-copy transport next to its copy path (tcp, or udp-gso for udp-msgzc)\n")
    lines = ["Ratios per round, then over rounds: median, range, geometric mean [95 % t-interval on the log ratios,",
             "rounds as samples]. diff: the same pairs' sender service demand as a difference in µs/KB (first -",
             "second; for the interaction the copy path's minus the zero-copy one's), mean [95 % t-interval]. Categories:",
             "per-round difference in µs/KB, mean [95 % t-interval], listed when the interval excludes 0 (a category",
             "that moves), largest first, with the second's mean (of ...). L = local (sender), R = remote (receiver).",
             ""]
    width = max(len(c["label"]) for c in comps) + 9
    for kind in ("irq", "zerocopy", "interaction"):
        mine = [c for c in comps if c["kind"] == kind]
        if not mine:
            continue
        lines.append(KIND_TITLES[kind])
        lines.append(f"  {'':<{width}}{'n':>3} {'median':>7} {'range':>11} {'gmean':>7} {'95% CI':>15} "
                     f"{'diff µs/KB [95% CI]':>25}  verdict")
        for c in sorted(mine, key=lambda c: (not c["pooled"], c["transport"], str(c["size"]), c["label"])):
            rng = f"{_f(c['min'], '.2f')}-{_f(c['max'], '.2f')}"
            ci = f"[{_f(c['ci'][0])}, {_f(c['ci'][1])}]"
            diff = f"{_f(c['delta'], '+.2f')} [{_f(c['delta_ci'][0], '+.2f')}, {_f(c['delta_ci'][1], '+.2f')}]"
            tag = "pooled " if c["pooled"] else "  "
            lines.append(f"  {tag + c['label']:<{width}}{c['n']:>3} {_f(c['median']):>7} {rng:>11} "
                         f"{_f(c['gmean']):>7} {ci:>15} {diff:>25}  {verdict(c)}")
            if c.get("copied"):
                lines.append(f"      the kernel copied {_f(median(c['copied']), '.1f')} % of the zero-copy bytes (median; "
                             f"{_f(min(c['copied']), '.1f')}-{_f(max(c['copied']), '.1f')} %), the completions say")
            moving = []
            for side, cats in c["categories"].items():
                for cat, d in cats.items():
                    if moves(d):
                        moving.append((abs(d["mean"]), f"{side[0].upper()} {cat} {d['mean']:+.3f} "
                                       f"[{d['ci'][0]:+.3f}, {d['ci'][1]:+.3f}] (of {d['base']:.3f})"))
            if moving:
                moving.sort(reverse=True)
                for i in range(0, min(len(moving), max_categories), 2):
                    lines.append("      " + ";  ".join(m for _, m in moving[i:i + 2]))
        lines.append("")
    return "\n".join(lines)
