// Merging: both sides of one test (merge_sides), and the iterations of one test (merge_iterations).
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "iterations.hpp"
#include "protocol/result.hpp"
#include "core/stream_counters.hpp"
#include "run_driver.hpp"

using namespace zc;

namespace {

constexpr uint64_t GiB = 1ull << 30;

SideResult side(Role role, uint64_t bytes, double elapsed_s) {
    SideResult s;
    s.host = role == Role::send ? "tx-host" : "rx-host";
    s.role = role;
    s.bytes = bytes;
    s.ops = bytes / 65536;
    s.elapsed_s = elapsed_s;
    s.stream_bytes = {bytes};
    s.cpus = {0};
    s.cpu.elapsed_s = elapsed_s;
    s.cpu.ncpus = 4;
    return s;
}

TestSpec spec(Workload t, int streams = 1) {
    TestSpec s;
    s.test = t;
    s.message_size = 65536;
    s.streams = streams;
    return s;
}

bool has_warning_containing(const TestResult& r, const std::string& text) {
    for (const auto& w : r.warnings)
        if (w.find(text) != std::string::npos) return true;
    return false;
}

}  // namespace

// ---------------------------------------------------------------- merge_sides

TEST(MergeSides, StreamThroughputFromTheReceiver) {
    // stream: the client (local) sends, the server (remote) receives.
    // Receiver: 1e9 bytes in 2.0 s = 1e9 x 8 / 2.0 / 1e9 = 4.0 Gbit/s (the sender's 2.1 s is not used).
    TestResult r = merge_sides(spec(Workload::stream), side(Role::send, 1000000000, 2.1),
                               side(Role::recv, 1000000000, 2.0), false);
    EXPECT_EQ(r.test, Workload::stream);
    EXPECT_EQ(r.transport, transport_named("tcp"));
    EXPECT_EQ(r.message_size, 65536u);
    EXPECT_EQ(r.streams, 1);
    EXPECT_EQ(r.bytes, 1000000000u);
    EXPECT_DOUBLE_EQ(r.elapsed_s, 2.0);
    EXPECT_DOUBLE_EQ(r.throughput_gbps, 4.0);
    EXPECT_EQ(r.local.role, Role::send);
    EXPECT_EQ(r.local.host, "tx-host");
    EXPECT_EQ(r.remote.role, Role::recv);
    EXPECT_TRUE(r.warnings.empty());
}

TEST(MergeSides, MaertsThroughputFromTheLocalReceiver) {
    // maerts: the client (local) receives: 5e9 bytes in 4.0 s = 10.0 Gbit/s (not the sender's 4.2 s).
    TestResult r = merge_sides(spec(Workload::maerts), side(Role::recv, 5000000000, 4.0),
                               side(Role::send, 5000000000, 4.2), false);
    EXPECT_EQ(r.test, Workload::maerts);
    EXPECT_DOUBLE_EQ(r.elapsed_s, 4.0);
    EXPECT_DOUBLE_EQ(r.throughput_gbps, 10.0);
    EXPECT_EQ(r.local.role, Role::recv);
}

TEST(MergeSides, ZeroElapsedIsZeroThroughput) {
    TestResult r = merge_sides(spec(Workload::stream), side(Role::send, 0, 0), side(Role::recv, 0, 0), false);
    EXPECT_EQ(r.throughput_gbps, 0.0);
}

TEST(MergeSides, ByteCountMismatchThrows) {
    try {
        merge_sides(spec(Workload::stream), side(Role::send, 1000, 1), side(Role::recv, 999, 1), false);
        FAIL() << "a short receive was accepted";
    } catch (const std::runtime_error& e) {
        std::string what = e.what();
        EXPECT_NE(what.find("sent 1000 bytes"), std::string::npos) << what;
        EXPECT_NE(what.find("counted 999"), std::string::npos) << what;
    }
    // maerts, the other way round
    EXPECT_THROW(merge_sides(spec(Workload::maerts), side(Role::recv, 5, 1), side(Role::send, 6, 1), false),
                 std::runtime_error);
}

