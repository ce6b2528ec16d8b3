// zcperf-mpi: many zcperf pairs at once, launched by mpirun or srun. See job.hpp.
#include "job.hpp"

int main(int argc, char** argv) { return zc::mpi::run_job(argc, argv); }
