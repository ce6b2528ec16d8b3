#!/usr/bin/python3
"""Unit tests of scripts/irq_sweep_stats.py (the sweep's paired ratios and intervals) and of irq_sweep.py's
rounds (order, keys, resume of a CSV from before --rounds), on made-up rows: no zcperf, no network.

  scripts/tests/test_irq_sweep_stats.py        (ctest: irq_sweep_stats_unit, label unit)
"""
import argparse
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import irq_sweep  # noqa: E402
import irq_sweep_stats as st  # noqa: E402


def row(transport, client, irq, size, rnd, sd, **explain):
    r = {"transport": transport, "test": "stream", "rx": "copy", "client_cpu": str(client), "server_cpu": "1",
         "irq_cpu": str(irq), "irq_side": "both", "mem_node": "any", "message_size": str(size), "duration_s": "4",
         "host": "b:1", "extra_args": "--explain", "round": str(rnd), "throughput_gbps": "1",
         "local_sd_us_per_kb": str(sd), "error": "", "finished_at": "x"}
    for c in irq_sweep.EXPLAIN_CATEGORIES:
        r[f"local_explain_{c}"] = str(explain.get(c, 0.0))
        r[f"remote_explain_{c}"] = "0"
    return r


# Five rounds of one client core and size. tcp: IRQ on the own core costs 1.5x, all of it more netdev;
# tcp-msgzc: IRQ core makes no difference beyond noise; zero-copy halves the copy category.
NOISE = [1.00, 1.04, 0.97, 1.02, 0.98]


def sweep_rows():
    rows = []
    for i, k in enumerate(NOISE, start=1):
        rows.append(row("tcp", 0, 0, 65536, i, 3.0 * k, copy=1.0, netdev=2.0 * k))  # own core
        rows.append(row("tcp", 0, 1, 65536, i, 2.0 * k, copy=1.0, netdev=1.0 * k))  # other core
        rows.append(row("tcp-msgzc", 0, 0, 65536, i, 1.0 * k, copy=0.5, netdev=0.5 * k))
        rows.append(row("tcp-msgzc", 0, 1, 65536, i, 1.0 * NOISE[-i], copy=0.5, netdev=0.5 * NOISE[-i]))
    return rows