TEST(MergeSides, PerStreamMismatchThrowsEvenWhenTotalsAgree) {
    SideResult tx = side(Role::send, 1000, 1), rx = side(Role::recv, 1000, 1);
    tx.stream_bytes = {600, 400};
    rx.stream_bytes = {500, 500};
    EXPECT_THROW(merge_sides(spec(Workload::stream, 2), tx, rx, false), std::runtime_error);
    rx.stream_bytes = {600, 400};
    TestResult r = merge_sides(spec(Workload::stream, 2), tx, rx, false);
    EXPECT_EQ(r.bytes, 1000u);
    EXPECT_EQ(r.streams, 2);
}

TEST(MergeSides, OtherLoadWarningAboveFivePercentOfACpu) {
    SideResult tx = side(Role::send, GiB, 10), rx = side(Role::recv, GiB, 10);
    // 0.6 CPU-s of other processes over 10 s = 6.0 % of one CPU: warned, naming the top processes.
    rx.cpu.others.cpu_s = 0.6;
    rx.cpu.others.top = {{100, "nginx", 0.5}, {600, "make", 0.1}};
    TestResult r = merge_sides(spec(Workload::stream), tx, rx, false);
    ASSERT_EQ(r.warnings.size(), 1u);
    const std::string& w = r.warnings[0];
    EXPECT_EQ(w.rfind("remote: other processes used ", 0), 0u) << w;
    EXPECT_NE(w.find(" 6.0% of a CPU during the test"), std::string::npos) << w;
    EXPECT_NE(w.find("nginx[100] 0.50 s, make[600] 0.10 s"), std::string::npos) << w;
    // On the local side it says "local".
    tx.cpu.others = rx.cpu.others;
    rx.cpu.others = {};
    r = merge_sides(spec(Workload::stream), tx, rx, false);
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_EQ(r.warnings[0].rfind("local: other processes used ", 0), 0u) << r.warnings[0];
    EXPECT_NE(r.warnings[0].find(" 6.0% of a CPU"), std::string::npos) << r.warnings[0];
}

TEST(MergeSides, NoOtherLoadWarningAtOrBelowFivePercent) {
    SideResult tx = side(Role::send, GiB, 10), rx = side(Role::recv, GiB, 10);
    rx.cpu.others.cpu_s = 0.5;  // exactly 5.0 %: not above
    rx.cpu.others.top = {{100, "nginx", 0.5}};
    tx.cpu.others.cpu_s = 0.4;  // 4 %
    EXPECT_TRUE(merge_sides(spec(Workload::stream), tx, rx, false).warnings.empty());
    // The percentage is of the CPU meter's interval: the same 0.5 s over 5 s is 10 %.
    rx.cpu.elapsed_s = 5;
    EXPECT_TRUE(has_warning_containing(merge_sides(spec(Workload::stream), tx, rx, false), "10.0% of a CPU"));
}

TEST(MergeSides, SideWarningsArePrefixedAndSameHostIsNoted) {
    SideResult tx = side(Role::send, 10, 1), rx = side(Role::recv, 10, 1);
    tx.warnings = {"CPU 3 asked, ran on 2"};
    rx.warnings = {"short buffer"};
    TestResult r = merge_sides(spec(Workload::stream), tx, rx, true);
    ASSERT_EQ(r.warnings.size(), 3u);
    EXPECT_EQ(r.warnings[0], "local: CPU 3 asked, ran on 2");
    EXPECT_EQ(r.warnings[1], "remote: short buffer");
    EXPECT_NE(r.warnings[2].find("share one host"), std::string::npos) << r.warnings[2];
    // The sides' own warnings stay with them, unprefixed.
    EXPECT_EQ(r.local.warnings, std::vector<std::string>{"CPU 3 asked, ran on 2"});
}

