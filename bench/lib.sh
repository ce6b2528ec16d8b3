# bench/lib.sh: what the bench scripts share (sourced, not run): options, servers'
# cleanup, the tools' runners and the alternating-rounds loop. Parsing, the CSV and the
# tables are in lib.py. A script sets NAME, sources this, defines usage(), then calls
#   bench_args "$@"; bench_report_only LAYOUT; bench_setup TOOL...; bench_rounds CASE...; bench_report LAYOUT
# Scripts whose rounds are their own (crr.sh, flows.sh, bidir.sh) keep one value per round and case
# with bench_row and print them with bench_rounds_report (both sides of each ratio from the same round).
# shellcheck shell=bash

ROUNDS=3
DURATION=5
SIZES=64K,1M,4M
CLIENT_CPU=0
SERVER_CPU=1
CSV=
REPORT_ONLY=
LAB_RUN=
# --rt: every tool's client and server under SCHED_FIFO priority 1, the same for all: on a machine
# shared with builds, a loop that never sleeps (an epoll over 1000 flows) otherwise gets a fair share
# of the CPUs beside the compilers while one that blocks and wakes (-P 2) preempts them, and a woken
# round trip waits behind them. The script puts "${RT[@]}" before each command it runs.
RT=()

die() { echo "$NAME.sh: $*" >&2; exit 1; }
log() { echo "[$NAME] $*" >&2; }

