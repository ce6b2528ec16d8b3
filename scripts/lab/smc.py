#!/usr/bin/env python3
"""smc.py: SMC's kernel interfaces from the shell, with nothing but Python's standard library.

The lab (scripts/lab.sh --smc) sets SMC up with it, and bench/smc_peers.sh and docs/smc.md read the
kernel's word on a connection with it; smc-tools (smcr, smc_pnet, smcss) does the same through libnl,
but Debian 12 does not package it.

  smc.py setup [--ueid ID | --no-ueid] [--pnet PNETID --ib DEV [--eth NETDEV]]
                                     modprobe smc smc_diag, then the UEID and PNET entries (idempotent)
  smc.py ueid show|add ID|del ID|flush   the user-defined EIDs (SMC_GEN_NETLINK, SMC_NETLINK_*_UEID)
  smc.py pnet show|flush|add PNETID [--eth NETDEV] [--ib DEV [--port N]]   the PNET table (SMC_PNETID)
  smc.py info                        SMC_NETLINK_GET_SYS_INFO (version, SMC-Rv2 capable, SEID)
  smc.py stats [--json]              SMC_NETLINK_GET_STATS and GET_FBACK_STATS, the host's counters
  smc.py diag [--json]               the smc_diag dump: each AF_SMC socket's mode, fallback reason, the
                                     peer's diagnosis, link (RDMA device, GIDs) and buffer sizes
  smc.py probe server|client ADDR [--port P] [--bytes N] [--hold S] [--timeout S]
                                     an AF_SMC stream: the client sends N bytes, both print the diag of
                                     their own connection while it is open, and the Gb/s

Codes are decoded with the names of net/smc/smc_clc.h (SMC_CLC_DECL_*). Exit status: 0, 1 on an error
(said on stderr), 2 on bad usage.
"""
import argparse
import ctypes
import ctypes.util
import json
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import time

AF_SMC = 43
SMCPROTO_SMC, SMCPROTO_SMC6 = 0, 1
NETLINK_GENERIC, NETLINK_SOCK_DIAG = 16, 4
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 0x1, 0x4, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 0x10, 3, 1, 2
SOCK_DIAG_BY_FAMILY = 20

# include/uapi/linux/smc.h
SMC_GENL, SMC_PNETID_GENL = "SMC_GEN_NETLINK", "SMC_PNETID"
(GET_SYS_INFO, GET_LGR_SMCR, GET_LINK_SMCR, GET_LGR_SMCD, GET_DEV_SMCD, GET_DEV_SMCR, GET_STATS,
 GET_FBACK_STATS, DUMP_UEID, ADD_UEID, REMOVE_UEID, FLUSH_UEID) = range(1, 13)
PNETID_GET, PNETID_ADD, PNETID_DEL, PNETID_FLUSH = 1, 2, 3, 4
PNETID_NAME, PNETID_ETHNAME, PNETID_IBNAME, PNETID_IBPORT = 1, 2, 3, 4
EID_TABLE_ENTRY = 1
MAX_EID_LEN = 32
SYS_INFO = {1: ("version", "u8"), 2: ("release", "u8"), 3: ("ism_v2", "u8"), 4: ("local_host", "str"),
            5: ("seid", "str"), 6: ("smcr_v2", "u8")}
STATS_TECH = {7: "clnt_v1_succ", 8: "clnt_v2_succ", 9: "srv_v1_succ", 10: "srv_v2_succ", 11: "sendpage",
              12: "splice", 13: "cork", 14: "nodelay", 15: "urg_data", 16: "rx_bytes", 17: "tx_bytes",
              18: "rx_cnt", 19: "tx_cnt"}

