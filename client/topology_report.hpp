#pragma once
// zcperf --topology: where CPUs, NICs and RDMA devices sit (NUMA node, PCI function), on this host
// and on each server, with the local NICs' IRQs and their current affinity.
#include <ostream>
#include <string>
#include <vector>

#include "system/host_info.hpp"

namespace zc {

void write_topology(std::ostream& out, const std::string& format, const HostInfo& local,
                    const std::vector<HostInfo>& remotes);

}  // namespace zc
