#include "placement.hpp"

#include <stdexcept>

#include "system/cpu_list.hpp"

namespace zc::mpi {

int local_rank_from_env(const GetEnv& getenv) {
    for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID"}) {
        const char* v = getenv(name);
        if (!v || !*v) continue;
        try {
            size_t used = 0;
            int r = std::stoi(v, &used);
            if (used == std::string(v).size() && r >= 0) return r;
        } catch (const std::exception&) {}
        throw std::invalid_argument(std::string(name) + "='" + v + "' is not a local rank (a number >= 0)");
    }
    return -1;
}

std::vector<std::vector<int>> parse_rank_cpus(const std::string& text) {
    std::vector<std::vector<int>> out;
    size_t start = 0;
    while (true) {
        size_t c = text.find(',', start);
        std::string part = text.substr(start, c == std::string::npos ? std::string::npos : c - start);
        if (part.empty())
            throw std::invalid_argument("--rank-cpus: an empty CPU list (e.g. 0+1,2+3: one per local rank)");
        out.push_back(parse_cpu_list(part, '+'));
        if (c == std::string::npos) break;
        start = c + 1;
    }
    return out;
}

std::vector<int> cpus_for_local_rank(const std::vector<std::vector<int>>& lists, int local_rank) {
    if (lists.empty() || local_rank < 0) return {};
    return lists[static_cast<size_t>(local_rank) % lists.size()];
}

}  // namespace zc::mpi
