#pragma once
// How two PCI functions (a GPU and the NIC carrying the data) are connected, from their PCIe paths
// (DeviceLocality::pcie_path, system/topology.hpp).
// Traffic between devices under one PCIe switch stays inside it; between different root ports it
// goes through the CPU's root complex, and between host bridges (often sockets) over the CPU
// interconnect: GPUDirect RDMA gets slow or is refused there, and even staged copies cross more hops.
#include <string>

namespace zc {

enum class PcieLink {
    same_switch,             // a common PCIe switch (or bridge) below the root port: peer traffic stays there
    same_root_port,          // the same root port, no switch in common (functions of one device)
    same_host_bridge,        // different root ports of one host bridge: through the root complex
    different_host_bridges,  // different host bridges (root complexes, often sockets): over the interconnect
    unknown,                 // one of them is not on PCI (loopback, veth) or not in the topology
};

struct PcieRelation {
    PcieLink link = PcieLink::unknown;
    std::string common;  // the deepest shared component (the switch port, root port or host bridge)
    bool shares_root_port() const { return link == PcieLink::same_switch || link == PcieLink::same_root_port; }
};

PcieRelation pcie_relation(const std::string& path_a, const std::string& path_b);
// "same PCIe switch (0000:18:00.0)", "different host bridges (pci0000:17 vs pci0000:3a)", ...
std::string describe(const PcieRelation& r, const std::string& path_a, const std::string& path_b);

}  // namespace zc
