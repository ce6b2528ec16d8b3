// The PCIe relation between a GPU and a NIC, from hwloc XML fixtures: one switch, two sockets, a VM's
// flat bus on two nodes, and loopback (no PCI at all).
#include <gtest/gtest.h>

#include "system/pcie_relation.hpp"
#include "system/topology.hpp"

using namespace zc;

namespace {
std::string fixture(const std::string& name) { return std::string(ZCPERF_FIXTURES) + "/" + name; }
}  // namespace

TEST(PcieRelation, GpuAndNicUnderOneSwitch) {
    auto sys = fixture("hwloc/gpu_switch.xml");
    DeviceLocality gpu = pci_locality("gpu", "cuda:0", "0000:1a:00.0", sys);
    DeviceLocality nic = interface_locality("ens2np0", sys);
    EXPECT_EQ(gpu.numa_node, 0);
    EXPECT_EQ(gpu.pcie_path, "pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:00.0/0000:1a:00.0");
    EXPECT_EQ(nic.pci, "0000:1b:00.0");
    EXPECT_EQ(nic.pcie_path, "pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:01.0/0000:1b:00.0");
    PcieRelation r = pcie_relation(gpu.pcie_path, nic.pcie_path);
    EXPECT_EQ(r.link, PcieLink::same_switch);
    EXPECT_EQ(r.common, "0000:18:00.0");
    EXPECT_TRUE(r.shares_root_port());
    EXPECT_EQ(describe(r, gpu.pcie_path, nic.pcie_path), "same PCIe switch (via 0000:18:00.0)");
}

TEST(PcieRelation, GpuAndNicOnDifferentSockets) {
    auto sys = fixture("hwloc/gpu_apart.xml");
    DeviceLocality gpu = pci_locality("gpu", "cuda:0", "0000:19:00.0", sys);
    DeviceLocality nic = interface_locality("ens9np0", sys);
    EXPECT_EQ(gpu.numa_node, 0);
    EXPECT_EQ(nic.numa_node, 1);
    PcieRelation r = pcie_relation(gpu.pcie_path, nic.pcie_path);
    EXPECT_EQ(r.link, PcieLink::different_host_bridges);
    EXPECT_FALSE(r.shares_root_port());
    EXPECT_NE(describe(r, gpu.pcie_path, nic.pcie_path).find("pci0000:17 vs pci0000:ae"), std::string::npos);
    Topology t = read_topology(sys);
    ASSERT_EQ(t.devices.size(), 1u);  // the NIC; GPUs come from CUDA, not from the topology
    EXPECT_EQ(t.devices[0].pcie_path, nic.pcie_path);
}

TEST(PcieRelation, FlatVirtualBusIsOneHostBridge) {
    auto sys = fixture("hwloc/gpu_flat.xml");
    DeviceLocality gpu = pci_locality("gpu", "cuda:0", "0000:00:05.0", sys);
    DeviceLocality nic = interface_locality("eth0", sys);
    EXPECT_EQ(gpu.numa_node, -1);  // two nodes, and the firmware says neither
    EXPECT_EQ(nic.numa_node, -1);
    EXPECT_EQ(nic.pcie_path, "pci0000:00/0000:00:03.0");
    PcieRelation r = pcie_relation(gpu.pcie_path, nic.pcie_path);
    EXPECT_EQ(r.link, PcieLink::same_host_bridge);
    EXPECT_EQ(r.common, "pci0000:00");
    EXPECT_FALSE(r.shares_root_port());
}

TEST(PcieRelation, PathsAloneAndUnknowns) {
    EXPECT_EQ(pcie_relation("pci0000:00/0000:00:01.0/0000:01:00.0", "pci0000:00/0000:00:01.0/0000:01:00.1").link,
              PcieLink::same_root_port);
    EXPECT_EQ(pcie_relation("", "pci0000:00/0000:00:01.0").link, PcieLink::unknown);
    EXPECT_EQ(pcie_relation("pci0000:00", "pci0000:00/0000:00:01.0").link, PcieLink::unknown);
    DeviceLocality missing = pci_locality("gpu", "cuda:0", "0000:99:00.0", fixture("hwloc/gpu_switch.xml"));
    EXPECT_EQ(missing.numa_node, -1);
    EXPECT_TRUE(missing.pcie_path.empty());
    EXPECT_TRUE(interface_locality("lo", fixture("hwloc/gpu_switch.xml")).pcie_path.empty());
}
