// Topology from hwloc XML fixtures (tests/fixtures/hwloc, in `lstopo --of xml`'s format): NUMA node of
// CPUs and devices, PCI addresses, virtual devices; and this machine, read live.
#include <gtest/gtest.h>

#include <sched.h>
#include <unistd.h>

#include "system/host_info.hpp"
#include "system/numa.hpp"
#include "system/topology.hpp"

using namespace zc;

namespace {
std::string fixture(const std::string& name) { return std::string(ZCPERF_FIXTURES) + "/" + name; }
}  // namespace

TEST(Topology, TwoNodeHostWithMlx5OnNode1) {
    Topology t = read_topology(fixture("hwloc/two_node_mlx5.xml"));
    ASSERT_EQ(t.node_cpus.size(), 2u);
    EXPECT_EQ(t.node_cpus.at(1), (std::vector<int>{4, 5, 6, 7}));
    EXPECT_EQ(node_of_cpu(t, 2), 0);
    EXPECT_EQ(node_of_cpu(t, 6), 1);
    EXPECT_EQ(node_of_cpu(t, 99), -1);
    ASSERT_EQ(t.devices.size(), 2u);
    for (const auto& d : t.devices) {
        EXPECT_EQ(d.pci, "0000:3b:00.0") << d.name;
        EXPECT_EQ(d.numa_node, 1) << d.name;
        EXPECT_EQ(d.pcie_path, "pci0000:3a/0000:3a:00.0/0000:3b:00.0") << d.name;
    }
    EXPECT_EQ(t.devices[0].kind, "nic");
    EXPECT_EQ(t.devices[0].name, "ens1f0np0");
    EXPECT_EQ(t.devices[1].kind, "rdma");
    EXPECT_EQ(t.devices[1].name, "mlx5_0");
}

TEST(Topology, VirtioNicOnAOneNodeVm) {
    DeviceLocality d = interface_locality("eth0", fixture("hwloc/vm_virtio.xml"));
    EXPECT_EQ(d.pci, "0000:00:03.0");
    EXPECT_EQ(d.pcie_path, "pci0000:00/0000:00:03.0");
    EXPECT_EQ(d.numa_node, 0);  // one node: every device is local to it
    DeviceLocality lo = interface_locality("lo", fixture("hwloc/vm_virtio.xml"));
    EXPECT_TRUE(lo.pci.empty());
    EXPECT_EQ(lo.numa_node, -1);
}

TEST(Topology, UnreadableXmlGivesAnEmptyTopology) {
    Topology t = read_topology(fixture("hwloc/no_such_file.xml"));
    EXPECT_TRUE(t.node_cpus.empty());
    EXPECT_TRUE(t.devices.empty());
    EXPECT_TRUE(interface_locality("eth0", fixture("hwloc/no_such_file.xml")).pci.empty());
}

// This machine, live: every CPU zcperf may run on belongs to exactly one node hwloc reports.
TEST(Topology, ThisMachineHasEveryAllowedCpuOnANode) {
    Topology t = read_topology();
    ASSERT_FALSE(t.node_cpus.empty());
    cpu_set_t allowed;
    ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
    for (int c = 0; c < CPU_SETSIZE; ++c) {
        if (CPU_ISSET(c, &allowed)) {
            EXPECT_GE(node_of_cpu(t, c), 0) << "CPU " << c;
        }
    }
}

// A host-only test's server never starts the GPU driver: it offers host memory alone and lists no GPU,
// and still says who it is (a same-host client is told apart by boot id and pid).
TEST(HostProbe, WithoutGpusOffersHostMemoryOnly) {
    HostInfo h = probe_host(GpuProbe::without_gpus);
    EXPECT_EQ(h.memory_types, std::vector<std::string>{"host"});
    for (const auto& d : h.topology.devices) EXPECT_NE(d.kind, "gpu") << d.name;
    EXPECT_EQ(h.boot_id.size(), 36u) << h.boot_id;  // a UUID
    EXPECT_EQ(h.boot_id, read_boot_id());
    EXPECT_EQ(h.pid, getpid());
    EXPECT_FALSE(h.cpus.empty());
}

TEST(Topology, LoopbackAddressBelongsToLo) { EXPECT_EQ(interface_of_address("127.0.0.1"), "lo"); }

TEST(Numa, PagesOfATouchedBufferAreReadBackOnAnExistingNode) {
    std::vector<char> buf(1 << 20, 'x');
    auto nodes = page_nodes(buf.data(), buf.size());
    size_t pages = 0;
    auto known = numa_node_list();
    for (const auto& [node, n] : nodes) {
        pages += n;
        EXPECT_NE(std::find(known.begin(), known.end(), node), known.end()) << node;
    }
    EXPECT_GE(pages, (1u << 20) / 4096);
}

TEST(Numa, BindingToAMissingNodeNamesTheNodesThereAre) {
    try {
        bind_thread_memory(4000);
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("its nodes are"), std::string::npos);
    }
}
