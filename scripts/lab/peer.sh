#!/usr/bin/env bash
# lab-peer: run a command in guest B from guest A (inside scripts/lab.sh), like ssh B COMMAND:
#
#   $ZCPERF_LAB_PEER [--timeout S] -- COMMAND [ARGS...]
#
# The words are joined and run by bash in B (in the caller's directory), with the build on PATH;
# B's stdout and stderr come back on ours and we exit with its status (124: it ran past S seconds,
# default 60; 125: B did not answer). The request goes through the lab's shared directory, not over
# the link, so it never shows in the link's counters. To leave a process running in B, start it in
# the background with its output redirected and print its pid: `... >/tmp/x.log 2>&1 & echo $!`.
set -uo pipefail

limit=60
while (($#)); do
    case $1 in
        --timeout) limit=${2:?--timeout needs seconds}; shift 2 ;;
        --) shift; break ;;
        *) break ;;
    esac
done
[[ $limit =~ ^[1-9][0-9]*$ ]] || { echo "lab-peer: --timeout wants whole seconds" >&2; exit 125; }
(($#)) || { echo "usage: lab-peer [--timeout S] -- COMMAND [ARGS...]" >&2; exit 125; }
ctl=${ZCPERF_LAB_CTL:?lab-peer runs in guest A of scripts/lab.sh (ZCPERF_LAB_CTL is not set)}
# Ahead of busy-polling test threads in A too (root in the guest; elsewhere this changes nothing).
renice -n -10 $$ >/dev/null 2>&1 || true

id=$(date +%s%N).$$.$RANDOM
{
    echo "# timeout $limit"
    printf 'cd %q 2>/dev/null || cd /\n' "$PWD"
    printf '%s\n' "$*"
} >"$ctl/req/.$id.tmp"
mv "$ctl/req/.$id.tmp" "$ctl/req/$id.sh"

# B looks every 0.1 s (every 1 s when idle) and runs one request at a time; allow for a queue and a busy machine.
# The wait between looks is a read that times out on a fifo nobody writes: no fork of sleep per look
# (zcperf in A counted those as "other processes" during its tests). The guests have no /dev/fd, so
# no <(...) here.
nap=$(mktemp -u /tmp/lab-peer.XXXXXX)
mkfifo "$nap" && exec 7<>"$nap"
rm -f "$nap"
deadline=$((SECONDS + limit + 30))
while [[ ! -e $ctl/res/$id.rc ]]; do
    if ((SECONDS > deadline)); then
        echo "lab-peer: guest B did not answer within $((limit + 30)) s (request $ctl/req/$id.sh)" >&2
        exit 125
    fi
    read -r -t 0.1 -u 7 || true
done
cat "$ctl/res/$id.out"
cat "$ctl/res/$id.err" >&2
rc=$(<"$ctl/res/$id.rc")
rm -f "$ctl/res/$id".*
exit "$rc"
