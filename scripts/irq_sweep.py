#!/usr/bin/python3
"""Client core x IRQ core x message size x NUMA node x transport: one zcperf run per combination.

Reproduces the SDP "Bcopy vs BZCOPY" affinity study: with the server and the NIC's interrupts pinned,
run the client on each core in turn for message sizes 64K..4M; repeat for every mapping of the
interrupts to a core; repeat with the client's buffers forced onto one NUMA node; a copy path and a
zero-copy path side by side.

  scripts/irq_sweep.py --client-cpus 0,1 --server-cpu 1 --irq-cpus 0,1 --sizes 64K..4M \\
      --mem-nodes any,0 --transports tcp,tcp-msgzc -l 5 -H server:12875 --out bench/out/irq
  scripts/irq_sweep.py ... -- -P 2 -s 4M        # anything after -- goes to every zcperf run
  scripts/irq_sweep.py ... --rounds 5           # every combination 5 times, in alternating order
  scripts/irq_sweep.py --plot-only --out bench/out/irq
  scripts/irq_sweep.py --summary-only --out bench/out/irq

Each combination is one `zcperf -o json` run; each result is one row appended to PREFIX.csv at once.
Rerun the same command after a stop (Ctrl-C, crash, reboot): combinations already in PREFIX.csv are
skipped (a failed one is tried again unless --no-retry-failed). zcperf puts the IRQ affinity back
itself, even when killed. At the end it draws PREFIX_vs_size.png and PREFIX_heatmap.png.

--rounds N runs the whole sweep N times, each round every combination once, every other round in reverse
order (so slow drift on a shared host falls on both sides of a pair alike); each row has its round. The
summary (printed at the end, written to PREFIX_summary.txt, PREFIX_ratios.png) pairs runs within a round:
IRQ on the client's own core against the other core, and zero-copy against its copy path (tcp; udp-gso for
udp-msgzc), each as the sender's service-demand ratio per round, with a 95 % interval over the rounds and
the kernel's copied share; with -- --explain also the kernel categories that move (scripts/irq_sweep_stats.py
says how).

Needs Debian's python3-matplotlib for the plots (hence /usr/bin/python3): apt-get install python3-matplotlib
"""
import argparse
import csv
import fcntl
import json
import os
import shlex
import signal
import subprocess
import sys
import time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import irq_sweep_plots  # noqa: E402
import irq_sweep_stats  # noqa: E402
import zclib  # noqa: E402

PROG = "irq_sweep"

# The columns of PREFIX.csv, in order. KEY_COLUMNS identify a combination (what resume compares).
KEY_COLUMNS = ["transport", "client_cpu", "server_cpu", "irq_cpu", "irq_side", "mem_node", "message_size",
               "duration_s", "host", "extra_args", "round"]
COLUMNS = KEY_COLUMNS[:1] + ["test", "rx"] + KEY_COLUMNS[1:] + [
    "throughput_gbps",
    "local_sd_us_per_kb", "local_proc_sd_us_per_kb", "remote_sd_us_per_kb", "remote_proc_sd_us_per_kb",
    "local_cpu_util_pct", "remote_cpu_util_pct",
    "softirq_pct_irq_cpu", "softirq_pct_client_cpu",
    "local_interrupts", "remote_interrupts", "local_irqs",
    "local_buffer_pages_by_node", "remote_buffer_pages_by_node", "local_cpu_nodes",
    "zc_copied_pct", "interface", "irq_note", "warnings", "error", "finished_at", "command",
]
# With --explain among zcperf's options: each side's CPU per KB by kernel category (zcperf's keys).
EXPLAIN_CATEGORIES = zclib.EXPLAIN_CATEGORIES
COLUMNS += [f"{side}_explain_{c}" for side in ("local", "remote") for c in EXPLAIN_CATEGORIES]

DEFAULT_SIZES = "64K..4M"


# ---------------------------------------------------------------------------------------------
# small parsers

def online_cpus():
    try:
        with open("/sys/devices/system/cpu/online") as f:
            return expand_cpus(f.read().strip(), allow=())
    except OSError:
        return list(range(os.cpu_count() or 1))


def numa_nodes():
    try:
        return sorted(int(d[4:]) for d in os.listdir("/sys/devices/system/node") if d.startswith("node") and d[4:].isdigit())
    except OSError:
        return [0]


