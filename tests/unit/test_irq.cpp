// IRQ discovery on fixture /proc and /sys trees (virtio as on this machine, mlx5 on a two-node host,
// rxe on top of a netdev), and the affinity guard's set / restore, also after a failure half-way.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <fstream>
#include <future>
#include <memory>
#include <thread>

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
    void set(int irq, const std::string& list) const {
        std::ofstream(root / "irq" / std::to_string(irq) / "smp_affinity_list") << list << "\n";
    }
    // The host's irq/ directory for this tree (what ZCPERF_RUN_DIR/irq is for a real one).
    std::string run_dir() const {
        fs::create_directories(root / "run-irq");
        return (root / "run-irq").string();
    }
    IrqClaim claim(const std::string& program = "zcperf", const std::string& peer = "10.0.0.2:12875",
                   double wait_s = 0) const {
        return IrqClaim{program, peer, wait_s, run_dir()};
    }
    std::string path() const { return root.string(); }
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
        IrqAffinityGuard g({38, 39}, {1}, proc.claim(), proc.path());
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
        IrqAffinityGuard g({38, 39, 40}, {1}, proc.claim(), proc.path());
        FAIL() << "expected a failure on IRQ 40";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("cannot move IRQ 40"), std::string::npos) << e.what();
    }
    EXPECT_EQ(proc.affinity(38), "0-1");
    EXPECT_EQ(proc.affinity(39), "0");
    EXPECT_FALSE(fs::exists(proc.run_dir() + "/38.original")) << "a failed guard leaves no original behind";
}

TEST(IrqAffinityGuard, UnreadableIrqIsAClearErrorAndChangesNothing) {
    FakeProc proc({{38, "0-1"}});
    EXPECT_THROW(IrqAffinityGuard({38, 77}, {1}, proc.claim(), proc.path()), std::runtime_error);
    EXPECT_EQ(proc.affinity(38), "0-1");
}

// Tests that share a host: two tests of one host and the same IRQs.

TEST(IrqAffinityGuard, AnIrqAnotherTestHoldsIsRefusedNamingTheHolder) {
    FakeProc proc({{38, "0-1"}, {39, "0-1"}});
    IrqAffinityGuard first({38, 39}, {0}, proc.claim("zcperf", "10.0.0.2:12875"), proc.path());
    try {
        IrqAffinityGuard second({39}, {1}, proc.claim("zcserver", "10.0.0.9:4000"), proc.path());
        FAIL() << "the second test moved an IRQ the first holds";
    } catch (const std::runtime_error& e) {
        std::string m = e.what();
        EXPECT_NE(m.find("IRQ 39 is held by another test on this host: zcperf pid " + std::to_string(getpid())),
                  std::string::npos)
            << m;
        EXPECT_NE(m.find("peer 10.0.0.2:12875"), std::string::npos) << m;
        EXPECT_NE(m.find("on CPUs 0, for "), std::string::npos) << m;
        EXPECT_NE(m.find("it was on CPUs 0-1 before that test"), std::string::npos) << m;
        EXPECT_NE(m.find("--irq-wait SECS"), std::string::npos) << m;
    }
    EXPECT_EQ(proc.affinity(39), "0") << "the refused test changed nothing";
    EXPECT_EQ(first.originals().at(39), "0-1");
}

TEST(IrqAffinityGuard, WaitsForTheHolderWithinItsBoundAndKeepsTheTrueOriginal) {
    FakeProc proc({{38, "0-1"}});
    auto first =
        std::make_unique<IrqAffinityGuard>(std::vector<int>{38}, std::vector<int>{0}, proc.claim(), proc.path());
    // The first lets go 300 ms after the second says it waits (an observed state, not a guess at timing).
    std::promise<std::string> said;
    std::string why;
    std::thread ender([&, told = said.get_future()]() mutable {
        if (told.wait_for(std::chrono::seconds(10)) == std::future_status::ready) why = told.get();
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        first.reset();
    });
    {
        IrqClaim claim = proc.claim("zcperf", "b", 10);
        claim.on_wait = [&](const std::string& w) { said.set_value(w); };  // once per guard
        IrqAffinityGuard second({38}, {1}, claim, proc.path());
        ender.join();
        EXPECT_NE(why.find("IRQ 38 is held by another test on this host: zcperf pid " + std::to_string(::getpid())),
                  std::string::npos)
            << why;
        EXPECT_NE(why.find("waiting up to 10 s for it (--irq-wait)"), std::string::npos) << why;
        EXPECT_GE(second.waited_s(), 0.25);
        EXPECT_LT(second.waited_s(), 5.0);
        EXPECT_EQ(proc.affinity(38), "1");
        EXPECT_EQ(second.originals().at(38), "0-1") << "the first test's setting is no original";
    }
    EXPECT_EQ(proc.affinity(38), "0-1");
}

TEST(IrqAffinityGuard, TheWaitIsBounded) {
    FakeProc proc({{38, "0-1"}});
    IrqAffinityGuard first({38}, {0}, proc.claim(), proc.path());
    auto t0 = std::chrono::steady_clock::now();
    try {
        IrqAffinityGuard second({38}, {1}, proc.claim("zcperf", "b", 0.3), proc.path());
        FAIL() << "waited past its bound";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("(--irq-wait)"), std::string::npos) << e.what();
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_GE(s, 0.3);
    EXPECT_LT(s, 3.0);
    EXPECT_EQ(proc.affinity(38), "0");
}