# net/smc/smc_clc.h (6.1 and 6.12 agree on these): the reason a connection fell back to TCP.
DECLINE = {
    0x01010000: "SMC_CLC_DECL_MEM (insufficient memory resources)",
    0x02010000: "SMC_CLC_DECL_TIMEOUT_CL (timeout waiting for QP confirm link)",
    0x02020000: "SMC_CLC_DECL_TIMEOUT_AL (timeout waiting for QP add link)",
    0x03000000: "SMC_CLC_DECL_CNFERR (configuration error)",
    0x03010000: "SMC_CLC_DECL_PEERNOSMC (peer did not indicate SMC)",
    0x03020000: "SMC_CLC_DECL_IPSEC (IPsec usage)",
    0x03030000: "SMC_CLC_DECL_NOSMCDEV (no SMC device found, R or D)",
    0x03030001: "SMC_CLC_DECL_NOSMCDDEV (no SMC-D device found)",
    0x03030002: "SMC_CLC_DECL_NOSMCRDEV (no SMC-R device found)",
    0x03030003: "SMC_CLC_DECL_NOISM2SUPP (hardware has no ISMv2 support)",
    0x03030004: "SMC_CLC_DECL_NOV2EXT (peer sent no CLC v2 extension)",
    0x03030005: "SMC_CLC_DECL_NOV2DEXT (peer sent no CLC SMC-Dv2 extension)",
    0x03030006: "SMC_CLC_DECL_NOSEID (peer sent no SEID)",
    0x03030007: "SMC_CLC_DECL_NOSMCD2DEV (no SMC-Dv2 device found)",
    0x03030008: "SMC_CLC_DECL_NOUEID (peer sent no UEID)",
    0x03030009: "SMC_CLC_DECL_RELEASEERR (release version negotiation failed)",
    0x0303000a: "SMC_CLC_DECL_MAXCONNERR (max connections negotiation failed)",
    0x0303000b: "SMC_CLC_DECL_MAXLINKERR (max links negotiation failed)",
    0x03040000: "SMC_CLC_DECL_MODEUNSUPP (SMC modes do not match, R or D)",
    0x03050000: "SMC_CLC_DECL_RMBE_EC (peer has eyecatcher in RMBE)",
    0x03060000: "SMC_CLC_DECL_OPTUNSUPP (fastopen sockopt not supported)",
    0x03070000: "SMC_CLC_DECL_DIFFPREFIX (IP prefix / subnet mismatch)",
    0x03080000: "SMC_CLC_DECL_GETVLANERR (error getting the IP device's VLAN id)",
    0x03090000: "SMC_CLC_DECL_ISMVLANERR (error registering the VLAN id on the ISM device)",
    0x030a0000: "SMC_CLC_DECL_NOACTLINK (no active SMC-R link in the link group)",
    0x030b0000: "SMC_CLC_DECL_NOSRVLINK (SMC-R link from the server not found)",
    0x030c0000: "SMC_CLC_DECL_VERSMISMAT (SMC version mismatch)",
    0x030d0000: "SMC_CLC_DECL_MAX_DMB (SMC-D DMB limit exceeded)",
    0x030e0000: "SMC_CLC_DECL_NOROUTE (SMC-Rv2 connection: no route to the peer)",
    0x030f0000: "SMC_CLC_DECL_NOINDIRECT (SMC-Rv2 connection: indirect mismatch)",
    0x04000000: "SMC_CLC_DECL_SYNCERR (synchronization error)",
    0x05000000: "SMC_CLC_DECL_PEERDECL (peer declined during the handshake)",
    0x09990000: "SMC_CLC_DECL_INTERR (internal error)",
    0x09990001: "SMC_CLC_DECL_ERR_RTOK (rtoken handling failed)",
    0x09990002: "SMC_CLC_DECL_ERR_RDYLNK (IB ready link failed)",
    0x09990003: "SMC_CLC_DECL_ERR_REGBUF (registering RDMA buffers failed)",
}
MODES = {0: "SMC-R", 1: "TCP fallback", 2: "SMC-D"}
TCP_STATES = {1: "ESTABLISHED", 2: "SYN_SENT", 7: "CLOSE", 10: "LISTEN", 0: "none"}
# enum smc_state (net/smc/smc.h): the SMC socket's own states, which smc_diag reports as diag_state
SMC_STATES = {1: "ACTIVE", 2: "INIT", 7: "CLOSED", 10: "LISTEN", 20: "PEERCLOSEWAIT1", 21: "PEERCLOSEWAIT2",
              22: "APPFINCLOSEWAIT", 23: "APPCLOSEWAIT1", 24: "APPCLOSEWAIT2", 25: "PEERFINCLOSEWAIT",
              26: "PEERABORTWAIT", 27: "PROCESSABORT"}