class Stats(unittest.TestCase):
    def test_t_quantiles(self):
        self.assertAlmostEqual(st.t975(4), 2.776)
        self.assertAlmostEqual(st.t975(30), 2.042)
        self.assertAlmostEqual(st.t975(60), 2.000, places=2)
        self.assertEqual(st.t975(0), math.inf)

    def test_mean_ci(self):
        m, (lo, hi) = st.mean_ci([1.0, 2.0, 3.0])  # sd 1, n 3: half-width 4.303 / sqrt(3)
        self.assertAlmostEqual(m, 2.0)
        self.assertAlmostEqual(hi - m, 4.303 / math.sqrt(3), places=6)
        self.assertEqual(st.mean_ci([5.0]), (5.0, (None, None)))

    def test_ratio_interval_is_on_logs(self):
        s = st.ratio_stats([2.0, 0.5])  # symmetric on the log scale: geometric mean 1
        self.assertAlmostEqual(s["gmean"], 1.0)
        self.assertAlmostEqual(s["ci"][0] * s["ci"][1], 1.0)
        self.assertEqual(s["median"], 1.25)

    def test_pairs_ratios_and_moving_categories(self):
        comps = st.comparisons(sweep_rows())
        by = {(c["kind"], c["transport"], c["pooled"], c["size"]): c for c in comps}
        tcp = by[("irq", "tcp", False, 65536)]
        self.assertEqual(tcp["n"], 5)
        self.assertAlmostEqual(tcp["gmean"], 1.5)  # the noise is common to both sides of each round
        self.assertGreater(tcp["ci"][0], 1.0)
        self.assertAlmostEqual(tcp["delta"], 1.0 * sum(NOISE) / len(NOISE))  # 3k - 2k µs/KB
        self.assertGreater(tcp["delta_ci"][0], 0.9)
        self.assertTrue(tcp["label"].startswith("tcp 64K client 0: IRQ 0 / IRQ 1"))
        cats = tcp["categories"]["local"]
        self.assertTrue(st.moves(cats["netdev"]))
        self.assertGreater(cats["netdev"]["mean"], 0.9)
        self.assertFalse(st.moves(cats["copy"]))  # equal every round: no interval away from 0
        zc_irq = by[("irq", "tcp-msgzc", False, 65536)]
        self.assertLess(zc_irq["ci"][0], 1.0)
        self.assertGreater(zc_irq["ci"][1], 1.0)
        self.assertTrue(st.verdict(zc_irq).startswith("not resolved"))
        # zero-copy against copy, per IRQ core: IRQ 1 (other core) 0.5x, and the copy category halves
        zc = [c for c in comps if c["kind"] == "zerocopy" and not c["pooled"] and c["label"].endswith("IRQ 1")][0]
        self.assertAlmostEqual(zc["median"], 0.5, places=1)
        self.assertLess(zc["ci"][1], 1.0)
        self.assertAlmostEqual(zc["categories"]["local"]["copy"]["mean"], -0.5)
        # the pooled zero-copy line (over the two IRQ cores) and the interaction (tcp's IRQ ratio over
        # tcp-msgzc's); a pool of one point (the IRQ pairs here) would repeat it and is left out
        self.assertAlmostEqual(by[("zerocopy", "tcp-msgzc", True, "all")]["gmean"], math.sqrt(1 / 3 * 0.5), places=2)
        self.assertNotIn(("irq", "tcp", True, "all"), by)
        inter = [c for c in comps if c["kind"] == "interaction"][0]
        self.assertGreater(inter["ci"][0], 1.0)
        self.assertAlmostEqual(inter["delta"], 1.0 * sum(NOISE) / len(NOISE), places=6)  # tcp's +1k, tcp-msgzc's 0
        text = st.format_summary(comps)
        self.assertIn("IRQ on the client's own core", text)
        self.assertRegex(text, r"L netdev \+1\.00\d \[\+0\.9")

    def test_udp_msgzc_is_paired_with_udp_gso(self):
        rows = []
        for i, k in enumerate(NOISE, start=1):
            rows.append(row("udp-gso", 0, "none", 64768, i, 8.0 * k, copy=1.2))
            rows.append(dict(row("udp-msgzc", 0, "none", 64768, i, 2.0 * k, copy=0.02), zc_copied_pct=str(i - 1)))
            rows.append(row("tcp", 0, "none", 64768, i, 6.0 * k, copy=1.0))
        zc = [c for c in st.comparisons(rows) if c["kind"] == "zerocopy"]
        self.assertEqual(len(zc), 1)  # tcp is no partner of udp-msgzc
        self.assertEqual(zc[0]["label"], "udp-msgzc / udp-gso 64768 client 0 IRQ none")
        self.assertAlmostEqual(zc[0]["gmean"], 0.25)
        self.assertLess(zc[0]["categories"]["local"]["copy"]["mean"], -1.1)
        self.assertIn("the kernel copied 2.0 % of the zero-copy bytes (median; 0.0-4.0 %)",
                      st.format_summary(st.comparisons(rows)))

    def test_rounds_with_a_missing_partner_are_left_out(self):
        rows = [r for r in sweep_rows() if not (r["round"] == "3" and r["irq_cpu"] == "1")]
        rows.append(dict(sweep_rows()[0], local_sd_us_per_kb=""))  # a failed run: no figure
        tcp = [c for c in st.comparisons(rows) if c["kind"] == "irq" and not c["pooled"] and c["transport"] == "tcp"]
        self.assertEqual(tcp[0]["rounds"], ["1", "2", "4", "5"])

    def test_no_pairs_says_why(self):
        self.assertIn("no pairs", st.format_summary(st.comparisons([row("tcp", 0, 0, 65536, 1, 1.0)])))


class Rounds(unittest.TestCase):
    def args(self, rounds):
        return argparse.Namespace(host="b:1", duration="4", mem_nodes=["any"], irq_cpus=["0", "1"], client_cpus=["0"],
                                  sizes=[65536], transports=["tcp", "tcp-msgzc"], server_cpu="1", irq_side="both",
                                  rounds=rounds)

    def test_order_alternates_by_round(self):
        combos = irq_sweep.Sweep(self.args(3), []).combinations()
        self.assertEqual(len(combos), 12)
        first = [(c["irq_cpu"], c["transport"]) for c in combos if c["round"] == "1"]
        second = [(c["irq_cpu"], c["transport"]) for c in combos if c["round"] == "2"]
        third = [(c["irq_cpu"], c["transport"]) for c in combos if c["round"] == "3"]
        self.assertEqual(second, first[::-1])
        self.assertEqual(third, first)
        self.assertEqual(len({irq_sweep.key_of(c) for c in combos}), 12)  # the round tells repeats apart

    def test_a_row_without_round_is_round_one(self):
        c = irq_sweep.Sweep(self.args(1), []).combinations()[0]
        old = {k: v for k, v in c.items() if k != "round"}
        self.assertEqual(irq_sweep.key_of(old), irq_sweep.key_of(c))


if __name__ == "__main__":
    unittest.main()
