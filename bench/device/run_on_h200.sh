#!/bin/bash
# Runs on the lent GPU machine from a carried folder (pack_for_device.sh made it): binaries built on
# Debian 12 plus the shared libraries they need. Probes the machine, runs the GPU tests, an optional
# staging-shape sweep, and the matrix; everything lands in $OUT.
#   run_on_h200.sh [tests] [tune] [matrix] [rr] [peers] [builds] [mptcp] [explain] [aa] [survey]   (none: tests tune matrix)
# peers: the loopback benches against iperf3/sockperf and the kernel's floors (bench/udp.sh, crr.sh,
# flows.sh, bidir.sh) on a quieter host than ours, from the scripts packed beside the binaries.
# builds: bench/builds.py, this folder's zcperf against the one packed in $BEFORE (an older build).
# mptcp: bench/peers.sh --mptcp (zcperf -T mptcp against the packed iperf3, which needs --mptcp).
# explain: bench/explain.sh at $EXPLAIN_HZ (default zcperf's rate): what --explain costs here.
# aa: bench/aa.py (AA_PAIRS pairs x 2 sides x AA_INVOCATIONS invocations): compare's false calls on a
# quieter host than ours. survey: zcperf survey of the TCP family (SURVEY_PATHS, SURVEY_SIZES, 5 rounds).
set -u
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
steps=${*:-tests tune matrix}
glibc=$(ldd --version 2>/dev/null | head -1 | grep -oE '[0-9]+\.[0-9]+$')
# Debian 12's binaries need glibc >= 2.36; an older system runs them through the carried loader.
if [ "$(printf '%s\n' 2.36 "$glibc" | sort -V | head -1)" = 2.36 ]; then
    RUN="env LD_LIBRARY_PATH=$D/lib"
else
    RUN="$D/glibc/ld-linux-x86-64.so.2 --library-path $D/lib:$D/glibc"
fi
# Each carried binary behind a one-word wrapper that gives it the carried libraries: the tests run
# ZCPERF_BIN as one program, and exported globally the libraries would break the machine's python3.
mkdir -p "$D/wrap"
wrap() {  # wrap FOLDER: its wrap/ holds one wrapper per carried binary
    mkdir -p "$1/wrap"
    for b in zcperf zcserver iperf3 sockperf ss; do
        [[ -x $1/bin/$b ]] || continue
        printf '#!/bin/sh\nexec %s %q "$@"\n' "${RUN//$D/$1}" "$1/bin/$b" >"$1/wrap/$b"
        chmod +x "$1/wrap/$b"
    done
}
wrap "$D"
{
    echo "== $(date -u +%FT%TZ) glibc $glibc -> RUN=$RUN"
    head -3 /etc/os-release; uname -r; nproc
    lscpu | grep -E 'Model name|Socket|Core|Thread|NUMA|L3' || true
    nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current,memory.total --format=csv || true
    nvidia-smi topo -m 2>&1 | head -8 || true
    ls /sys/class/net; ls /sys/class/infiniband 2>/dev/null || true
    $RUN "$D/bin/zcperf" --version
} 2>&1 | tee "$OUT/probe.txt"

if [[ " $steps " == *" tests "* ]]; then
    echo "== GPU tests" | tee "$OUT/gpu-tests.txt"
    ZCPERF_BIN="$D/wrap/zcperf" timeout 300 $RUN "$D/bin/zcperf_gpu_tests" 2>&1 | tee -a "$OUT/gpu-tests.txt" | tail -60
fi

