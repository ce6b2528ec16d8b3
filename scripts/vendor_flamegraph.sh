#!/usr/bin/env bash
# Refreshes third_party/d3-flame-graph/ (what the --html page inlines, docs/compare.md) from npm: the
# versions pinned in its package.json / package-lock.json, each tarball checked against the lock's
# integrity (sha512) before its minified dist file and LICENSE are copied in. The build never runs this:
# it reads the committed files, so a fresh machine builds the page with no network.
# To move to a new version: edit package.json, `npm install --package-lock-only --ignore-scripts` in that
# folder, then run this script and commit the folder.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dir="$here/third_party/d3-flame-graph"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fetch() {  # NAME DIST_FILE LICENSE_NAME
    local name=$1 file=$2 license=$3
    local version integrity
    version=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['packages']['node_modules/'+sys.argv[2]]['version'])" "$dir/package-lock.json" "$name")
    integrity=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['packages']['node_modules/'+sys.argv[2]]['integrity'])" "$dir/package-lock.json" "$name")
    (cd "$work" && npm pack --silent "$name@$version" >/dev/null)
    local tgz="$work/$name-$version.tgz"
    local got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
    if [ "$got" != "$integrity" ]; then
        echo "vendor_flamegraph: $name@$version: integrity $got is not the lock's $integrity" >&2
        exit 1
    fi
    mkdir -p "$work/$name" && tar xzf "$tgz" -C "$work/$name"
    cp "$work/$name/package/dist/$file" "$dir/$file"
    cp "$work/$name/package/LICENSE" "$dir/$license"
    echo "$name@$version $integrity"
}

fetch d3 d3.min.js LICENSE.d3
fetch d3-flame-graph d3-flamegraph.umd.min.js LICENSE.d3-flame-graph
