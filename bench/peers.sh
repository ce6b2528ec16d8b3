#!/usr/bin/env bash
# peers.sh: zcperf next to iperf3 and qperf on loopback, same pinning (client CPU 0,
# server CPU 1), alternating rounds, medians. See bench/README.md.
set -euo pipefail

ROUNDS=3
DURATION=5
SIZES=64K,1M,4M
CLIENT_CPU=0
SERVER_CPU=1
CSV=
REPORT_ONLY=

usage() {
    cat <<EOF
Usage: $0 [--rounds N] [--duration S] [--sizes 64K,1M,4M] [--csv FILE]
       $0 --report FILE     reprint the table from an earlier CSV

Runs zcperf, iperf3 and qperf one after another for each message size, N rounds,
client on CPU $CLIENT_CPU and server on CPU $SERVER_CPU, and prints the medians.
  --rounds N     rounds (default $ROUNDS)
  --duration S   seconds per test, whole number (default $DURATION; >= 5 for CPU figures)
  --sizes LIST   message sizes, K/M/G are powers of 1024 (default $SIZES)
  --csv FILE     raw samples (default bench/out/peers-<timestamp>.csv); the tools'
                 raw outputs go next to it in <FILE without .csv>-raw/
EOF
}

die() { echo "peers.sh: $*" >&2; exit 1; }
log() { echo "[peers] $*" >&2; }

while (($#)); do
    case $1 in
        --rounds)   ROUNDS=${2:?}; shift 2 ;;
        --duration) DURATION=${2:?}; shift 2 ;;
        --sizes)    SIZES=${2:?}; shift 2 ;;
        --csv)      CSV=${2:?}; shift 2 ;;
        --report)   REPORT_ONLY=${2:?}; shift 2 ;;
        -h|--help)  usage; exit 0 ;;
        *)          usage >&2; exit 2 ;;
    esac
done
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "--rounds wants a positive integer"
# iperf3 truncates -t to an integer, so only whole seconds keep the tools comparable.
[[ $DURATION =~ ^[1-9][0-9]*$ ]] || die "--duration wants whole seconds"

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ZCPERF=$ROOT/build/zcperf
PY=/usr/bin/python3
[[ -x $PY ]] || die "needs $PY"

WORK=$(mktemp -d)
IPERF_PID=
QPERF_PID=

