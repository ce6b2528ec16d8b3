#!/usr/bin/env bash
# The source tarball of a release: zcperf-VERSION.tar.gz, every file of a commit under zcperf-VERSION/
# (git archive), less what .gitattributes marks export-ignore (the raw measurement records in
# bench/results/, the project's CI entry .ci/). VERSION is CMakeLists.txt's project(VERSION), the
# version's one place. It builds with the README's commands (scripts/bootstrap.sh build), no git needed.
#   scripts/release.sh [--out DIR] [COMMIT]     DIR: where to write it (default: build/); COMMIT: HEAD
# Prints the tarball's path. Exit 1 when the commit does not exist or the tree is not a git checkout.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=$here/build
commit=HEAD
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out=${2:?--out needs a folder}; shift 2 ;;
        -h | --help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "release: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) commit=$1; shift ;;
    esac
done
git -C "$here" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
    { echo "release: $here is not a git checkout; the tarball is made from a commit" >&2; exit 1; }
git -C "$here" rev-parse --verify -q "$commit^{commit}" >/dev/null ||
    { echo "release: no commit $commit in $here" >&2; exit 1; }
# The version as that commit's CMakeLists.txt says it, not the working tree's.
version=$(git -C "$here" show "$commit:CMakeLists.txt" |
          sed -n 's/^project(zcperf VERSION \([0-9][0-9.]*\) .*/\1/p' | head -1)
[ -n "$version" ] || { echo "release: no project(zcperf VERSION X.Y.Z ...) in $commit:CMakeLists.txt" >&2; exit 1; }
if [ "$commit" = HEAD ] && [ -n "$(git -C "$here" status --porcelain --untracked-files=no)" ]; then
    echo "release: the working tree has uncommitted changes; the tarball holds HEAD without them" >&2
fi
mkdir -p "$out"
tarball=$(cd "$out" && pwd)/zcperf-$version.tar.gz
git -C "$here" archive --format=tar.gz --prefix="zcperf-$version/" -o "$tarball" "$commit"
echo "$tarball"
