#!/usr/bin/env bash
# tls.sh: what TLS costs per KB. Alternating rounds: in each round every transport runs once,
# the order rotated round by round (so a drift in the machine's load falls on all of them), then per
# transport the medians of throughput and both sides' service demand, and each transport's per-round
# ratio of sender and receiver process service demand against the first one's, as the geometric mean with a
# 95 % t-interval over the rounds (scripts/irq_sweep_stats.py's ratio_stats). The load average before and
# after. On this host's loopback: tls against tcp (the cost of TLS in user space); with --lab across the
# two-guest lab's link (scripts/lab.sh: its kernels have tls.ko, this host's has no TLS ULP):
# ktls-sendfile, ktls and tls, TLS 1.2 (kernel receive on OpenSSL 3.0) with --explain, and the explain
# categories that move (data copy, crypto/kTLS, libcrypto's user time) per side. TCG emulates the guests'
# CPUs (AES-NI included): the lab's figures show behaviour, not speed.
set -euo pipefail

ROUNDS=5
DURATION=3
SIZE=64K
TRANSPORTS=tcp,tls
HOST=
CPUS=0,1
EXTRA=()
OUT=
LAB=
ARGS=("$@")
usage() {
    cat <<EOT
Usage: $0 [--lab] [--rounds N] [--duration S] [--size 64K] [--transports tcp,tls] [--host H] [--cpu L,R] [--out FILE] [-- ZCPERF ARGS]
  --lab             across the two-guest lab (scripts/lab.sh; boots one unless one is up): zcperf in guest A,
                    B's zcserver across eth1 (eth0 where the lab has no eth1); tls.ko loaded in both; defaults
                    --transports ktls-sendfile,ktls,tls
                    --cpu 1,1 and -- --tls-version 1.2 --explain; --out under bench/out (shared with the guests)
  --rounds N        rounds, each running every transport once (default $ROUNDS)
  --duration S      seconds per run (default $DURATION)
  --size SIZE       -m (default $SIZE)
  --transports LIST the first is the baseline of the ratios (default $TRANSPORTS; lab: ktls,ktls-sendfile,tls)
  --host H          a zcserver (default: the embedded server on loopback)
  --cpu L,R         --cpu (default $CPUS)
  --out FILE        the raw JSON lines (default bench/out/tls-<timestamp>.jsonl)
  -- ARGS          more zcperf options for every run (--tls-cipher, --tls-version, --explain, -t maerts)
EOT
}
while (($#)); do
    case $1 in
        --rounds) ROUNDS=${2:?}; shift 2 ;;
        --duration) DURATION=${2:?}; shift 2 ;;
        --size) SIZE=${2:?}; shift 2 ;;
        --transports) TRANSPORTS=${2:?}; shift 2 ;;
        --host) HOST=${2:?}; shift 2 ;;
        --cpu) CPUS=${2:?}; shift 2 ;;
        --out) OUT=${2:?}; shift 2 ;;
        --lab) LAB=1; shift ;;
        --) shift; EXTRA=("$@"); break ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
done
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "tls.sh: --rounds wants a positive integer" >&2; exit 2; }
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ -n $LAB && -z ${ZCPERF_LAB_SERVER:-} ]]; then   # on the host: run this script again in guest A
    mkdir -p "$ROOT/bench/out"
    cd "$ROOT"
    exec "$ROOT/scripts/lab.sh" --rw "$ROOT/bench/out" --timeout $((ROUNDS * 3 * (DURATION + 90) + 600)) -- \
        "$(printf '%q ' "$0" "${ARGS[@]}")"