DIAG_CONNINFO, DIAG_LGRINFO, DIAG_SHUTDOWN, DIAG_DMBINFO, DIAG_FALLBACK = 1, 2, 3, 4, 5


def decline_name(code):
    if code == 0:
        return "none"
    return "0x%08x %s" % (code, DECLINE.get(code, "(not in net/smc/smc_clc.h's list)"))


class NetlinkError(Exception):
    pass


def attrs(data):
    """Yields (type, payload) of the netlink attributes in data."""
    off = 0
    while off + 4 <= len(data):
        length, kind = struct.unpack_from("=HH", data, off)
        if length < 4:
            break
        yield kind & 0x3FFF, data[off + 4:off + length]
        off += (length + 3) & ~3


def attr(kind, payload):
    return struct.pack("=HH", 4 + len(payload), kind) + payload + b"\0" * (-len(payload) % 4)


def cstr(b):
    return b.split(b"\0", 1)[0].decode(errors="replace").rstrip()


class Netlink:
    def __init__(self, proto):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, proto)
        self.sock.settimeout(5)   # the kernel answers at once; a silent one is a bug worth a message
        self.sock.bind((0, 0))
        self.seq = int(time.time())

    def request(self, msg_type, flags, payload):
        """Sends one request; returns the payloads of the answer's messages (a dump's, or one)."""
        self.seq += 1
        flags |= NLM_F_REQUEST | (0 if flags & NLM_F_DUMP else NLM_F_ACK)
        self.sock.send(struct.pack("=IHHII", 16 + len(payload), msg_type, flags, self.seq, 0) + payload)
        out = []
        while True:
            try:
                data = self.sock.recv(1 << 20)
            except socket.timeout:
                raise NetlinkError("no answer from the kernel within 5 s") from None
            off = 0
            while off + 16 <= len(data):
                length, kind, _, seq, _ = struct.unpack_from("=IHHII", data, off)
                body = data[off + 16:off + length]
                off += (length + 3) & ~3
                if seq != self.seq:
                    continue
                if kind == NLMSG_DONE:
                    return out
                if kind == NLMSG_ERROR:
                    err = struct.unpack_from("=i", body)[0]
                    if err:
                        raise NetlinkError(os.strerror(-err))
                    return out
                out.append(body)
                if not flags & NLM_F_DUMP:
                    return out


class Genl(Netlink):
    def __init__(self, family):
        super().__init__(NETLINK_GENERIC)
        try:
            ans = self.request(GENL_ID_CTRL, 0, struct.pack("=BBH", CTRL_CMD_GETFAMILY, 1, 0) +
                               attr(CTRL_ATTR_FAMILY_NAME, family.encode() + b"\0"))
        except NetlinkError:
            raise NetlinkError("no generic netlink family %s: is the smc module loaded (modprobe smc)?"
                               % family) from None
        self.family = next(struct.unpack("=H", p[:2])[0]
                           for ans_msg in ans for k, p in attrs(ans_msg[4:]) if k == CTRL_ATTR_FAMILY_ID)

    def cmd(self, command, payload=b"", dump=False):
        msgs = self.request(self.family, NLM_F_DUMP if dump else 0, struct.pack("=BBH", command, 1, 0) + payload)
        return [m[4:] for m in msgs]   # without the genlmsghdr


def u(p):
    return {1: lambda: p[0], 2: lambda: struct.unpack("=H", p)[0], 4: lambda: struct.unpack("=I", p)[0],
            8: lambda: struct.unpack("=Q", p)[0]}.get(len(p), lambda: p.hex())()


