#!/usr/bin/env bash
# The source tarball builds on its own: scripts/release.sh makes zcperf-VERSION.tar.gz from this checkout
# (its commit plus uncommitted changes to tracked files, as `git stash create` records them), then
#   1. every file this build read (ninja's header dependencies and CMake's inputs) that git tracks is in
#      the tarball: nothing the build needs was left out (export-ignore) or forgotten;
#   2. the unpacked tarball, with no .git, configures and builds zcperf and zcserver, and the zcperf it
#      builds says the version of the tarball's name.
# Step 2 compiles at -O0 without debug info and without the tests (BUILD_TESTING=OFF), the cheapest build
# that still compiles every source of the two programs; it uses ccache when CMAKE_CXX_COMPILER_LAUNCHER
# names it.
#   test_source_tarball.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
. "$src/tests/install/lib.sh"
git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1 || skip "$src is not a git checkout (a tarball itself?)"
[ -f "$build/build.ninja" ] || skip "the file list comes from ninja's dependencies: configure $build with -G Ninja"
tmp=$(mktemp -d /tmp/zcperf-tarball-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

commit=$(git -C "$src" stash create)
t0=$SECONDS
tarball=$("$src/scripts/release.sh" --out "$tmp" "${commit:-HEAD}")
name=$(basename "$tarball" .tar.gz)
echo "release.sh: $(basename "$tarball"), $(($(stat -c %s "$tarball") / 1024)) KiB, $(tar tzf "$tarball" | grep -vc '/$') files, $((SECONDS - t0)) s"

# 1. What the build read, against what the tarball holds.
tar tzf "$tarball" | sed -n "s|^$name/||p" | grep -v '/$' | sort >"$tmp/in_tarball"
git -C "$src" ls-files | sort >"$tmp/tracked"
{
    ninja -C "$build" -t deps | sed -n 's/^    //p'   # every header and source an object was compiled from
    ninja -C "$build" -t inputs all                    # sources, embedded files, man page includes, scripts
    # CMake's own inputs (CMakeLists.txt, cmake/*.cmake, configure_file templates): build.ninja's re-run rule.
    sed -n '/^build build.ninja/,/^$/p' "$build/build.ninja" | tr ' ' '\n' | grep -v '^\$'
} | python3 -c '
import os, sys
build, src = sys.argv[1], os.path.realpath(sys.argv[2]) + "/"
for line in sys.stdin:  # paths relative to the build folder or absolute; the layers link headers back
    path = os.path.realpath(os.path.join(build, line.strip())) if line.strip() else ""
    if path.startswith(src):
        print(path[len(src):])
' "$build" "$src" | sort -u >"$tmp/read"
needed=$(comm -12 "$tmp/read" "$tmp/tracked")
missing=$(comm -23 <(echo "$needed") "$tmp/in_tarball")
[ -z "$missing" ] || fail "the tarball lacks files the build reads: $(echo $missing)"
echo "the tarball holds all $(echo "$needed" | wc -l) tracked files the build read"

# 2. Unpacked, no git: configure and build the two programs.
tar xzf "$tarball" -C "$tmp"
[ ! -e "$tmp/$name/.git" ] || fail "the tarball holds .git"
t0=$SECONDS
cmake -S "$tmp/$name" -B "$tmp/build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 \
    -DBUILD_TESTING=OFF >"$tmp/configure.log" 2>&1 || fail "configure: $(tail -20 "$tmp/configure.log")"
configure_s=$((SECONDS - t0))
cmake --build "$tmp/build" -j"$(nproc)" --target zcperf zcserver >"$tmp/build.log" 2>&1 ||
    fail "build: $(grep -m5 -B2 -A8 'error' "$tmp/build.log" || tail -30 "$tmp/build.log")"
echo "configured in $configure_s s, built zcperf and zcserver in $((SECONDS - t0 - configure_s)) s (-O0, $(nproc) CPUs)"
version=${name#zcperf-}
for program in zcperf zcserver; do
    said=$("$tmp/build/$program" --version)
    [ "${said%%$'\n'*}" = "$program $version" ] || fail "the tarball's $program says '${said%%$'\n'*}', not $program $version"
done
echo "$name builds from its tarball"