def expand_cpus(text, allow=("none",)):
    """'0,1', '0-3', 'all', plus the words in allow (kept as strings), each one item of the sweep."""
    out = []
    for item in text.split(","):
        item = item.strip()
        if item in allow:
            out.append(item)
        elif item == "all":
            out.extend(online_cpus())
        elif "-" in item:
            lo, hi = item.split("-", 1)
            out.extend(range(int(lo), int(hi) + 1))
        elif item.isdigit():
            out.append(int(item))
        else:
            raise ValueError(f"'{item}' is not a CPU number, a range like 0-3, 'all'"
                             + (" or " + "/".join(allow) if allow else ""))
    return [str(x) for x in dict.fromkeys(out)]


def fmt(x):
    if x is None or x == "":
        return ""
    if isinstance(x, float):
        return f"{x:.6g}"
    return str(x)


def hms(seconds):
    seconds = int(max(0, seconds))
    h, rest = divmod(seconds, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"


# ---------------------------------------------------------------------------------------------
# one zcperf run -> CSV rows

def softirq_on(side, cpu):
    if cpu in ("", "none", None):
        return ""
    for c in side.get("cpu", {}).get("per_cpu_pct", []):
        if str(c.get("cpu")) == str(cpu):
            return c.get("softirq", "")
    return ""


def pages_by_node(placement):
    pages = placement.get("buffer_pages_by_node") or {}
    return " ".join(f"{node}:{n}" for node, n in sorted(pages.items(), key=lambda kv: int(kv[0])))


def irq_list(placement):
    return " ".join(f"{i.get('irq')}:{i.get('name', '')}@{i.get('affinity', '')}={i.get('interrupts', '')}"
                    for i in placement.get("irqs") or [])


def rows_of_report(combo, report, error, command):
    now = time.strftime("%Y-%m-%dT%H:%M:%S")
    rows = []
    for r in report.get("results", []):
        loc, rem = r.get("local", {}), r.get("remote", {})
        lp, rp = loc.get("placement", {}), rem.get("placement", {})
        irq_side_data = rem if combo["irq_side"] == "remote" else loc
        notes = [lp.get("irq_note", "")]
        if combo["irq_side"] in ("remote", "both") and rp.get("irq_note") and rp.get("irq_note") != notes[0]:
            notes.append("remote: " + rp["irq_note"])
        row = dict(combo)
        row.update({
            "transport": r.get("transport", combo["transport"]),
            "test": r.get("test", ""),
            "rx": r.get("rx", ""),
            "message_size": r.get("message_size", combo["message_size"]),
            "throughput_gbps": r.get("throughput_gbps"),
            "local_sd_us_per_kb": loc.get("service_demand_us_per_kb"),
            "local_proc_sd_us_per_kb": loc.get("process_service_demand_us_per_kb"),
            "remote_sd_us_per_kb": rem.get("service_demand_us_per_kb"),
            "remote_proc_sd_us_per_kb": rem.get("process_service_demand_us_per_kb"),
            "local_cpu_util_pct": loc.get("cpu_util_pct"),
            "remote_cpu_util_pct": rem.get("cpu_util_pct"),
            "softirq_pct_irq_cpu": softirq_on(irq_side_data, combo["irq_cpu"]),
            "softirq_pct_client_cpu": softirq_on(loc, combo["client_cpu"]),
            # empty, not 0, where the device has no IRQs at all (loopback, veth)
            "local_interrupts": sum(int(i.get("interrupts", 0)) for i in lp["irqs"]) if lp.get("irqs") else "",
            "remote_interrupts": sum(int(i.get("interrupts", 0)) for i in rp["irqs"]) if rp.get("irqs") else "",
            "local_irqs": irq_list(lp),
            "local_buffer_pages_by_node": pages_by_node(lp),
            "remote_buffer_pages_by_node": pages_by_node(rp),
            "local_cpu_nodes": " ".join(str(n) for n in lp.get("cpu_nodes") or []),
            "zc_copied_pct": loc.get("zerocopy", {}).get("copied_pct", ""),
            "interface": lp.get("interface", ""),
            "irq_note": " | ".join(n for n in notes if n),
            "warnings": " | ".join(r.get("warnings") or []),
            "error": error,
            "finished_at": now,
            "command": command,
        })
        for side, data in (("local", loc), ("remote", rem)):
            per_unit = (data.get("explain") or {}).get("per_unit") or {}
            for c in EXPLAIN_CATEGORIES:
                if c in per_unit:
                    row[f"{side}_explain_{c}"] = per_unit[c]
        rows.append(row)
    if not rows:  # nothing measured: one row that says why
        row = dict(combo)
        row.update({"error": error or "zcperf reported no result", "finished_at": now, "command": command})
        rows.append(row)
    return [{k: fmt(row.get(k, "")) for k in COLUMNS} for row in rows]


class Sweep:
    def __init__(self, args, extra):
        self.args = args
        self.extra = extra
        self.child = None
        self.stopping = 0
        self.interrupted = False

    # Ctrl-C / SIGTERM: stop after the running zcperf has stopped (it stops both sides and puts the
    # IRQs back itself). zcperf runs in its own session, so only we forward the signal, exactly once.
    def on_signal(self, signum, _frame):
        self.stopping += 1
        self.interrupted = True
        if self.child is not None and self.child.poll() is None:
            if self.stopping == 1:
                print(f"\n{PROG}: stopping: waiting for the running zcperf to stop both sides and restore the IRQs "
                      "(Ctrl-C again to hurry it)", file=sys.stderr)
                self.child.send_signal(signal.SIGINT)
            else:
                print(f"{PROG}: sending SIGTERM to zcperf (its guardian still restores the IRQs)", file=sys.stderr)
                self.child.send_signal(signal.SIGTERM)
        elif self.stopping == 1:
            print(f"\n{PROG}: stopping", file=sys.stderr)

    def zcperf_command(self, c):
        a = self.args
        cmd = [a.zcperf, "-o", "json", "-T", c["transport"], "-m", str(c["message_size"]), "-l", c["duration_s"]]
        if a.host:
            cmd += ["-H", a.host]
        if c["client_cpu"] != "none" or c["server_cpu"] != "none":
            cmd += ["--cpu", ("" if c["client_cpu"] == "none" else c["client_cpu"])
                    + ("" if c["server_cpu"] == "none" else "," + c["server_cpu"])]
        if c["irq_cpu"] != "none":
            local = c["irq_cpu"] if c["irq_side"] in ("local", "both") else ""
            remote = c["irq_cpu"] if c["irq_side"] in ("remote", "both") else ""
            cmd += ["--irq-cpus", local + ("," + remote if remote else "")]
        if c["mem_node"] != "any":
            cmd += ["--mem-node", c["mem_node"]]
        return cmd + self.extra

    def run_one(self, c):
        """Runs zcperf for one combination; returns (rows, interrupted)."""
        cmd = self.zcperf_command(c)
        command = shlex.join(cmd)
        timeout = self.args.run_timeout or (120 + 40 * float(c["duration_s"]))
        try:
            self.child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                          start_new_session=True)
        except OSError as e:
            return rows_of_report(c, {}, f"cannot start zcperf: {e}", command), False
        timed_out = False
        try:
            out, err = self.child.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            self.child.send_signal(signal.SIGINT)  # let it stop the server side and restore the IRQs
            try:
                out, err = self.child.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                self.child.kill()  # its guardian process still puts the IRQs back
                out, err = self.child.communicate()
        rc = self.child.returncode
        self.child = None
        if rc == 130 and self.interrupted and not timed_out:
            return [], True
        try:
            report = json.loads(out) if out.strip() else {}
        except json.JSONDecodeError:
            report = {}
        errors = list(report.get("errors") or [])
        if timed_out:
            errors.insert(0, f"timed out after {timeout:.0f} s (--run-timeout)")
        if rc != 0:
            msg = " ".join(err.split())[:300]
            errors.append(f"zcperf exit {rc}" + (f": {msg}" if msg else ""))
        return rows_of_report(c, report, "; ".join(errors), command), False

    def combinations(self):
        a = self.args
        host = a.host or "loopback"
        duration = fmt(float(a.duration))
        extra = shlex.join(self.extra)
        one = []
        # The study's order: hold the memory placement and the IRQ mapping, run each client core through
        # all sizes; both transports back to back so they see the same conditions on a noisy machine.
        for mem in a.mem_nodes:
            for irq in a.irq_cpus:
                for client in a.client_cpus:
                    for size in a.sizes:
                        for t in a.transports:
                            one.append({"transport": t, "client_cpu": client, "server_cpu": a.server_cpu,
                                        "irq_cpu": irq, "irq_side": a.irq_side if irq != "none" else "",
                                        "mem_node": mem, "message_size": str(size), "duration_s": duration,
                                        "host": host, "extra_args": extra})
        # Rounds alternate: odd rounds in the study's order, even ones reversed, so a drift over the sweep
        # (another job starting, a warming host) does not always favour the same side of a pair.
        return [dict(c, round=str(r)) for r in range(1, a.rounds + 1) for c in (one if r % 2 else one[::-1])]