# The options every bench script takes (usage() is the calling script's). A script's own options go
# to its bench_option, if it defines one: called with the words left, it sets BENCH_USED to how many
# it took (0: not its option).
BENCH_USED=0
bench_args() {
    while (($#)); do
        BENCH_USED=0
        if declare -F bench_option >/dev/null; then bench_option "$@"; fi
        if ((BENCH_USED > 0)); then shift "$BENCH_USED"; continue; fi
        case $1 in
            --rounds)   ROUNDS=${2:?}; shift 2 ;;
            --duration) DURATION=${2:?}; shift 2 ;;
            --sizes)    SIZES=${2:?}; shift 2 ;;
            --csv)      CSV=${2:?}; shift 2 ;;
            --report)   REPORT_ONLY=${2:?}; shift 2 ;;
            --lab)      LAB_RUN=1; shift ;;
            --rt)       RT=(chrt -f 1); shift ;;
            -h|--help)  usage; exit 0 ;;
            *)          usage >&2; exit 2 ;;
        esac
    done
    [[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "--rounds wants a positive integer"
    # iperf3 truncates -t to an integer, so only whole seconds keep the tools comparable.
    [[ $DURATION =~ ^[1-9][0-9]*$ ]] || die "--duration wants whole seconds"
    [[ ${#RT[@]} -eq 0 ]] || "${RT[@]}" true 2>/dev/null || die "--rt: chrt -f 1 is not permitted here (root needed)"
}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# ZCPERF=/path/to/zcperf runs another binary, e.g. a copy that a rebuild cannot replace mid-run.
ZCPERF=${ZCPERF:-$ROOT/build/zcperf}
PY=/usr/bin/python3
LIBPY=$ROOT/bench/lib.py
[[ -x $PY ]] || die "needs $PY"

IPERF3=${IPERF3:-iperf3}   # the iperf3 binary (another build: IPERF3=/path/to/iperf3)
IPERF_PID=       # the current test's one-shot iperf3 server (B:PID in the lab: it runs in guest B)
SERVER_PIDS=()   # servers that live for the whole run (qperf)

# In guest A of the two-guest lab (scripts/lab.sh; --lab re-runs a script there), the servers run in
# guest B across the link: zcperf's is the lab's zcserver, the peers' are started through
# $ZCPERF_LAB_PEER and write their output into the shared tree, so A reads it where it would anyway.
LAB_SERVER=${ZCPERF_LAB_SERVER:-}
SERVER_IP=127.0.0.1
[[ -n $LAB_SERVER ]] && SERVER_IP=${LAB_SERVER%:*}
ZCPERF_HOST=()
[[ -n $LAB_SERVER ]] && ZCPERF_HOST=(-H "$LAB_SERVER")

# server_start OUT CMD...: a peer's server, here or in B, output to OUT and its exit status to OUT.rc;
# prints the pid to give server_wait / server_stop (B:PID for one in B). Callers take the pid through
# $(...), a subshell, so the server is not their child and `wait` could not give its status: OUT.rc does.
server_start() {
    local out=$1
    shift
    rm -f "$out.rc"
    if [[ -z $LAB_SERVER ]]; then
        ("$@" >"$out" 2>&1; echo $? >"$out.rc") </dev/null >/dev/null 2>&1 &
        echo $!
        return
    fi
    local q
    q=$(printf '%q ' "$@")
    local o rc
    o=$(printf %q "$out")
    rc=$(printf %q "$out.rc")
    echo "B:$("$ZCPERF_LAB_PEER" -- "($q >$o 2>&1; echo \$? >$rc) </dev/null >/dev/null 2>&1 & echo \$!")"
}
server_alive() {   # pid out
    [[ ! -e $2.rc ]]
}
server_wait() {   # pid out: its exit status (it gets LIMIT seconds, then is stopped)
    local end=$((SECONDS + LIMIT))
    # -s, not -e: the shell creates OUT.rc before it writes the status into it
    while [[ ! -s $2.rc ]] && ((SECONDS < end)); do sleep 0.2; done
    [[ -s $2.rc ]] || { server_stop "$1"; return 124; }
    return "$(<"$2.rc")"
}
server_stop() {   # pid
    if [[ $1 == B:* ]]; then "$ZCPERF_LAB_PEER" -- "kill ${1#B:} 2>/dev/null; true" >/dev/null 2>&1 || true
    else pkill -P "$1" 2>/dev/null || true; kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; fi
}

cleanup() {
    local rc=$?
    for pid in $IPERF_PID "${SERVER_PIDS[@]}"; do
        server_stop "$pid"   # qperf's server forks one child per test: server_stop ends those too
    done
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --lab: run this same bench in guest A of the two-guest lab (scripts/lab.sh), where LAB_SERVER is
# set and the servers run in guest B. The whole lab is bounded by a minute a test beyond the tests.
bench_lab() {   # tests-per-round-and-size original-arguments...
    [[ -n $LAB_RUN && -z $LAB_SERVER ]] || return 0
    local per=$1 sizes
    shift
    IFS=, read -ra sizes <<<"$SIZES"
    exec "$ROOT/scripts/lab.sh" --rw "$ROOT" --timeout $((ROUNDS * ${#sizes[@]} * per * (DURATION + 60) + 300)) -- \
        "$(printf '%q ' "$0" "$@")"
}

bench_report() { "$PY" "$LIBPY" report "$1" "${2:-$CSV}"; }   # LAYOUT [CSV]

# --report FILE: reprint the table from an earlier CSV and stop.
bench_report_only() {   # layout
    [[ -n $REPORT_ONLY ]] || return 0
    [[ -f $REPORT_ONLY ]] || die "no such CSV: $REPORT_ONLY"
    bench_report "$1" "$REPORT_ONLY"
    exit 0
}

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

listening() { [[ -n $(ss -Hltn "sport = :$1") ]]; }
free_port() { local p=$1; while listening "$p"; do p=$((p + 1)); done; echo "$p"; }
wait_listen() {   # port pid [out]
    if [[ $2 == B:* ]]; then   # ask B; each question is a round trip through the shared directory
        "$ZCPERF_LAB_PEER" --timeout 30 -- \
            "for i in \$(seq 300); do [ -n \"\$(ss -Hltn 'sport = :$1')\" ] && exit 0; sleep 0.1; done; exit 1" >/dev/null 2>&1
        return
    fi
    for _ in $(seq 100); do
        listening "$1" && return 0
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.05
    done
    return 1
}

fail() {   # tool raw-file
    echo "$NAME.sh: $1 failed; last lines of $2:" >&2
    tail -n 15 "$2" >&2
    exit 1
}

# build_floor NAME [CFLAGS...]: the kernel-floor loop bench/NAME.c as $RAW/NAME, built with cc; or,
# where FLOORS_DIR names a folder holding NAME already built (the lent machine may have no compiler:
# bench/device/pack_for_device.sh carries them), that one.
build_floor() {
    local name=$1
    shift
    if [[ -n ${FLOORS_DIR:-} && -x $FLOORS_DIR/$name ]]; then
        ln -sf "$FLOORS_DIR/$name" "$RAW/$name"
        return
    fi
    command -v cc >/dev/null || die "needs a C compiler (cc) for the floor loop, or FLOORS_DIR with $name built"
    cc -O2 "$@" -o "$RAW/$name" "$ROOT/bench/$name.c"
}

# Checks the tools, reads --sizes, and opens the CSV (SIZE_LIST, CSV, RAW, LIMIT, IPERF_PORT).
bench_setup() {   # tool... (besides zcperf)
    [[ -x $ZCPERF ]] || die "$ZCPERF not found; build first: cmake -S . -B build -G Ninja && cmake --build build -j2"
    local t s
    for t in "$@" taskset timeout ss; do
        command -v "$t" >/dev/null || die "$t not found (Debian 12: apt-get install -y $t; the peers: iperf3 qperf sockperf)"
    done
    taskset -c "$SERVER_CPU" true 2>/dev/null || die "CPU $SERVER_CPU is not available here"
    IFS=, read -ra SIZE_LIST <<<"$SIZES"
    for s in "${SIZE_LIST[@]}"; do to_bytes "$s" >/dev/null; done
    [[ -n $CSV ]] || CSV=$ROOT/bench/out/$NAME-$(date +%Y%m%d-%H%M%S).csv
    RAW=${CSV%.csv}-raw
    mkdir -p "$(dirname "$CSV")" "$RAW"
    : >"$CSV"
    LIMIT=$((DURATION + 30))   # a hung tool fails the run instead of stalling it
    IPERF_PORT=$(free_port 5299)
}

# zcperf_json RAW ARG...: one zcperf run (-l DURATION, JSON) into RAW; a failure stops the bench with
# its output. result_of RAW EXPR: a Python expression of its first result `r` (and the report `d`).
zcperf_json() {
    local raw=$1
    shift
    timeout "$LIMIT" "${RT[@]}" "$ZCPERF" "${ZCPERF_HOST[@]}" "$@" -l "$DURATION" -o json >"$raw" 2>"$raw.err" ||
        { cat "$raw.err" >>"$raw"; fail zcperf "$raw"; }
}
result_of() {
    "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); r=d['results'][0]; print($2)" "$1"
}

# bench_row ROUND CASE VALUE: one sample into the CSV (round,case,value; bench_setup opened it).
bench_row() {
    [[ -s $CSV ]] || echo "round,case,value" >"$CSV"
    echo "$1,$2,$3" >>"$CSV"
}
# bench_rounds_report CSV NUM/DEN...: each round's values, each ratio NUM/DEN of one round's two
# values, and the medians (of the values, of the ratios, and the ratios of the medians).
bench_rounds_report() { "$PY" "$LIBPY" rounds "$@"; }

# bench_rounds_args WHY_NOT_LAB ARG...: bench_args for a script of round,case,value samples (crr.sh,
# flows.sh, bidir.sh; RATIOS set first): --lab is refused with the script's reason, and --report CSV
# prints the rounds' table and exits.
bench_rounds_args() {
    local why_not_lab=$1
    shift
    bench_args "$@"
    [[ -z $LAB_RUN ]] || die "--lab: not for this script ($why_not_lab)"
    [[ -n $REPORT_ONLY ]] || return 0
    [[ -f $REPORT_ONLY ]] || die "no such CSV: $REPORT_ONLY"
    bench_rounds_report "$REPORT_ONLY" "${RATIOS[@]}"
    exit 0
}

# run_TOOL SIZE BYTES RAW [VARIANT]: one test, output to RAW. Returning 3 with the reason in
# RAW.skip means the tool cannot do this test: it is noted in the CSV, not a failure.

run_zcperf() {   # variant = the sender path (-T, default tcp), then any further options
    local -a v
    read -ra v <<<"${4:-tcp}"
    timeout "$LIMIT" "$ZCPERF" "${ZCPERF_HOST[@]}" -T "${v[0]}" "${v[@]:1}" -m "$2" -l "$DURATION" \
        --cpu "$CLIENT_CPU,$SERVER_CPU" -o json \
        >"$3" 2>"$3.err" || { cat "$3.err" >>"$3"; fail zcperf "$3"; }
}

run_iperf3() {   # variant = extra client flags, e.g. -Z
    IPERF_PID=$(server_start "$3.server" "$IPERF3" -s -1 -A "$SERVER_CPU" -p "$IPERF_PORT")
    wait_listen "$IPERF_PORT" "$IPERF_PID" || fail "iperf3 server" "$3.server"
    local rc=0
    # shellcheck disable=SC2086  # the variant is a list of flags
    timeout "$LIMIT" "$IPERF3" -c "$SERVER_IP" -p "$IPERF_PORT" -A "$CLIENT_CPU" -l "$2" -t "$DURATION" -J ${4:-} \
        >"$3" 2>"$3.err" || rc=$?
    if ((rc != 0)); then
        server_stop "$IPERF_PID"
        IPERF_PID=
        # iperf3 caps -l (1 MiB in 3.x): a limit of the tool, not a failure of the run
        if grep -q 'block size too large' "$3.err"; then
            echo "message size over iperf3's limit ($(grep -o 'maximum = [0-9]* bytes' "$3.err"))" >"$3.skip"
            return 3
        fi
        cat "$3.err" >>"$3"
        fail iperf3 "$3"
    fi
    server_wait "$IPERF_PID" "$3.server" || true
    IPERF_PID=
}

# Alternating rounds: every round goes through every size, and for each size runs every
# CASE back to back, so slow drift on a noisy machine hits all of them alike instead of
# falling on whichever ran last. A CASE is TOOL or TOOL:VARIANT (zcperf:tcp-msgzc, iperf3:-Z,
# "zcperf:tcp --rcvlowat=1").
bench_rounds() {   # case...
    local -A skip=()
    local r size bytes c tool variant key raw rc summary
    for ((r = 1; r <= ROUNDS; r++)); do
        for size in "${SIZE_LIST[@]}"; do
            bytes=$(to_bytes "$size")
            for c in "$@"; do
                tool=${c%%:*}
                variant=${c#"$tool"}; variant=${variant#:}
                key="$c $size"
                raw=$RAW/r$r-$size-$tool${variant:+-${variant#-}}
                raw=${raw// /_}.out
                if [[ -z ${skip[$key]:-} ]]; then
                    rc=0
                    "run_$tool" "$size" "$bytes" "$raw" "$variant" || rc=$?
                    ((rc == 3)) && skip[$key]=$(<"$raw.skip")
                fi
                if [[ -n ${skip[$key]:-} ]]; then
                    log "round $r/$ROUNDS  $size  $tool${variant:+ $variant}: skipped, ${skip[$key]}"
                    "$PY" "$LIBPY" skip "$tool" "$variant" "$CSV" "$r" "$size" "$bytes" "$DURATION" "${skip[$key]}"
                    continue
                fi
                summary=$("$PY" "$LIBPY" parse "$tool" "$variant" "$raw" "$CSV" "$r" "$size" "$bytes" \
                    "$DURATION" "$CLIENT_CPU" "$SERVER_CPU") || die "could not read $tool's output ($raw)"
                log "round $r/$ROUNDS  $size  $tool${variant:+ $variant}: $summary"
                sleep 0.5   # let the last connection's teardown finish before the next test
            done
        done
    done
    find "$RAW" -empty -delete   # the tools' empty stderr captures
}