TEST(MergeSides, SpecFieldsCopied) {
    TestSpec sp = spec(Workload::maerts, 3);
    sp.transport = transport_named("tcp-uringzc");
    sp.rx = RxMode::splice;
    sp.message_size = 12345;
    SideResult rx = side(Role::recv, 30, 1), tx = side(Role::send, 30, 1);
    rx.stream_bytes = tx.stream_bytes = {10, 10, 10};
    TestResult r = merge_sides(sp, rx, tx, false);
    EXPECT_EQ(r.transport, transport_named("tcp-uringzc"));
    EXPECT_EQ(r.rx, RxMode::splice);
    EXPECT_EQ(r.test, Workload::maerts);
    EXPECT_EQ(r.message_size, 12345u);
    EXPECT_EQ(r.streams, 3);
    EXPECT_TRUE(r.baseline.transport.empty());
}

// A timed run that outlasts -l by more than 20 % says so once, with the stalled call that explains it.
TEST(MergeSides, OverrunWarningNamesTheLongestCall) {
    TestSpec s = spec(Workload::stream);
    s.duration_s = 4;
    SideResult tx = side(Role::send, GiB, 14.68);
    tx.path = "tcp";
    tx.longest_call_s = 12.04;
    tx.longest_call_end_s = 13.9;
    TestResult r = merge_sides(s, tx, side(Role::recv, GiB, 14.7), false);
    ASSERT_EQ(r.warnings.size(), 1u);
    const std::string& w = r.warnings[0];
    EXPECT_NE(w.find("lasted 14.70 s (remote), 3.7x the 4 s asked (-l)"), std::string::npos) << w;
    EXPECT_NE(w.find("local (tcp) waited 12.04 s in one data call, until 13.90 s"), std::string::npos) << w;
}

TEST(MergeSides, OverrunWithoutAStalledCallSaysSo) {
    TestSpec s = spec(Workload::stream);
    s.duration_s = 10;
    // 12.1 s is 1.21x: warned; no call waited as much as a tenth of it.
    SideResult tx = side(Role::send, GiB, 12.0);
    tx.longest_call_s = 0.5;
    TestResult r = merge_sides(s, tx, side(Role::recv, GiB, 12.1), false);
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_NE(r.warnings[0].find("1.2x the 10 s asked"), std::string::npos) << r.warnings[0];
    EXPECT_NE(r.warnings[0].find("no single data call explains it"), std::string::npos) << r.warnings[0];
}

TEST(MergeSides, NoOverrunWarningWithinTwentyPercentOrForAByteBudget) {
    TestSpec s = spec(Workload::stream);
    s.duration_s = 10;
    EXPECT_TRUE(merge_sides(s, side(Role::send, GiB, 11.9), side(Role::recv, GiB, 11.95), false).warnings.empty());
    s.total_bytes = GiB;  // -n: no time was asked
    EXPECT_TRUE(merge_sides(s, side(Role::send, GiB, 30), side(Role::recv, GiB, 30), false).warnings.empty());
}

TEST(MergeSides, ZeroCopySendNoteFromTheSender) {
    SideResult tx = side(Role::send, GiB, 1), rx = side(Role::recv, GiB, 1);
    tx.path = "tcp-msgzc";
    tx.zerocopy.sent_bytes = 1000;
    tx.zerocopy.copied_bytes = 250;  // 25.0 %
    tx.zerocopy.completions = 10;
    TestResult r = merge_sides(spec(Workload::stream), tx, rx, false);
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_EQ(r.warnings[0],
              "tcp-msgzc: the kernel reports it copied 25.0% of the 1000 zero-copy bytes anyway (10 completions)");
    // ENOBUFS waits are mentioned when there were any.
    tx.zerocopy.enobufs = 3;
    r = merge_sides(spec(Workload::stream), tx, rx, false);
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_NE(r.warnings[0].find("(10 completions, 3 ENOBUFS waits)"), std::string::npos) << r.warnings[0];
    // maerts: the sender is the remote side; its counters are the ones reported.
    SideResult rtx = tx, lrx = rx;
    rtx.path = "tcp-uringzc";
    r = merge_sides(spec(Workload::maerts), lrx, rtx, false);
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_EQ(r.warnings[0].rfind("tcp-uringzc: the kernel reports it copied 25.0%", 0), 0u) << r.warnings[0];
    // A receiver's zc counters (none on a receiver in practice) are not taken for the sender's.
    SideResult plain_tx = side(Role::send, GiB, 1), odd_rx = rx;
    odd_rx.zerocopy.sent_bytes = 5;
    EXPECT_TRUE(merge_sides(spec(Workload::stream), plain_tx, odd_rx, false).warnings.empty());
}

