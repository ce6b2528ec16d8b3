"""Parsing, CSV and the table for bench/latency.sh (stdlib only): request/response round-trip time.

latency.sh sources lib.sh and points its LIBPY here, so lib.sh's alternating-rounds loop calls
  latency_lib.py parse TOOL VARIANT RAW CSV ROUND SIZE BYTES DURATION CLIENT_CPU SERVER_CPU
  latency_lib.py skip TOOL VARIANT CSV ROUND SIZE BYTES DURATION NOTE
  latency_lib.py report latency CSV
  latency_lib.py rate CSV ROUND SIZE      (zcperf's rr alone in that round: sockperf under-load's --mps)
Every tool's figure is turned into a round-trip time (RTT, µs): zcperf reports it; qperf tcp_lat
reports one-way latency = RTT/2, so it is doubled; sockperf ping-pong runs with --full-rtt.
Under load (variants): zcperf's "loadN" is its rr beside N stream connections (--under-load N, their
Gb/s counted by their receiver); sockperf's "underload" is its under-load mode, its own messages at the
rate zcperf's rr ran alone in the same round, RTT of the messages it times.
"""
import csv, json, os, re, statistics, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import zclib  # noqa: E402

FIELDS = ["round", "size", "msg_bytes", "tool", "variant", "duration_s", "rtt_mean_us", "rtt_p50_us",
          "rtt_p99_us", "trans_per_s", "local_sd_us_per_tran", "remote_sd_us_per_tran", "other_cpu_pct",
          "tool_msg_bytes", "load_streams", "load_gbps", "raw", "note"]
TIME_UNIT = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "sec": 1e6, "s": 1e6}
SOCKPERF_MIN = 14   # sockperf's messages carry its 14-byte header: smaller sizes run at 14


Bad = zclib.Bad


def parse_zcperf(text, ccpu, scpu):
    d = json.loads(text)
    if d.get("errors") or not d.get("results"):
        raise Bad("zcperf: " + "; ".join(d.get("errors") or ["no results"]))
    r = d["results"][0]
    loc, rem, rr = r["local"], r["remote"], r["rr"]
    if loc["cpus"] != [ccpu] or rem["cpus"] != [scpu]:
        raise Bad(f"zcperf: unexpected pinning {loc['cpus']} {rem['cpus']}")
    if rr["transactions"] != rem["messages"]["messages"]:
        raise Bad("zcperf: the two sides' transaction counts differ")
    load = r.get("under_load", {})
    return dict(load_streams=load.get("streams", ""), load_gbps=load.get("throughput_gbps", ""),
                rtt_mean_us=rr["rtt_us"]["mean"], rtt_p50_us=rr["rtt_us"]["p50"], rtt_p99_us=rr["rtt_us"]["p99"],
                trans_per_s=rr["transactions_per_s"], local_sd_us_per_tran=rr["local_sd_us_per_tran"],
                remote_sd_us_per_tran=rr["remote_sd_us_per_tran"],
                other_cpu_pct=max(loc["other_processes_cpu_pct_of_one_cpu"], rem["other_processes_cpu_pct_of_one_cpu"]))


def parse_qperf(text):
    # tcp_lat:\n    latency  =  15.1 us\n    msg_rate = 66.2 K/sec ...
    m = re.search(r"latency\s*=\s*([\d.]+)\s*(ns|us|ms|sec)\b", text)
    if not m:
        raise Bad("qperf: no latency line")
    one_way = float(m.group(1)) * TIME_UNIT[m.group(2)]
    out = dict(rtt_mean_us=2 * one_way, raw=f"one-way {m.group(1)} {m.group(2)}")
    r = re.search(r"msg_rate\s*=\s*([\d.]+)\s*(K|M)?/sec", text)
    if r:
        out["trans_per_s"] = float(r.group(1)) * {"K": 1e3, "M": 1e6, None: 1}[r.group(2)]
    return out


def parse_sockperf(text):
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)  # its colour codes
    m = re.search(r"Round trip is ([\d.]+) usec", text)
    if not m:
        raise Bad("sockperf: no 'Round trip is' line (was --full-rtt given?)")
    out = dict(rtt_mean_us=float(m.group(1)), raw=m.group(0))
    for p, key in (("50.000", "rtt_p50_us"), ("99.000", "rtt_p99_us")):
        q = re.search(r"percentile " + re.escape(p) + r" =\s*([\d.]+)", text)
        if q:
            out[key] = float(q.group(1))
    v = re.search(r"\[Valid Duration\] RunTime=([\d.]+) sec; SentMessages=(\d+); ReceivedMessages=(\d+)", text)
    if v and float(v.group(1)) > 0:
        out["trans_per_s"] = int(v.group(3)) / float(v.group(1))
    return out


def cmd_parse(tool, variant, raw, csv_path, rnd, size, nbytes, duration, ccpu, scpu):
    text = open(raw).read()
    try:
        if tool == "zcperf":
            vals = parse_zcperf(text, int(ccpu), int(scpu))
        elif tool == "qperf":
            vals = parse_qperf(text)
        elif tool == "sockperf":
            vals = parse_sockperf(text)
        else:
            raise Bad("unknown tool " + tool)
    except (Bad, KeyError, ValueError) as e:
        print(e, file=sys.stderr)
        sys.exit(1)
    tool_bytes = max(int(nbytes), SOCKPERF_MIN) if tool == "sockperf" else int(nbytes)
    row = dict(round=rnd, size=size, msg_bytes=nbytes, tool=tool, variant=variant, duration_s=duration,
               tool_msg_bytes=tool_bytes, **vals)
    if tool_bytes != int(nbytes):
        row["note"] = f"sockperf's minimum message is {SOCKPERF_MIN} B"
    zclib.append_row(csv_path, FIELDS, row)
    print(f"RTT {vals['rtt_mean_us']:.2f} us" + (f" (p50 {vals['rtt_p50_us']:.2f})" if "rtt_p50_us" in vals else "")
          + (f", {tool_bytes} B" if tool_bytes != int(nbytes) else ""))


