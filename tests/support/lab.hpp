#pragma once
// The two-guest lab (scripts/lab.sh, label lab) as its tests in guest A see it: what scripts/lab.sh puts
// in A's environment, read in one place. Outside the lab every field is empty (the NIC aside) and
// here() is false, so each lab test skips with kNotInLab.
#include <string>

#include "process.hpp"

namespace zc::e2e {

constexpr const char* kNotInLab = "not in the two-guest lab (ZCPERF_LAB_SERVER is not set): run scripts/test_lab.sh";

struct Lab {
    std::string server = env_or("ZCPERF_LAB_SERVER");    // B's zcserver, HOST:PORT
    std::string peer = env_or("ZCPERF_LAB_PEER");        // runs a shell command in B: PEER --timeout S -- CMD
    std::string a_ip = env_or("RDMA_VM_IP");             // A's own address on the link
    std::string nic = env_or("RDMA_VM_NETDEV", "eth0");  // the link's virtio-net NIC, the same name in both
    // The second link, eth1 in both guests: virtio-net on host taps with vnet_hdr, which offloads checksums
    // and scatter-gather (eth0 offloads neither). B's zcserver across it, empty where the lab could not make
    // it; then no_offload says why.
    std::string server_offload = env_or("ZCPERF_LAB_SERVER_OFFLOAD");
    std::string no_offload = env_or("ZCPERF_LAB_NO_OFFLOAD", "ZCPERF_LAB_SERVER_OFFLOAD is not set");
    std::string offload_nic = env_or("RDMA_VM_TAP_NETDEV", "eth1");

    bool here() const { return !server.empty() && !peer.empty(); }
    std::string server_ip() const { return server.substr(0, server.rfind(':')); }
    // A shell command in B (like ssh B CMD), through the lab's shared directory, not over the link:
    // it adds nothing to the link's counters. Bounded: B's side stops it at limit_s, and this side
    // kills the peer command 40 s later if B never answers.
    Outcome in_b(const std::string& cmd, int limit_s = 60) const;
};

}  // namespace zc::e2e