TEST(MergeSides, ZeroCopyThatAlwaysCopiedIsExplained) {
    SideResult tx = side(Role::send, GiB, 1), rx = side(Role::recv, GiB, 1);
    tx.path = "tcp-msgzc";
    tx.zerocopy.sent_bytes = tx.zerocopy.copied_bytes = 1 << 20;  // 100 %
    tx.zerocopy.completions = 16;
    // Same host (loopback, veth): the kernel always copies.
    TestResult r = merge_sides(spec(Workload::stream), tx, rx, true);
    ASSERT_EQ(r.warnings.size(), 2u);
    EXPECT_NE(r.warnings[0].find("copied 100.0% of the 1048576 zero-copy bytes"), std::string::npos) << r.warnings[0];
    EXPECT_NE(r.warnings[0].find("on loopback and veth it always copies"), std::string::npos) << r.warnings[0];
    EXPECT_NE(r.warnings[1].find("share one host"), std::string::npos);
    // Another host: the device is the suspect.
    r = merge_sides(spec(Workload::stream), tx, rx, false);
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_NE(r.warnings[0].find("the device cannot send from user pages"), std::string::npos) << r.warnings[0];
    // 99.9 % exactly is not "always": no explanation.
    tx.zerocopy.sent_bytes = 1000;
    tx.zerocopy.copied_bytes = 999;
    r = merge_sides(spec(Workload::stream), tx, rx, false);
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_NE(r.warnings[0].find("copied 99.9%"), std::string::npos) << r.warnings[0];
    EXPECT_EQ(r.warnings[0].find("device"), std::string::npos) << r.warnings[0];
}

TEST(MergeSides, ZeroCopyReceiveNoteFromTheReceiver) {
    SideResult tx = side(Role::send, GiB, 1), rx = side(Role::recv, GiB, 1);
    rx.zerocopy.rx_mapped_bytes = 3000;
    rx.zerocopy.rx_copied_bytes = 1000;  // 75 % mapped
    TestResult r = merge_sides(spec(Workload::stream), tx, rx, false);
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_EQ(r.warnings[0], "rx-zerocopy: 75.0% of the bytes were mapped, 25.0% copied");
    // Under half mapped: says when pages map at all.
    rx.zerocopy.rx_mapped_bytes = 1000;
    rx.zerocopy.rx_copied_bytes = 3000;
    r = merge_sides(spec(Workload::stream), tx, rx, false);
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_EQ(r.warnings[0].rfind("rx-zerocopy: 25.0% of the bytes were mapped, 75.0% copied; pages map only when", 0),
              0u)
        << r.warnings[0];
    // Between two hosts the reason is the receiving driver; on one host, the sender.
    EXPECT_NE(r.warnings[0].find("receiving driver"), std::string::npos) << r.warnings[0];
    r = merge_sides(spec(Workload::stream), tx, rx, true);
    EXPECT_NE(r.warnings.at(0).find("on loopback: tcp-msgzc"), std::string::npos) << r.warnings.at(0);
    EXPECT_EQ(r.warnings.at(0).find("receiving driver"), std::string::npos) << r.warnings.at(0);
    // Exactly 50 % is not "under half".
    rx.zerocopy.rx_mapped_bytes = rx.zerocopy.rx_copied_bytes = 2000;
    r = merge_sides(spec(Workload::stream), tx, rx, false);
    EXPECT_EQ(r.warnings.at(0), "rx-zerocopy: 50.0% of the bytes were mapped, 50.0% copied");
    // maerts: the receiver is local.
    r = merge_sides(spec(Workload::maerts), rx, tx, false);
    EXPECT_EQ(r.warnings.at(0), "rx-zerocopy: 50.0% of the bytes were mapped, 50.0% copied");
}

// ---------------------------------------------------------------- merge_iterations

