#!/usr/bin/env bash
# flows.sh (issue #28 item 6): 1000 flows' aggregate against -P 2 on loopback. Both runs use two
# stream threads per side: -P 2 (one connection per thread) and -P 2 --flows 500 (500 connections per
# thread, served over one epoll each). Alternating rounds against one zcserver, so slow drift on a
# shared machine hits both alike; prints every run, the medians and their ratio (goal >= 0.9x).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ZCPERF=${ZCPERF:-$ROOT/build/zcperf}
ZCSERVER=${ZCSERVER:-$(dirname "$ZCPERF")/zcserver}
ROUNDS=5
DURATION=5
SIZE=64K
FLOWS=500
usage() {
    cat <<EOT
Usage: $0 [--rounds N] [--duration S] [--size BYTES] [--flows N]
Runs zcperf -P 2 and zcperf -P 2 --flows N (default $FLOWS: $((2 * FLOWS)) connections) in turn, N rounds
(default $ROUNDS) of S seconds (default $DURATION), -m BYTES (default $SIZE), against one zcserver on
loopback, and prints the medians' ratio. ZCPERF=/path/to/zcperf (zcserver beside it) runs another build.
EOT
}
while [[ $# -gt 0 ]]; do
    case $1 in
        --rounds) ROUNDS=$2; shift 2 ;;
        --duration) DURATION=$2; shift 2 ;;
        --size) SIZE=$2; shift 2 ;;
        --flows) FLOWS=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
done
[[ -x $ZCPERF && -x $ZCSERVER ]] || { echo "flows.sh: build zcperf and zcserver first ($ZCPERF)" >&2; exit 1; }

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$ZCSERVER" --bind 127.0.0.1 --port "$PORT" 2>/dev/null &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null || true' EXIT
sleep 0.5

gbps() {   # zcperf arguments...: the receiver's Gb/s (the run fails on any per-flow count mismatch)
    "$ZCPERF" -H "127.0.0.1:$PORT" -l "$DURATION" -m "$SIZE" -o json "$@" | python3 -c '
import json, sys
r = json.load(sys.stdin)["results"][0]
print("%.3f %.4f" % (r["throughput_gbps"], r["local"].get("flows", {}).get("jain_index", 0)))'
}

P2=() FL=()
echo "round  -P 2 Gb/s   -P 2 --flows $FLOWS Gb/s (Jain)   load average"
for ((i = 1; i <= ROUNDS; i++)); do
    read -r a _ < <(gbps -P 2)
    read -r b jain < <(gbps -P 2 --flows "$FLOWS")
    P2+=("$a") FL+=("$b")
    printf '%5d  %11s   %18s (%s)   %s\n' "$i" "$a" "$b" "$jain" "$(cut -d' ' -f1-3 /proc/loadavg)"
done
python3 - "${P2[*]}" "${FL[*]}" "$FLOWS" <<'PY'
import statistics, sys
p2 = [float(x) for x in sys.argv[1].split()]
fl = [float(x) for x in sys.argv[2].split()]
a, b = statistics.median(p2), statistics.median(fl)
print(f"median  -P 2 {a:.3f} Gb/s, -P 2 --flows {sys.argv[3]} ({2 * int(sys.argv[3])} connections) {b:.3f} Gb/s")
print(f"ratio   flows / -P 2 = {b / a:.3f}  (goal >= 0.9)")
PY
