#pragma once
// Where things sit: the NUMA node of each CPU and of each network / RDMA / GPU device, and the PCIe
// path down to each device, as hwloc sees them (the topology Open MPI, Slurm and UCX use). Every
// function reads this machine, or an hwloc XML file (`lstopo --of xml`, from another host or a test
// fixture) when one is given.
#include <map>
#include <string>
#include <vector>

namespace zc {

struct DeviceLocality {
    std::string kind;       // "nic", "rdma", "gpu"
    std::string name;       // eth0, mlx5_0
    std::string pci;        // 0000:3b:00.0, or "" for a virtual device
    int numa_node = -1;     // -1: not local to one node (the firmware does not say, on a machine of several)
    std::string pcie_path;  // host bridge down to the function: pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:00.0
};

struct Topology {
    std::map<int, std::vector<int>> node_cpus;  // node -> its CPUs
    std::vector<DeviceLocality> devices;        // the PCI network and RDMA devices
};

// hwloc_xml: "" reads this machine.
Topology read_topology(const std::string& hwloc_xml = "");
int node_of_cpu(const Topology& t, int cpu);  // -1 if unknown

// The network device behind a local address (getifaddrs): "lo" for loopback.
std::string interface_of_address(const std::string& address);
// The interface a connected socket's local address is on ("lo" on loopback); "" when none is found.
std::string interface_of_socket(int fd);
// Locality of one network interface; a virtual one (lo, veth) has no PCI address.
DeviceLocality interface_locality(const std::string& iface, const std::string& hwloc_xml = "");
// Locality of a PCI function by address (a GPU from cudaDeviceGetPCIBusId); numa_node -1 and no
// path when the machine has no such function.
DeviceLocality pci_locality(const std::string& kind, const std::string& name, const std::string& pci,
                            const std::string& hwloc_xml = "");

}  // namespace zc
