"""Parsing, CSV and reports for the bench scripts (stdlib only).

The shell scripts only orchestrate; they call this file as
  lib.py parse TOOL VARIANT RAW CSV ROUND SIZE BYTES DURATION CLIENT_CPU SERVER_CPU
  lib.py skip TOOL VARIANT CSV ROUND SIZE BYTES DURATION NOTE
  lib.py report peers|zerocopy CSV
  lib.py rounds CSV NUM/DEN...     (crr.sh, flows.sh, bidir.sh: a CSV of round,case,value)
  lib.py floors CSV                (floor.sh: cases PATH/zcperf, PATH/floor and their PATH/..._cpu)
A sample's label is its tool, plus its variant when it has one ("zcperf tcp-msgzc", "iperf3 -Z").
"""
import csv, json, os, re, statistics, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import zclib  # noqa: E402

FIELDS = ["round", "size", "msg_bytes", "tool", "variant", "duration_s", "gbps",
          "send_sd_us_per_kb", "recv_sd_us_per_kb",
          "send_proc_sd_us_per_kb", "recv_proc_sd_us_per_kb",
          "zc_sent_bytes", "zc_copied_bytes", "zc_copied_pct", "zc_completions", "zc_enobufs",
          "other_cpu_pct", "host_cpus", "raw_costs", "note"]
KB = 1024                     # netperf's KB, as zcperf uses
QPERF_GB = 1e9                # qperf divides CPU time by bytes/1e9 (src/qperf.c: gB)
COST_UNIT = {"ns/GB": 1e-9, "us/GB": 1e-6, "ms/GB": 1e-3, "sec/GB": 1.0}
BW_UNIT = {"bits/sec": 1, "Kb/sec": 1e3, "Mb/sec": 1e6, "Gb/sec": 1e9, "Tb/sec": 1e12,
           "bytes/sec": 8, "KB/sec": 8e3, "MB/sec": 8e6, "GB/sec": 8e9, "TB/sec": 8e12}
OTHER_LOAD_WARN_PCT = 5.0     # zcperf warns above this (client/run_driver.cpp)


Bad = zclib.Bad


def sd(cpu_s, nbytes):
    """CPU seconds and bytes -> microseconds of CPU per KB."""
    return cpu_s * 1e6 / (nbytes / KB)


def s_per_gb_to_us_per_kb(v):
    # v CPU-s per 1e9 B; 1 us/KB = 1e-6 s per 1024 B = 0.9766 s/GB, so multiply by 1.024
    return v * 1e6 * KB / QPERF_GB


def parse_zcperf(text, ccpu, scpu, variant):
    d = json.loads(text)
    if d.get("errors") or not d.get("results"):
        raise Bad("zcperf: " + "; ".join(d.get("errors") or ["no results"]))
    r = d["results"][0]
    loc, rem = r["local"], r["remote"]
    if loc["role"] != "send" or loc["cpus"] != [ccpu] or rem["cpus"] != [scpu]:
        raise Bad(f"zcperf: unexpected role/pinning {loc['role']} {loc['cpus']} {rem['cpus']}")
    want = (variant or "tcp").split()[0]   # the variant is -T's value, then any further options
    if r["transport"] != want:
        raise Bad(f"zcperf: ran transport {r['transport']}, wanted {want}")
    if "--rcvlowat=1" in variant.split() and rem.get("rcv_lowat") != 1:
        raise Bad(f"zcperf: receiver woke at {rem.get('rcv_lowat')} B queued, wanted 1 (--rcvlowat=1)")
    out = dict(gbps=r["throughput_gbps"],
               send_sd_us_per_kb=loc["service_demand_us_per_kb"],
               recv_sd_us_per_kb=rem["service_demand_us_per_kb"],
               send_proc_sd_us_per_kb=loc["process_service_demand_us_per_kb"],
               recv_proc_sd_us_per_kb=rem["process_service_demand_us_per_kb"],
               # both sides sample the same host here; keep the worse of the two
               other_cpu_pct=max(loc["other_processes_cpu_pct_of_one_cpu"],
                                 rem["other_processes_cpu_pct_of_one_cpu"]),
               host_cpus=loc["cpu"]["ncpus"])
    # Only MSG_ZEROCOPY and SEND_ZC get completions saying whether the kernel copied;
    # copy and sendfile sends leave these columns empty.
    zc = loc.get("zerocopy") or {}
    if zc.get("sent_bytes"):
        out.update(zc_sent_bytes=zc["sent_bytes"], zc_copied_bytes=zc["copied_bytes"],
                   zc_copied_pct=100.0 * zc["copied_bytes"] / zc["sent_bytes"],
                   zc_completions=zc["completions"], zc_enobufs=zc.get("enobufs", 0))
    return out


