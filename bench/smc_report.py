#!/usr/bin/env python3
"""smc_report.py CSV SMC_CSV: bench/smc_peers.sh's table.

Per message size: the median Gb/s of each label (iperf3, iperf3 smc, and zcperf's once it runs there),
SMC over TCP as a ratio of the medians, and what the kernels counted over the SMC tests: connections that
used SMC-R on each side, the bytes SMC-R sent, and the fallbacks to TCP with their reasons. A size whose
SMC tests fell back is marked: its "smc" figure is TCP's.
"""
import csv
import statistics
import sys
from collections import defaultdict


def main(path, smc_path):
    gbps = defaultdict(list)
    sizes = []
    with open(path) as f:
        for row in csv.DictReader(f):
            if not row.get("gbps"):
                continue
            label = row["tool"] + (" " + row["variant"] if row.get("variant") else "")
            if row["size"] not in sizes:
                sizes.append(row["size"])
            gbps[(row["size"], label)].append(float(row["gbps"]))
    smc = defaultdict(lambda: [0, 0, 0, 0, 0, set(), 0, 0, 0, 0, 0])   # sums, reasons, then unread counts
    try:
        with open(smc_path) as f:
            for row in csv.DictReader(f):
                s = smc[row["size"]]
                for i, k in enumerate(("client_smc_conns", "server_smc_conns", "rdma_tx_bytes",
                                       "client_fallbacks", "server_fallbacks")):
                    if row[k] == "na":   # that side's counters could not be read after a test
                        s[6 + i] += 1
                    else:
                        s[i] += int(row[k])
                if row["reasons"] not in ("", "-"):
                    s[5].add(row["reasons"])
    except FileNotFoundError:
        pass
    labels = sorted({lab for (_, lab) in gbps}, key=lambda x: (x != "iperf3", x))
    print("%-5s " % "size" + " ".join("%12s" % lab for lab in labels) +
          "  smc/tcp  SMC-R conns (A/B)  SMC-R bytes  fallbacks (A/B)")
    for size in sizes:
        med = {lab: statistics.median(gbps[(size, lab)]) for lab in labels if gbps.get((size, lab))}
        tcp, over = med.get("iperf3"), med.get("iperf3 smc")
        ratio = "%7.2f" % (over / tcp) if tcp and over else "%7s" % "-"
        s = smc[size]
        mark = " FELL BACK: the smc figure is TCP's" if s[3] or s[4] else ""
        print("%-5s " % size + " ".join("%12s" % ("%.3f" % med[lab] if lab in med else "-") for lab in labels) +
              "  %s  %8d/%-8d  %11d  %6d/%-6d%s" % (ratio, s[0], s[1], s[2], s[3], s[4], mark))
        if any(s[6:]):
            print("      counters not read after %d of the SMC tests on A, %d on B: their sums lack them"
                  % (max(s[6], s[8], s[9]), max(s[7], s[10])))
        for reasons in sorted(s[5]):
            print("      fallback reasons so far (cumulative, both sides' lists): " + reasons)
    print("Gb/s are medians of the rounds; SMC-R conns and bytes are the differences of SMC_NETLINK_GET_STATS\n"
          "around each SMC test (iperf3 opens two connections per test: control and data).")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
