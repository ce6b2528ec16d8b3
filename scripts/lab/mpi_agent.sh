#!/usr/bin/env bash
# mpi_agent.sh: Open MPI's remote shell in the two-guest lab, so that one mpirun in guest A starts
# ranks in guest B as well (the guests have no ssh server). Given to mpirun as its rsh agent:
#
#   mpirun --mca plm_rsh_agent scripts/lab/mpi_agent.sh --mca plm_rsh_no_tree_spawn 1 \
#          --mca oob_tcp_if_include eth0 --mca btl_tcp_if_include eth0 \
#          --host 198.18.1.1:2,198.18.1.2:2 -np 4 zcperf-mpi --iface eth0 ...
#
# mpirun calls it like ssh: `mpi_agent.sh [OPTIONS] HOST COMMAND...`, HOST being B's address. It drops
# the options and HOST and runs COMMAND (Open MPI's orted, which then starts B's ranks and connects
# back to mpirun over the link) in B through $ZCPERF_LAB_PEER, which joins the words like ssh does.
# orted stays up for the whole job, so the peer request lasts as long: its bound is
# ZCPERF_LAB_MPI_TIMEOUT seconds (default 600). B runs one peer request at a time, so while a job runs
# B answers no other lab-peer request. orted's output comes back when it ends.
set -uo pipefail

peer=${ZCPERF_LAB_PEER:?mpi_agent.sh runs in guest A of scripts/lab.sh (ZCPERF_LAB_PEER is not set)}
while [[ ${1:-} == -* ]]; do
    case $1 in
        -l | -p | -i | -o | -F) shift 2 ;;  # ssh options that take a value (not used by Open MPI here)
        *) shift ;;
    esac
done
host=${1:?usage: mpi_agent.sh [OPTIONS] HOST COMMAND...}
shift
(($#)) || { echo "mpi_agent.sh: no command for $host" >&2; exit 125; }
# The lab has one peer, B (its address is ZCPERF_LAB_SERVER's): any other host is a mistake worth saying.
b=${ZCPERF_LAB_SERVER%:*}
case $host in
    "$b" | lab-b) ;;
    *) echo "mpi_agent.sh: $host is not guest B ($b or lab-b): the lab has two guests" >&2; exit 125 ;;
esac
exec "$peer" --timeout "${ZCPERF_LAB_MPI_TIMEOUT:-600}" -- "$@"