# ---- UEID and PNET table ----

def ueid_norm(ueid):
    """smc-tools' form: upper case, blank-padded to 32; the kernel wants exactly that plus a NUL."""
    ueid = ueid.upper()
    if not ueid or len(ueid) > MAX_EID_LEN or not (ueid[0].isalnum() and
                                                   all(c.isalnum() or c in ".-$" for c in ueid)):
        raise NetlinkError("UEID %r: up to 32 of A-Z 0-9 . - $, starting with a letter or digit" % ueid)
    return ueid.ljust(MAX_EID_LEN)


def ueid_cmd(op, ueid=None):
    g = Genl(SMC_GENL)
    if op == "show":
        return [cstr(p) for m in g.cmd(DUMP_UEID, dump=True) for k, p in attrs(m) if k == EID_TABLE_ENTRY]
    if op == "flush":
        g.cmd(FLUSH_UEID)
        return []
    entry = attr(EID_TABLE_ENTRY, ueid_norm(ueid).encode() + b"\0")
    g.cmd(ADD_UEID if op == "add" else REMOVE_UEID, entry)
    return []


def pnet_show():
    g = Genl(SMC_PNETID_GENL)
    rows = []
    for m in g.cmd(PNETID_GET, dump=True):
        a = dict(attrs(m))
        rows.append({"pnetid": cstr(a.get(PNETID_NAME, b"")), "eth": cstr(a.get(PNETID_ETHNAME, b"")),
                     "ib": cstr(a.get(PNETID_IBNAME, b"")), "port": u(a[PNETID_IBPORT]) if PNETID_IBPORT in a else None})
    return rows


def pnet_add(pnetid, eth=None, ib=None, port=1):
    g = Genl(SMC_PNETID_GENL)
    payload = attr(PNETID_NAME, pnetid.upper().encode() + b"\0")
    if eth:
        payload += attr(PNETID_ETHNAME, eth.encode() + b"\0")
    if ib:
        payload += attr(PNETID_IBNAME, ib.encode() + b"\0") + attr(PNETID_IBPORT, bytes([port]))
    g.cmd(PNETID_ADD, payload)


# ---- counters ----

def sys_info():
    out = {}
    for m in Genl(SMC_GENL).cmd(GET_SYS_INFO, dump=True):
        for k, p in attrs(m):
            for k2, p2 in attrs(p):
                name, kind = SYS_INFO.get(k2, ("attr%d" % k2, "u8"))
                out[name] = cstr(p2) if kind == "str" else u(p2)
    return out


def stats():
    """The host's SMC counters: per technology (smcr, smcd), handshake errors, fallbacks by reason."""
    g = Genl(SMC_GENL)
    out = {"smcr": {}, "smcd": {}, "clnt_hs_err": 0, "srv_hs_err": 0, "fallback": {"server": {}, "client": {}},
           "fallback_total": {}}
    for m in g.cmd(GET_STATS, dump=True):
        for _, nest in attrs(m):
            for k, p in attrs(nest):
                if k in (1, 2):
                    tech = out["smcd" if k == 1 else "smcr"]
                    for k2, p2 in attrs(p):
                        if k2 in STATS_TECH:
                            tech[STATS_TECH[k2]] = u(p2)
                elif k == 3:
                    out["clnt_hs_err"] = u(p)
                elif k == 4:
                    out["srv_hs_err"] = u(p)
    for m in g.cmd(GET_FBACK_STATS, dump=True):
        for _, nest in attrs(m):
            a = dict(attrs(nest))
            if u(a.get(4, bytes(4))):   # one reason: its code and count; TYPE 1 is the server's list
                side = "server" if u(a.get(1, b"\0")) == 1 else "client"
                out["fallback"][side][decline_name(u(a[4]))] = u(a[5])
            if 2 in a or 3 in a:
                out["fallback_total"] = {"server": u(a.get(2, bytes(8))), "client": u(a.get(3, bytes(8)))}
    return out