def cmd_skip(tool, variant, csv_path, rnd, size, nbytes, duration, note):
    zclib.append_row(csv_path, FIELDS, dict(round=rnd, size=size, msg_bytes=nbytes, tool=tool, variant=variant, duration_s=duration, note=note))


def cmd_rate(csv_path, rnd, size):
    rows = [r for r in csv.DictReader(open(csv_path)) if r["tool"] == "zcperf" and not r["variant"]
            and r["round"] == rnd and r["size"] == size and r["trans_per_s"]]
    if not rows:
        sys.exit(1)
    print(max(1, round(float(rows[-1]["trans_per_s"]))))


def under_load_report(rows, sizes):
    """zcperf's rr alone and beside N streams, sockperf under-load, by size: medians of p50/p99 and the load."""
    cases = list(dict.fromkeys((r["tool"], r["variant"]) for r in rows if r["variant"]))
    if not cases:
        return
    print("\nUnder load: RTT p50/p99 µs (median of the rounds); zcperf loadN: its rr beside N tcp streams "
          "(their Gb/s counted by their receiver); sockperf underload: its under-load mode at zcperf's alone rate.\n")
    head = "| size | zcperf alone p50/p99 | " + " | ".join(f"{t} {v} p50/p99" for t, v in cases) + " |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for s in sizes:
        def cell(tool, variant):
            sel = [r for r in rows if r["size"] == s and r["tool"] == tool and r["variant"] == variant]
            p50, p99, gbps = med(sel, "rtt_p50_us")[0], med(sel, "rtt_p99_us")[0], med(sel, "load_gbps")[0]
            if p50 is None:
                return "n/a"
            return f"{zclib.fmt(p50)}/{zclib.fmt(p99)}" + (f" ({zclib.fmt(gbps)} Gb/s)" if gbps is not None else "")
        print(f"| {s} | {cell('zcperf', '')} | " + " | ".join(cell(t, v) for t, v in cases) + " |")


def med(rows, key):
    v = [float(r[key]) for r in rows if r.get(key) not in ("", None)]
    return (statistics.median(v), min(v), max(v)) if v else (None, None, None)


def cmd_report(layout, csv_path):
    every = list(csv.DictReader(open(csv_path)))
    rows = [r for r in every if not r["variant"]]  # the tools alone; under load below
    sizes = list(dict.fromkeys(r["size"] for r in rows))
    tools = list(dict.fromkeys(r["tool"] for r in rows))
    print("Round-trip time, µs (median of the rounds; qperf's one-way latency x 2; sockperf --full-rtt).")
    print("zc/qp and zc/sp: zcperf's mean RTT over the other tool's; below 1.00 zcperf is faster.\n")
    head = f"| size | " + " | ".join(f"{t} mean" for t in tools) + " | zcperf p50 | zcperf p99 | zc/qp | zc/sp | zcperf trans/s | zcperf SD µs/Tran (local/remote) |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    spread = []
    for s in sizes:
        cells, mean = [], {}
        for t in tools:
            sel = [r for r in rows if r["size"] == s and r["tool"] == t]
            m, lo, hi = med(sel, "rtt_mean_us")
            mean[t] = m
            note = next((r["note"] for r in sel if r["note"]), "")
            resized = any(r["tool_msg_bytes"] and r["tool_msg_bytes"] != r["msg_bytes"] for r in sel)
            cells.append("n/a" if m is None else zclib.fmt(m) + (" *" if resized else ""))
            spread.append(f"{s:>5} {t:<9} " + (f"{zclib.fmt(lo)}..{zclib.fmt(hi)} us over {len(sel)} rounds" if m is not None else "skipped")
                          + (f"  ({note})" if note else ""))
        zc = [r for r in rows if r["size"] == s and r["tool"] == "zcperf"]
        p50, p99, tps = med(zc, "rtt_p50_us")[0], med(zc, "rtt_p99_us")[0], med(zc, "trans_per_s")[0]
        lsd, rsd = med(zc, "local_sd_us_per_tran")[0], med(zc, "remote_sd_us_per_tran")[0]
        ratio = lambda o: zclib.fmt(mean["zcperf"] / mean[o]) if mean.get("zcperf") and mean.get(o) else "–"
        print(f"| {s} | " + " | ".join(cells) + f" | {zclib.fmt(p50)} | {zclib.fmt(p99)} | {ratio('qperf')} | {ratio('sockperf')} | "
              f"{zclib.fmt(tps, '.0f')} | {zclib.fmt(lsd)}/{zclib.fmt(rsd)} |")
    under_load_report(every, sizes)
    print("\nmin..max behind each median:")
    for line in spread:
        print("  " + line)
    if any(r["tool_msg_bytes"] and r["tool_msg_bytes"] != r["msg_bytes"] for r in rows):
        print(f"* sockperf cannot send fewer than {SOCKPERF_MIN} bytes: its figure at that size is for {SOCKPERF_MIN} B.")
    other = med([r for r in rows if r["tool"] == "zcperf"], "other_cpu_pct")
    if other[0] is not None and other[2] > 5:
        print(f"\nWARNING: other processes used up to {other[2]:.0f}% of a CPU during zcperf's runs (median "
              f"{other[0]:.0f}%): every tool's figures were measured on a busy machine.")


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"parse": cmd_parse, "skip": cmd_skip, "report": cmd_report, "rate": cmd_rate}[cmd](*args)