def key_of(row):
    # a row from before --rounds has no round: it was round 1
    return tuple(str(row.get(k) or "1") if k == "round" else str(row.get(k, "")) for k in KEY_COLUMNS)


def read_csv(path):
    if not os.path.exists(path):
        return [], None
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        rows = [r for r in reader if r.get("finished_at")]  # a row cut short by a crash has no tail
        return rows, reader.fieldnames


def open_for_append(path, rounds):
    """Opens PREFIX.csv for appending, writing the header if new; drops a last line cut short by a crash."""
    _, fields = read_csv(path)
    if fields is not None and "round" not in fields and rounds > 1:
        sys.exit(f"{PROG}: {path} was written before --rounds (no round column): its rows could not be told "
                 "apart by round; use another --out")
    if fields is not None:
        with open(path, "rb+") as f:
            data = f.read()
            if data and not data.endswith(b"\n"):
                cut = data.rfind(b"\n") + 1
                print(f"{PROG}: dropping an unfinished last line of {path}", file=sys.stderr)
                f.truncate(cut)
    f = open(path, "a", newline="")
    if fields is None:
        fields = COLUMNS
        csv.DictWriter(f, fieldnames=fields).writeheader()
        f.flush()
    elif fields != COLUMNS:
        missing = [c for c in COLUMNS if c not in fields]
        if missing:
            print(f"{PROG}: note: {path} was written by another version (no {', '.join(missing)}); "
                  "those columns stay empty", file=sys.stderr)
    return f, csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")


