#!/usr/bin/env bash
# The Debian package as a user gets it: CPack makes the .debs from this build; zcperf_*.deb
# is installed with `apt-get install ./zcperf_*.deb` into a fresh Debian 12 root (debootstrap
# --variant=minbase), which pulls only what the package declares; then the installed zcperf runs a real
# test against the installed zcserver over loopback inside it. It checks that the declared dependencies
# are enough (the binaries load and run there) and that the core package brings in no MPI and no Python.
#   test_deb.sh BUILD_DIR SOURCE_DIR
# The root is made once and kept as a tarball ($ZCPERF_DEBIAN_ROOT_CACHE, default
# /var/cache/zcperf/debian12-minbase.tar; remade when older than 30 days): debootstrap takes minutes,
# unpacking it seconds. Everything runs in a private mount namespace, so no mount outlives the test.
set -euo pipefail
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
. "$src/tests/install/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root (debootstrap, chroot, mounts)"
command -v debootstrap >/dev/null || skip "no debootstrap (apt-get install debootstrap, or scripts/bootstrap.sh)"
command -v dpkg-shlibdeps >/dev/null || skip "no dpkg-shlibdeps (apt-get install dpkg-dev)"
command -v unshare >/dev/null || skip "no unshare (util-linux)"
mirror=${ZCPERF_DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=${ZCPERF_DEBIAN_ROOT_CACHE:-/var/cache/zcperf/debian12-minbase.tar}
work=$build/install-test
rm -rf "$work/packages" "$work/root"
mkdir -p "$work" "$(dirname "$cache")"

# 1. The packages, from this build.
t0=$SECONDS
cpack --config "$build/CPackConfig.cmake" -B "$work/packages" >"$work/cpack.log" 2>&1 ||
    fail "cpack: $(tail -20 "$work/cpack.log")"
debs=("$work"/packages/*.deb)
echo "cpack made ${debs[*]##*/} in $((SECONDS - t0)) s"
core=$(ls "$work"/packages/zcperf_*.deb)
version=$("$build/zcperf" --version)
version=${version%%$'\n'*} version=${version#zcperf }
for d in "${debs[@]}"; do
    echo "  ${d##*/}: Depends: $(dpkg-deb -f "$d" Depends)"
    # Each package has its copyright file (Debian policy 12.5), and its version is the build's.
    contents=$(dpkg-deb -c "$d")  # not piped into grep -q: its early exit would fail the pipe (pipefail)
    grep -q "\./usr/share/doc/$(dpkg-deb -f "$d" Package)/copyright$" <<<"$contents" ||
        fail "${d##*/} has no /usr/share/doc/$(dpkg-deb -f "$d" Package)/copyright"
    [[ $(dpkg-deb -f "$d" Version) == "$version" || $(dpkg-deb -f "$d" Version) == "$version+"* ]] ||
        fail "${d##*/}: Version $(dpkg-deb -f "$d" Version) is not zcperf --version's $version"
done
depends=$(dpkg-deb -f "$core" Depends)
case "$depends" in *mpi* | *python* | *matplotlib*) fail "zcperf's Depends names MPI or Python: $depends" ;; esac
case "$depends" in *libhwloc* | *libnuma*) ;; *) fail "no library dependencies computed (shlibdeps): $depends" ;; esac
if ls "$work"/packages/zcperf-scripts_*.deb >/dev/null 2>&1; then
    s=$(dpkg-deb -f "$work"/packages/zcperf-scripts_*.deb Depends)
    [[ $s == *python3-matplotlib* && $s == *"zcperf (="* ]] || fail "zcperf-scripts Depends: $s"
fi

# 2. A fresh Debian 12 root: the cached minbase, unpacked.
if [ ! -s "$cache" ] || [ -n "$(find "$cache" -mtime +30)" ]; then
    t0=$SECONDS
    rm -rf "$work/seed"
    debootstrap --variant=minbase bookworm "$work/seed" "$mirror" >"$work/debootstrap.log" 2>&1 ||
        fail "debootstrap: $(tail -20 "$work/debootstrap.log")"
    tar -C "$work/seed" -cf "$cache.tmp" . && mv "$cache.tmp" "$cache"
    rm -rf "$work/seed"
    echo "debootstrap --variant=minbase bookworm: $((SECONDS - t0)) s (kept in $cache)"
fi
t0=$SECONDS
mkdir -p "$work/root"
tar -C "$work/root" -xf "$cache"
cp "$core" "$work/root/tmp/"
cp /etc/resolv.conf "$work/root/etc/resolv.conf"
echo "fresh root from $cache in $((SECONDS - t0)) s"

# 3. Inside: apt-get install ./zcperf_*.deb, then zcperf against zcserver.
unshare -m --propagation private bash -s "$work/root" "$src" <<'INNER'
set -euo pipefail
root=$1
. "$2/tests/install/lib.sh"
mount -t proc proc "$root/proc"
mount -t sysfs -o ro sysfs "$root/sys"   # hwloc reads the topology there
mount --bind /dev "$root/dev"
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
t0=$SECONDS
in_root apt-get update -qq >/dev/null 2>"$root/tmp/apt.err" || fail "apt-get update: $(cat "$root/tmp/apt.err")"
before=$(in_root dpkg-query -W -f '${Package}\n' | sort)
in_root sh -c 'cd /tmp && DEBIAN_FRONTEND=noninteractive apt-get install -y -q ./zcperf_*.deb' >"$root/tmp/apt.log" 2>&1 ||
    fail "apt-get install ./zcperf_*.deb: $(tail -20 "$root/tmp/apt.log")"
added=$(comm -13 <(echo "$before") <(in_root dpkg-query -W -f '${Package}\n' | sort) | tr '\n' ' ')
echo "apt-get install ./zcperf_*.deb in $((SECONDS - t0)) s added: $added"
case " $added " in *mpi* | *" python3"* | *matplotlib*) fail "installing zcperf pulled MPI or Python: $added" ;; esac
missing=$(in_root sh -c 'ldd /usr/bin/zcperf /usr/bin/zcserver | grep "not found"' || true)
[ -z "$missing" ] || fail "libraries the package does not declare: $missing"
start_zcserver "$root/tmp/zcserver.log" chroot "$root" /usr/bin/zcserver
trap 'kill $ZCSERVER_PID 2>/dev/null; wait $ZCSERVER_PID 2>/dev/null || true' EXIT
in_root /usr/bin/zcperf -H "127.0.0.1:$ZCSERVER_PORT" -m 64K -l 0.5 -o json >"$root/tmp/run.json" ||
    fail "the installed zcperf failed: $(cat "$root/tmp/run.json")"
check_report "$root/tmp/run.json"
check_installed "$root" /usr
check_release_files "$root" /usr "$2" "$(in_root /usr/bin/zcperf --version)"
echo "the .deb installed into a fresh Debian 12 and ran"
INNER
rm -rf "$work/root"
