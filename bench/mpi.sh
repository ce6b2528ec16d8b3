#!/usr/bin/env bash
# zcperf-mpi at scale on one host, three measures:
#   1. 64 ranks (oversubscribed, short tests) complete: 32 concurrent loopback pairs, every pair checked;
#   2. MPI's own cost per round: the start barrier (last arrival to last exit) and the gather of the
#      results to rank 0 (last rank ready to rank 0 holding all), medians over a matrix's rounds;
#   3. the aggregate of N concurrent loopback pairs against the sum of the same pairs run alone (one
#      at a time: --pattern matrix --one-pair-at-a-time over 2 ranks runs each direction alone), in
#      alternating rounds, with the ratio. On loopback the pairs share the host's cores, so the ratio
#      says how far the host, not a network, lets pairs add up.
#   bench/mpi.sh [--ranks 64] [--pairs 4] [--duration 1] [--rounds 2]
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
ZCPERF_MPI=${ZCPERF_MPI:-$here/build/zcperf-mpi}
RANKS=64 PAIRS=4 DURATION=1 ROUNDS=2
while (($#)); do
    case $1 in
        --ranks) RANKS=${2:?}; shift 2 ;;
        --pairs) PAIRS=${2:?}; shift 2 ;;
        --duration) DURATION=${2:?}; shift 2 ;;
        --rounds) ROUNDS=${2:?}; shift 2 ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        *) echo "mpi.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
[ -x "$ZCPERF_MPI" ] || { echo "mpi.sh: $ZCPERF_MPI not built (needs libopenmpi-dev: scripts/bootstrap.sh build)" >&2; exit 1; }
command -v mpirun >/dev/null || { echo "mpi.sh: mpirun not found (apt-get install openmpi-bin)" >&2; exit 1; }
out=$(mktemp -d /tmp/zcperf-mpi-bench.XXXXXX)
trap 'rm -rf "$out"' EXIT
mpi() { local np=$1; shift; timeout 600 mpirun --allow-run-as-root --oversubscribe --timeout 500 -np "$np" "$ZCPERF_MPI" "$@"; }
summary() {  # FILE...: per file, pairs ok/failed, sum Gb/s, per-round MPI costs
    python3 - "$@" <<'PY'
import json, statistics, sys
for path in sys.argv[1:]:
    d = json.load(open(path))
    ok = sum(1 for p in d["pairs"] if "result" in p)
    bad = [p for p in d["pairs"] if "result" not in p]
    for p in d["pairs"]:
        if "result" in p:
            r = p["result"]
            assert r["local"]["bytes"] == r["remote"]["bytes"], "bytes sent != received"
    rounds = d["rounds"]
    med = lambda k: statistics.median(r[k] for r in rounds)
    print(f"{path.split('/')[-1]}: {d['run']['ranks']} ranks, {len(rounds)} rounds, {ok} pairs ok, {len(bad)} failed; "
          f"sum {sum(r['throughput_gbps']['sum'] for r in rounds):.3f} Gb/s; per round median: barrier "
          f"{med('barrier_ms'):.3f} ms, gather {med('gather_ms'):.3f} ms, start skew {med('start_skew_us'):.0f} us")
    for p in bad[:5]:
        print(f"  failed {p['client_rank']} -> {p['server_rank']}: {p['error']}")
PY
}

echo "== 1. $RANKS ranks, --pattern pairs, -l 0.2 (load: $(cut -d' ' -f1-3 /proc/loadavg))"
t0=$(date +%s.%N)
mpi "$RANKS" -l 0.2 -o json > "$out/big.json"
t1=$(date +%s.%N)
summary "$out/big.json"
python3 -c "print(f'  whole job: {$t1 - $t0:.1f} s wall (MPI start-up, {$RANKS} servers, set-up, 0.2 s test, report)')"

echo "== 2. MPI cost per round: --pattern matrix, 8 ranks (14 rounds) and 16 ranks (30 rounds), -l 0.05"
mpi 8 --pattern matrix -l 0.05 -o json > "$out/matrix8.json"
mpi 16 --pattern matrix -l 0.05 -o json > "$out/matrix16.json"
summary "$out/matrix8.json" "$out/matrix16.json"

echo "== 3. $PAIRS concurrent loopback pairs vs the same pairs alone, -l $DURATION, $ROUNDS alternating rounds"
python_sum() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sum(r['throughput_gbps']['sum'] for r in d['rounds']) / (len(d['rounds']) if sys.argv[2]=='mean' else 1))" "$@"; }
for r in $(seq "$ROUNDS"); do
    mpi $((2 * PAIRS)) -l "$DURATION" -o json > "$out/together.json"
    together=$(python_sum "$out/together.json" sum)
    # Alone: each of the pairs by itself (2 ranks, one round each), the same -l.
    alone=0
    for i in $(seq "$PAIRS"); do
        mpi 2 -l "$DURATION" -o json > "$out/alone.json"
        alone=$(python3 -c "print($alone + $(python_sum "$out/alone.json" sum))")
    done
    python3 -c "print(f'round $r: {$PAIRS} pairs at once {$together:.3f} Gb/s in all; the same pairs alone, summed: {$alone:.3f} Gb/s; ratio {$together / $alone:.3f}')"
done
echo "(load after: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs)"
