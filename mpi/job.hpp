#pragma once
// zcperf-mpi's job: every rank runs zcserver's code on a thread of its own, the ranks exchange their
// HOST:PORT, and each round of the pattern's pairs is driven by the client ranks through zcperf's test
// driver, all pairs released by one barrier. MPI carries only the rendezvous, the barriers and the
// results; every wait on it is bounded (--mpi-timeout), and a rank that never answers is named.
namespace zc::mpi {

// The whole program: MPI_Init to MPI_Finalize. Returns the exit status (0 every pair ran, 1 a pair or
// a rank failed, 2 bad usage).
int run_job(int argc, char** argv);

}  // namespace zc::mpi