cleanup() {
    local rc=$?
    for pid in $IPERF_PID $QPERF_PID; do
        pkill -P "$pid" 2>/dev/null || true   # qperf's server forks one child per test
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$WORK"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Parsing and statistics live in Python (stdlib only); bash only orchestrates.
cat >"$WORK/peers.py" <<'PYEOF'
import csv, json, os, re, statistics, sys

FIELDS = ["round", "size", "msg_bytes", "tool", "duration_s", "gbps",
          "send_sd_us_per_kb", "recv_sd_us_per_kb",
          "send_proc_sd_us_per_kb", "recv_proc_sd_us_per_kb", "raw_costs", "note"]
TOOLS = ["zcperf", "iperf3", "qperf"]
KB = 1024                     # netperf's KB, as zcperf uses
QPERF_GB = 1e9                # qperf divides CPU time by bytes/1e9 (src/qperf.c: gB)
COST_UNIT = {"ns/GB": 1e-9, "us/GB": 1e-6, "ms/GB": 1e-3, "sec/GB": 1.0}
BW_UNIT = {"bits/sec": 1, "Kb/sec": 1e3, "Mb/sec": 1e6, "Gb/sec": 1e9, "Tb/sec": 1e12,
           "bytes/sec": 8, "KB/sec": 8e3, "MB/sec": 8e6, "GB/sec": 8e9, "TB/sec": 8e12}


class Bad(Exception):
    pass


def sd(cpu_s, nbytes):
    """CPU seconds and bytes -> microseconds of CPU per KB."""
    return cpu_s * 1e6 / (nbytes / KB)


def s_per_gb_to_us_per_kb(v):
    # v CPU-s per 1e9 B; 1 us/KB = 1e-6 s per 1024 B = 0.9766 s/GB, so multiply by 1.024
    return v * 1e6 * KB / QPERF_GB


def parse_zcperf(text, ccpu, scpu):
    d = json.loads(text)
    if d.get("errors") or not d.get("results"):
        raise Bad("zcperf: " + "; ".join(d.get("errors") or ["no results"]))
    r = d["results"][0]
    loc, rem = r["local"], r["remote"]
    if loc["role"] != "send" or loc["cpus"] != [ccpu] or rem["cpus"] != [scpu]:
        raise Bad(f"zcperf: unexpected role/pinning {loc['role']} {loc['cpus']} {rem['cpus']}")
    return dict(gbps=r["throughput_gbps"],
                send_sd_us_per_kb=loc["service_demand_us_per_kb"],
                recv_sd_us_per_kb=rem["service_demand_us_per_kb"],
                send_proc_sd_us_per_kb=loc["process_service_demand_us_per_kb"],
                recv_proc_sd_us_per_kb=rem["process_service_demand_us_per_kb"])


def parse_iperf3(text, ccpu, scpu):
    d = json.loads(text)
    if d.get("error"):
        raise Bad("iperf3: " + d["error"])
    end = d["end"]
    snd, rcv = end["sum_sent"], end["sum_received"]
    out = dict(gbps=rcv["bits_per_second"] / 1e9)
    # iperf3's CPU figures are its own process's getrusage (% of one CPU), so they
    # compare with zcperf's process SD, not with the whole-host SD.
    cpu = end.get("cpu_utilization_percent")
    if cpu and snd["bytes"] and rcv["bytes"]:
        out["send_proc_sd_us_per_kb"] = sd(cpu["host_total"] / 100 * snd["seconds"], snd["bytes"])
        out["recv_proc_sd_us_per_kb"] = sd(cpu["remote_total"] / 100 * rcv["seconds"], rcv["bytes"])
    return out


def parse_qperf(text, ccpu, scpu):
    vals = {}
    for line in text.splitlines():
        m = re.match(r"\s*(\w+)\s*=\s*([-\d.,]+)\s*(\S*)", line)
        if m:
            vals[m.group(1)] = (float(m.group(2).replace(",", "")), m.group(3))
    try:
        bw, bw_unit = vals["bw"]
        send, send_unit = vals["send_cost"]
        recv, recv_unit = vals["recv_cost"]
        gbps = bw * BW_UNIT[bw_unit] / 1e9
        send_s = send * COST_UNIT[send_unit]
        recv_s = recv * COST_UNIT[recv_unit]
    except KeyError as e:
        raise Bad(f"qperf: cannot read {e} from its output:\n{text}")
    # qperf's -lca/-rca are 1-based (0 means "not pinned")
    if vals.get("loc_affinity", (0,))[0] != ccpu + 1 or vals.get("rem_affinity", (0,))[0] != scpu + 1:
        raise Bad("qperf: pinning not as asked:\n" + text)
    return dict(gbps=gbps,
                send_sd_us_per_kb=s_per_gb_to_us_per_kb(send_s),
                recv_sd_us_per_kb=s_per_gb_to_us_per_kb(recv_s),
                raw_costs=f"send {send:g} {send_unit}; recv {recv:g} {recv_unit}")


def cmd_parse(tool, raw, csv_path, rnd, size, nbytes, dur, ccpu, scpu):
    row = dict(round=rnd, size=size, msg_bytes=nbytes, tool=tool, duration_s=dur)
    with open(raw) as f:
        text = f.read()
    try:
        row.update(globals()["parse_" + tool](text, int(ccpu), int(scpu)))
    except Bad as e:
        sys.exit(str(e))
    except (ValueError, KeyError, TypeError) as e:
        sys.exit(f"{tool}: unreadable output ({e!r}), see {raw}")
    append(csv_path, row)
    msg = f"{row['gbps']:.2f} Gb/s"
    if "send_sd_us_per_kb" in row:
        msg += f", SD send/recv {row['send_sd_us_per_kb']:.3f}/{row['recv_sd_us_per_kb']:.3f} us/KB"
    print(msg)


def cmd_skip(tool, csv_path, rnd, size, nbytes, dur, note):
    append(csv_path, dict(round=rnd, size=size, msg_bytes=nbytes, tool=tool,
                          duration_s=dur, note=note))


def append(csv_path, row):
    new = not os.path.exists(csv_path) or os.path.getsize(csv_path) == 0
    with open(csv_path, "a", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        if new:
            w.writeheader()
        w.writerow(row)


def fmt(v, spec):
    return "n/a" if v is None else format(v, spec)


def cmd_report(csv_path):
    samples, sizes, notes = {}, [], set()
    with open(csv_path) as f:
        for r in csv.DictReader(f):
            if r["size"] not in sizes:
                sizes.append(r["size"])
            if r["note"]:
                notes.add(f"{r['tool']} {r['size']}: {r['note']}")
            for k, v in r.items():
                if k.endswith(("gbps", "per_kb")) and v != "":
                    samples.setdefault((r["size"], r["tool"], k), []).append(float(v))

    def med(size, tool, key):
        v = samples.get((size, tool, key))
        return statistics.median(v) if v else None

    def ratio(a, b):
        return a / b if a is not None and b else None

    cols = [("size", 5), ("zcperf", 7), ("iperf3", 7), ("qperf", 7), ("zc/ip3", 6),
            ("zc/qp", 6), ("zc snd", 7), ("zc rcv", 7), ("qp snd", 7), ("qp rcv", 7)]
    head = "  ".join(f"{n:>{w}}" for n, w in cols)
    print(f"{'':5}  {'throughput, Gb/s (median)':^25}  {'ratio':^14}  "
          f"{'service demand, us/KB (median)':^34}")
    print(head)
    print("-" * len(head))
    for s in sizes:
        zc, ip, qp = (med(s, t, "gbps") for t in TOOLS)
        cells = [s, fmt(zc, ".2f"), fmt(ip, ".2f"), fmt(qp, ".2f"),
                 fmt(ratio(zc, ip), ".2f"), fmt(ratio(zc, qp), ".2f"),
                 fmt(med(s, "zcperf", "send_sd_us_per_kb"), ".3f"),
                 fmt(med(s, "zcperf", "recv_sd_us_per_kb"), ".3f"),
                 fmt(med(s, "qperf", "send_sd_us_per_kb"), ".3f"),
                 fmt(med(s, "qperf", "recv_sd_us_per_kb"), ".3f")]
        print("  ".join(f"{c:>{w}}" for c, (_, w) in zip(cells, cols)))

    # The machine is noisy: show how far apart the samples behind each median are.
    print("\nthroughput samples, Gb/s: min..max (n)")
    for s in sizes:
        parts = []
        for t in TOOLS:
            v = samples.get((s, t, "gbps"))
            parts.append(f"{t} " + (f"{min(v):.2f}..{max(v):.2f} ({len(v)})" if v else "n/a"))
        print(f"  {s:>5}  " + "   ".join(parts))
    print("\nGb/s = 1e9 bit/s. Ratios are ratios of the medians. Service demand = CPU time of the"
          "\nwhole host (all CPUs, /proc/stat) per KB (1024 B) moved, for both zcperf and qperf; on"
          "\nloopback both sides count the same machine, so send and recv come out about equal"
          "\n(per-process figures for zcperf and iperf3 are in the CSV). qperf prints CPU-s per"
          "\n1e9 B (sec/GB, or ns/GB with -uu): us/KB = sec/GB x 1.024.")
    for n in sorted(notes):
        print("note: " + n)


if __name__ == "__main__":
    {"parse": cmd_parse, "skip": cmd_skip, "report": cmd_report}[sys.argv[1]](*sys.argv[2:])
PYEOF

if [[ -n $REPORT_ONLY ]]; then
    [[ -f $REPORT_ONLY ]] || die "no such CSV: $REPORT_ONLY"
    "$PY" "$WORK/peers.py" report "$REPORT_ONLY"
    exit 0
fi

[[ -x $ZCPERF ]] || die "$ZCPERF not found; build first: cmake -S . -B build -G Ninja && cmake --build build -j2"
for t in iperf3 qperf taskset timeout ss; do
    command -v "$t" >/dev/null || die "$t not found (apt-get install -y iperf3 qperf)"
done
taskset -c "$SERVER_CPU" true 2>/dev/null || die "CPU $SERVER_CPU is not available here"

# K/M/G as powers of 1024, which is what all three tools take K/M to mean
# (qperf's lower-case k/m would be powers of 1000, so pass bytes to be safe).
to_bytes() {
    local s=${1^^} n
    [[ $s =~ ^([0-9]+)([KMG]?)$ ]] || die "bad size: $1"
    n=${BASH_REMATCH[1]}
    case ${BASH_REMATCH[2]} in
        K) n=$((n << 10)) ;; M) n=$((n << 20)) ;; G) n=$((n << 30)) ;;
    esac
    echo "$n"
}
IFS=, read -ra SIZE_LIST <<<"$SIZES"
for s in "${SIZE_LIST[@]}"; do to_bytes "$s" >/dev/null; done

