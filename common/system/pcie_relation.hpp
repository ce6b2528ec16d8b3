#pragma once
// How two PCI functions (a GPU and the NIC carrying the data) are connected, from their sysfs paths.
// Traffic between devices under one PCIe switch stays inside it; between different root ports it
// goes through the CPU's root complex, and between host bridges (often sockets) over the CPU
// interconnect: GPUDirect RDMA gets slow or is refused there, and even staged copies cross more hops.
#include <filesystem>
#include <string>

namespace zc {

// The PCIe path of a sysfs device (a link such as /sys/class/net/eth0/device or
// /sys/bus/pci/devices/0000:19:00.0), from the host bridge down to the PCI function:
// "pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:00.0". "" when it is not on PCI.
std::string pcie_path_of(const std::filesystem::path& device_link);

enum class PcieLink {
    same_switch,             // a common PCIe switch (or bridge) below the root port: peer traffic stays there
    same_root_port,          // the same root port, no switch in common (functions of one device)
    same_host_bridge,        // different root ports of one host bridge: through the root complex
    different_host_bridges,  // different host bridges (root complexes, often sockets): over the interconnect
    unknown,                 // one of them is not on PCI (loopback, veth) or not in sysfs
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
