#!/usr/bin/env bash
# explain.sh: what --explain costs. On loopback (client CPU 0, server CPU 1), for each size, N rounds,
# each round one run without --explain and one with it (the order alternating round by round, so a
# drift in the machine's load falls on both), then the medians: throughput with / without (goal
# >= 0.97x) with its 95 % interval (a bootstrap over the rounds, each resample's ratio of medians),
# service demand with / without, and the samplers' own CPU (both sides, from their threads'
# getrusage) as a share of the sampled busy time; the load average before and after. See bench/README.md.
set -euo pipefail

ROUNDS=5
DURATION=5
SIZES=64K,1M
HZ=
OUT=
usage() {
    cat <<EOT
Usage: $0 [--rounds N] [--duration S] [--sizes 64K,1M] [--hz N] [--out FILE]
  --rounds N    rounds per size, each one run with and one without --explain (default $ROUNDS)
  --duration S  seconds per run (default $DURATION)
  --sizes LIST  message sizes (default $SIZES)
  --hz N        --explain-hz (default: zcperf's)
  --out FILE    the raw JSON lines (default bench/out/explain-<timestamp>.jsonl)
EOT
}
while (($#)); do
    case $1 in
        --rounds) ROUNDS=${2:?}; shift 2 ;;
        --duration) DURATION=${2:?}; shift 2 ;;
        --sizes) SIZES=${2:?}; shift 2 ;;
        --hz) HZ=${2:?}; shift 2 ;;
        --out) OUT=${2:?}; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
done
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "explain.sh: --rounds wants a positive integer" >&2; exit 2; }
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ZCPERF=${ZCPERF:-$ROOT/build/zcperf}
[[ -x $ZCPERF ]] || { echo "explain.sh: no $ZCPERF: build first (scripts/bootstrap.sh build)" >&2; exit 1; }
mkdir -p "$ROOT/bench/out"
OUT=${OUT:-$ROOT/bench/out/explain-$(date +%Y%m%d-%H%M%S).jsonl}
: >"$OUT"
EXPLAIN=(--explain)
[[ -n $HZ ]] && EXPLAIN=(--explain-hz "$HZ")

one() {  # one(SIZE, MODE): a run, its JSON result appended as one line tagged with the mode
    local size=$1 mode=$2 extra=()
    [[ $mode == with ]] && extra=("${EXPLAIN[@]}")
    "$ZCPERF" -l "$DURATION" -m "$size" --cpu 0,1 -o json "${extra[@]}" |
        /usr/bin/python3 -c 'import json,sys; r=json.load(sys.stdin)["results"][0]; r["bench_mode"]=sys.argv[1]; print(json.dumps(r))' "$mode" >>"$OUT"
}

echo "[explain] load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs" >&2
IFS=, read -r -a sizes <<<"$SIZES"
for size in "${sizes[@]}"; do
    for ((i = 1; i <= ROUNDS; i++)); do
        echo "[explain] $size round $i/$ROUNDS" >&2
        if ((i % 2)); then one "$size" without; one "$size" with; else one "$size" with; one "$size" without; fi
    done
done

echo "[explain] load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
/usr/bin/python3 - "$OUT" <<'PY'
import json, random, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print(f"{'size':>6} {'rounds':>6} {'Gb/s without':>13} {'Gb/s with':>10} {'ratio':>6} {'95 % interval':>14} {'SD without':>11} {'SD with':>8}"
      f" {'sampler CPU %':>14}")
for size in sorted({r["message_size"] for r in rows}):
    w = [r for r in rows if r["message_size"] == size and r["bench_mode"] == "with"]
    wo = [r for r in rows if r["message_size"] == size and r["bench_mode"] == "without"]
    med = lambda xs: statistics.median(xs) if xs else float("nan")
    gw, gwo = med([r["throughput_gbps"] for r in w]), med([r["throughput_gbps"] for r in wo])
    sdw, sdwo = med([r["local"]["service_demand_us_per_kb"] for r in w]), med([r["local"]["service_demand_us_per_kb"] for r in wo])
    samp = [100 * (r["local"]["explain"]["sampler_cpu_s"] + r["remote"]["explain"]["sampler_cpu_s"]) /
            max(r["local"]["explain"]["sampled_busy_cpu_s"], 1e-9) for r in w if r["local"]["explain"]["ran"]]
    ratios = sorted(a["throughput_gbps"] / b["throughput_gbps"] for a, b in zip(w, wo))
    # 95 % interval of the ratio of medians: resample the rounds (a round's pair together, as they ran
    # side by side), 4000 times, a fixed seed so a rerun of the same file prints the same interval.
    rng, pairs, boot = random.Random(1), list(zip(w, wo)), []
    for _ in range(4000):
        pick = [rng.choice(pairs) for _ in pairs]
        boot.append(med([a["throughput_gbps"] for a, _ in pick]) / med([b["throughput_gbps"] for _, b in pick]))
    boot.sort()
    lo, hi = boot[int(0.025 * len(boot))], boot[int(0.975 * len(boot)) - 1]
    print(f"{size >> 10:>5}K {len(w):>6} {gwo:>13.2f} {gw:>10.2f} {gw / gwo:>6.3f} [{lo:.3f}, {hi:.3f}] {sdwo:>11.3f} {sdw:>8.3f} {med(samp):>14.2f}"
          f"   (pairwise ratios {', '.join(f'{x:.3f}' for x in ratios)})")
print(f"raw: {sys.argv[1]}")
PY
