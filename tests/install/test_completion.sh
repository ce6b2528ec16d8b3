#!/usr/bin/env bash
# The generated bash completion completes as a user types: option names, values of a fixed set (the
# last item of a comma list, and after --opt=), files.   test_completion.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
. "$src/tests/install/lib.sh"
bad=0
# complete PROGRAM WORD...: what the completion offers for the last WORD (bash splits at '=' itself).
complete_words() {
    bash -c '. "$1"; shift; prog=$1; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); "_${prog//-/_}"
             printf "%s\n" "${COMPREPLY[@]}"' _ "$build/completion/$1" "$@"
}
expect() {  # "DESCRIPTION" WANTED PROGRAM WORD...
    local what=$1 want=$2; shift 2
    local got
    got=$(complete_words "$@" | tr '\n' ' ')
    if [[ " $got" == *" $want "* ]]; then echo "ok: $what -> $want"; else echo "FAIL: $what: got '$got'" >&2; bad=1; fi
}
expect "zcperf --tr" --transport zcperf zcperf --tr
expect "zcperf -T tcp-m" tcp-msgzc zcperf zcperf -T tcp-m
expect "zcperf -T tcp,tcp-s" tcp,tcp-sendfile zcperf zcperf -T tcp,tcp-s
expect "zcperf -o j" json zcperf zcperf -o j
expect "zcserver --allow" --allow-irq-affinity zcserver zcserver --allow
expect "zcperf --auth-key-file <file>" "$src/README.md" zcperf zcperf --auth-key-file "$src/READ"
# The values of every option with a fixed set come from --list-options (the option rows); a zcperf
# without it has only -o's and -T's.
if "$build/zcperf" --list-options >/dev/null 2>&1; then
    expect "zcperf --rx=ze" zerocopy zcperf zcperf --rx = ze
    expect "zcperf -t stream,ma" stream,maerts zcperf zcperf -t stream,ma
    expect "zcperf --cq-mode ev" event zcperf zcperf --cq-mode ev
else
    echo "zcperf has no --list-options: the values of -t, --rx, --cq-mode are not completed"
fi
exit $bad
