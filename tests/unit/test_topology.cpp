// Topology from fixture sysfs trees: NUMA node of CPUs and devices, PCI addresses, virtual devices.
#include <gtest/gtest.h>

#include "system/numa.hpp"
#include "system/topology.hpp"

using namespace zc;

namespace {
std::string fixture(const std::string& name) { return std::string(ZCPERF_FIXTURES) + "/" + name; }
}  // namespace

TEST(Topology, TwoNodeHostWithMlx5OnNode1) {
    Topology t = read_topology(fixture("sys_mlx5"));
    ASSERT_EQ(t.node_cpus.size(), 2u);
    EXPECT_EQ(t.node_cpus.at(1), (std::vector<int>{4, 5, 6, 7}));
    EXPECT_EQ(node_of_cpu(t, 2), 0);
    EXPECT_EQ(node_of_cpu(t, 6), 1);
    EXPECT_EQ(node_of_cpu(t, 99), -1);
    ASSERT_EQ(t.devices.size(), 2u);
    for (const auto& d : t.devices) {
        EXPECT_EQ(d.pci, "0000:3b:00.0") << d.name;
        EXPECT_EQ(d.numa_node, 1) << d.name;
    }
}

TEST(Topology, VirtioNicFindsItsPciFunctionThroughTheVirtioDevice) {
    DeviceLocality d = interface_locality("eth0", fixture("sys_virtio"));
    EXPECT_EQ(d.pci, "0000:00:03.0");
    EXPECT_EQ(d.numa_node, -1);  // the VM's firmware does not say
    DeviceLocality lo = interface_locality("lo", fixture("sys_virtio"));
    EXPECT_TRUE(lo.pci.empty());
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