def parse_iperf3(text, ccpu, scpu, variant):
    d = json.loads(text)
    if d.get("error"):
        raise Bad("iperf3: " + d["error"])
    end = d["end"]
    snd, rcv = end["sum_sent"], end["sum_received"]
    out = dict(gbps=rcv["bits_per_second"] / 1e9)
    # iperf3's CPU figures are its own process's getrusage (% of one CPU), so they
    # compare with zcperf's process SD, not with the whole-host SD.
    cpu = end.get("cpu_utilization_percent")
    if cpu and snd["bytes"] and rcv["bytes"]:
        out["send_proc_sd_us_per_kb"] = sd(cpu["host_total"] / 100 * snd["seconds"], snd["bytes"])
        out["recv_proc_sd_us_per_kb"] = sd(cpu["remote_total"] / 100 * rcv["seconds"], rcv["bytes"])
    return out


def parse_qperf(text, ccpu, scpu, variant):
    vals = {}
    for line in text.splitlines():
        m = re.match(r"\s*(\w+)\s*=\s*([-\d.,]+)\s*(\S*)", line)
        if m:
            vals[m.group(1)] = (float(m.group(2).replace(",", "")), m.group(3))
    try:
        bw, bw_unit = vals["bw"]
        send, send_unit = vals["send_cost"]
        recv, recv_unit = vals["recv_cost"]
        gbps = bw * BW_UNIT[bw_unit] / 1e9
        send_s = send * COST_UNIT[send_unit]
        recv_s = recv * COST_UNIT[recv_unit]
    except KeyError as e:
        raise Bad(f"qperf: cannot read {e} from its output:\n{text}")
    # qperf's -lca/-rca are 1-based (0 means "not pinned")
    if vals.get("loc_affinity", (0,))[0] != ccpu + 1 or vals.get("rem_affinity", (0,))[0] != scpu + 1:
        raise Bad("qperf: pinning not as asked:\n" + text)
    return dict(gbps=gbps,
                send_sd_us_per_kb=s_per_gb_to_us_per_kb(send_s),
                recv_sd_us_per_kb=s_per_gb_to_us_per_kb(recv_s),
                raw_costs=f"send {send:g} {send_unit}; recv {recv:g} {recv_unit}")


def cmd_parse(tool, variant, raw, csv_path, rnd, size, nbytes, dur, ccpu, scpu):
    row = dict(round=rnd, size=size, msg_bytes=nbytes, tool=tool, variant=variant, duration_s=dur)
    with open(raw) as f:
        text = f.read()
    try:
        row.update(globals()["parse_" + tool](text, int(ccpu), int(scpu), variant))
    except Bad as e:
        sys.exit(str(e))
    except (ValueError, KeyError, TypeError) as e:
        sys.exit(f"{tool}: unreadable output ({e!r}), see {raw}")
    zclib.append_row(csv_path, FIELDS, row)
    # one progress line for the log
    msg = f"{row['gbps']:.2f} Gb/s"
    if row.get("msgs_per_s"):
        msg += f", {row['msgs_per_s']:.0f} msg/s"
    if row.get("lat_p50_us"):
        msg += f", one-way p50 {row['lat_p50_us']:.1f} us mean {row['lat_mean_us']:.1f} us"
    if "send_sd_us_per_kb" in row:
        msg += f", SD send/recv {row['send_sd_us_per_kb']:.3f}/{row['recv_sd_us_per_kb']:.3f} us/KB"
    if variant and "send_proc_sd_us_per_kb" in row:
        msg += f", send proc SD {row['send_proc_sd_us_per_kb']:.3f}"
    if "zc_copied_pct" in row:
        msg += f", kernel copied {row['zc_copied_pct']:.1f}%"
    if row.get("other_cpu_pct", 0) > OTHER_LOAD_WARN_PCT:
        msg += f"  [other processes: {row['other_cpu_pct']:.0f}% of a CPU]"
    print(msg)


