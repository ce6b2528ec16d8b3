// IRQ affinity set and restore for real: on this machine's virtio NIC IRQs (root), and after a
// kill -9 of the process that moved them (its guardian restores them).
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <thread>

#include "process.hpp"
#include "report.hpp"
#include "system/irq.hpp"

namespace fs = std::filesystem;
using namespace zc::e2e;
using namespace std::chrono_literals;

namespace {

bool wait_until(const std::function<bool()>& ok, std::chrono::milliseconds limit) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
        if (ok()) return true;
        std::this_thread::sleep_for(20ms);
    }
    return ok();
}

// The real NIC's data IRQs, or a skip reason.
std::vector<int> nic_irqs(std::string& why) {
    if (geteuid() != 0) {
        why = "moving IRQs needs root";
        return {};
    }
    auto ints = zc::read_proc_interrupts();
    for (const auto& e : fs::directory_iterator("/sys/class/net")) {
        auto irqs = zc::device_irqs("net", e.path().filename().string(), ints);
        if (!irqs.empty()) return irqs;
    }
    why = "no network device with its own IRQs here";
    return {};
}

}  // namespace

TEST(IrqAffinity, RealNicIrqsAreMovedAndPutBack) {
    std::string why;
    auto irqs = nic_irqs(why);
    if (irqs.empty()) GTEST_SKIP() << why;
    std::map<int, std::string> before;
    for (int irq : irqs) before[irq] = zc::read_irq_affinity(irq);
    int target = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0;
    try {
        zc::IrqAffinityGuard guard(irqs, {target}, zc::IrqClaim{"test_irq", "", 0, ""});
        for (int irq : irqs) EXPECT_EQ(zc::read_irq_affinity(irq), std::to_string(target)) << "IRQ " << irq;
    } catch (const std::runtime_error& e) {
        GTEST_SKIP() << "the kernel refused: " << e.what();
    }
    for (int irq : irqs) EXPECT_EQ(zc::read_irq_affinity(irq), before[irq]) << "IRQ " << irq << " not restored";
}

TEST(IrqAffinity, KillMinus9OfTheOwnerStillRestoresRealIrqs) {
    std::string why;
    auto irqs = nic_irqs(why);
    if (irqs.empty()) GTEST_SKIP() << why;
    std::map<int, std::string> before;
    std::vector<std::string> argv = {IRQ_GUARD_HOLDER, "/proc", sysconf(_SC_NPROCESSORS_ONLN) > 1 ? "1" : "0"};
    for (int irq : irqs) {
        before[irq] = zc::read_irq_affinity(irq);
        argv.push_back(std::to_string(irq));
    }
    {
        Process holder(argv);
        ASSERT_TRUE(
            wait_until(
                [&] { return holder.stderr_so_far().empty() && zc::read_irq_affinity(irqs[0]) != before[irqs[0]]; },
                5s) ||
            before[irqs[0]] == argv[2])
            << holder.stderr_so_far();
        holder.signal(SIGKILL);
        holder.wait(5s);
    }
    for (int irq : irqs) {
        EXPECT_TRUE(wait_until([&] { return zc::read_irq_affinity(irq) == before[irq]; }, 5s))
            << "IRQ " << irq << " is " << zc::read_irq_affinity(irq) << ", was " << before[irq];
    }
}