listening() { [[ -n $(ss -Hltn "sport = :$1") ]]; }
free_port() { local p=$1; while listening "$p"; do p=$((p + 1)); done; echo "$p"; }
wait_listen() {   # port pid
    for _ in $(seq 100); do
        listening "$1" && return 0
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.05
    done
    return 1
}

STAMP=$(date +%Y%m%d-%H%M%S)
[[ -n $CSV ]] || CSV=$ROOT/bench/out/peers-$STAMP.csv
RAW=${CSV%.csv}-raw
mkdir -p "$(dirname "$CSV")" "$RAW"
: >"$CSV"
LIMIT=$((DURATION + 30))   # a hung tool fails the run instead of stalling it

# qperf: one server for the whole run, already on the server CPU; -rca pins its per-test child too.
QPERF_PORT=$(free_port 19765)
taskset -c "$SERVER_CPU" qperf -lp "$QPERF_PORT" >"$RAW/qperf-server.log" 2>&1 &
QPERF_PID=$!
wait_listen "$QPERF_PORT" "$QPERF_PID" || die "qperf server did not start: $(cat "$RAW/qperf-server.log")"
IPERF_PORT=$(free_port 5299)

fail() {   # tool raw-file
    echo "peers.sh: $1 failed; last lines of $2:" >&2
    tail -n 15 "$2" >&2
    exit 1
}

