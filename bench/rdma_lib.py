"""bench/rdma.sh's parsing and report: lib.py's CSV, zcperf parser and tables, plus the peers
of zcperf's RDMA paths (perftest's ib_write_bw / ib_send_bw, librdmacm's rstream). Called as
  rdma_lib.py parse|skip ...          as lib.py (see there)
  rdma_lib.py report rdma CSV
  rdma_lib.py rate TOOL RAW    bytes/s of a calibration run, for sizing the measured ones
  rdma_lib.py lat RAW          mean one-way us of a latency tool's calibration run
"""
import os, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lib  # noqa: E402
from lib import Bad, fmt, ratio, table  # noqa: E402

MiB = 1 << 20
# The message tests' columns (bench/rdma.sh --messages).
lib.FIELDS.extend(["msgs_per_s", "lat_p50_us", "lat_mean_us", "lat_p99_us"])
# perftest's units: MB/sec is MiB/s (its --report_gbits help says "instead of MiB/sec"), Gb/sec 1e9 bit/s
PERFTEST_GBPS = {"MB/sec": MiB * 8 / 1e9, "Gb/sec": 1.0}


def perftest_run(text, want_mpps=False):
    """(bytes, iterations, Gb/s) from perftest's result table ('#bytes #iterations BW peak[MB/sec]
    BW average[MB/sec] MsgRate[Mpps]' and a line of numbers), checked against what rdma.sh asked
    for ('# rdma.sh: TOOL -s BYTES -n COUNT')."""
    m = re.search(r"^# rdma\.sh: \S+ -s (\d+) -n (\d+)", text, re.M)
    if not m:
        raise Bad("perftest: no '# rdma.sh:' line with the count")
    want_bytes, want_iters = map(int, m.groups())
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.search(r"BW average\[(\w+/sec)\]", line)
        if not m or "#bytes" not in line:
            continue
        unit = m.group(1)
        if unit not in PERFTEST_GBPS:
            raise Bad(f"perftest: unknown unit {unit}")
        for row in lines[i + 1:]:
            f = row.split()
            if len(f) >= 4 and f[0].isdigit():
                nbytes, iters, avg = int(f[0]), int(f[1]), float(f[3])
                if (nbytes, iters) != (want_bytes, want_iters):
                    raise Bad(f"perftest: moved {iters} x {nbytes} B, asked for {want_iters} x {want_bytes}")
                if avg <= 0:
                    raise Bad(f"perftest: {avg} {unit}: nothing measured\n{text}")
                if want_mpps:
                    if "MsgRate[Mpps]" not in line or len(f) < 5:
                        raise Bad("perftest: no MsgRate[Mpps] column")
                    return nbytes, iters, avg * PERFTEST_GBPS[unit], float(f[4]) * 1e6
                return nbytes, iters, avg * PERFTEST_GBPS[unit]
        break
    raise Bad("perftest: no result table in its output:\n" + text)


def parse_perftest(text, ccpu, scpu, variant, msg_bytes):
    nbytes, iters, gbps, msgs = perftest_run(text, want_mpps=True)
    if nbytes != msg_bytes:
        raise Bad(f"perftest: ran {nbytes} B messages, wanted {msg_bytes}")
    return dict(gbps=gbps, msgs_per_s=msgs)


def perftest_lat_run(text):
    """(bytes, iterations, t_typical, t_avg, p99) in us from ib_*_lat's table ('#bytes #iterations
    t_min[usec] t_max[usec] t_typical[usec] t_avg[usec] t_stdev[usec] 99% percentile[usec] ...'),
    checked against the count rdma.sh asked for. perftest's times are one way: RTT/2."""
    m = re.search(r"^# rdma\.sh: \S+ -s (\d+) -n (\d+)", text, re.M)
    if not m:
        raise Bad("perftest: no '# rdma.sh:' line with the count")
    want = tuple(map(int, m.groups()))
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if "#bytes" not in line or "t_typical" not in line:
            continue
        head = line.replace("99% percentile", "p99").replace("99.9% percentile", "p999").split()
        for row in lines[i + 1:]:
            f = row.split()
            if len(f) >= 6 and f[0].isdigit():
                col = {h.split("[")[0]: float(v) for h, v in zip(head, f)}
                got = (int(col["#bytes"]), int(col["#iterations"]))
                # perftest reports one fewer iteration than it ran for some latency tests: allow it
                if got[0] != want[0] or abs(got[1] - want[1]) > 1:
                    raise Bad(f"perftest: ran {got[1]} x {got[0]} B, asked for {want[1]} x {want[0]}")
                if col["t_avg"] <= 0:
                    raise Bad("perftest: zero latency: nothing measured\n" + text)
                return got[0], got[1], col["t_typical"], col["t_avg"], col.get("p99", 0.0)
        break
    raise Bad("perftest: no latency table in its output:\n" + text)


