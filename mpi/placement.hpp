#pragma once
// Where each rank's data threads and buffers go, from the launcher's local rank (the rank's index
// among the ranks on its host): --rank-cpus lists per local rank, --buffer cuda:local[:K].
#include <functional>
#include <string>
#include <vector>

namespace zc::mpi {

using GetEnv = std::function<const char*(const char*)>;

// OMPI_COMM_WORLD_LOCAL_RANK (Open MPI's mpirun), else SLURM_LOCALID (srun), else MPI_LOCALRANKID
// (MPICH's hydra); -1 when none is set (the caller asks MPI: MPI_Comm_split_type SHARED).
int local_rank_from_env(const GetEnv& getenv);

// "0+1,2+3": local rank 0 on CPUs 0 and 1, local rank 1 on 2 and 3 (each element in --cpu's forms:
// 4, 0-3, 0+2); throws std::invalid_argument.
std::vector<std::vector<int>> parse_rank_cpus(const std::string& text);
// The list of this local rank: element (local_rank mod count); empty lists = not pinned.
std::vector<int> cpus_for_local_rank(const std::vector<std::vector<int>>& lists, int local_rank);

}  // namespace zc::mpi