if [[ " $steps " == *" tune "* ]]; then
    # Bounce slot size and count for staged D-D against H-H, at 4M and 64M.
    {
        for size in 4M 64M; do
            printf '%-6s H-H          ' $size; timeout 30 $RUN "$D/bin/zcperf" --cpu ${CPUS:-2,4} -m $size -l 2 -o csv | tail -1 | cut -d, -f8
            for shape in 256K:8 512K:4 1M:4 2M:4 4M:3; do
                printf '%-6s D-D %-8s ' $size $shape
                ZCPERF_STAGE_CHUNK=${shape%:*} ZCPERF_STAGE_SLOTS=${shape#*:} timeout 30 $RUN "$D/bin/zcperf" --buffer cuda,cuda \
                    --cpu ${CPUS:-2,4} -m $size -l 2 -o csv | tail -1 | cut -d, -f8
            done
        done
    } 2>&1 | tee "$OUT/tune.txt"
fi

if [[ " $steps " == *" matrix "* ]]; then
    ZCPERF_RUN="$RUN" bash "$D/gpu_matrix.sh" "$D/bin/zcperf" "$OUT/h200-gpu" 2>"$OUT/matrix-progress.txt" | tail -30
fi

if [[ " $steps " == *" rr "* ]]; then
    # Request/response with GPU buffers: H-H D-D D-H H-D, 8 B..64 MiB (RR_SIZES), mean round trips.
    TEST=rr SIZES=${RR_SIZES:-"8 4K 64K 1M 4M 64M"} COMBOS="H-H D-D D-H H-D" ZCPERF_RUN="$RUN" \
        bash "$D/gpu_matrix.sh" "$D/bin/zcperf" "$OUT/h200-gpu-rr" 2>"$OUT/rr-progress.txt" | tail -30
fi

if [[ " $steps " == *" peers "* ]]; then
    # The bench scripts and the binaries come from this folder (the wrappers above). PEER_BENCHES
    # picks the scripts: one device command runs 10 minutes at most.
    REPO=$D
    export PATH="$D/wrap:$PATH" ZCPERF="$D/wrap/zcperf" FLOORS_DIR="$D/floors"
    for b in ${PEER_BENCHES:-udp crr}; do
        echo "== bench/$b.sh --rounds ${ROUNDS:-5} --duration ${DURATION:-5}  $(date -u +%T)"
        timeout 540 bash "$REPO/bench/$b.sh" --rounds "${ROUNDS:-5}" --duration "${DURATION:-5}" 2>"$OUT/peers-$b.log"
        echo "(exit $?)"
    done 2>&1 | tee "$OUT/peers.txt"
fi

if [[ " $steps " == *" builds "* ]]; then
    [[ -d ${BEFORE:-} ]] || { echo "builds: BEFORE=folder packed from the older build" >&2; exit 2; }
    BEFORE=$(cd "$BEFORE" && pwd)
    wrap "$BEFORE"
    { $RUN "$BEFORE/bin/zcperf" --version | head -1; echo "before: $BEFORE"; } >>"$OUT/probe.txt" 2>&1
    timeout "${BUILDS_LIMIT:-300}" python3 "$D/bench/builds.py" "$BEFORE/wrap/zcperf" "$D/wrap/zcperf" \
        --rounds "${ROUNDS:-5}" --duration "${DURATION:-3}" --csv "$OUT/builds.csv" 2>"$OUT/builds.log" | tee "$OUT/builds.txt"
fi

if [[ " $steps " == *" mptcp "* ]]; then
    export PATH="$D/wrap:$PATH"
    ZCPERF="$D/wrap/zcperf" IPERF3="$D/wrap/iperf3" timeout "${MPTCP_LIMIT:-200}" bash "$D/bench/peers.sh" --mptcp \
        --rounds "${ROUNDS:-5}" --duration "${DURATION:-3}" --sizes "${MPTCP_SIZES:-64K,256K,1M}" --csv "$OUT/mptcp.csv" 2>"$OUT/mptcp.log" | tee "$OUT/mptcp.txt"
fi

if [[ " $steps " == *" explain "* ]]; then
    ZCPERF="$D/wrap/zcperf" timeout "${EXPLAIN_LIMIT:-240}" bash "$D/bench/explain.sh" --rounds "${EXPLAIN_ROUNDS:-9}" \
        --duration 3 ${EXPLAIN_HZ:+--hz $EXPLAIN_HZ} --out "$OUT/explain.jsonl" 2>"$OUT/explain.log" | tee "$OUT/explain.txt"
fi

if [[ " $steps " == *" aa "* ]]; then
    ZCPERF="$D/wrap/zcperf" timeout "${AA_LIMIT:-300}" python3 "$D/bench/aa.py" --pairs "${AA_PAIRS:-5}" \
        --invocations "${AA_INVOCATIONS:-3}" --out "$OUT/aa" 2>"$OUT/aa.log" | tee "$OUT/aa.txt"
fi

if [[ " $steps " == *" survey "* ]]; then
    timeout "${SURVEY_LIMIT:-300}" "$D/wrap/zcperf" survey --paths "${SURVEY_PATHS:-tcp,tcp-msgzc,tcp-sendfile}" \
        --sizes "${SURVEY_SIZES:-4K,16K,64K,256K,1M}" --rounds "${ROUNDS:-5}" --cpu "${CPUS:-2,4}" \
        2>"$OUT/survey.log" | tee "$OUT/survey.txt"
fi
