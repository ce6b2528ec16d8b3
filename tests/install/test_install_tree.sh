#!/usr/bin/env bash
# `cmake --install BUILD --prefix DIR` gives a tree that runs from DIR alone: the checkout
# (sources and build) is hidden under an empty tmpfs in a private mount namespace, PATH holds nothing of
# ours, and then the installed zcperf runs a real test against the installed zcserver, an installed
# script (zcperf-compare-paths) runs zcperf by itself, and the man page and completion are there.
#   test_install_tree.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
. "$src/tests/install/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "hiding the checkout takes a mount namespace: run as root"
command -v unshare >/dev/null || skip "no unshare (util-linux)"
tmp=$(mktemp -d /tmp/zcperf-install-tree-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
case "$tmp/" in "$src/"* | "$build/"*) skip "the temporary folder $tmp is inside the checkout" ;; esac
cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" || fail "cmake --install: $(cat "$tmp/install.log")"
echo "installed $(find "$tmp/prefix" -type f | wc -l) files into $tmp/prefix"
check_release_files "" "$tmp/prefix" "$src" "$("$tmp/prefix/bin/zcperf" --version)"
for pkg in zcperf-scripts $([ -x "$tmp/prefix/bin/zcperf-mpi" ] && echo zcperf-mpi); do
    cmp -s "$tmp/prefix/share/doc/$pkg/copyright" "$tmp/prefix/share/doc/zcperf/copyright" ||
        fail "share/doc/$pkg/copyright is not zcperf's copyright file"
done

unshare -m --propagation private bash -s "$tmp" "$src" "$build" <<'INNER'
set -euo pipefail
tmp=$1 src=$2 build=$3 prefix=$1/prefix
. "$src/tests/install/lib.sh"  # before the checkout is hidden
mount -t tmpfs -o size=1m zcperf-hidden "$src"            # the sources, and the build when it is inside
case "$build/" in "$src/"*) ;; *) mount -t tmpfs -o size=1m zcperf-hidden "$build" ;; esac
[ -z "$(ls -A "$src")" ] || fail "the checkout is still visible"
cd "$tmp"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
unset ZCPERF ZCPERF_BINDIR
command -v zcperf >/dev/null && fail "a zcperf on PATH ($(command -v zcperf)) would hide what this tests"

start_zcserver "$tmp/zcserver.log" "$prefix/bin/zcserver"
trap 'kill $ZCSERVER_PID 2>/dev/null; wait $ZCSERVER_PID 2>/dev/null || true' EXIT
"$prefix/bin/zcperf" -H "127.0.0.1:$ZCSERVER_PORT" -m 64K -l 0.5 -o json >run.json || fail "zcperf failed"
check_report run.json
# A script: finds the installed zcperf beside itself (ZCPERF_BINDIR from its wrapper), runs two paths.
"$prefix/bin/zcperf-compare-paths" -T tcp,tcp-msgzc -m 64K -H "127.0.0.1:$ZCSERVER_PORT" -l 0.5 --out cmp \
    >cmp.log 2>&1 || fail "zcperf-compare-paths: $(tail -5 cmp.log)"
[ "$(wc -l <cmp.csv)" -eq 3 ] || fail "cmp.csv has not a header and two rows: $(cat cmp.csv)"
if python3 -c 'import matplotlib' 2>/dev/null; then [ -s cmp.png ] || fail "no cmp.png"; fi
echo "zcperf-compare-paths: $(tail -n +2 cmp.csv | cut -d, -f1-4 | tr '\n' ' ')"
"$prefix/bin/zcperf-plot-intervals" --help >/dev/null || fail "zcperf-plot-intervals --help"
# Each command's --help names the command, not the script behind it (compare_paths.py).
for cmd in "$prefix"/bin/zcperf-*; do
    name=$(basename "$cmd")
    [ "$name" = zcperf-mpi ] && continue
    "$cmd" --help 2>&1 | head -8 | grep -q "$name" || fail "$name --help does not name itself: $("$cmd" --help 2>&1 | head -2)"
done
check_installed "" "$prefix"
echo "the installed tree ran alone"
INNER
