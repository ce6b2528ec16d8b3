#!/usr/bin/env bash
# zcserver.service and zcserver@.service as installed pass `systemd-analyze verify` with nothing to say
# (a warning counts as a failure), and a broken copy does not (the check can fail).
#   test_units.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
. "$src/tests/install/lib.sh"
command -v systemd-analyze >/dev/null || skip "no systemd-analyze (apt-get install systemd)"
tmp=$(mktemp -d /tmp/zcperf-units-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" --component core >/dev/null
units=$tmp/prefix/lib/systemd/system
verify() {  # UNIT_FILE...: systemd-analyze's complaints, empty when none
    SYSTEMD_LOG_LEVEL=notice systemd-analyze verify --man=no "$@" 2>&1 || echo "(exit $?)"
}
ln -s zcserver@.service "$units/zcserver@5001.service"  # a template is verified through an instance
for u in zcserver.service zcserver@5001.service; do
    out=$(verify "$units/$u")
    [ -z "$out" ] || fail "systemd-analyze verify $u: $out"
    echo "systemd-analyze verify $u: clean"
done
sed 's/^Restart=on-failure/Restart=on-failur/' "$units/zcserver.service" >"$tmp/zcserver.service"
out=$(verify "$tmp/zcserver.service")
[ -n "$out" ] || fail "systemd-analyze verify found nothing wrong in a unit with Restart=on-failur"
echo "a broken unit is caught: $(echo "$out" | head -1)"
