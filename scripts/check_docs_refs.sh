#!/usr/bin/env bash
# Do the user docs speak for themselves? A reader outside the team cannot resolve a tracker number, so
# README.md, NEWS.md, docs/ (the man pages' sources docs/man/ included) and each given program's --help
# must not name one: "issue 35", "(issue #7)", "issue #28's", "(#12)". Say what the thing is instead.
#   scripts/check_docs_refs.sh [PROGRAM...]    e.g. build/client/zcperf build/server/zcserver
# A program's --help is read as it runs (zcperf's `compare --help` too), so it is checked as users see it.
# Exit 0: none found; 1: some found (listed as FILE:LINE: text); 2: a program's --help failed.
set -euo pipefail
cd "$(dirname "$0")/.."
# A tracker reference: "issue" then a number (optionally "#"), or a bare "#N" in parentheses or after a space.
pattern='[Ii]ssues? #?[0-9]+|\(#[0-9]+\)|(^|[[:space:]])#[0-9]+([^0-9A-Za-z]|$)'
found=0
docs=(README.md docs)
[ -e NEWS.md ] && docs+=(NEWS.md)
# -I: binary files (the docs' images) are not text a reader reads.
if hits=$(grep -rnIE "$pattern" "${docs[@]}"); then
    printf '%s\n' "$hits" >&2
    found=1
fi
check_help() {  # PROGRAM ARGS...: its --help, as the user sees it
    local text
    if ! text=$("$@" 2>&1); then
        echo "check_docs_refs: '$*' failed; build the program first" >&2
        exit 2
    fi
    if hits=$(grep -nE "$pattern" <<<"$text"); then
        sed "s|^|$(basename "$1") ${*:2}: |" <<<"$hits" >&2
        found=1
    fi
}
for program in "$@"; do
    check_help "$program" --help
    if [ "$(basename "$program")" = zcperf ]; then
        check_help "$program" compare --help
        check_help "$program" survey --help
    fi
done
if [ $found -ne 0 ]; then
    echo "check_docs_refs: tracker numbers above; say what the thing is (or why, in a comment), not its ticket" >&2
    exit 1
fi
echo "check_docs_refs: no tracker numbers in ${docs[*]}${1:+ and the --help of $#}${1:+ programs}"