def cmd_skip(tool, variant, csv_path, rnd, size, nbytes, dur, note):
    zclib.append_row(csv_path, FIELDS, dict(round=rnd, size=size, msg_bytes=nbytes, tool=tool, variant=variant,
                          duration_s=dur, note=note))


def label(tool, variant):
    return f"{tool} {variant}" if variant else tool


class Samples:
    """The CSV's samples by (size, label, column); also its sizes and skip notes."""

    def __init__(self, csv_path):
        self.v, self.sizes, self.notes = {}, [], set()
        with open(csv_path) as f:
            for r in csv.DictReader(f):
                lab = label(r["tool"], r.get("variant") or "")   # older CSVs lack "variant"
                if r["size"] not in self.sizes:
                    self.sizes.append(r["size"])
                if r["note"]:
                    self.notes.add(f"{lab} {r['size']}: {r['note']}")
                for k, v in r.items():
                    if k in ("gbps", "zc_copied_pct", "other_cpu_pct", "host_cpus") or k.endswith(("per_kb", "_per_s", "_us")):
                        if v not in ("", None):
                            self.v.setdefault((r["size"], lab, k), []).append(float(v))

    def get(self, size, lab, key):
        return self.v.get((size, lab, key), [])

    def med(self, size, lab, key):
        v = self.get(size, lab, key)
        return statistics.median(v) if v else None

    def span(self, size, lab, key, spec):
        v = self.get(size, lab, key)
        return f"{min(v):{spec}}..{max(v):{spec}} ({len(v)})" if v else "n/a"

    def all(self, key):
        return [x for (_, _, k), v in self.v.items() if k == key for x in v]


def fmt(v, spec):
    return zclib.fmt(v, spec, missing="n/a")


def ratio(a, b):
    return a / b if a is not None and b else None


def table(cols, rows):
    head = "  ".join(f"{n:>{w}}" if w > 0 else f"{n:<{-w}}" for n, w in cols)
    print(head)
    print("-" * len(head))
    for cells in rows:
        print("  ".join(f"{c:>{w}}" if w > 0 else f"{c:<{-w}}" for c, (_, w) in zip(cells, cols)))


ZC_KERNEL_WAKE = "zcperf tcp --rcvlowat=1"   # zcperf with the kernel's per-segment wake-ups


