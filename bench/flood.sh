#!/usr/bin/env bash
# bench/flood.sh: does a flood of the control port disturb a test that is running?
# One zcserver; a zcperf stream test against it, alternately alone and while zcflood floods the
# control port (70 idle connections reconnecting 20 ms after each close, a burst of 400, 20 that
# dribble a hello, from 64 loopback addresses). Same pinning both times. Prints each pair, the
# median Gb/s of each, and the ratio with flood / without. Also what zcserver looked like under the flood.
#   bench/flood.sh [--rounds N] [--duration S] [--size SIZE] [--cpus C,S] [--flood-cpus LIST] [--auth]
set -euo pipefail

ROUNDS=5 DURATION=5 SIZE=1M CPUS=0,1 FLOOD_CPUS= AUTH=
usage() {
    sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
    echo "  --cpus C,S        zcperf's --cpu (client data thread, server data thread); default $CPUS"
    echo "  --flood-cpus LIST taskset for zcflood (default: wherever the scheduler puts it)"
    echo "  --auth            zcserver and zcperf with --auth-key-file"
}
while (($#)); do
    case $1 in
        --rounds) ROUNDS=${2:?}; shift 2 ;;
        --duration) DURATION=${2:?}; shift 2 ;;
        --size) SIZE=${2:?}; shift 2 ;;
        --cpus) CPUS=${2:?}; shift 2 ;;
        --flood-cpus) FLOOD_CPUS=${2:?}; shift 2 ;;
        --auth) AUTH=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
done
[[ $ROUNDS =~ ^[1-9][0-9]*$ && $DURATION =~ ^[1-9][0-9]*$ ]] || { echo "flood.sh: --rounds and --duration want positive integers" >&2; exit 2; }

ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-$ROOT/build}
for t in zcperf zcserver zcflood; do
    [[ -x $B/$t ]] || { echo "flood.sh: $B/$t is missing; build first: cmake --build build -j2" >&2; exit 1; }
done
PY=$(command -v python3)
TMP=$(mktemp -d /tmp/zc-flood-bench.XXXXXX)
SERVER_PID= FLOOD_PID=
cleanup() {
    for p in $FLOOD_PID $SERVER_PID; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

KEYARG=()
if [[ -n $AUTH ]]; then
    head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$TMP/key"
    chmod 600 "$TMP/key"
    KEYARG=(--auth-key-file "$TMP/key")
fi
PORT=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$B/zcserver" --bind 127.0.0.1 --port "$PORT" "${KEYARG[@]}" 2> "$TMP/server.log" &
SERVER_PID=$!
for _ in $(seq 50); do grep -q "listening on" "$TMP/server.log" && break; sleep 0.1; done

run_test() {  # prints Gb/s
    "$B/zcperf" -H "127.0.0.1:$PORT" -m "$SIZE" -l "$DURATION" --cpu "$CPUS" -o json "${KEYARG[@]}" > "$TMP/out.json" 2> "$TMP/err" ||
        { echo "flood.sh: zcperf failed:" >&2; cat "$TMP/err" >&2; exit 1; }
    "$PY" -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print(r["throughput_gbps"])' "$TMP/out.json"
}
peak() {  # the server's VmRSS (KiB) and descriptors now
    echo "$(awk '/VmRSS/ {print $2}' "/proc/$SERVER_PID/status") $(ls "/proc/$SERVER_PID/fd" | wc -l)"
}
flood_test() {
    local pin=()
    [[ -n $FLOOD_CPUS ]] && pin=(taskset -c "$FLOOD_CPUS")
    "${pin[@]}" "$B/zcflood" --port "$PORT" --source-first 127.0.0.2 --sources 64 --idle 70 --reconnect-ms 20 \
        --burst 400 --burst-after 1.5 --dribble 20 --dribble-ms 100 --seconds 3600 > "$TMP/flood.json" &
    FLOOD_PID=$!
    (while kill -0 "$FLOOD_PID" 2>/dev/null; do peak >> "$TMP/usage"; sleep 0.2; done) &
    local sampler=$!
    sleep 1
    local g; g=$(run_test)
    kill "$FLOOD_PID"; wait "$FLOOD_PID" || true
    FLOOD_PID=
    wait "$sampler" || true
    echo "$g"
}

echo "[flood] zcserver pid $SERVER_PID, ${SIZE} stream, ${DURATION} s, --cpu $CPUS, $ROUNDS rounds${AUTH:+, --auth-key-file}" >&2
printf '%-6s %12s %12s %8s\n' round "alone Gb/s" "flood Gb/s" ratio
alone=() flooded=()
for r in $(seq "$ROUNDS"); do
    if ((r % 2)); then a=$(run_test); f=$(flood_test); else f=$(flood_test); a=$(run_test); fi
    alone+=("$a") flooded+=("$f")
    printf '%-6s %12.2f %12.2f %8.2f\n' "$r" "$a" "$f" "$("$PY" -c "print($f/$a)")"
done
"$PY" - "${alone[*]}" "${flooded[*]}" "$TMP/flood.json" "$TMP/usage" <<'PYEOF'
import json, statistics, sys
a = [float(x) for x in sys.argv[1].split()]
f = [float(x) for x in sys.argv[2].split()]
ma, mf = statistics.median(a), statistics.median(f)
print(f"median  {ma:12.2f} {mf:12.2f} {mf / ma:8.2f}   (with flood / without)")
print("last flood (zcflood):", open(sys.argv[3]).read().strip())
u = [tuple(map(int, l.split())) for l in open(sys.argv[4])]
print(f"zcserver during the floods (every 0.2 s): VmRSS max {max(x[0] for x in u)} KiB, descriptors max {max(x[1] for x in u)}")
PYEOF