namespace {

// One iteration: `gib` GiB moved in `secs` s at `gbps`, the local side busy for `busy_s` CPU-s.
TestResult run(uint64_t gib, double secs, double gbps, double busy_s, double user_pct, double cpu0_user_pct,
               double setup_ms) {
    TestResult r;
    r.message_size = 65536;
    r.bytes = gib * GiB;
    r.elapsed_s = secs;
    r.throughput_gbps = gbps;
    r.setup_ms = setup_ms;
    for (SideResult* s : {&r.local, &r.remote}) {
        *s = side(s == &r.local ? Role::send : Role::recv, gib * GiB, secs);
        s->cpu.busy_cpu_s = busy_s;
        s->cpu.all.user = user_pct;
        s->cpu.all.idle = 100 - user_pct;
        s->cpu.per_cpu = {{0, {}}, {1, {}}};
        s->cpu.per_cpu[0].share.user = cpu0_user_pct;
        s->cpu.others.cpu_s = 0.01;
        s->process_user_s = 0.1;
        s->process_sys_s = busy_s / 2;
    }
    return r;
}

}  // namespace

TEST(MergeIterations, BytesAddServiceDemandIsTotalOverTotalThroughputIsMean) {
    std::vector<TestResult> runs{run(1, 1.0, 9, 1.0, 10, 20, 10), run(3, 3.0, 10, 1.0, 30, 40, 20),
                                 run(2, 2.0, 11, 2.0, 20, 30, 30)};
    runs[0].warnings = {"w1"};
    runs[1].warnings = {"w1", "w2"};
    runs[1].local.warnings = {"lw"};
    runs[2].local.warnings = {"lw"};
    for (size_t i = 0; i < runs.size(); ++i) {
        runs[i].local.zerocopy.sent_bytes = 1000 * (i + 1);
        runs[i].local.zerocopy.copied_bytes = 10 * (i + 1);
        runs[i].local.zerocopy.completions = i + 1;
        runs[i].local.zerocopy.enobufs = i;
        runs[i].remote.zerocopy.rx_mapped_bytes = 4096 * (i + 1);
        runs[i].remote.zerocopy.rx_copied_bytes = 7 * (i + 1);
    }
    TestResult m = merge_iterations(runs, ConfidenceGoal{10, 3, 95, 5});
    // zero-copy counters add: (1 + 2 + 3) x each
    EXPECT_EQ(m.local.zerocopy.sent_bytes, 6000u);
    EXPECT_EQ(m.local.zerocopy.copied_bytes, 60u);
    EXPECT_EQ(m.local.zerocopy.completions, 6u);
    EXPECT_EQ(m.local.zerocopy.enobufs, 3u);  // 0 + 1 + 2
    EXPECT_EQ(m.remote.zerocopy.rx_mapped_bytes, 6u * 4096);
    EXPECT_EQ(m.remote.zerocopy.rx_copied_bytes, 42u);
    EXPECT_EQ(m.remote.zerocopy.sent_bytes, 0u);
    // bytes: 1 + 3 + 2 = 6 GiB; elapsed 6 s
    EXPECT_EQ(m.bytes, 6 * GiB);
    EXPECT_DOUBLE_EQ(m.elapsed_s, 6.0);
    EXPECT_EQ(m.local.bytes, 6 * GiB);
    EXPECT_EQ(m.local.stream_bytes, std::vector<uint64_t>{6 * GiB});
    EXPECT_EQ(m.local.ops, (GiB / 65536) * 6);
    EXPECT_DOUBLE_EQ(m.local.elapsed_s, 6.0);
    // throughput: mean of 9, 10, 11 = 10 (not 6 GiB / 6 s)
    EXPECT_DOUBLE_EQ(m.throughput_gbps, 10.0);
    // service demand: total CPU / total bytes = 4.0 CPU-s x 1e6 / (6 GiB / 1024 = 6291456 KB)
    // = 0.6357828776041666 us/KB; the mean of the three runs' SDs (0.9537, 0.3179, 0.9537) would be 0.7418.
    EXPECT_DOUBLE_EQ(m.local.cpu.busy_cpu_s, 4.0);
    EXPECT_DOUBLE_EQ(m.local.service_demand_us_per_kb(), 4.0e6 / 6291456.0);
    EXPECT_NEAR(m.local.service_demand_us_per_kb(), 0.635783, 1e-6);
    EXPECT_DOUBLE_EQ(m.remote.service_demand_us_per_kb(), 4.0e6 / 6291456.0);
    // process CPU adds: user 0.3, sys 0.5 + 0.5 + 1.0 = 2.0
    EXPECT_DOUBLE_EQ(m.local.process_user_s, 0.3);
    EXPECT_DOUBLE_EQ(m.local.process_sys_s, 2.0);
    EXPECT_DOUBLE_EQ(m.local.cpu.others.cpu_s, 0.03);
    // CPU shares weighted by each interval (1, 3, 2 of 6 s): user = 10/6 + 30 x 3/6 + 20 x 2/6 = 23.333 %
    EXPECT_DOUBLE_EQ(m.local.cpu.elapsed_s, 6.0);
    EXPECT_NEAR(m.local.cpu.all.user, 70.0 / 3.0, 1e-12);
    EXPECT_NEAR(m.local.cpu.all.idle, 100.0 - 70.0 / 3.0, 1e-12);
    ASSERT_EQ(m.local.cpu.per_cpu.size(), 2u);
    // cpu0: 20/6 + 40 x 3/6 + 30 x 2/6 = 33.333 %
    EXPECT_NEAR(m.local.cpu.per_cpu[0].share.user, 100.0 / 3.0, 1e-12);
    EXPECT_DOUBLE_EQ(m.local.cpu.per_cpu[1].share.user, 0.0);
    // setup time: the mean, 20 ms
    EXPECT_DOUBLE_EQ(m.setup_ms, 20.0);
    // warnings once each
    EXPECT_EQ(m.warnings, (std::vector<std::string>{"w1", "w2"}));
    EXPECT_EQ(m.local.warnings, std::vector<std::string>{"lw"});
}