def report_peers(s):
    tools = ["zcperf", "iperf3", "qperf", ZC_KERNEL_WAKE]
    print(f"{'':5}  {'throughput, Gb/s (median)':^33}  {'ratio':^22}  "
          f"{'service demand, us/KB (median)':^34}")
    rows = []
    for z in s.sizes:
        zc, ip, qp, zk = (s.med(z, t, "gbps") for t in tools)
        rows.append([z, fmt(zc, ".2f"), fmt(ip, ".2f"), fmt(qp, ".2f"), fmt(zk, ".2f"),
                     fmt(ratio(zc, ip), ".2f"), fmt(ratio(zc, qp), ".2f"), fmt(ratio(zk, ip), ".2f"),
                     fmt(s.med(z, "zcperf", "send_sd_us_per_kb"), ".3f"),
                     fmt(s.med(z, "zcperf", "recv_sd_us_per_kb"), ".3f"),
                     fmt(s.med(z, "qperf", "send_sd_us_per_kb"), ".3f"),
                     fmt(s.med(z, "qperf", "recv_sd_us_per_kb"), ".3f")])
    table([("size", 5), ("zcperf", 7), ("iperf3", 7), ("qperf", 7), ("zc-lw1", 7), ("zc/ip3", 6),
           ("zc/qp", 6), ("lw1/ip3", 7), ("zc snd", 7), ("zc rcv", 7), ("qp snd", 7), ("qp rcv", 7)], rows)

    # The machine is noisy: show how far apart the samples behind each median are.
    print("\nthroughput samples, Gb/s: min..max (n)")
    for z in s.sizes:
        print(f"  {z:>5}  " + "   ".join(f"{t} {s.span(z, t, 'gbps', '.2f')}" for t in tools))
    print("\nzc-lw1 = zcperf --rcvlowat=1: the receiver woken for every segment, as iperf3's and qperf's are;"
          "\nzcperf's default wakes it once 256 KiB are queued (SO_RCVLOWAT), which spares the sending CPU"
          "\nthe wake-ups (on loopback the sender's CPU delivers the data and pays for each one).")
    print("\nGb/s = 1e9 bit/s. Ratios are ratios of the medians. Service demand = CPU time of the"
          "\nwhole host (all CPUs, /proc/stat) per KB (1024 B) moved, for both zcperf and qperf; on"
          "\nloopback both sides count the same machine, so send and recv come out about equal"
          "\n(per-process figures for zcperf and iperf3 are in the CSV). qperf prints CPU-s per"
          "\n1e9 B (sec/GB, or ns/GB with -uu): us/KB = sec/GB x 1.024.")


def report_mptcp(s):
    zc, zk, ip = "zcperf mptcp", "zcperf mptcp --rcvlowat=1", "iperf3 --mptcp"
    print(f"{'':5}  {'throughput, Gb/s (median)':^25}  {'ratio':^15}  {'process CPU per KB, us (median)':^31}")
    rows = []
    for z in s.sizes:
        a, k, b = s.med(z, zc, "gbps"), s.med(z, zk, "gbps"), s.med(z, ip, "gbps")
        rows.append([z, fmt(a, ".2f"), fmt(k, ".2f"), fmt(b, ".2f"), fmt(ratio(a, b), ".2f"), fmt(ratio(k, b), ".2f"),
                     fmt(s.med(z, zc, "send_proc_sd_us_per_kb"), ".3f"), fmt(s.med(z, zk, "send_proc_sd_us_per_kb"), ".3f"),
                     fmt(s.med(z, ip, "send_proc_sd_us_per_kb"), ".3f")])
    table([("size", 5), ("zcperf", 7), ("zc-lw1", 7), ("iperf3", 7), ("zc/ip3", 6), ("lw1/ip3", 7),
           ("zc snd", 7), ("lw1 snd", 7), ("ip3 snd", 7)], rows)
    print("\nthroughput samples, Gb/s: min..max (n)")
    for z in s.sizes:
        print(f"  {z:>5}  " + "   ".join(f"{t} {s.span(z, t, 'gbps', '.2f')}" for t in (zc, zk, ip)))
    print("\nAll over one MPTCP connection on loopback (one subflow). zc-lw1 = zcperf --rcvlowat=1 (the kernel's"
          "\nper-segment wake-ups, as iperf3's). Ratios are ratios of the medians.")


ZC_PATHS = ["tcp", "tcp-sendfile", "tcp-msgzc", "tcp-uringzc"]   # tcp first: the baseline


