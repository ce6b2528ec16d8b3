"""What bench/ and scripts/ share (stdlib only): message sizes as zcperf writes them, numbers for
tables, and the benches' CSV of samples. Import it with

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))  # from bench/
    import zclib
"""
import csv
import json
import os
import sys
import shutil
import subprocess


# zcperf --explain's category keys, in its report order (common/explain/categories.cpp's category_names();
# scripts/tests/test_irq_sweep.sh checks them against zcperf's CSV columns).
EXPLAIN_CATEGORIES = ["copy", "checksum", "crypto", "tcp", "udp", "netdev", "skb", "memory", "zerocopy", "lock",
                      "sched", "syscall", "rdma", "smc", "bpf", "user", "user_crypto", "other_process", "other", "unknown"]


class Bad(Exception):
    """A tool's output that cannot be read as the measurement it should be."""


def program(name):
    """Where zcperf's binary NAME is, for the scripts that run it: in $ZCPERF_BINDIR (the installed
    zcperf-* commands set it to their own folder), else the checkout's build/NAME beside scripts/, else
    NAME on PATH. Returns None when it is nowhere; the caller says so and names its --zcperf option."""
    here = os.path.dirname(os.path.abspath(__file__))
    places = [os.environ.get("ZCPERF_BINDIR"), os.path.join(here, "..", "build")]
    for d in places:
        if d and os.access(os.path.join(d, name), os.X_OK):
            return os.path.normpath(os.path.join(d, name))
    return shutil.which(name)


def missing_program(name, option):
    """The error for a binary program() did not find: what to do next, in one line."""
    return (f"{name} not found (not in $ZCPERF_BINDIR, a checkout's build/ or PATH): install zcperf, build it "
            f"(scripts/bootstrap.sh build), or give {option} PATH")


def parse_size(text):
    """'64K' -> 65536; K/M/G are powers of 1024, as zcperf's -m takes them."""
    t = text.strip()
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(t[-1:].upper(), 1)
    if mult != 1:
        t = t[:-1]
    if not t.isdigit():
        raise ValueError(f"size '{text}' is not a number with an optional K/M/G suffix")
    return int(t) * mult


def parse_sizes(text):
    """64K,1M or a doubling range 64K..4M (zcperf's -m syntax), in order, without duplicates."""
    out = []
    for item in text.split(","):
        if ".." in item:
            lo, hi = (parse_size(x) for x in item.split("..", 1))
            if lo <= 0 or hi < lo:
                raise ValueError(f"bad size range '{item}'")
            s = lo
            while s <= hi:
                out.append(s)
                s *= 2
        else:
            out.append(parse_size(item))
    return list(dict.fromkeys(out))


def size_label(n):
    """65536 -> '64K', 1048576 -> '1M', 1000 -> '1000' (only whole units get a suffix)."""
    n = int(n)
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift}{unit}"
    return str(n)


def fmt(v, spec=".2f", missing="–"):
    """A number for a table cell; `missing` where there is none."""
    return missing if v is None else format(v, spec)


def append_row(csv_path, fields, row):
    """Appends one sample to a CSV of `fields`, writing the header first into a new or empty file."""
    new = not os.path.exists(csv_path) or os.path.getsize(csv_path) == 0
    with open(csv_path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        if new:
            w.writeheader()
        w.writerow({k: row.get(k, "") for k in fields})


def run_zcperf(cmd, duration):
    """Runs one zcperf command (it must end in -o json) and returns its first result; raises Bad with the
    command and its error when it fails, subprocess.TimeoutExpired past four times its duration and a minute."""
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=duration * 4 + 60)
    if p.returncode != 0:
        raise Bad(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()[-2000:]}")
    return json.loads(p.stdout)["results"][0]


def load_results(path):
    """The results of a zcperf report: a -o json document or --json-stream lines (their "result"
    events), as a list of the result objects. Raises Bad for anything else."""
    with open(path) as f:
        text = f.read()
    try:
        doc = json.loads(text)
        if isinstance(doc, dict) and isinstance(doc.get("results"), list):
            return doc["results"]
    except json.JSONDecodeError:
        pass
    results = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError as e:
            raise Bad(f"{path}:{n}: neither a zcperf -o json report nor --json-stream lines ({e})")
        if isinstance(event, dict) and event.get("event") == "result":
            results.append(event["result"])
    if not results:
        raise Bad(f"{path}: no zcperf results in it")
    return results


def result_label(r):
    """'tcp stream 64K x1' for a result object of zcperf's report."""
    name = r["transport"]
    if r.get("rx", "copy") != "copy":
        name += "/" + r["rx"]
    return f"{name} {r['test']} {size_label(r['message_size'])} x{r['streams']}"


def command_name():
    """The name this script was run by, for its --help: the installed command's (zcperf-compare-paths:
    its wrapper exports ZCPERF_COMMAND), else the script's own file name."""
    return os.environ.get("ZCPERF_COMMAND") or os.path.basename(sys.argv[0])
