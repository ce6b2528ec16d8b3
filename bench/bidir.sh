#!/usr/bin/env bash
# bidir.sh: zcperf --bidir's sum of both directions against two one-way runs on loopback,
# same message size, alternating rounds, medians. Two references:
#   together: `zcperf -t stream` and `zcperf -t maerts` as two processes at the same time, each with its
#             own embedded server: what --bidir replaces; goal: the bidir sum >= 0.9x their sum;
#   alone:    the two directions one after the other, each with the machine to itself (their sum is what
#             the host can do one way at a time; on a CPU-bound host both directions at once share it).
set -euo pipefail

NAME=bidir
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ROUNDS=5
DURATION=3
SIZES=64K

usage() {
    cat <<EOT
Usage: $0 [--rounds N] [--duration S] [--sizes BYTES] [--csv FILE] [--rt]
       $0 --report FILE     reprint the table from an earlier CSV

Runs zcperf --bidir, stream and maerts at once as two processes, and each alone, N rounds of S seconds
(the order of the three turns each round), and prints each round and the ratios of the bidir sum to each
reference (Gb/s, receiver-counted).
  --rounds N      rounds (default $ROUNDS)
  --duration S    seconds per run, whole number (default $DURATION)
  --sizes BYTES   message size (default $SIZES; one size)
  --csv FILE      the samples (default bench/out/bidir-<timestamp>.csv), the runs' outputs beside it
  --rt            all runs under SCHED_FIFO priority 1 (chrt -f 1): on a machine shared with builds (root)
  ZCPERF=PATH     the zcperf to measure (default build/zcperf)
EOT
}

RATIOS=(bidir/together bidir/alone)
bench_rounds_args "not built for it" "$@"
[[ $SIZES != *,* ]] || die "--sizes: one size"
bench_setup

gbps() {   # raw: the sum of every result's Gb/s (--bidir's two, or a one-way run's one)
    result_of "$1" "'%.3f' % sum(x['throughput_gbps'] for x in d['results'])"
}
add() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a + b }'; }
bidir_run() {   # round
    zcperf_json "$RAW/r$1-bidir.json" -m "$SIZES" --bidir
    bench_row "$1" bidir "$(gbps "$RAW/r$1-bidir.json")"
}
together_run() {   # round
    zcperf_json "$RAW/r$1-together-stream.json" -m "$SIZES" -t stream &
    local p=$!
    zcperf_json "$RAW/r$1-together-maerts.json" -m "$SIZES" -t maerts
    wait "$p" || die "the stream run beside maerts failed"
    bench_row "$1" together "$(add "$(gbps "$RAW/r$1-together-stream.json")" "$(gbps "$RAW/r$1-together-maerts.json")")"
}
alone_run() {   # round
    zcperf_json "$RAW/r$1-alone-stream.json" -m "$SIZES" -t stream
    zcperf_json "$RAW/r$1-alone-maerts.json" -m "$SIZES" -t maerts
    bench_row "$1" alone "$(add "$(gbps "$RAW/r$1-alone-stream.json")" "$(gbps "$RAW/r$1-alone-maerts.json")")"
}

log "zcperf --bidir vs two one-way runs, $SIZES, ${DURATION} s x $ROUNDS rounds, loopback; samples: $CSV"
CASES=(bidir_run together_run alone_run)
for ((i = 1; i <= ROUNDS; i++)); do
    for ((k = 0; k < ${#CASES[@]}; k++)); do "${CASES[(k + i - 1) % ${#CASES[@]}]}" "$i"; done
    log "round $i/$ROUNDS: $(grep "^$i," "$CSV" | cut -d, -f2- | tr '\n' ' ')load $(cut -d' ' -f1-3 /proc/loadavg)"
done
echo "bidir: zcperf --bidir's sum vs stream + maerts at once (together) and one after the other (alone), $SIZES," \
    "${DURATION} s x $ROUNDS rounds${RT:+ under ${RT[*]}}, loopback, unpinned, ended $(date -Is), load $(cut -d' ' -f1-3 /proc/loadavg)" \
    "(goal: bidir/together >= 0.9)"
bench_rounds_report "$CSV" "${RATIOS[@]}"
echo "samples: $CSV"