TEST(MergeIterations, ConfidenceFigures) {
    std::vector<TestResult> runs{run(1, 1.0, 9, 1.0, 10, 0, 0), run(1, 1.0, 10, 1.0, 10, 0, 0),
                                 run(1, 1.0, 11, 1.0, 10, 0, 0)};
    TestResult m = merge_iterations(runs, ConfidenceGoal{10, 3, 95, 5});
    EXPECT_EQ(m.iterations.iterations, 3);
    EXPECT_DOUBLE_EQ(m.iterations.level_pct, 95);
    EXPECT_DOUBLE_EQ(m.iterations.width_goal_pct, 5);
    // {9, 10, 11}: sd 1, t(0.975, 2) = 4.3026527, half width 2.4841377, full width 49.68 % of 10
    EXPECT_NEAR(m.iterations.throughput_width_pct, 49.682754, 1e-5);
    EXPECT_FALSE(m.iterations.met);
    // A 50 % goal is met: throughput 49.68 %, and both service demands are identical in every run (0 %).
    TestResult wide = merge_iterations(runs, ConfidenceGoal{10, 3, 95, 50});
    EXPECT_TRUE(wide.iterations.met);
    // ... unless a service demand varies too much.
    runs[1].remote.cpu.busy_cpu_s = 3.0;
    EXPECT_FALSE(merge_iterations(runs, ConfidenceGoal{10, 3, 95, 50}).iterations.met);
}

TEST(MergeIterations, SingleRunWithoutAGoal) {
    TestResult one = run(2, 2.0, 8.5, 1.5, 40, 50, 12);
    one.warnings = {"w"};
    TestResult m = merge_iterations({one}, ConfidenceGoal{});
    EXPECT_EQ(m.bytes, 2 * GiB);
    EXPECT_DOUBLE_EQ(m.throughput_gbps, 8.5);
    EXPECT_DOUBLE_EQ(m.setup_ms, 12.0);
    EXPECT_DOUBLE_EQ(m.local.cpu.busy_cpu_s, 1.5);
    EXPECT_DOUBLE_EQ(m.local.cpu.all.user, 40);
    EXPECT_EQ(m.iterations.iterations, 1);
    EXPECT_EQ(m.iterations.level_pct, 0.0);  // no goal was asked for
    EXPECT_EQ(m.iterations.width_goal_pct, 0.0);
    EXPECT_TRUE(m.iterations.met);
    EXPECT_EQ(m.warnings, std::vector<std::string>{"w"});
}