def sweep(args, extra):
    s = Sweep(args, extra)
    csv_path = args.out + ".csv"
    os.makedirs(os.path.dirname(os.path.abspath(csv_path)), exist_ok=True)
    lock = open(csv_path, "a")  # held until exit: two sweeps must not append to one file
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        sys.exit(f"{PROG}: another sweep is writing {csv_path}")

    combos = s.combinations()
    f, writer = open_for_append(csv_path, args.rounds)  # first: it drops a line a crash cut short
    existing, _ = read_csv(csv_path)
    wanted = {key_of(c) for c in combos}
    ok_keys = {key_of(r) for r in existing if not r.get("error")} & wanted
    failed_keys = {key_of(r) for r in existing if r.get("error")} & wanted - ok_keys
    done = ok_keys if args.retry_failed else ok_keys | failed_keys
    todo = [c for c in combos if key_of(c) not in done]
    total = len(combos)
    skipped = total - len(todo)
    others = len({key_of(r) for r in existing} - wanted)
    if existing and (skipped or failed_keys):
        print(f"{PROG}: resuming: {len(ok_keys)} of {total} combinations already done in {csv_path}"
              + (f", {len(failed_keys)} failed before ("
                 + ("trying them again" if args.retry_failed else "skipped: --no-retry-failed") + ")"
                 if failed_keys else "")
              + f"; {len(todo)} to run", file=sys.stderr)
    else:
        print(f"{PROG}: {total} runs ({len(args.transports)} transports x {len(args.mem_nodes)} memory "
              f"placements x {len(args.irq_cpus)} IRQ mappings x {len(args.client_cpus)} client cores x "
              f"{len(args.sizes)} sizes x {args.rounds} rounds), -l {args.duration} each, into {csv_path}",
              file=sys.stderr)
    if others:
        print(f"{PROG}: note: {csv_path} also holds {others} combinations of other settings (-l, -H, server CPU, "
              "IRQ side or zcperf args); they stay, and the plots average them with these where the mapping and "
              "size match: use another --out to keep sweeps apart", file=sys.stderr)

    signal.signal(signal.SIGINT, s.on_signal)
    signal.signal(signal.SIGTERM, s.on_signal)
    started = time.monotonic()
    ran = failures = 0
    noted_irq = False
    try:
        for i, c in enumerate(todo):
            if s.interrupted:
                break
            n = skipped + i + 1
            label = ((f"r{c['round']} " if args.rounds > 1 else "")
                     + f"{c['transport']:<11} client {c['client_cpu']:>4}  IRQ {c['irq_cpu']:>4}  mem {c['mem_node']:>3}  "
                     f"{zclib.size_label(c['message_size']):>5}")
            t0 = time.monotonic()
            rows, stopped = s.run_one(c)
            if stopped:
                break
            writer.writerows(rows)
            f.flush()
            os.fsync(f.fileno())
            ran += 1
            elapsed = time.monotonic() - started
            eta = elapsed / ran * (len(todo) - i - 1)
            r = rows[0]
            if r["error"] and not r["throughput_gbps"]:
                failures += 1
                what = "FAILED: " + r["error"][:150]
            else:
                what = (f"{float(r['throughput_gbps']):7.2f} Gb/s  send SD {float(r['local_sd_us_per_kb'] or 'nan'):6.3f} us/KB"
                        + (f"  (error: {r['error'][:80]})" if r["error"] else ""))
            print(f"[{n:>{len(str(total))}}/{total}] {label}  {what}  "
                  f"({time.monotonic() - t0:.1f} s; elapsed {hms(elapsed)}, ETA {hms(eta)})", file=sys.stderr)
            if not noted_irq and r.get("irq_note") and c["irq_cpu"] != "none":
                noted_irq = True
                print(f"{PROG}: note: {r['irq_note']} -- the IRQ core is only a label in this sweep", file=sys.stderr)
    finally:
        f.close()
    if s.interrupted:
        print(f"{PROG}: stopped after {skipped + ran} of {total}; run the same command again to resume "
              f"(or --plot-only --out {args.out} to plot what is there)", file=sys.stderr)
        return 130
    failed_total = failures + (0 if args.retry_failed else len(failed_keys))
    print(f"{PROG}: done: {ran} run now, {skipped} were already there; {failed_total} of {total} failed"
          + (" (see the error column)" if failed_total else "") + f"; {csv_path}", file=sys.stderr)
    rows = read_csv(csv_path)[0]
    if not args.no_plot:
        irq_sweep_plots.plot_all(args.out, rows, PROG)
    summarize(args.out, rows)
    return 1 if failed_total else 0


