#!/usr/bin/env python3
"""bench/udp.sh's tables: the median of each (case, tool) over the rounds, and zcperf's ratios."""
import csv
import statistics
import sys
from collections import defaultdict


def main(path):
    samples = defaultdict(list)
    with open(path) as f:
        for row in csv.DictReader(f):
            try:
                samples[(row["case"], row["tool"])].append(float(row["value"]))
            except ValueError:
                pass
    med = {k: statistics.median(v) for k, v in samples.items() if v}
    rounds = max((len(v) for v in samples.values()), default=0)
    print(f"medians of {rounds} rounds")
    print(f"{'case':<22} {'tool':<14} {'median':>12}  samples")
    for (case, tool), v in sorted(samples.items()):
        print(f"{case:<22} {tool:<14} {med[(case, tool)]:>12.2f}  {', '.join(f'{x:.1f}' for x in v)}")

    def ratio(case, a, b, invert=False):
        if (case, a) in med and (case, b) in med and med[(case, b)] and med[(case, a)]:
            x = med[(case, b)] / med[(case, a)] if invert else med[(case, a)] / med[(case, b)]
            print(f"  {case}: {a} / {b} = {x:.2f}x{'  (lower is better: ' + b + ' / ' + a + ')' if invert else ''}")

    print("ratios (>= 1.0: zcperf at least as fast)")
    ratio("tp_received", "zcperf", "iperf3")
    ratio("tp_sent", "zcperf", "iperf3")
    ratio("tp_sent", "zcperf", "sockperf")
    ratio("pp_rtt_us", "zcperf", "sockperf", invert=True)
    ratio("sender_MB_per_cpu_s", "udp-gso", "udp")
    ratio("sender_MB_per_cpu_s", "udp-gso", "udp-batch44")
    ratio("sender_MB_per_cpu_s", "udp-msgzc", "udp-gso")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: udp_summary.py FILE.csv")
    main(sys.argv[1])
