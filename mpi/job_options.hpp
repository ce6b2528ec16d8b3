#pragma once
// zcperf-mpi's options: its own rows beside zcperf's (which it takes as they are), its help text, and
// the zcperf options it refuses.
#include <string>
#include <vector>

#include "cli.hpp"
#include "pattern.hpp"

namespace zc::mpi {

struct MpiOptions {
    Pattern pattern = Pattern::pairs;
    bool one_at_a_time = false;
    std::vector<std::vector<int>> rank_cpus;
    std::string iface;
    double timeout_s = 60;
    std::string report_file;        // rank 0 rewrites it after every round: complete whenever the job ends
    std::vector<int> refuse_ranks;  // fault injection for the tests: these ranks' servers refuse every test
};

// Options zcperf-mpi adds to zcperf's (which it takes as they are), one row each, and the zcperf options
// it refuses.
CliProgram mpi_program(MpiOptions& m);

}  // namespace zc::mpi