def report_zerocopy(s):
    zc_sf, ip_z = "zcperf tcp-sendfile", "iperf3 -Z"
    print("sendfile senders: zcperf -T tcp-sendfile vs iperf3 -Z (medians)")
    rows = []
    for z in s.sizes:
        a, b = s.med(z, zc_sf, "gbps"), s.med(z, ip_z, "gbps")
        rows.append([z, fmt(a, ".2f"), fmt(b, ".2f"), fmt(ratio(a, b), ".2f"),
                     fmt(s.med(z, zc_sf, "send_proc_sd_us_per_kb"), ".3f"),
                     fmt(s.med(z, ip_z, "send_proc_sd_us_per_kb"), ".3f")])
    table([("size", 5), ("zcperf", 7), ("iperf3", 7), ("zc/ip3", 6),
           ("zc pSD snd", 10), ("ip3 pSD snd", 11)], rows)

    print("\nzcperf sender paths, receiver --rx copy (medians)")
    rows = []
    for z in s.sizes:
        base = f"zcperf {ZC_PATHS[0]}"
        for i, p in enumerate(ZC_PATHS):
            lab = f"zcperf {p}"
            gb = s.med(z, lab, "gbps")
            psd = s.med(z, lab, "send_proc_sd_us_per_kb")
            copied = s.med(z, lab, "zc_copied_pct")
            rows.append([z if i == 0 else "", p, fmt(gb, ".2f"),
                         fmt(ratio(gb, s.med(z, base, "gbps")), ".2f"),
                         fmt(s.med(z, lab, "send_sd_us_per_kb"), ".3f"), fmt(psd, ".3f"),
                         fmt(ratio(psd, s.med(z, base, "send_proc_sd_us_per_kb")), ".2f"),
                         # tcp copies by design; sendfile gets no completions to count copies
                         "-" if p == "tcp" else fmt(copied, ".1f")])
    table([("size", 5), ("path", -12), ("Gb/s", 6), ("x tcp", 5), ("SD snd", 7),
           ("pSD snd", 7), ("pSD/tcp", 7), ("copied %", 8)], rows)

    print("\nspread, min..max (n): throughput Gb/s | send proc SD us/KB")
    for z in s.sizes:
        for lab in [f"zcperf {p}" for p in ZC_PATHS] + [ip_z]:
            print(f"  {z:>5}  {lab:<20} {s.span(z, lab, 'gbps', '.2f'):<20} "
                  f"{s.span(z, lab, 'send_proc_sd_us_per_kb', '.3f')}")

    load = s.all("other_cpu_pct")
    if load:
        over = sum(v > OTHER_LOAD_WARN_PCT for v in load)
        print(f"\nother processes' CPU load during the zcperf tests (zcperf's own count, % of one CPU):"
              f"\n  median {statistics.median(load):.1f}, max {max(load):.1f}; over {OTHER_LOAD_WARN_PCT:g}%"
              f" (zcperf warns) in {over} of {len(load)} tests")
        cap = 100 * max(s.all("host_cpus") or [0])
        if cap and max(load) > cap:
            # zcperf sums utime+stime+cutime+cstime per process (measure/other_processes.cpp),
            # so a child that exits mid-test lands whole in its parent's share.
            print(f"  values over {cap:.0f}% cannot be real on this {cap / 100:.0f}-CPU host: zcperf counts"
                  f"\n  the lifetime CPU of children that exited during the test (cutime/cstime) in their"
                  f"\n  parent. Read them as 'heavy load', not as a measure of it.")

    print("\nGb/s = 1e9 bit/s; ratios are ratios of the medians. SD snd: whole-host CPU (all CPUs,"
          "\n/proc/stat, softirq included) per KB (1024 B) sent. pSD snd: the sending process's own CPU"
          "\n(getrusage; for iperf3 its cpu_utilization_percent host_total), which is what a sender path"
          "\nchanges; pSD/tcp < 1 means the path costs the sender less than send(). copied %: share of"
          "\nMSG_ZEROCOPY / SEND_ZC bytes that the kernel's completions say it copied anyway. On loopback"
          "\nit is 100 % by design (the receiver must not see pages the sender may still change), so"
          "\nthose rows measure the zero-copy machinery's overhead, not its gain. sendfile has no"
          "\ncompletions to count (n/a): it hands the memfd's page-cache pages to TCP by reference.")


def cmd_report(layout, csv_path):
    s = Samples(csv_path)
    {"peers": report_peers, "zerocopy": report_zerocopy, "mptcp": report_mptcp}[layout](s)
    for n in sorted(s.notes):
        print("note: " + n)