run_zcperf() {   # size bytes raw
    timeout "$LIMIT" "$ZCPERF" -m "$2" -l "$DURATION" --cpu "$CLIENT_CPU,$SERVER_CPU" -o json \
        >"$3" 2>"$3.err" || { cat "$3.err" >>"$3"; fail zcperf "$3"; }
}

run_iperf3() {   # size bytes raw; returns 3 if iperf3 cannot do this size
    iperf3 -s -1 -A "$SERVER_CPU" -p "$IPERF_PORT" >"$3.server" 2>&1 &
    IPERF_PID=$!
    wait_listen "$IPERF_PORT" "$IPERF_PID" || fail "iperf3 server" "$3.server"
    local rc=0
    timeout "$LIMIT" iperf3 -c 127.0.0.1 -p "$IPERF_PORT" -A "$CLIENT_CPU" -l "$2" -t "$DURATION" -J \
        >"$3" 2>"$3.err" || rc=$?
    if ((rc != 0)); then
        kill "$IPERF_PID" 2>/dev/null || true
        wait "$IPERF_PID" 2>/dev/null || true
        IPERF_PID=
        # iperf3 caps -l (1 MiB in 3.x): a limit of the tool, not a failure of the run
        grep -q 'block size too large' "$3.err" && return 3
        cat "$3.err" >>"$3"
        fail iperf3 "$3"
    fi
    wait "$IPERF_PID" 2>/dev/null || true
    IPERF_PID=
}

run_qperf() {   # size bytes raw
    kill -0 "$QPERF_PID" 2>/dev/null || fail "qperf server" "$RAW/qperf-server.log"
    timeout "$LIMIT" qperf 127.0.0.1 -lp "$QPERF_PORT" -t "$DURATION" -m "$2" \
        -lca $((CLIENT_CPU + 1)) -rca $((SERVER_CPU + 1)) -uu -ub -v tcp_bw \
        >"$3" 2>&1 || fail qperf "$3"
}

declare -A SKIP=()
log "$ROUNDS rounds x ${SIZES} x (zcperf iperf3 qperf), ${DURATION}s each, client CPU $CLIENT_CPU, server CPU $SERVER_CPU"
log "raw samples: $CSV"
for ((r = 1; r <= ROUNDS; r++)); do
    for size in "${SIZE_LIST[@]}"; do
        bytes=$(to_bytes "$size")
        for tool in zcperf iperf3 qperf; do
            raw=$RAW/r$r-$size-$tool.out
            if [[ -n ${SKIP[$tool-$size]:-} ]]; then
                log "round $r/$ROUNDS  $size  $tool: skipped, ${SKIP[$tool-$size]}"
                "$PY" "$WORK/peers.py" skip "$tool" "$CSV" "$r" "$size" "$bytes" "$DURATION" "${SKIP[$tool-$size]}"
                continue
            fi
            rc=0
            "run_$tool" "$size" "$bytes" "$raw" || rc=$?
            if ((rc == 3)); then
                SKIP[$tool-$size]="message size over iperf3's limit ($(grep -o 'maximum = [0-9]* bytes' "$raw.err"))"
                log "round $r/$ROUNDS  $size  $tool: skipped, ${SKIP[$tool-$size]}"
                "$PY" "$WORK/peers.py" skip "$tool" "$CSV" "$r" "$size" "$bytes" "$DURATION" "${SKIP[$tool-$size]}"
                continue
            fi
            summary=$("$PY" "$WORK/peers.py" parse "$tool" "$raw" "$CSV" "$r" "$size" "$bytes" \
                "$DURATION" "$CLIENT_CPU" "$SERVER_CPU") || die "could not read $tool's output ($raw)"
            log "round $r/$ROUNDS  $size  $tool: $summary"
            sleep 0.5   # let the last connection's teardown finish before the next test
        done
    done
done

find "$RAW" -empty -delete   # the tools' empty stderr captures

echo "zcperf vs iperf3 vs qperf on loopback: $ROUNDS rounds, ${DURATION}s, client CPU $CLIENT_CPU, server CPU $SERVER_CPU ($(date -Is))"
"$PY" "$WORK/peers.py" report "$CSV"
echo "raw samples: $CSV"