fi
if [[ -n $LAB ]]; then   # in guest A: B's zcserver, the kernel's TLS on both sides
    # eth1 where the lab has it: it offloads checksums and scatter-gather, so no software GSO copies the
    # ciphertext (on eth0 it does, the same for every transport, and hides the senders' own copies)
    [[ " ${ARGS[*]} " == *" --host "* ]] || HOST=${ZCPERF_LAB_SERVER_OFFLOAD:-$ZCPERF_LAB_SERVER}
    [[ " ${ARGS[*]} " == *" --transports "* ]] || TRANSPORTS=ktls-sendfile,ktls,tls
    [[ " ${ARGS[*]} " == *" --cpu "* ]] || CPUS=1,1
    ((${#EXTRA[@]})) || EXTRA=(--tls-version 1.2 --explain)
    modprobe tls || { echo "tls.sh: modprobe tls failed in guest A" >&2; exit 1; }
    "$ZCPERF_LAB_PEER" -- modprobe tls || { echo "tls.sh: modprobe tls failed in guest B" >&2; exit 1; }
fi
ZCPERF=${ZCPERF:-$ROOT/build/zcperf}
[[ -x $ZCPERF ]] || { echo "tls.sh: no $ZCPERF: build first (scripts/bootstrap.sh build)" >&2; exit 1; }
mkdir -p "$ROOT/bench/out"
OUT=${OUT:-$ROOT/bench/out/tls-$(date +%Y%m%d-%H%M%S).jsonl}
: >"$OUT"
target=()
[[ -n $HOST ]] && target=(-H "$HOST")

one() {  # one(TRANSPORT, ROUND): a run, its JSON result appended as one line tagged with its round
    "$ZCPERF" "${target[@]}" -T "$1" -l "$DURATION" -m "$SIZE" --cpu "$CPUS" -o json "${EXTRA[@]}" |
        /usr/bin/python3 -c 'import json,sys; r=json.load(sys.stdin)["results"][0]; r["bench_round"]=int(sys.argv[1]); print(json.dumps(r))' "$2" >>"$OUT"
}

echo "[tls] load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs, $(uname -r)" >&2
IFS=, read -r -a transports <<<"$TRANSPORTS"
n=${#transports[@]}
for ((i = 1; i <= ROUNDS; i++)); do
    for ((k = 0; k < n; k++)); do
        t=${transports[$(((k + i - 1) % n))]}
        echo "[tls] round $i/$ROUNDS: $t" >&2
        one "$t" "$i"
    done
done
echo "[tls] load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

/usr/bin/python3 - "$OUT" "$ROOT/scripts" "${transports[0]}" <<'PY'
import json, statistics, sys
sys.path.insert(0, sys.argv[2])
from irq_sweep_stats import delta_stats, ratio_stats
rows = [json.loads(l) for l in open(sys.argv[1])]
base = sys.argv[3]
def side(r, role):
    return r["local"] if r["local"]["role"] == role else r["remote"]
KEY = "process_service_demand_us_per_kb"  # each side's own process: on one host the whole-host SD counts both
def sd(r, role):
    return side(r, role)[KEY]
by = {}
for r in rows:
    by.setdefault(r["transport"], {})[r["bench_round"]] = r
print(f"{'transport':>14} {'runs':>4} {'Gb/s':>7} {'SD send':>8} {'SD recv':>8} {'send SD / ' + base:>24} {'recv SD / ' + base:>24}  cipher")
for t, runs in by.items():
    med = lambda xs: statistics.median(xs) if xs else float("nan")
    g = med([r["throughput_gbps"] for r in runs.values()])
    s, v = med([sd(r, "send") for r in runs.values()]), med([sd(r, "recv") for r in runs.values()])
    cols = []
    for role in ("send", "recv"):
        ratios = [sd(r, role) / sd(by[base][k], role) for k, r in runs.items() if k in by.get(base, {})]
        st = ratio_stats(ratios)
        lo, hi = st["ci"]
        cols.append(f"{st['gmean']:.2f}x [{lo:.2f}, {hi:.2f}]" if lo is not None else f"{st['gmean'] or float('nan'):.2f}x")
    tls = side(next(iter(runs.values())), "send").get("tls", {})
    cipher = f"{tls.get('version', '')} {tls.get('cipher', '')} {tls.get('crypto', '')}".strip()
    print(f"{t:>14} {len(runs):>4} {g:>7.2f} {s:>8.3f} {v:>8.3f} {cols[0]:>24} {cols[1]:>24}  {cipher}")
# --explain: the categories that move, per side (medians, us/KB), and each one's per-round difference from
# the baseline's (mean, 95 % t-interval).
MOVING = ("copy", "crypto", "user_crypto")
def per_unit(r, role, cat):
    e = side(r, role).get("explain") or {}
    return (e.get("per_unit") or {}).get(cat) if e.get("ran") else None
if any(per_unit(r, "send", "copy") is not None for r in rows):
    print(f"\n--explain, us/KB (median) and the per-round difference from {base}'s (mean [95 % interval])")
    for role in ("send", "recv"):
        for cat in MOVING:
            line = []
            for t, runs in by.items():
                vals = [v for v in (per_unit(r, role, cat) for r in runs.values()) if v is not None]
                ds = [per_unit(r, role, cat) - per_unit(by[base][k], role, cat) for k, r in runs.items()
                      if k in by.get(base, {}) and per_unit(r, role, cat) is not None
                      and per_unit(by[base][k], role, cat) is not None]
                d = delta_stats(ds)
                lo, hi = d["delta_ci"]
                dt = "" if t == base or d["delta"] is None else (
                    f" ({d['delta']:+.3f} [{lo:+.3f}, {hi:+.3f}])" if lo is not None else f" ({d['delta']:+.3f})")
                line.append(f"{t} {statistics.median(vals):.3f}{dt}" if vals else f"{t} -")
            print(f"  {role} {cat:>11}: " + ", ".join(line))
print("SD: each side's process service demand, us of CPU per KB (medians; the kernel's softirq work on other CPUs is not in it); ratios: geometric mean of the per-round ratios, 95 % t-interval")
print(f"raw: {sys.argv[1]}")
PY