def parse_perftest_lat(text, ccpu, scpu, variant, msg_bytes):
    nbytes, iters, typical, avg, p99 = perftest_lat_run(text)
    if nbytes != msg_bytes:
        raise Bad(f"perftest: ran {nbytes} B messages, wanted {msg_bytes}")
    # gbps: one message each way per round trip of 2 x avg us
    return dict(gbps=nbytes * 8 / (2 * avg * 1e-6) / 1e9, lat_p50_us=typical, lat_mean_us=avg, lat_p99_us=p99)


_parse_zcperf_stream = lib.parse_zcperf


def parse_zcperf_messages(text, ccpu, scpu, variant):
    """zcperf -t msgrate / rr (-o json): the variant is msgrate-TRANSPORT or rr-TRANSPORT."""
    if not variant.startswith(("msgrate-", "rr-")):
        return _parse_zcperf_stream(text, ccpu, scpu, variant)
    test, transport = variant.split("-", 1)
    d = lib.json.loads(text)
    if d.get("errors") or not d.get("results"):
        raise Bad("zcperf: " + "; ".join(d.get("errors") or ["no results"]))
    r = d["results"][0]
    if r["transport"] != transport or r["test"] != test:
        raise Bad(f"zcperf: ran {r['test']} over {r['transport']}, wanted {variant}")
    loc, rem = r["local"], r["remote"]
    if loc["messages"]["messages"] != rem["messages"]["messages"] or loc["messages"]["messages"] <= 0:
        raise Bad("zcperf: the two sides' counts differ or are zero")
    out = dict(gbps=r["throughput_gbps"], other_cpu_pct=max(loc["other_processes_cpu_pct_of_one_cpu"],
                                                          rem["other_processes_cpu_pct_of_one_cpu"]))
    if test == "msgrate":
        out["msgs_per_s"] = r["msgrate"]["messages_per_s"]
    else:
        lat = r["rr"]["latency_us"]
        out.update(lat_p50_us=lat["p50"], lat_mean_us=lat["mean"], lat_p99_us=lat["p99"],
                   msgs_per_s=r["rr"]["transactions_per_s"])
    return out


lib.parse_zcperf = parse_zcperf_messages


def rstream_run(text):
    """(size, count, iterations, seconds) of an rstream run: the counts from rdma.sh's own
    line (rstream rounds them: 1600 prints as '1k'), the time from rstream's result line
    'name bytes xfers iters total time Gb/sec usec/xfer'."""
    m = re.search(r"^# rdma\.sh: rstream -S (\d+) -C (\d+) -I (\d+)", text, re.M)
    if not m:
        raise Bad("rstream: no '# rdma.sh:' line with the counts")
    size, count, iters = map(int, m.groups())
    head = None
    for line in text.splitlines():
        f = line.split()
        if "Gb/sec" in f and "time" in f:
            head = f
        elif head and len(f) == len(head) and f[0] != "name":
            secs = float(f[head.index("time")].rstrip("s"))
            if secs <= 0:
                raise Bad("rstream: zero time")
            return size, count, iters, secs
    raise Bad("rstream: no result line in its output:\n" + text)


def parse_rstream(text, ccpu, scpu, variant, msg_bytes):
    size, count, iters, secs = rstream_run(text)
    if size != msg_bytes:
        raise Bad(f"rstream: ran {size} B transfers, wanted {msg_bytes}")
    # Every transfer goes to the server and back: 2 x size x count x iterations bytes, one
    # direction at a time, in rstream's time (its own Gb/sec has only two decimals).
    return dict(gbps=2 * size * count * iters * 8 / secs / 1e9)


def with_size(parser):
    # lib.cmd_parse calls parse_TOOL(text, ccpu, scpu, variant); these also check the size,
    # which they read from the command line lib.cmd_parse got.
    return lambda text, ccpu, scpu, variant: parser(text, ccpu, scpu, variant, int(sys.argv[8]))


lib.parse_ib_write_bw = with_size(parse_perftest)
lib.parse_ib_send_bw = with_size(parse_perftest)
lib.parse_rstream = with_size(parse_rstream)
lib.parse_ib_send_lat = with_size(parse_perftest_lat)
lib.parse_ib_write_lat = with_size(parse_perftest_lat)

PAIRS = [("zcperf rdma-write", "ib_write_bw"), ("zcperf rdma-send", "ib_send_bw"),
         ("zcperf rsocket", "rstream")]