TEST(MergeIterations, TrackedSeries) {
    std::vector<TestResult> runs{run(1, 1.0, 9, 1.0, 10, 0, 0), run(2, 1.0, 12, 1.0, 10, 0, 0)};
    runs[1].remote.cpu.busy_cpu_s = 4.0;
    auto t = tracked_series(runs);
    ASSERT_EQ(t.size(), 3u);
    EXPECT_EQ(t[0], (std::vector<double>{9, 12}));
    // local SD: 1e6 / 1048576 = 0.95367431640625; 1e6 / 2097152 = 0.476837158203125
    ASSERT_EQ(t[1].size(), 2u);
    EXPECT_DOUBLE_EQ(t[1][0], 0.95367431640625);
    EXPECT_DOUBLE_EQ(t[1][1], 0.476837158203125);
    // remote SD: run 2 busy 4.0 s over 2 GiB: 4e6 / 2097152 = 1.9073486328125
    EXPECT_DOUBLE_EQ(t[2][1], 1.9073486328125);
}

// ---------------------------------------------------------------- the stall record behind it

TEST(StopRule, TimedRunRecordsTheLongestWaitBetweenCalls) {
    std::atomic<bool> abort{false};
    StopRule stop;
    stop.abort = &abort;
    stop.deadline_ns = monotonic_ns() + 10'000'000'000;
    EXPECT_EQ(stop.next_length(0, 100), 100u);
    EXPECT_EQ(stop.longest_wait_ns, 0);  // one call is no wait yet
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    int64_t before = monotonic_ns();
    EXPECT_EQ(stop.next_length(100, 100), 100u);
    EXPECT_GE(stop.longest_wait_ns, 60'000'000);
    EXPECT_GE(stop.longest_wait_end_ns, before);
    int64_t longest = stop.longest_wait_ns;
    EXPECT_EQ(stop.next_length(200, 100), 100u);  // a short gap keeps the record
    EXPECT_EQ(stop.longest_wait_ns, longest);
    stop.deadline_ns = monotonic_ns();
    EXPECT_EQ(stop.next_length(300, 100), 0u);
}

// UDP stamps each datagram with the time next_length read (one clock read a call, not two); a -n run reads
// no clock there, so the stamp reads it itself.
TEST(StopRule, CallTimeIsNextLengthsReadingOrTheClock) {
    std::atomic<bool> abort{false};
    StopRule timed;
    timed.abort = &abort;
    timed.deadline_ns = monotonic_ns() + 10'000'000'000;
    int64_t before = monotonic_ns();
    EXPECT_EQ(timed.next_length(0, 100), 100u);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(timed.call_time_ns(), timed.last_call_ns);
    EXPECT_GE(timed.call_time_ns(), before);
    EXPECT_LT(timed.call_time_ns(), before + 20'000'000);
    StopRule counted;
    counted.abort = &abort;
    counted.byte_budget = 1000;
    EXPECT_EQ(counted.next_length(0, 100), 100u);
    before = monotonic_ns();
    int64_t t = counted.call_time_ns();
    EXPECT_GE(t, before);
    EXPECT_LT(t, monotonic_ns() + 1);
}

TEST(StopRule, LongestCallCrossesTheWireAndIsBounded) {
    SideResult s = side(Role::send, GiB, 14.68);
    s.longest_call_s = 12.04;
    s.longest_call_end_s = 13.9;
    SideResult back = side_result_from_json(to_json(s));
    EXPECT_DOUBLE_EQ(back.longest_call_s, 12.04);
    EXPECT_DOUBLE_EQ(back.longest_call_end_s, 13.9);
    auto j = to_json(s);
    j["longest_call_s"] = -1.0;
    EXPECT_THROW(side_result_from_json(j), ProtocolError);
    j.erase("longest_call_s");  // an older server: not measured
    EXPECT_DOUBLE_EQ(side_result_from_json(j).longest_call_s, 0.0);
}
