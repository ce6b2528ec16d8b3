#!/bin/bash
# GPU buffers over loopback TCP: D-D, D-H, H-D, H-H (and pinned P-P) stream at 8 B..1 GiB,
# with cudaMemcpy's own host<->GPU bandwidth measured in the same run as the staging's ceiling.
# TEST=rr runs request/response instead (no 1G: a time, not a byte count) and tabulates the mean
# round trip per combination and its ratio to H-H.
# Client and server data threads are pinned to different cores (--cpu L,R). Each (size, memory)
# pair is one zcperf -o json run; sizes go in the outer loop so each size's combinations run side
# by side, and ROUNDS repeats the whole sweep (the summary gives the median).
#
#   bench/gpu_matrix.sh [ZCPERF] [OUT_PREFIX]
#   env: TEST=stream|rr  CPUS=2,4  DURATION=2  ROUNDS=1  SIZES="8 4K 64K 1M 4M 64M 1G"  COMBOS="H-H D-D D-H H-D P-P"
#        ZCPERF_RUN: a command prefix to run zcperf with (e.g. a dynamic loader)
# Writes OUT_PREFIX.jsonl (one zcperf JSON report per line: the raw output) and OUT_PREFIX.txt
# (machine, topology, copy bandwidth, the table; staged D-D vs H-H ratio per size).
set -euo pipefail
ZCPERF=${1:-build/zcperf}
OUT=${2:-bench/results/gpu-matrix}
TEST=${TEST:-stream}
CPUS=${CPUS:-2,4}
DURATION=${DURATION:-2}
ROUNDS=${ROUNDS:-1}
SIZES=${SIZES:-"8 4K 64K 1M 4M 64M 1G"}
COMBOS=${COMBOS:-"H-H D-D D-H H-D P-P"}
RUN=${ZCPERF_RUN:-}
mkdir -p "$(dirname "$OUT")"
: > "$OUT.jsonl"

buffers() {  # combination -> --buffer LOCAL,REMOTE (the client sends: local is the source)
    case $1 in
        H-H) echo host,host ;; D-D) echo cuda:0,cuda:0 ;; D-H) echo cuda:0,host ;;
        H-D) echo host,cuda:0 ;; P-P) echo pinned,pinned ;; *) echo "unknown combination $1" >&2; exit 2 ;;
    esac
}

{
    echo "# bench/gpu_matrix.sh  -t $TEST  $(date -u +%FT%TZ)  cpus $CPUS  -l $DURATION  rounds $ROUNDS"
    echo "# kernel $(uname -r); $(nproc) CPUs; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs)"
    nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv,noheader 2>/dev/null | sed 's/^/# GPU: /' || true
    echo
    $RUN $ZCPERF --topology || true
    echo
    $RUN $ZCPERF --gpu-copy-bandwidth || true
    echo
} > "$OUT.txt"

for round in $(seq 1 "$ROUNDS"); do
    for size in $SIZES; do
        for combo in $COMBOS; do
            # 1 GiB messages: a byte count (16 messages) rather than a time, so every run moves whole messages.
            if [ "$size" = 1G ]; then len=(-n 16G); else len=(-l "$DURATION"); fi
            if line=$(timeout 120 $RUN $ZCPERF -t "$TEST" --buffer "$(buffers "$combo")" --cpu "$CPUS" -m "$size" "${len[@]}" -o json 2>&1); then
                echo "$line" | tr -d '\n' | sed "s/^/{\"combo\": \"$combo\", \"round\": $round, \"report\": /; s/\$/}/" >> "$OUT.jsonl"
                echo >> "$OUT.jsonl"
            else
                echo "{\"combo\": \"$combo\", \"round\": $round, \"size\": \"$size\", \"error\": $(printf '%s' "$line" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()[-2000:]))')}" >> "$OUT.jsonl"
            fi
            echo "round $round $combo $size done" >&2
        done
    done
done

python3 - "$OUT.jsonl" >> "$OUT.txt" <<'PY'
import json, statistics, sys
rows = {}
errors = []
for line in open(sys.argv[1]):
    d = json.loads(line)
    if "error" in d:
        errors.append(f"{d['combo']} {d['size']}: {d['error'][-300:]}")
        continue
    for r in d["report"]["results"]:
        rows.setdefault((d["combo"], r["message_size"]), []).append(r)
    for e in d["report"].get("errors", []):
        errors.append(f"{d['combo']}: {e}")
