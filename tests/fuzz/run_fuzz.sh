#!/usr/bin/env bash
# Builds zcperf_fuzz_protocol with clang (libFuzzer + AddressSanitizer + UBSan) in a build directory
# of its own, then fuzzes the control protocol's decoders for a bounded time on a copy of the seed
# corpus. Exits non-zero on any crash, sanitizer error, timeout or memory blow-up, naming the input
# that caused it and how to replay it.
#
#   tests/fuzz/run_fuzz.sh                     60 s (FUZZ_SECONDS), build in build-fuzz/
#   FUZZ_SECONDS=600 tests/fuzz/run_fuzz.sh    longer
#   tests/fuzz/run_fuzz.sh --strict            also what zcserver does with what it decodes (see
#                                              fuzz_protocol.cpp); undefined behaviour is fatal
#   tests/fuzz/run_fuzz.sh --write-corpus      regenerate tests/fuzz/corpus/ from seed_corpus.cpp
#   tests/fuzz/run_fuzz.sh -- -jobs=2          anything after -- goes to libFuzzer
#   tests/fuzz/run_fuzz.sh --replay FILE...    run the given inputs once (e.g. a crash-* artifact)
#
# Options: --build-dir DIR (default build-fuzz/), --work-dir DIR (default: a temporary directory,
# kept when something was found). Environment: CXX (default clang++), FUZZ_SECONDS (default 60).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build="$repo/build-fuzz"
work=""
strict=0
mode=fuzz
replay=()
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --build-dir) build="$2"; shift 2 ;;
        --work-dir) work="$2"; shift 2 ;;
        --strict) strict=1; shift ;;
        --write-corpus) mode=write; shift ;;
        --replay) mode=replay; shift; while [ $# -gt 0 ] && [ "$1" != -- ]; do replay+=("$1"); shift; done ;;
        --) shift; extra=("$@"); break ;;
        -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
        *) echo "run_fuzz.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
seconds="${FUZZ_SECONDS:-60}"
cxx="${CXX:-clang++}"
case "$cxx" in *clang++*) ;; *) cxx=clang++ ;; esac  # a g++ CXX from the caller's environment does not do
if ! command -v "$cxx" >/dev/null; then
    echo "run_fuzz.sh: $cxx not found; on Debian: apt-get install clang libclang-rt-dev" >&2
    exit 2
fi

# Build (incremental after the first time).
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
[ -f "$build/CMakeCache.txt" ] || echo "run_fuzz.sh: configuring $build with $cxx" >&2
# ZCPERF_WERROR (CI): clang's warnings are errors here too.
cmake -S "$here" -B "$build" "${generator[@]}" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DZCPERF_WERROR="${ZCPERF_WERROR:-OFF}" >/dev/null
echo "run_fuzz.sh: building zcperf_fuzz_protocol" >&2
cmake --build "$build" -j"$(nproc)" >/dev/null || cmake --build "$build" -j1  # show the error on failure
fuzzer="$build/zcperf_fuzz_protocol"

if [ "$mode" = write ]; then
    ZCPERF_FUZZ_WRITE_CORPUS="$here/corpus" "$fuzzer"
    exit 0
fi

export ZCPERF_FUZZ_STRICT=$strict
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:allocator_may_return_null=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=$strict${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

if [ "$mode" = replay ]; then
    exec "$fuzzer" -timeout=5 -rss_limit_mb=2048 "${replay[@]}"
fi

# A working copy of the corpus: the checked-in seeds, refreshed by the current encoder, plus
# whatever earlier runs in the same work directory found.
keep=0
if [ -z "$work" ]; then
    work=$(mktemp -d /tmp/zcperf-fuzz.XXXXXX)
else
    mkdir -p "$work"
fi
mkdir -p "$work/corpus" "$work/artifacts"
rm -f "$work"/artifacts/*
cp "$here"/corpus/* "$work/corpus/"
ZCPERF_FUZZ_WRITE_CORPUS="$work/corpus" "$fuzzer" 2>/dev/null
log="$work/fuzz.log"

echo "run_fuzz.sh: fuzzing for ${seconds} s$([ $strict = 1 ] && echo ' (strict)') on $(ls "$work/corpus" | wc -l) inputs; log: $log" >&2
set +e
"$fuzzer" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=5 -print_final_stats=1 \
    -dict="$here/protocol.dict" -artifact_prefix="$work/artifacts/" "${extra[@]}" "$work/corpus" >"$log" 2>&1
rc=$?
set -e

# Summary: where it started, where it ended, the final counters.
grep -m1 -E '[[:space:]]INITED[[:space:]]' "$log" || true
grep -E '[[:space:]](DONE|pulse)[[:space:]]' "$log" | tail -1 || true
grep -E '^stat::' "$log" || true
ub=$(grep -c 'runtime error:' "$log" || true)
if [ "$ub" -gt 0 ]; then
    echo "run_fuzz.sh: WARNING: UndefinedBehaviorSanitizer reported ${ub} site(s) (not fatal without --strict):"
    # Each report, with the first frame in zcperf's own code.
    awk '/runtime error:/ { if (r) print r; r = $0; next }
         r && /\/common\// { f = $4; sub(/\(.*/, "", f); print r "\n      in " f " at " $NF; r = "" }
         END { if (r) print r }' "$log" | sed 's/^/  /'
fi
if [ $rc -ne 0 ]; then
    keep=1
    echo "run_fuzz.sh: FAILED (libFuzzer exit $rc). The end of $log:"
    tail -n 60 "$log"
    for a in "$work"/artifacts/*; do
        [ -e "$a" ] || continue
        echo "run_fuzz.sh: input: $a   replay: $0 $([ $strict = 1 ] && echo '--strict ')--replay $a"
    done
    exit 1
fi
echo "run_fuzz.sh: passed: no crash in ${seconds} s"
if [ $keep = 0 ] && [[ "$work" == /tmp/zcperf-fuzz.* ]]; then rm -rf "$work"; fi
exit 0