TEST(IrqAffinityGuard, AnOriginalLeftByAKilledHolderIsPutBackAndNeverOverwritten) {
    // What a holder killed together with its guardian leaves: the IRQ moved, its true original on file,
    // and no lock held.
    FakeProc proc({{38, "0"}, {39, "0-1"}});
    write_file_atomically(proc.run_dir() + "/38.original", "0-1\n");
    {
        IrqAffinityGuard g({38}, {1}, proc.claim(), proc.path());
        EXPECT_EQ(g.originals().at(38), "0-1") << "the moved value must not become the original";
        EXPECT_EQ(proc.affinity(38), "1");
    }
    EXPECT_EQ(proc.affinity(38), "0-1");
    EXPECT_FALSE(fs::exists(proc.run_dir() + "/38.original"));
}

TEST(IrqAffinityGuard, TheGuardianStepRestoresOnlyIrqsNobodyHolds) {
    FakeProc proc({{38, "0"}, {39, "1"}});
    std::string dir = proc.run_dir();
    write_file_atomically(dir + "/38.original", "0-1\n");
    write_file_atomically(dir + "/39.original", "0-1\n");
    auto held = LockedFile::try_lock(dir + "/39.lock");  // 39's holder lives
    ASSERT_TRUE(held);
    EXPECT_EQ(restore_abandoned_irqs(proc.path(), dir), std::vector<int>{38});
    EXPECT_EQ(proc.affinity(38), "0-1");
    EXPECT_EQ(proc.affinity(39), "1") << "a live holder's IRQ was taken from it";
    EXPECT_TRUE(fs::exists(dir + "/39.original"));
    held.reset();
    EXPECT_EQ(restore_abandoned_irqs(proc.path(), dir), std::vector<int>{39});
    EXPECT_EQ(proc.affinity(39), "0-1");
}

TEST(IrqAffinityGuard, TwoTestsOneAfterTheOtherLeaveWhatWasThereBeforeTheFirst) {
    // The lab's case of two tests, in order: A moves to 0; B is refused while A runs; A ends; B moves to 1, ends.
    FakeProc proc({{38, "0-1"}, {39, "0-1"}});
    {
        IrqAffinityGuard a({38, 39}, {0}, proc.claim("zcperf", "A"), proc.path());
        EXPECT_THROW(IrqAffinityGuard({38, 39}, {1}, proc.claim("zcperf", "B"), proc.path()), std::runtime_error);
        EXPECT_EQ(proc.affinity(38), "0");
    }
    {
        IrqAffinityGuard b({38, 39}, {1}, proc.claim("zcperf", "B"), proc.path());
        EXPECT_EQ(proc.affinity(39), "1");
    }
    EXPECT_EQ(proc.affinity(38), "0-1");
    EXPECT_EQ(proc.affinity(39), "0-1");
}

// The lab's MpiLab failure: rank 1 was refused naming a zcperf of an earlier test (gone 188 s) because the
// lock file still held that test's name while rank 0 had just taken the lock and not yet written its own.
// A holder clears its name before letting go, and a refused test waits (briefly) for the new one's name.
TEST(IrqAffinityGuard, TheRefusalNamesTheCurrentHolderNotAPastOne) {
    FakeProc proc({{38, "0-1"}});
    const std::string lock = proc.run_dir() + "/38.lock";
    { IrqAffinityGuard past({38}, {0}, proc.claim("zcperf", "past:12906"), proc.path()); }
    EXPECT_EQ(slurp(lock), "") << "a guard that let go left its name behind";
    // The current holder has the lock but names itself only 200 ms later.
    auto current = LockedFile::try_lock(lock);
    ASSERT_TRUE(current.has_value());
    std::thread namer([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        current->write(format_key_values({{"pid", "4242"}, {"program", "zcperf-mpi rank 0"}}));
    });
    try {
        IrqAffinityGuard refused({38}, {1}, proc.claim("zcperf-mpi rank 1", "b"), proc.path());
        namer.join();
        FAIL() << "moved an IRQ another test holds";
    } catch (const std::runtime_error& e) {
        namer.join();
        std::string m = e.what();
        EXPECT_NE(m.find("held by another test on this host: zcperf-mpi rank 0 pid 4242"), std::string::npos) << m;
        EXPECT_EQ(m.find("past:12906"), std::string::npos) << m;
    }
    EXPECT_EQ(proc.affinity(38), "0-1");
    // A holder that never names itself is refused within the bound, as "a test".
    current->write("");
    auto t0 = std::chrono::steady_clock::now();
    try {
        IrqAffinityGuard refused({38}, {1}, proc.claim(), proc.path());
        FAIL() << "moved an IRQ another test holds";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("held by another test on this host: a test"), std::string::npos)
            << e.what();
    }
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 3.0);
}

TEST(IrqHolder, DescribedWithProgramPeerCpusAndHowLong) {
    KeyValues h{{"pid", "812"}, {"program", "zcserver"}, {"peer", "10.0.0.2:40000"}, {"cpus", "1"}, {"since", "100"}};
    EXPECT_EQ(describe_irq_holder(h, 104.3), "zcserver pid 812 (peer 10.0.0.2:40000), on CPUs 1, for 4.3 s");
    EXPECT_EQ(describe_irq_holder({}, 0), "a test");
}