# ---- smc_diag ----

def ip_of(raw, family):
    if family == socket.AF_INET6 and raw[4:] != bytes(12):
        return socket.inet_ntop(socket.AF_INET6, raw)
    return socket.inet_ntop(socket.AF_INET, raw[:4])


def diag():
    """Every AF_SMC socket (IPv4 and IPv6) as the kernel's smc_diag reports it."""
    nl = Netlink(NETLINK_SOCK_DIAG)
    ext = (1 << (DIAG_CONNINFO - 1)) | (1 << (DIAG_LGRINFO - 1)) | (1 << (DIAG_FALLBACK - 1)) | \
          (1 << (DIAG_DMBINFO - 1))
    req = struct.pack("=BBBB", AF_SMC, 0, 0, ext) + bytes(48)
    out = []
    for m in nl.request(SOCK_DIAG_BY_FAMILY, NLM_F_DUMP, req):
        family, state, mode, shutdown = struct.unpack_from("=BBBB", m)
        sport, dport = struct.unpack_from(">HH", m, 4)
        src, dst = m[8:24], m[24:40]
        inode = struct.unpack_from("=Q", m, 56)[0]   # after diag_uid, 8-aligned: struct smc_diag_msg is 64 bytes
        fam = socket.AF_INET6 if src[4:] != bytes(12) or dst[4:] != bytes(12) else socket.AF_INET
        s = {"local": "%s:%d" % (ip_of(src, fam), sport), "peer": "%s:%d" % (ip_of(dst, fam), dport),
             "state": SMC_STATES.get(state, str(state)), "diag_mode": mode, "inode": inode}
        lgr = None
        for k, p in attrs(m[64:]):
            if k == DIAG_FALLBACK:
                reason, peer = struct.unpack_from("=II", p)
                s["fallback_reason"], s["peer_diagnosis"] = decline_name(reason), decline_name(peer)
            elif k == DIAG_CONNINFO:
                token, sndbuf, rmbe, peer_rmbe = struct.unpack_from("=IIII", p)
                s["conn"] = {"token": token, "sndbuf": sndbuf, "rmbe": rmbe, "peer_rmbe": peer_rmbe}
            elif k == DIAG_LGRINFO:
                link_id = p[0]
                ibname, ibport = cstr(p[1:65]), p[65]
                gid, peer_gid = cstr(p[66:106]), cstr(p[106:146])
                lgr = {"link_id": link_id, "ibdev": ibname, "ibport": ibport, "gid": gid, "peer_gid": peer_gid,
                       "role": "server" if p[146] else "client"}
                s["lgr"] = lgr
        # diag_mode 0 (SMC-R) is also what a socket reports before its handshake has decided anything:
        # only a link group (LGRINFO) says the bytes go over RDMA.
        if mode == 1:
            s["mode"] = MODES[1]
        elif mode == 2:
            s["mode"] = MODES[2]
        elif lgr:
            s["mode"] = MODES[0]
        else:
            s["mode"] = "undecided (no link group yet: listening, or the handshake has not ended)"
        out.append(s)
    return out


def print_diag(rows, out=sys.stdout):
    if not rows:
        print("no AF_SMC sockets", file=out)
    for s in rows:
        line = "%s -> %s %s mode=%s" % (s["local"], s["peer"], s["state"], s["mode"])
        if s.get("diag_mode") == 1 or s.get("fallback_reason", "none") != "none":
            line += " reason=%s peer_diagnosis=%s" % (s.get("fallback_reason"), s.get("peer_diagnosis"))
        if "lgr" in s:
            line += " dev=%s/%d gid=%s peer_gid=%s role=%s" % (s["lgr"]["ibdev"], s["lgr"]["ibport"], s["lgr"]["gid"],
                                                             s["lgr"]["peer_gid"], s["lgr"]["role"])
        if "conn" in s:
            line += " sndbuf=%d rmbe=%d peer_rmbe=%d" % (s["conn"]["sndbuf"], s["conn"]["rmbe"], s["conn"]["peer_rmbe"])
        print(line, file=out)