def cmd_rounds(csv_path, *ratios):
    """Each round's value of every case, the ratios NUM/DEN asked, each from one round's two values (the
    rounds alternate the cases, so a drift of the machine's load falls on both), and the medians."""
    vals, cases = {}, []
    with open(csv_path) as f:
        for r in csv.DictReader(f):
            if r["case"] not in cases:
                cases.append(r["case"])
            vals.setdefault(int(r["round"]), {})[r["case"]] = float(r["value"])
    pairs = [tuple(x.split("/", 1)) for x in ratios]
    cols = [(c, max(10, len(c))) for c in cases] + [(f"{a}/{b}", max(8, len(a) + len(b) + 1)) for a, b in pairs]
    table([("round", 6)] + cols, [])
    per = {c: [] for c, _ in cols}
    for rnd in sorted(vals):
        v = vals[rnd]
        cells = [str(rnd)]
        for c in cases:
            cells.append(fmt(v.get(c), ".3f"))
            if c in v:
                per[c].append(v[c])
        for a, b in pairs:
            q = ratio(v.get(a), v.get(b))
            cells.append(fmt(q, ".3f"))
            if q is not None:
                per[f"{a}/{b}"].append(q)
        print("  ".join(f"{x:>{w}}" for x, (_, w) in zip(cells, [("", 6)] + cols)))
    med = {c: statistics.median(v) if v else None for c, v in per.items()}
    print("  ".join(f"{x:>{w}}" for x, (_, w) in zip(["median"] + [fmt(med[c], ".3f") for c, _ in cols],
                                                     [("", 6)] + cols)))
    for a, b in pairs:
        print(f"{a}/{b}: median of the rounds' ratios {fmt(med[f'{a}/{b}'], '.3f')}, "
              f"ratio of the medians {fmt(ratio(med[a], med[b]), '.3f')}")


TRANSACTION_PATHS = ("rr", "udp-rr", "crr")


def cmd_floors(csv_path):
    """floor.sh's lines: per path, zcperf/floor as the ratio of the medians with the 95 % t-interval of the
    rounds' pairwise ratios (irq_sweep_stats.ratio_stats: geometric mean, on the logs), and each one's
    median CPU per KB (per transaction for rr and crr) with their ratio."""
    import irq_sweep_stats  # scripts/, beside zclib
    vals, paths = {}, []
    with open(csv_path) as f:
        for r in csv.DictReader(f):
            path, who = r["case"].split("/", 1)
            if path not in paths:
                paths.append(path)
            vals.setdefault((path, who), {})[int(r["round"])] = float(r["value"])
    for p in paths:
        tx = p in TRANSACTION_PATHS
        zc, fl = vals.get((p, "zcperf"), {}), vals.get((p, "floor"), {})
        zcc, flc = vals.get((p, "zcperf_cpu"), {}), vals.get((p, "floor_cpu"), {})
        pairs = [zc[k] / fl[k] for k in zc if k in fl and fl[k] > 0]
        st = irq_sweep_stats.ratio_stats(pairs)
        mz, mf = (statistics.median(v.values()) if v else None for v in (zc, fl))
        cz, cf = (statistics.median(v.values()) if v else None for v in (zcc, flc))
        lo, hi = st["ci"]
        unit, cunit, spec, cspec = ("tps", "us/tran", ".0f", ".2f") if tx else ("Gb/s", "us/KB", ".2f", ".4f")
        print(f"{p:<12} zcperf/floor {fmt(ratio(mz, mf), '.3f')} [{fmt(lo, '.3f')}, {fmt(hi, '.3f')}]"
              f"  {fmt(mz, spec)} vs {fmt(mf, spec)} {unit}"
              f"  CPU {fmt(cz, cspec)} vs {fmt(cf, cspec)} {cunit} (x{fmt(ratio(cz, cf), '.3f')})  n={st['n']}")
    print("ratio: of the medians; [LOW, HIGH]: 95 % t-interval of the rounds' zcperf/floor ratios (geometric mean,"
          "\non the logs); Gb/s counted by the receiver; CPU: zcperf's data threads on both sides (getrusage) and"
          "\nthe floor's two loops (RUSAGE_THREAD), per KB (1024 B) received or per transaction.")


if __name__ == "__main__":
    {"parse": cmd_parse, "skip": cmd_skip, "report": cmd_report, "rounds": cmd_rounds, "floors": cmd_floors}[sys.argv[1]](*sys.argv[2:])
