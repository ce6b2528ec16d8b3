// IRQ discovery on fixture /proc and /sys trees (virtio as on this machine, mlx5 on a two-node host,
// rxe on top of a netdev), and the affinity guard's set / restore, also after a failure half-way.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <fstream>

#include "system/irq.hpp"

namespace fs = std::filesystem;
using namespace zc;

namespace {

std::string fixture(const std::string& name) { return std::string(ZCPERF_FIXTURES) + "/" + name; }

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// A writable copy of /proc/irq for a few IRQs, in a temporary directory.
struct FakeProc {
    fs::path root = fs::temp_directory_path() / ("zc-irq-" + std::to_string(::getpid()) + "-" +
                                                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
    explicit FakeProc(const std::map<int, std::string>& affinity) {
        fs::remove_all(root);
        for (const auto& [irq, list] : affinity) {
            fs::create_directories(root / "irq" / std::to_string(irq));
            std::ofstream(root / "irq" / std::to_string(irq) / "smp_affinity_list") << list << "\n";
        }
    }
    ~FakeProc() { fs::remove_all(root); }
    std::string affinity(int irq) const { return read_irq_affinity(irq, root.string()); }
};

}  // namespace

TEST(ProcInterrupts, ParsesCountsAndNamesAndSkipsTheSummaryLines) {
    auto m = parse_proc_interrupts(slurp(fixture("proc_interrupts_virtio.txt")));
    ASSERT_EQ(m.size(), 6u);  // NMI, LOC, ERR are not IRQ numbers
    EXPECT_EQ(m.at(38).name, "virtio2-input.0");
    EXPECT_EQ(m.at(38).per_cpu, (std::vector<uint64_t>{0, 687}));
    EXPECT_EQ(m.at(39).total(), 708u);
    EXPECT_EQ(m.at(24).name, "ACPI:Ged");
}

TEST(ProcInterrupts, EightCpusAndMlx5Names) {
    auto m = parse_proc_interrupts(slurp(fixture("proc_interrupts_mlx5.txt")));
    ASSERT_EQ(m.size(), 5u);
    EXPECT_EQ(m.at(102).name, "mlx5_comp1@pci:0000:3b:00.0");
    EXPECT_EQ(m.at(102).per_cpu.size(), 8u);
    EXPECT_EQ(m.at(102).per_cpu[5], 40000u);
}

TEST(DeviceIrqs, VirtioNetTakesTheQueueVectorsNotTheConfigOne) {
    auto ints = parse_proc_interrupts(slurp(fixture("proc_interrupts_virtio.txt")));
    EXPECT_EQ(device_irqs("net", "eth0", ints, fixture("sys_virtio")), (std::vector<int>{38, 39}));
}

TEST(DeviceIrqs, LoopbackAndUnknownDevicesHaveNone) {
    auto ints = parse_proc_interrupts(slurp(fixture("proc_interrupts_virtio.txt")));
    EXPECT_TRUE(device_irqs("net", "lo", ints, fixture("sys_virtio")).empty());
    EXPECT_TRUE(device_irqs("net", "nosuch0", ints, fixture("sys_virtio")).empty());
}

TEST(DeviceIrqs, Mlx5CompletionVectorsWithoutTheAsyncOne) {
    auto ints = parse_proc_interrupts(slurp(fixture("proc_interrupts_mlx5.txt")));
    std::vector<int> comp{101, 102, 103, 104};
    EXPECT_EQ(device_irqs("net", "ens1f0np0", ints, fixture("sys_mlx5")), comp);
    EXPECT_EQ(rdma_device_irqs("mlx5_0", ints, fixture("sys_mlx5")), comp);
}

TEST(DeviceIrqs, RxeUsesTheIrqsOfItsParentNetdev) {
    auto ints = parse_proc_interrupts(slurp(fixture("proc_interrupts_virtio.txt")));
    EXPECT_EQ(rdma_device_irqs("rxe0", ints, fixture("sys_virtio")), (std::vector<int>{38, 39}));
}

TEST(IrqAffinityGuard, SetsForItsLifetimeAndRestores) {
    FakeProc proc({{38, "0-1"}, {39, "0"}});
    {
        IrqAffinityGuard g({38, 39}, {1}, proc.root.string());
        EXPECT_EQ(proc.affinity(38), "1");
        EXPECT_EQ(proc.affinity(39), "1");
        EXPECT_EQ(g.originals().at(38), "0-1");
    }
    EXPECT_EQ(proc.affinity(38), "0-1");
    EXPECT_EQ(proc.affinity(39), "0");
}

TEST(IrqAffinityGuard, FailureHalfWayRestoresWhatWasAlreadyChanged) {
    FakeProc proc({{38, "0-1"}, {39, "0"}, {40, "1"}});
    // IRQ 40 reads fine but refuses writes, even from root, like a managed IRQ: its file is a link
    // to a read-only kernel file.
    fs::remove(proc.root / "irq/40/smp_affinity_list");
    fs::create_symlink("/proc/sys/kernel/osrelease", proc.root / "irq/40/smp_affinity_list");
    try {
        IrqAffinityGuard g({38, 39, 40}, {1}, proc.root.string());
        FAIL() << "expected a failure on IRQ 40";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("cannot move IRQ 40"), std::string::npos) << e.what();
    }
    EXPECT_EQ(proc.affinity(38), "0-1");
    EXPECT_EQ(proc.affinity(39), "0");
}

TEST(IrqAffinityGuard, UnreadableIrqIsAClearErrorAndChangesNothing) {
    FakeProc proc({{38, "0-1"}});
    EXPECT_THROW(IrqAffinityGuard({38, 77}, {1}, proc.root.string()), std::runtime_error);
    EXPECT_EQ(proc.affinity(38), "0-1");
}
