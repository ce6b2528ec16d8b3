#!/usr/bin/python3
"""The A/A benchmark of zcperf compare's verdicts: N pairs of sides, each side K separate invocations
(separate zcperf processes, one after another) of one unchanged configuration, compared with `zcperf
compare A1,..,AK B1,..,BK`. Nothing changed between the sides, so every figure called "higher" or
"lower" is a false call: the share of them is printed per pair and over all pairs (the goal: at most
5 %). Beside it, what the statistics before invocations and the false discovery rate called on the
same files (the first invocation of each side, Welch over its rounds, each figure at 95 %), and whether
a real difference is still called: tcp-msgzc against tcp's sender service demand, `zcperf compare
--paths tcp-msgzc:tcp` on the pair's invocations (both sides': one unchanged configuration), must be
"changed" in every pair.

    bench/aa.py                       # 5 pairs x 2 sides x 3 invocations of the default: about 6 min
    bench/aa.py --pairs 5 --invocations 3 --config "-T tcp,tcp-msgzc -m 64K -l 1 -i 3,3 --cpu 0,1 --explain"

ZCPERF=/path/to/zcperf runs another binary than build/zcperf. The reports go to --out (default
bench/out/aa-<timestamp>/); --reuse takes the reports already there instead of running them again."""
import argparse
import json
import os
import shlex
import subprocess
import sys
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
DEFAULT_CONFIG = "-T tcp,tcp-msgzc -m 64K -l 1 -i 3,3 --cpu 0,1 --explain"
SENDER_SD = "local_service_demand_us_per_kb"


def run_json(cmd, timeout):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        sys.exit(f"aa.py: {' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()[-600:]}")
    return p.stdout


def figures(doc):
    return [f for t in doc["tests"] for f in t["figures"]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--invocations", type=int, default=3)
    ap.add_argument("--config", default=DEFAULT_CONFIG, help=f"zcperf's options for every run (default: {DEFAULT_CONFIG})")
    ap.add_argument("--paths", default="tcp-msgzc:tcp", help="the real difference compare --paths must call")
    ap.add_argument("--size", type=int, default=65536, help="the message size of that check (bytes)")
    ap.add_argument("--out")
    ap.add_argument("--reuse", action="store_true", help="take the reports already in --out (re-judge them)")
    a = ap.parse_args()
    if a.pairs < 1 or a.invocations < 2:
        ap.error("--pairs >= 1 and --invocations >= 2 (one invocation a side has no run-to-run noise to test)")
    zcperf = os.environ.get("ZCPERF", os.path.join(ROOT, "build", "zcperf"))
    if not os.access(zcperf, os.X_OK):
        sys.exit(f"aa.py: no zcperf at {zcperf} (build it, or set ZCPERF)")
    out = a.out or os.path.join(ROOT, "bench", "out", time.strftime("aa-%Y%m%d-%H%M%S"))
    os.makedirs(out, exist_ok=True)
    config = shlex.split(a.config) + ["-o", "json"]
    load = os.getloadavg()
    print(f"A/A: {a.pairs} pairs x 2 sides x {a.invocations} invocations of: zcperf {a.config}")
    print(f"     load average at the start {load[0]:.1f}, {os.cpu_count()} CPUs; reports in {out}")
    rows, paths_all = [], True
    for p in range(1, a.pairs + 1):
        files = {}
        for side in ("A", "B"):  # one side's invocations, then the other's: as a before/after would run
            files[side] = []
            for i in range(1, a.invocations + 1):
                f = os.path.join(out, f"pair{p}-{side}{i}.json")
                if not (a.reuse and os.path.exists(f)):
                    with open(f, "w") as fh:
                        fh.write(run_json([zcperf, *config], 600))
                files[side].append(f)
        new = json.loads(run_json([zcperf, "compare", ",".join(files["A"]), ",".join(files["B"]), "-o", "json"], 60))
        called = sum(f["changed"] for f in figures(new))
        family = new["fdr_family"]
        # Before: one invocation a side, Welch over its rounds, each figure at 95 % with no false discovery rate.
        old = json.loads(run_json([zcperf, "compare", files["A"][0], files["B"][0], "-o", "json"], 60))
        old_f = [f for f in figures(old) if f["interval"] is not None]
        old_called = sum(1 for f in old_f if f["p"] is not None and f["p"] < 0.05)
        verdicts = []
        d = json.loads(run_json([zcperf, "compare", "--paths", a.paths, ",".join(files["A"] + files["B"]), "-o",
                                 "json"], 60))
        for t in d["tests"]:
            for f in t["figures"]:
                if t["message_size"] == a.size and f["figure"] == SENDER_SD:
                    verdicts.append((f["estimate"], f["interval"], f["verdict"], f["new_invocations"]))
        paths_ok = len(verdicts) == 1 and verdicts[0][2] in ("higher", "lower")
        paths_all = paths_all and paths_ok
        rows.append((called, family, old_called, len(old_f)))
        vs = "; ".join(f"x{e:.3f} [{i[0]:.3f}, {i[1]:.3f}] {v} ({n} invocations)" if i else v for e, i, v, n in verdicts)
        print(f"pair {p}: called changed {called} of {family} figures ({100 * called / max(family, 1):.1f} %); "
              f"before (one invocation, 95 % each): {old_called} of {len(old_f)}; "
              f"{a.paths} sender SD at {a.size // 1024}K: {vs}", flush=True)
    called = sum(r[0] for r in rows)
    family = sum(r[1] for r in rows)
    old_called = sum(r[2] for r in rows)
    old_n = sum(r[3] for r in rows)
    load = os.getloadavg()
    print(f"over {a.pairs} pairs: {called} of {family} figures called changed ({100 * called / max(family, 1):.1f} %, "
          f"goal <= 5 %); before: {old_called} of {old_n} ({100 * old_called / max(old_n, 1):.1f} %)")
    print(f"{a.paths} sender SD at {a.size // 1024}K called changed in every pair: {'yes' if paths_all else 'NO'}")
    print(f"load average at the end {load[0]:.1f}")
    return 0 if paths_all else 1


if __name__ == "__main__":
    sys.exit(main())