# ---- set-up ----

def modprobe():
    for mod in ("smc", "smc_diag"):
        if not os.path.isdir("/sys/module/" + mod):
            r = subprocess.run(["modprobe", mod], capture_output=True, text=True)
            if r.returncode:
                raise NetlinkError("modprobe %s: %s" % (mod, r.stderr.strip()))


def setup(args):
    modprobe()
    have = ueid_cmd("show")
    if args.no_ueid:
        for e in have:
            ueid_cmd("del", e)
    elif args.ueid and ueid_norm(args.ueid).strip() not in have:
        ueid_cmd("add", args.ueid)
    if args.pnet:
        rows = pnet_show()
        if args.ib and not any(r["ib"] == args.ib and r["pnetid"] == args.pnet.upper() for r in rows):
            pnet_add(args.pnet, ib=args.ib, port=args.port)
        if args.eth and not any(r["eth"] == args.eth and r["pnetid"] == args.pnet.upper() for r in rows):
            pnet_add(args.pnet, eth=args.eth)
    info = sys_info()
    print("smc: %s ueid=%s pnet=%s smcr_v2=%s" % (os.uname().release, ",".join(ueid_cmd("show")) or "none",
          ",".join("%s:%s" % (r["pnetid"], r["eth"] if r["ib"] in ("", "n/a") else r["ib"]) for r in pnet_show())
          or "none",
          info.get("smcr_v2", "?")))


# ---- probe: one AF_SMC connection, its diag while open ----

def own_diag(port):
    return [s for s in diag() if s["local"].endswith(":%d" % port) or s["peer"].endswith(":%d" % port)]


LIBC = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)


def sockaddr(addr, port):
    """struct sockaddr_in or sockaddr_in6: Python's socket module takes no address for AF_SMC."""
    if ":" in addr:
        return struct.pack("=H", socket.AF_INET6) + struct.pack(">HI", port, 0) + socket.inet_pton(socket.AF_INET6, addr) + bytes(4)
    return struct.pack("=H", socket.AF_INET) + struct.pack(">H", port) + socket.inet_aton(addr) + bytes(8)


