#pragma once
// Facts about this host that a peer needs: what it can run and where (sent in the hello).
#include <string>
#include <vector>

#include "system/topology.hpp"

namespace zc {

struct HostInfo {
    std::string hostname;
    std::string kernel;   // uname -r
    std::string boot_id;  // tells two processes apart from two hosts (same boot_id = same kernel)
    int pid = 0;
    std::vector<int> cpus;  // CPUs this process may use
    std::vector<int> numa_nodes;
    std::vector<std::string> transports;
    std::vector<std::string> memory_types;
    Topology topology;
};

HostInfo probe_host();

}  // namespace zc
