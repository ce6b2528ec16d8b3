# What the install tests share (sourced): skipping, a zcserver on a free loopback port, one real test.
skip() { echo "SKIP: $*"; exit 77; }  # ctest's SKIP_RETURN_CODE
fail() { echo "FAIL: $*" >&2; exit 1; }

# start_zcserver LOG CMD...: runs CMD (a zcserver, possibly behind chroot) on 127.0.0.1, port 0 (the
# kernel picks a free one); sets ZCSERVER_PID and ZCSERVER_PORT from its "listening on" line (5 s at most).
start_zcserver() {
    local log=$1; shift
    "$@" --bind 127.0.0.1 --port 0 >"$log" 2>&1 &
    ZCSERVER_PID=$!
    for _ in $(seq 50); do
        ZCSERVER_PORT=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$log")
        [ -n "$ZCSERVER_PORT" ] && return 0
        kill -0 "$ZCSERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    fail "zcserver did not start: $(cat "$log")"
}

# check_report JSON: one result with bytes moved, counted by a zcserver of its own (not the embedded one).
check_report() {
    python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
res = r["results"]
assert res and not r.get("errors"), f"no result or errors: {r.get('errors')}"
x = res[0]
assert x["bytes"] > 0 and x["throughput_gbps"] > 0, x
assert x["remote"]["bytes"] == x["bytes"], "the server's count differs from the result"
run = r["run"]
assert not run["embedded_server"] and "zcserver" in run["remote_software"], run
print(f"report: {x['transport']} {x['test']} {x['bytes']} B, {x['throughput_gbps']:.2f} Gb/s, "
      f"against {run['remote_software']} at {run['server']}")
PY
}

# check_installed ROOT PREFIX: what an install into PREFIX (as seen from inside ROOT, "" for this system)
# must hold, and a zcserver.service that runs that installation's zcserver.
check_installed() {
    local root=$1 prefix=$2 f unit=$1$2/lib/systemd/system/zcserver.service
    for f in bin/zcperf bin/zcserver share/man/man1/zcperf.1.gz share/man/man8/zcserver.8.gz \
             share/bash-completion/completions/zcperf share/bash-completion/completions/zcserver \
             lib/systemd/system/zcserver.service lib/systemd/system/zcserver@.service \
             share/doc/zcperf/README.md share/doc/zcperf/install.md \
             share/doc/zcperf/third_party/d3-flame-graph/LICENSE.d3-flame-graph \
             share/doc/zcperf/third_party/d3-flame-graph/LICENSE.d3; do
        [ -s "$root$prefix/$f" ] || fail "$prefix/$f is not installed"
    done
    grep -q "^ExecStart=$prefix/bin/zcserver " "$unit" ||
        fail "zcserver.service does not run $prefix/bin/zcserver: $(grep ExecStart "$unit")"
}

# check_release_files ROOT PREFIX SRC VERSION_TEXT: the installed copyright file is the machine-readable one
# that names every vendored file's licence and the licence --version (VERSION_TEXT) names, and the man
# pages carry --version's version.
check_release_files() {
    local root=$1 prefix=$2 src=$3 version_text=$4 version page th
    python3 "$src/tests/install/check_release.py" "$src" "$root$prefix/share/doc/zcperf/copyright" "$version_text" ||
        fail "the installed copyright file or --version's licence (above)"
    version=$(head -1 <<<"$version_text" | cut -d' ' -f2)
    for page in man1/zcperf.1.gz man8/zcserver.8.gz; do
        th=$(gzip -dc "$root$prefix/share/man/$page")  # whole: grep -m1 in a pipe would cut gzip off (pipefail)
        th=$(grep -m1 '^\.TH' <<<"$th")
        [[ $th == *"$version"* ]] || fail "$page's .TH does not name version $version: $th"
    done
    echo "copyright, licence and version $version: as released"
}