def report_rdma(s):
    print("throughput, Gb/s (medians); ratio = zcperf / peer")
    rows = []
    for z in s.sizes:
        for i, (zc, peer) in enumerate(PAIRS):
            a, b = s.med(z, zc, "gbps"), s.med(z, peer, "gbps")
            rows.append([z if i == 0 else "", zc, fmt(a, ".3f"), peer, fmt(b, ".3f"), fmt(ratio(a, b), ".2f")])
    table([("size", 5), ("zcperf", -18), ("Gb/s", 7), ("peer", -12), ("Gb/s", 7), ("ratio", 5)], rows)
    print("\nthroughput samples, Gb/s: min..max (n)")
    for z in s.sizes:
        for zc, peer in PAIRS:
            print(f"  {z:>5}  {zc:<18} {s.span(z, zc, 'gbps', '.3f'):<22} {peer:<12} {s.span(z, peer, 'gbps', '.3f')}")
    print("\nGb/s = 1e9 bit/s. zcperf: the receiver's count (-o json throughput_gbps). perftest: its"
          "\n'BW average' over -n messages (MB/sec there is MiB/s). rstream: 2 x size x count bytes"
          "\nover its own time (each transfer goes to the server and back, one direction at a time),"
          "\nwhere zcperf -T rsocket streams one way.")


MSG_PAIRS = [("zcperf msgrate-rdma-send", "ib_send_bw"), ("zcperf rr-rdma-send", "ib_send_lat"),
             ("zcperf rr-rdma-write", "ib_write_lat")]


def report_rdma_messages(s):
    print("message rate, messages/s (medians); ratio = zcperf / peer (above 1: zcperf faster)")
    rows = []
    for z in s.sizes:
        a, b = s.med(z, MSG_PAIRS[0][0], "msgs_per_s"), s.med(z, MSG_PAIRS[0][1], "msgs_per_s")
        rows.append([z, "zcperf msgrate rdma-send", fmt(a, ".0f"), "ib_send_bw", fmt(b, ".0f"), fmt(ratio(a, b), ".2f")])
    table([("size", 5), ("zcperf", -24), ("msg/s", 9), ("peer", -12), ("msg/s", 9), ("ratio", 5)], rows)
    print("\nlatency (one way = RTT/2), us, medians of the runs' p50 (perftest: t_typical) and mean (t_avg);"
          "\nratio = zcperf / peer (below 1: zcperf lower)")
    rows = []
    for z in s.sizes:
        for i, (zc, peer) in enumerate(MSG_PAIRS[1:]):
            a50, b50 = s.med(z, zc, "lat_p50_us"), s.med(z, peer, "lat_p50_us")
            am, bm = s.med(z, zc, "lat_mean_us"), s.med(z, peer, "lat_mean_us")
            rows.append([z if i == 0 else "", zc, fmt(a50, ".1f"), fmt(am, ".1f"), peer, fmt(b50, ".1f"), fmt(bm, ".1f"),
                         fmt(ratio(a50, b50), ".2f"), fmt(ratio(am, bm), ".2f")])
    table([("size", 5), ("zcperf", -20), ("p50", 8), ("mean", 8), ("peer", -12), ("typical", 8), ("avg", 8),
           ("p50 ratio", 9), ("mean ratio", 10)], rows)
    print("\nsamples: min..max (n)")
    for z in s.sizes:
        print(f"  {z:>5}  msgs/s  {MSG_PAIRS[0][0]:<24} {s.span(z, MSG_PAIRS[0][0], 'msgs_per_s', '.0f'):<22} "
              f"{MSG_PAIRS[0][1]:<12} {s.span(z, MSG_PAIRS[0][1], 'msgs_per_s', '.0f')}")
        for zc, peer in MSG_PAIRS[1:]:
            print(f"  {z:>5}  p50 us  {zc:<24} {s.span(z, zc, 'lat_p50_us', '.1f'):<22} {peer:<12} "
                  f"{s.span(z, peer, 'lat_p50_us', '.1f')}")
    print("\nzcperf: both sides' counts agree (checked); msgrate = the receiver's messages/s, rr latency = RTT/2"
          "\nfrom its histogram. perftest: MsgRate[Mpps] of ib_send_bw -n COUNT; ib_*_lat's t_typical (median)"
          "\nand t_avg, one way. Same size, QPs, post list and inline size on both.")


def cmd_report(layout, csv_path):
    report = {"rdma": report_rdma, "rdma_messages": report_rdma_messages}.get(layout)
    if not report:
        return lib.cmd_report(layout, csv_path)
    s = lib.Samples(csv_path)
    report(s)
    for n in sorted(s.notes):
        print("note: " + n)


def cmd_lat(raw):
    with open(raw) as f:
        text = f.read()
    try:
        print(perftest_lat_run(text)[3])
    except Bad as e:
        sys.exit(str(e))


def cmd_rate(tool, raw):
    """Bytes per second of a calibration run (for rstream: both directions' bytes)."""
    with open(raw) as f:
        text = f.read()
    try:
        if tool == "rstream":
            size, count, iters, secs = rstream_run(text)
            print(int(2 * size * count * iters / secs))
        else:
            print(int(perftest_run(text, want_mpps=True)[2] * 1e9 / 8))
    except Bad as e:
        sys.exit(str(e))


if __name__ == "__main__":
    {"parse": lib.cmd_parse, "skip": lib.cmd_skip, "report": cmd_report,
     "rate": cmd_rate, "lat": cmd_lat}[sys.argv[1]](*sys.argv[2:])
