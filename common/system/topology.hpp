#pragma once
// Where things sit: the NUMA node of each CPU and of each network / RDMA device, read from sysfs
// (a root directory can be given, so tests run on fixture trees).
#include <map>
#include <string>
#include <vector>

namespace zc {

struct DeviceLocality {
    std::string kind;       // "nic", "rdma", "gpu"
    std::string name;       // eth0, mlx5_0
    std::string pci;        // 0000:3b:00.0, or "" for a virtual device
    int numa_node = -1;     // -1: the firmware does not say (single-node machines, most VMs)
    std::string pcie_path;  // host bridge down to the function: pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:00.0
};

struct Topology {
    std::map<int, std::vector<int>> node_cpus;  // node -> its CPUs
    std::vector<DeviceLocality> devices;
};

Topology read_topology(const std::string& sysfs = "/sys");
int node_of_cpu(const Topology& t, int cpu);  // -1 if unknown

// The network device behind a local address (getifaddrs): "lo" for loopback.
std::string interface_of_address(const std::string& address);
// Locality of one network interface; a virtual one (lo, veth) has no PCI address.
DeviceLocality interface_locality(const std::string& iface, const std::string& sysfs = "/sys");
// Locality of a PCI function by address (a GPU from cudaDeviceGetPCIBusId): its NUMA node and PCIe
// path from /sys/bus/pci/devices/ADDRESS; numa_node -1 and no path when sysfs does not have it.
DeviceLocality pci_locality(const std::string& kind, const std::string& name, const std::string& pci,
                            const std::string& sysfs = "/sys");

}  // namespace zc
