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

// with_gpus = false leaves the GPU driver alone (memory_types is then {"host"} and no GPU is listed): its
// first call takes from hundreds of ms to seconds, and a host-only test has no use for it.
enum class GpuProbe { with_gpus, without_gpus };
HostInfo probe_host(GpuProbe gpus = GpuProbe::with_gpus);

// This kernel's boot id: two processes with the same one share a host (what a hello says about its sender).
std::string read_boot_id();

}  // namespace zc