def c_call(fn, sock, addr, port, timeout):
    """bind or connect through libc, bounded by an alarm (a blocking connect that hangs ends in EINTR)."""
    sa = sockaddr(addr, port)
    signal.signal(signal.SIGALRM, lambda *_: None)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        if fn(sock.fileno(), ctypes.c_char_p(sa), len(sa)) != 0:
            err = ctypes.get_errno()
            if err == 4:
                raise socket.timeout("%s did not return within %d s" % (fn.__name__, timeout))
            raise OSError(err, "%s %s:%d: %s" % (fn.__name__, addr, port, os.strerror(err)))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def probe(args):
    fam = socket.AF_INET6 if ":" in args.addr else socket.AF_INET
    proto = SMCPROTO_SMC6 if fam == socket.AF_INET6 else SMCPROTO_SMC
    deadline = time.monotonic() + args.timeout
    s = socket.socket(AF_SMC, socket.SOCK_STREAM, proto)
    buf = bytearray(1 << 16)
    try:
        if args.role == "server":
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            c_call(LIBC.bind, s, args.addr, args.port, 5)
            s.listen(1)
            print("listening on %s:%d" % (args.addr, args.port), flush=True)
            if not select.select([s], [], [], args.timeout)[0]:
                raise socket.timeout()
            fd = LIBC.accept(s.fileno(), None, None)   # Python's accept cannot size an AF_SMC address either
            if fd < 0:
                raise OSError(ctypes.get_errno(), "accept: " + os.strerror(ctypes.get_errno()))
            c = socket.socket(AF_SMC, socket.SOCK_STREAM, proto, fileno=fd)
            c.settimeout(max(1, deadline - time.monotonic()))
            print("accepted", flush=True)
            n, t0 = 0, time.monotonic()
            while True:
                r = c.recv_into(buf)
                if not r:
                    break
                n += r
            dt = time.monotonic() - t0
            print("received %d bytes in %.2f s: %.3f Gb/s" % (n, dt, n * 8 / dt / 1e9 if dt else 0), flush=True)
            print_diag(own_diag(args.port))
            c.sendall(b"k")   # lets the client read its diag before the connection goes
            c.close()
        else:
            print("connecting to %s:%d" % (args.addr, args.port), flush=True)
            c_call(LIBC.connect, s, args.addr, args.port, args.timeout)
            s.settimeout(max(1, deadline - time.monotonic()))
            print("connected", flush=True)
            print_diag(own_diag(args.port))
            n, t0 = 0, time.monotonic()
            while n < args.bytes and time.monotonic() < deadline:
                n += s.send(memoryview(buf)[:min(len(buf), args.bytes - n)])
            dt = time.monotonic() - t0
            print("sent %d bytes in %.2f s: %.3f Gb/s" % (n, dt, n * 8 / dt / 1e9 if dt else 0), flush=True)
            print_diag(own_diag(args.port))
            s.shutdown(socket.SHUT_WR)
            s.recv(1)
    except socket.timeout:
        print("TIMED OUT after %d s; where the sockets stand:" % args.timeout, flush=True)
        print_diag(own_diag(args.port))
        return 1
    finally:
        s.close()
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    sub = ap.add_subparsers(dest="what", required=True)
    p = sub.add_parser("setup")
    p.add_argument("--ueid")
    p.add_argument("--no-ueid", action="store_true", help="remove every UEID (a side that must decline)")
    p.add_argument("--pnet")
    p.add_argument("--ib")
    p.add_argument("--port", type=int, default=1)
    p.add_argument("--eth")
    p = sub.add_parser("ueid")
    p.add_argument("op", choices=["show", "add", "del", "flush"])
    p.add_argument("id", nargs="?")
    p = sub.add_parser("pnet")
    p.add_argument("op", choices=["show", "add", "flush"])
    p.add_argument("pnetid", nargs="?")
    p.add_argument("--eth")
    p.add_argument("--ib")
    p.add_argument("--port", type=int, default=1)
    sub.add_parser("info")
    for name in ("stats", "diag"):
        sub.add_parser(name).add_argument("--json", action="store_true")
    p = sub.add_parser("probe")
    p.add_argument("role", choices=["server", "client"])
    p.add_argument("addr")
    p.add_argument("--port", type=int, default=12950)
    p.add_argument("--bytes", type=int, default=64 << 20)
    p.add_argument("--timeout", type=float, default=60)
    args = ap.parse_args()
    try:
        if args.what == "setup":
            setup(args)
        elif args.what == "ueid":
            if args.op in ("add", "del") and not args.id:
                ap.error("ueid %s needs an ID" % args.op)
            for e in ueid_cmd(args.op, args.id):
                print(e)
        elif args.what == "pnet":
            if args.op == "show":
                for r in pnet_show():
                    print("%s eth=%s ib=%s port=%s" % (r["pnetid"], r["eth"] or "-", r["ib"] or "-", r["port"]))
            elif args.op == "flush":
                Genl(SMC_PNETID_GENL).cmd(PNETID_FLUSH)
            else:
                if not args.pnetid or not (args.eth or args.ib):
                    ap.error("pnet add needs a PNETID and --eth or --ib")
                pnet_add(args.pnetid, args.eth, args.ib, args.port)
        elif args.what == "info":
            print(json.dumps(sys_info()))
        elif args.what == "stats":
            st = stats()
            print(json.dumps(st, indent=None if args.json else 1))
        elif args.what == "diag":
            rows = diag()
            if args.json:
                print(json.dumps(rows))
            else:
                print_diag(rows)
        elif args.what == "probe":
            return probe(args)
    except (NetlinkError, OSError) as e:
        print("smc.py %s: %s" % (args.what, e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
