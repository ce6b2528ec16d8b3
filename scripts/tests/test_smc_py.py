#!/usr/bin/python3
"""Unit tests of scripts/lab/smc.py's decoding, on made-up kernel answers (no smc module, no network):
the smc_diag dump (mode, fallback reason and peer diagnosis, link, buffers, and a socket not yet decided),
the SMC_NETLINK_GET_STATS and GET_FBACK_STATS counters, the UEID's form and the decline codes' names.

  scripts/tests/test_smc_py.py        (ctest: smc_py_unit, label unit)
"""
import os
import socket
import struct
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lab"))
import smc  # noqa: E402


def diag_msg(state, mode, sport, dport, src, dst, attrs=b""):
    """struct smc_diag_msg (64 bytes: family, state, mode, shutdown, inet_diag_sockid, uid, inode), attributes."""
    sockid = struct.pack(">HH", sport, dport) + socket.inet_aton(src) + bytes(12) + socket.inet_aton(dst) + \
        bytes(12) + bytes(4) + bytes(8)
    msg = struct.pack("=BBBB", smc.AF_SMC, state, mode, 0) + sockid + struct.pack("=I", 0) + struct.pack("=Q", 77)
    assert len(msg) == 64
    return msg + attrs


def lgrinfo(ibdev, gid, peer_gid, role):
    return smc.attr(smc.DIAG_LGRINFO, bytes([1]) + ibdev.encode().ljust(64, b"\0") + bytes([1]) +
                    gid.encode().ljust(40, b"\0") + peer_gid.encode().ljust(40, b"\0") + bytes([role]))


def fallback(reason, peer):
    return smc.attr(smc.DIAG_FALLBACK, struct.pack("=II", reason, peer))


class FakeNetlink:
    answers = []

    def __init__(self, proto):
        self.proto = proto

    def request(self, *_):
        return FakeNetlink.answers


class FakeGenl:
    answers = {}

    def __init__(self, family):
        self.family = family

    def cmd(self, command, payload=b"", dump=False):
        return FakeGenl.answers.get(command, [])


class Diag(unittest.TestCase):
    def setUp(self):
        self.saved = smc.Netlink
        smc.Netlink = FakeNetlink

    def tearDown(self):
        smc.Netlink = self.saved

    def test_smcr_connection_fallback_and_undecided(self):
        gid, peer = "0000:0000:0000:0000:0000:ffff:c612:0101", "0000:0000:0000:0000:0000:ffff:c612:0102"
        conn = smc.attr(smc.DIAG_CONNINFO, struct.pack("=IIII", 5, 65536, 65536, 131072) + bytes(64))
        FakeNetlink.answers = [
            diag_msg(1, 0, 56030, 12950, "198.18.1.1", "198.18.1.2",
                     fallback(0, 0) + conn + lgrinfo("rxe0", gid, peer, 0)),
            diag_msg(1, 1, 33606, 12950, "198.18.1.1", "198.18.1.2", fallback(0x05000000, 0x03030000)),
            diag_msg(10, 0, 12950, 0, "198.18.1.2", "0.0.0.0", fallback(0, 0)),
        ]
        r, f, listener = smc.diag()
        self.assertEqual(r["mode"], "SMC-R")
        self.assertEqual((r["local"], r["peer"], r["state"]), ("198.18.1.1:56030", "198.18.1.2:12950", "ACTIVE"))
        self.assertEqual((r["lgr"]["ibdev"], r["lgr"]["gid"], r["lgr"]["peer_gid"], r["lgr"]["role"]),
                         ("rxe0", gid, peer, "client"))
        self.assertEqual((r["conn"]["sndbuf"], r["conn"]["peer_rmbe"]), (65536, 131072))
        self.assertEqual(r["inode"], 77)
        self.assertEqual(f["mode"], "TCP fallback")
        self.assertTrue(f["fallback_reason"].startswith("0x05000000 SMC_CLC_DECL_PEERDECL"))
        self.assertTrue(f["peer_diagnosis"].startswith("0x03030000 SMC_CLC_DECL_NOSMCDEV"))
        # diag_mode 0 without a link group is not SMC-R: nothing has been decided yet
        self.assertTrue(listener["mode"].startswith("undecided"))
        self.assertEqual(listener["state"], "LISTEN")


class Stats(unittest.TestCase):
    def setUp(self):
        self.saved = smc.Genl
        smc.Genl = FakeGenl

    def tearDown(self):
        smc.Genl = self.saved

    def test_counters_and_fallbacks_by_side(self):
        u64 = lambda k, v: smc.attr(k, struct.pack("=Q", v))  # noqa: E731
        tech = smc.attr(2, u64(8, 1) + u64(17, 33554432) + u64(19, 256))   # SMC-R: clnt_v2_succ, tx_bytes, tx_cnt
        stats = smc.attr(7, tech + u64(3, 0) + u64(4, 2))                    # SMC_GEN_STATS
        def fb(is_srv, code, cnt):
            return smc.attr(8, smc.attr(1, bytes([is_srv])) + u64(2, 1) + u64(3, 2) +
                            smc.attr(4, struct.pack("=I", code)) + smc.attr(5, struct.pack("=H", cnt)))
        FakeGenl.answers = {smc.GET_STATS: [stats],
                            smc.GET_FBACK_STATS: [fb(1, 0x03030000, 1), fb(0, 0x05000000, 2)]}
        s = smc.stats()
        self.assertEqual((s["smcr"]["clnt_v2_succ"], s["smcr"]["tx_bytes"], s["smcr"]["tx_cnt"]), (1, 33554432, 256))
        self.assertEqual(s["srv_hs_err"], 2)
        self.assertEqual(list(s["fallback"]["server"].values()), [1])
        self.assertIn("NOSMCDEV", list(s["fallback"]["server"])[0])
        self.assertIn("PEERDECL", list(s["fallback"]["client"])[0])
        self.assertEqual(s["fallback_total"], {"server": 1, "client": 2})


class Names(unittest.TestCase):
    def test_ueid_form(self):
        self.assertEqual(smc.ueid_norm("zcperf-lab"), "ZCPERF-LAB" + " " * 22)
        for bad in ("", "-X", "A B", "X" * 33):
            with self.assertRaises(smc.NetlinkError):
                smc.ueid_norm(bad)

    def test_decline_codes(self):
        self.assertEqual(smc.decline_name(0), "none")
        self.assertIn("SMC_CLC_DECL_NOUEID", smc.decline_name(0x03030008))
        self.assertIn("not in net/smc/smc_clc.h", smc.decline_name(0x7777))

    def test_sockaddr(self):
        sa = smc.sockaddr("198.18.1.2", 12950)
        self.assertEqual(len(sa), 16)
        self.assertEqual(struct.unpack_from(">H", sa, 2)[0], 12950)
        self.assertEqual(len(smc.sockaddr("fd00::2", 1)), 28)


if __name__ == "__main__":
    unittest.main()
