#!/usr/bin/env bash
# A one-node Slurm on this machine, from Debian's packages, for zcperf-mpi's srun test:
#   scripts/slurm_local.sh start [DIR]   munged, slurmctld and slurmd as root, all state under DIR
#                                        (default /tmp/zcperf-slurm); prints the SLURM_CONF to export
#   scripts/slurm_local.sh stop [DIR]    stops the three daemons it started (by their pid files)
#   scripts/slurm_local.sh env [DIR]     prints: export SLURM_CONF=DIR/slurm.conf
# It touches nothing outside DIR: its own munge socket and key copy, its own ports, no systemd units,
# /etc/slurm untouched. Exit 77 (the tests' "skip") with the reason when Slurm cannot start here:
# not root, packages missing (scripts/bootstrap.sh installs munge, slurmctld, slurmd, slurm-client).
set -euo pipefail

mode=${1:-}
dir=${2:-/tmp/zcperf-slurm}
skip() { echo "slurm_local: cannot start Slurm here: $*" >&2; exit 77; }

stop_pidfile() {
    local f=$1
    [ -f "$f" ] || return 0
    local pid
    pid=$(cat "$f")
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$f"
}

case "$mode" in
    env)
        echo "export SLURM_CONF=$dir/slurm.conf"
        exit 0
        ;;
    stop)
        stop_pidfile "$dir/slurmd.pid"
        stop_pidfile "$dir/slurmctld.pid"
        stop_pidfile "$dir/munged.pid"
        echo "slurm_local: stopped (state kept in $dir)" >&2
        exit 0
        ;;
    start) ;;
    *)
        echo "usage: $0 start|stop|env [DIR]" >&2
        exit 2
        ;;
esac

[ "$(id -u)" -eq 0 ] || skip "slurmd must run as root (this is uid $(id -u))"
for p in munged slurmctld slurmd srun; do
    command -v "$p" >/dev/null || skip "$p is not installed (scripts/bootstrap.sh installs munge, slurmctld, slurmd, slurm-client)"
done
[ -f /etc/munge/munge.key ] || skip "/etc/munge/munge.key is missing (reinstall munge)"
pmix=$(ls /usr/lib/*/slurm-wlm/mpi_pmix*.so 2>/dev/null | head -1 || true)
[ -n "$pmix" ] || skip "Slurm's PMIx plugin (mpi_pmix.so) is missing"

"$0" stop "$dir" 2>/dev/null || true
rm -f "$dir/cgroup.conf"
mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
chmod 700 "$dir/munge"
install -m 600 /etc/munge/munge.key "$dir/munge/munge.key"
host=$(hostname -s)
# Free ports for slurmctld and slurmd, chosen by the kernel.
read -r ctld_port slurmd_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')

munged --force --socket="$dir/munge/munge.sock" --key-file="$dir/munge/munge.key" --pid-file="$dir/munged.pid" \
    --log-file="$dir/munged.log" --seed-file="$dir/munge/seed" || skip "munged did not start (see $dir/munged.log)"

# More CPUs than the machine has (config_overrides), so small hosts can run -n 4 and more.
cat > "$dir/slurm.conf" <<CONF
ClusterName=zcperf
SlurmctldHost=$host(127.0.0.1)
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=64 State=UNKNOWN
PartitionName=zcperf Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF

export SLURM_CONF=$dir/slurm.conf
slurmctld -f "$SLURM_CONF" || skip "slurmctld did not start (see $dir/slurmctld.log)"
slurmd -f "$SLURM_CONF" || skip "slurmd did not start (see $dir/slurmd.log)"
for _ in $(seq 100); do
    if sinfo -h -o %t 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then
        echo "slurm_local: one-node Slurm up on $host (ctld port $ctld_port); export SLURM_CONF=$SLURM_CONF" >&2
        exit 0
    fi
    sleep 0.2
done
skip "the node did not become idle in 20 s: $(sinfo -h -o '%t %E' 2>&1 | head -1) (see $dir/slurmd.log)"
