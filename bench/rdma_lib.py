"""bench/rdma.sh's parsing and report: lib.py's CSV, zcperf parser and tables, plus the peers
of zcperf's RDMA paths (perftest's ib_write_bw / ib_send_bw, librdmacm's rstream). Called as
  rdma_lib.py parse|skip ...          as lib.py (see there)
  rdma_lib.py report rdma CSV
  rdma_lib.py rate TOOL RAW    bytes/s of a calibration run, for sizing the measured ones
"""
import os, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lib  # noqa: E402
from lib import Bad, fmt, ratio, table  # noqa: E402

MiB = 1 << 20
# perftest's units: MB/sec is MiB/s (its --report_gbits help says "instead of MiB/sec"), Gb/sec 1e9 bit/s
PERFTEST_GBPS = {"MB/sec": MiB * 8 / 1e9, "Gb/sec": 1.0}


def perftest_run(text):
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
                return nbytes, iters, avg * PERFTEST_GBPS[unit]
        break
    raise Bad("perftest: no result table in its output:\n" + text)


def parse_perftest(text, ccpu, scpu, variant, msg_bytes):
    nbytes, iters, gbps = perftest_run(text)
    if nbytes != msg_bytes:
        raise Bad(f"perftest: ran {nbytes} B messages, wanted {msg_bytes}")
    return dict(gbps=gbps)


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


def cmd_report(layout, csv_path):
    if layout != "rdma":
        return lib.cmd_report(layout, csv_path)
    s = lib.Samples(csv_path)
    report_rdma(s)
    for n in sorted(s.notes):
        print("note: " + n)


def cmd_rate(tool, raw):
    """Bytes per second of a calibration run (for rstream: both directions' bytes)."""
    with open(raw) as f:
        text = f.read()
    try:
        if tool == "rstream":
            size, count, iters, secs = rstream_run(text)
            print(int(2 * size * count * iters / secs))
        else:
            print(int(perftest_run(text)[2] * 1e9 / 8))
    except Bad as e:
        sys.exit(str(e))


if __name__ == "__main__":
    {"parse": lib.cmd_parse, "skip": lib.cmd_skip, "report": cmd_report,
     "rate": cmd_rate}[sys.argv[1]](*sys.argv[2:])
