#!/usr/bin/env bash
# The structure issue's two measures of "one place for each fact", on the tracked sources (tests excluded):
#   1. source files that mention the --rcvlowat option (rcv_lowat / rcvlowat, any case), and
#   2. places (lines) naming a Transport:: value outside the transport registry, and the files they are in.
# Usage: scripts/structure_counts.sh [git revision, default the work tree]
set -euo pipefail
cd "$(dirname "$0")/.."
rev=("$@")
src=(-- '*.cpp' '*.hpp' ':!tests/')
lowat=$(git grep -il -e rcv_lowat -e rcvlowat "${rev[@]}" "${src[@]}")
named=$(git grep -n 'Transport::' "${rev[@]}" "${src[@]}" | grep -v 'transport_registry\.' || true)
echo "files touched by --rcvlowat: $(printf '%s\n' "$lowat" | grep -c . || true)"
printf '  %s\n' $lowat
echo "places naming a Transport:: value outside the registry: $(printf '%s\n' "$named" | grep -c . || true)" \
     "in $(printf '%s\n' "$named" | cut -d: -f1 | sort -u | grep -c . || true) files"
printf '%s\n' "$named" | cut -d: -f1 | sort | uniq -c | sed 's/^/ /'