TEST(IrqAffinity, KillMinus9RestoresOnAFixtureTreeToo) {
    fs::path root = fs::temp_directory_path() / ("zc-irq-kill-" + std::to_string(getpid()));
    fs::remove_all(root);
    for (int irq : {38, 39}) {
        fs::create_directories(root / "irq" / std::to_string(irq));
        std::ofstream(root / "irq" / std::to_string(irq) / "smp_affinity_list") << "0-1\n";
    }
    setenv("ZCPERF_RUN_DIR", (root / "run").c_str(), 1);  // the fixture's IRQ numbers are not this host's
    {
        Process holder({IRQ_GUARD_HOLDER, root.string(), "1", "38", "39"});
        ASSERT_TRUE(wait_until([&] { return zc::read_irq_affinity(39, root.string()) == "1"; }, 5s));
        // A second holder of the same host is refused while the first lives, and changes nothing.
        auto second = run({IRQ_GUARD_HOLDER, root.string(), "0", "39"}, 10s);
        EXPECT_EQ(second.exit_code, 1);
        EXPECT_NE(second.err.find("IRQ 39 is held by another test on this host: irq_guard_holder pid " +
                                  std::to_string(holder.pid())),
                  std::string::npos)
            << second.err;
        EXPECT_EQ(zc::read_irq_affinity(39, root.string()), "1");
        holder.signal(SIGKILL);
        holder.wait(5s);
    }
    for (int irq : {38, 39}) {
        EXPECT_TRUE(wait_until([&] { return zc::read_irq_affinity(irq, root.string()) == "0-1"; }, 5s)) << irq;
    }
    // The guardian let the locks go only after putting the IRQs back: a new holder takes them at once and
    // finds no stale original.
    EXPECT_TRUE(wait_until([&] { return !fs::exists(root / "run/irq/38.original"); }, 5s));
    // ... and no name of the killed holder: a later refusal names whoever holds the IRQ then.
    for (const char* lock : {"run/irq/38.lock", "run/irq/39.lock"})
        EXPECT_EQ(zc::read_small_file((root / lock).string()), "") << lock;
    unsetenv("ZCPERF_RUN_DIR");
    fs::remove_all(root);
}

// `systemctl stop zcserver` (KillMode=control-group) sends SIGTERM to every process of the unit at once:
// the owner and its guardian. The guardian must outlive that SIGTERM and put the IRQs back.
TEST(IrqAffinity, SigtermToTheWholeGroupAsSystemdStopsStillRestores) {
    fs::path root = fs::temp_directory_path() / ("zc-irq-term-" + std::to_string(getpid()));
    fs::remove_all(root);
    fs::create_directories(root / "irq" / "40");
    std::ofstream(root / "irq" / "40" / "smp_affinity_list") << "0-1\n";
    {
        Process holder({IRQ_GUARD_HOLDER, root.string(), "1", "40"});
        ASSERT_TRUE(wait_until([&] { return zc::read_irq_affinity(40, root.string()) == "1"; }, 5s));
        std::string children;
        std::ifstream(fs::path("/proc") / std::to_string(holder.pid()) / "task" / std::to_string(holder.pid()) /
                      "children") >>
            children;
        ASSERT_FALSE(children.empty()) << "the holder has no guardian child";
        ASSERT_EQ(kill(std::stoi(children), SIGTERM), 0);
        holder.signal(SIGTERM);
        holder.wait(5s);
    }
    EXPECT_TRUE(wait_until([&] { return zc::read_irq_affinity(40, root.string()) == "0-1"; }, 5s))
        << "IRQ 40 is " << zc::read_irq_affinity(40, root.string());
    fs::remove_all(root);
}

TEST(IrqAffinity, LoopbackRunSaysItHasNoIrqsAndChangesNothing) {
    auto o = run({zcperf_bin(), "-n", "4M", "--irq-cpus", "0,0", "-o", "json"}, 30s);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    auto j = report_json(o);
    const auto& p = j["results"][0]["local"]["placement"];
    EXPECT_EQ(p["interface"], "lo");
    EXPECT_TRUE(p["irqs"].empty());
    EXPECT_NE(p["irq_note"].get<std::string>().find("no IRQs of its own"), std::string::npos);
}

TEST(IrqAffinity, DaemonRefusesRemoteIrqMovesUnlessAllowed) {
    LocalServer server;
    auto o = run({zcperf_bin(), "-H", server.address(), "-n", "4M", "--irq-cpus", ",0"}, 30s);
    EXPECT_EQ(o.exit_code, 1);
    EXPECT_NE(o.err.find("--allow-irq-affinity"), std::string::npos) << o.err;
}