def proc(side):  # the data threads' CPU, % of one core
    return 100 * (side["process_user_s"] + side["process_sys_s"]) / side["elapsed_s"] if side["elapsed_s"] else 0
def med(xs): return statistics.median(xs) if xs else float("nan")
def fmt_size(n):
    for unit, s in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= s and n % s == 0: return f"{n // s}{unit}"
    return f"{n}B"
sizes = sorted({s for _, s in rows})
combos = [c for c in ["H-H", "D-D", "D-H", "H-D", "P-P"] if any(k[0] == c for k in rows)]
if any("rr" in rs[0] for rs in rows.values()):
    # Request/response: the initiator's (client's, "local") mean round trip; staging per transaction
    # = GPU time of one side's copies divided by the transactions (two copies a side when on the GPU).
    print("rr over loopback TCP: mean round trip in us (median of rounds), and its ratio to H-H;")
    print("staged = GPU memory through a pinned slot, one copy out and one in per transaction and side.")
    print("D-D copy us/tran = GPU time of the staging copies per transaction (client / server).")
    print()
    def rtt(c, s): return med([r["rr"]["rtt_us"]["mean"] for r in rows.get((c, s), [])])
    print(f"{'size':>6} " + " ".join(f"{c:>9}" for c in combos) + "  " + " ".join(f"{c + '/HH':>8}" for c in combos if c != "H-H")
          + "   D-D p99 us  D-D copy us/tran  D-D trans/s")
    for s in sizes:
        g = {c: rtt(c, s) for c in combos}
        hh = g.get("H-H")
        extra = ""
        dd = rows.get(("D-D", s), [])
        if dd:
            r = dd[len(dd) // 2]
            n = max(r["rr"]["transactions"], 1)
            lm, rm = r["local"]["memory"], r["remote"]["memory"]
            extra = (f"   {r['rr']['rtt_us']['p99']:10.1f}  {lm['stage_copy_s'] / n * 1e6:7.1f}/{rm['stage_copy_s'] / n * 1e6:<7.1f}"
                     f"  {r['rr']['transactions_per_s']:10.0f}")
        print(f"{fmt_size(s):>6} " + " ".join(f"{g[c]:9.1f}" for c in combos) + "  "
              + " ".join(f"{g[c] / hh if hh else float('nan'):8.2f}" for c in combos if c != "H-H") + extra)
    if errors:
        print("\nerrors:")
        for e in errors: print("  " + e)
    sys.exit(0)
print("Stream over loopback TCP, Gb/s counted by the receiver (median of rounds); staged = GPU memory")
print("through pinned bounce buffers. copy s = GPU time of the staging copies (sender / receiver),")
print("wait s = time the data thread waited for a copy; D-D/H-H = the staged target (>= 0.9 at >= 4 MiB).")
print()
print(f"{'size':>6} " + " ".join(f"{c:>9}" for c in combos) + f" {'D-D/H-H':>8}   D-D copy s (tx/rx)  wait s (tx/rx)  D-D thread CPU% of a core tx/rx")
for s in sizes:
    g = {c: med([r["throughput_gbps"] for r in rows.get((c, s), [])]) for c in combos}
    dd = rows.get(("D-D", s), [])
    extra = ""
    if dd:
        r = dd[len(dd) // 2]
        lm, rm = r["local"]["memory"], r["remote"]["memory"]
        extra = (f"   {lm['stage_copy_s']:.3f}/{rm['stage_copy_s']:.3f}      "
                 f"{lm['stage_wait_ns']/1e9:.3f}/{rm['stage_wait_ns']/1e9:.3f}     "
                 f"{proc(r['local']):.0f}/{proc(r['remote']):.0f}")
    ratio = g.get("D-D", float("nan")) / g["H-H"] if g.get("H-H") else float("nan")
    print(f"{fmt_size(s):>6} " + " ".join(f"{g[c]:9.2f}" for c in combos) + f" {ratio:8.2f}" + extra)
if errors:
    print("\nerrors:")
    for e in errors: print("  " + e)
PY
cat "$OUT.txt"