def summarize(prefix, rows):
    """The paired comparisons (irq_sweep_stats) on stdout and in PREFIX_summary.txt."""
    text = irq_sweep_stats.format_summary(irq_sweep_stats.comparisons(rows))
    print(text)
    with open(prefix + "_summary.txt", "w") as f:
        f.write(f"{prefix}.csv: {len(rows)} rows\n\n" + text)
    print(f"{PROG}: wrote {prefix}_summary.txt", file=sys.stderr)
    return 0


# ---------------------------------------------------------------------------------------------

MANAGED = {"-T", "--transport", "-m", "--message-size", "--cpu", "--irq-cpus", "--mem-node", "-o", "--output",
           "-H", "--host", "-l", "--duration", "-n", "--bytes"}


def main(argv):
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1:]
    else:
        extra = []
    ap = argparse.ArgumentParser(prog=zclib.command_name(), description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--client-cpus", default="all", help="cores to run the client's data thread on, each in turn: "
                    "0,1 / 0-7 / all / none (unpinned) (default: all)")
    ap.add_argument("--server-cpu", default="none", help="the server's data-thread CPU, held fixed (default: none, unpinned)")
    ap.add_argument("--irq-cpus", default="all", help="cores to move the data NIC's IRQs to, one mapping each: 0,1 / "
                    "0-7 / all / none (leave them alone) (default: all)")
    ap.add_argument("--irq-side", choices=("local", "remote", "both"), default="local",
                    help="whose IRQs to move: the client's (local, default), the server's (remote; zcserver needs "
                         "--allow-irq-affinity) or both to the same core number")
    ap.add_argument("--sizes", "-m", default=DEFAULT_SIZES, help=f"message sizes: 64K,1M or 64K..4M (default {DEFAULT_SIZES})")
    ap.add_argument("--mem-nodes", default="any", help="where the client's buffers go: any (wherever they fall) "
                    "and/or NUMA node numbers, e.g. any,0 (default: any)")
    ap.add_argument("--transports", "-T", default="tcp,tcp-msgzc", help="zcperf transports (default tcp,tcp-msgzc)")
    ap.add_argument("-l", "--duration", default="5", help="seconds per run (default 5; zcperf wants >= 5 for CPU figures)")
    ap.add_argument("-H", "--host", help="zcserver HOST:PORT (default: zcperf's embedded server on loopback)")
    ap.add_argument("--out", default="irq_sweep", help="output prefix: PREFIX.csv, PREFIX_vs_size.png, PREFIX_heatmap.png")
    ap.add_argument("--zcperf", default=os.environ.get("ZCPERF") or zclib.program("zcperf"),
                    help="zcperf binary (default: $ZCPERF, the installed one, a checkout's build/zcperf, or PATH)")
    ap.add_argument("--run-timeout", type=float, default=0, help="seconds before one zcperf run counts as hung "
                    "(default 120 + 40 x -l)")
    ap.add_argument("--no-retry-failed", dest="retry_failed", action="store_false",
                    help="on resume, also skip combinations whose earlier run failed")
    ap.add_argument("--rounds", type=int, default=1, help="run every combination N times, in rounds of "
                    "alternating order, so each pair gets an interval over rounds (default 1)")
    ap.add_argument("--no-plot", action="store_true", help="do not draw the PNGs at the end")
    ap.add_argument("--plot-only", action="store_true", help="only draw the PNGs from PREFIX.csv")
    ap.add_argument("--summary-only", action="store_true", help="only print (and write PREFIX_summary.txt) the "
                    "paired comparisons of PREFIX.csv")
    ap.add_argument("--dry-run", action="store_true",
                    help="print the zcperf commands (and the time they need) and exit")
    args = ap.parse_args(argv)

    if args.plot_only or args.summary_only:
        if not os.path.exists(args.out + ".csv"):
            ap.error(f"no {args.out}.csv")
        rows = read_csv(args.out + ".csv")[0]
        return irq_sweep_plots.plot_all(args.out, rows, PROG) if args.plot_only else summarize(args.out, rows)
    if args.rounds < 1:
        ap.error("--rounds takes a whole number >= 1")

    clash = sorted({a.split("=", 1)[0] for a in extra} & MANAGED)
    if clash:
        ap.error(f"{', '.join(clash)} after -- : the sweep sets these itself (use its own options)")
    try:
        args.client_cpus = expand_cpus(args.client_cpus)
        args.irq_cpus = expand_cpus(args.irq_cpus)
        server = expand_cpus(args.server_cpu)
        if len(server) != 1:
            raise ValueError("--server-cpu takes one CPU (or none)")
        args.server_cpu = server[0]
        args.sizes = zclib.parse_sizes(args.sizes)
        args.mem_nodes = [m.strip() for m in args.mem_nodes.split(",")]
        args.transports = [t.strip() for t in args.transports.split(",") if t.strip()]
        float(args.duration)
    except ValueError as e:
        ap.error(str(e))
    cpus = online_cpus()
    for c in args.client_cpus + args.irq_cpus:
        if c != "none" and int(c) not in [int(x) for x in cpus]:
            ap.error(f"CPU {c} is not online here (online: {','.join(cpus)})")
    for m in args.mem_nodes:
        if m != "any" and (not m.isdigit() or int(m) not in numa_nodes()):
            ap.error(f"--mem-nodes: '{m}' is not 'any' or a NUMA node here (nodes: {numa_nodes()})")
    if not args.zcperf or not os.access(args.zcperf, os.X_OK):
        ap.error(zclib.missing_program(args.zcperf or "zcperf", "--zcperf"))
    if args.dry_run:
        s = Sweep(args, extra)
        combos = s.combinations()
        for i, c in enumerate(combos):
            if args.rounds > 1 and (i == 0 or c["round"] != combos[i - 1]["round"]):
                print(f"# round {c['round']}")
            print(shlex.join(s.zcperf_command(c)))
        # zcperf's own set-up and tear-down add a few seconds per run (about 5 s in the TCG lab, more with
        # --explain): the measuring time is a floor, not an estimate.
        print(f"# {len(combos)} runs x -l {args.duration} s = {hms(len(combos) * float(args.duration))} of measuring; "
              f"with 5 s of set-up per run {hms(len(combos) * (float(args.duration) + 5))}", file=sys.stderr)
        return 0
    return sweep(args, extra)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
