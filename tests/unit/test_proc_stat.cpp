// /proc/stat parsing, differences of two readings, and the CPU shares and CPU-seconds made of them.
//
// Fixtures (tests/fixtures/), designed with known per-field tick deltas (USER_HZ = 100):
//   proc_stat_2cpu_{before,after}.txt   2 CPUs over 2.0 s = 200 ticks per CPU
//       cpu0: user +100 (guest +30 of it), system +40, idle +40, iowait +10, irq +4, softirq +6
//       cpu1: user +20, nice +10, system +10, idle +140, iowait +10, softirq +10
//   proc_stat_4cpu_{before,after}.txt   4 CPUs (a VM with steal) over 1.0 s = 100 ticks per CPU
//       cpu0: user +50, system +20, irq +5, softirq +25          (100 % busy)
//       cpu1: user +10, system +5, idle +60, iowait +20, steal +5 (15 % busy)
//       cpu2: idle +100                                          (0 %)
//       cpu3: idle +50, steal +50                                (0 %: steal is not our work)
//   proc_stat_4cpu_unplugged_after.txt  the 4-CPU "after", but cpu2 went offline (its line is gone; the
//       aggregate still holds its frozen counters, as the kernel sums over possible CPUs) and cpu1's
//       iowait went *backwards* by 7 ticks (its 20 iowait ticks show up as idle: +80 idle).
#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "measure/cpu_meter.hpp"
#include "measure/proc_stat.hpp"
#include "protocol/result.hpp"

using namespace zc;
using zc::test::fixture_path;
using zc::test::read_fixture;

namespace {

ProcStat fixture(const std::string& name) { return parse_proc_stat(read_fixture(name)); }

const PerCpuUsage* find_cpu(const CpuUsage& u, int cpu) {
    for (const auto& c : u.per_cpu)
        if (c.cpu == cpu) return &c;
    return nullptr;
}

}  // namespace

// ---------------------------------------------------------------- parsing

TEST(ProcStatParse, TwoCpuFixture) {
    ProcStat ps = fixture("proc_stat_2cpu_before.txt");
    // cpu  1000 100 500 8000 200 50 150 0 40 0
    EXPECT_EQ(ps.all.cpu, -1);
    EXPECT_EQ(ps.all.user, 1000u);
    EXPECT_EQ(ps.all.nice, 100u);
    EXPECT_EQ(ps.all.system, 500u);
    EXPECT_EQ(ps.all.idle, 8000u);
    EXPECT_EQ(ps.all.iowait, 200u);
    EXPECT_EQ(ps.all.irq, 50u);
    EXPECT_EQ(ps.all.softirq, 150u);
    EXPECT_EQ(ps.all.steal, 0u);
    // total: 1000+100+500+8000+200+50+150+0 = 10000 (guest 40 is inside user, not added)
    EXPECT_EQ(ps.all.total(), 10000u);
    // busy: user+nice+system+irq+softirq = 1000+100+500+50+150 = 1800
    EXPECT_EQ(ps.all.busy(), 1800u);
    ASSERT_EQ(ps.per_cpu.size(), 2u);
    EXPECT_EQ(ps.per_cpu[0].cpu, 0);
    EXPECT_EQ(ps.per_cpu[0].user, 600u);
    EXPECT_EQ(ps.per_cpu[0].softirq, 20u);
    EXPECT_EQ(ps.per_cpu[1].cpu, 1);
    EXPECT_EQ(ps.per_cpu[1].idle, 4100u);
    EXPECT_EQ(ps.per_cpu[1].softirq, 130u);
}

TEST(ProcStatParse, FourCpuFixtureWithSteal) {
    ProcStat ps = fixture("proc_stat_4cpu_before.txt");
    ASSERT_EQ(ps.per_cpu.size(), 4u);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(ps.per_cpu[static_cast<size_t>(i)].cpu, i);
    EXPECT_EQ(ps.per_cpu[3].steal, 7321u);
    EXPECT_EQ(ps.per_cpu[0].idle, 98765432u);
    EXPECT_EQ(ps.all.steal, 4321u + 5321u + 6321u + 7321u);
    EXPECT_EQ(ps.all.user, 1234567u + 1134567u + 934567u + 834567u);
}

TEST(ProcStatParse, ReadFromFileEqualsParseOfText) {
    ProcStat a = read_proc_stat(fixture_path("proc_stat_4cpu_after.txt"));
    ProcStat b = fixture("proc_stat_4cpu_after.txt");
    EXPECT_EQ(a.all.total(), b.all.total());
    ASSERT_EQ(a.per_cpu.size(), b.per_cpu.size());
    for (size_t i = 0; i < a.per_cpu.size(); ++i) EXPECT_EQ(a.per_cpu[i].total(), b.per_cpu[i].total());
}

TEST(ProcStatParse, LiveProcStat) {
    ProcStat ps = read_proc_stat();
    ASSERT_FALSE(ps.per_cpu.empty());
    EXPECT_GT(ps.all.total(), 0u);
    for (size_t i = 1; i < ps.per_cpu.size(); ++i) EXPECT_LT(ps.per_cpu[i - 1].cpu, ps.per_cpu[i].cpu);
}

TEST(ProcStatParse, OldKernelWithFewerColumns) {
    // 2.4-era kernels: user nice system idle only.
    ProcStat ps = parse_proc_stat("cpu  100 2 30 400\ncpu0 100 2 30 400\n");
    EXPECT_EQ(ps.all.user, 100u);
    EXPECT_EQ(ps.all.idle, 400u);
    EXPECT_EQ(ps.all.iowait, 0u);
    EXPECT_EQ(ps.all.irq, 0u);
    EXPECT_EQ(ps.all.softirq, 0u);
    EXPECT_EQ(ps.all.steal, 0u);
    EXPECT_EQ(ps.all.total(), 532u);
    ASSERT_EQ(ps.per_cpu.size(), 1u);
}

TEST(ProcStatParse, NoTrailingNewlineAndSparseCpuNumbers) {
    ProcStat ps = parse_proc_stat("cpu  1 2 3 4 5 6 7 8 9 10\ncpu0 1 0 0 0 0 0 0 0\ncpu17 0 2 3 4 5 6 7 8");
    ASSERT_EQ(ps.per_cpu.size(), 2u);
    EXPECT_EQ(ps.per_cpu[1].cpu, 17);
    EXPECT_EQ(ps.per_cpu[1].steal, 8u);
    EXPECT_EQ(ps.all.total(), 1u + 2 + 3 + 4 + 5 + 6 + 7 + 8);  // guest 9 and guest_nice 10 ignored
}

TEST(ProcStatParse, MissingAggregateLineThrows) {
    EXPECT_THROW(parse_proc_stat(""), std::runtime_error);
    EXPECT_THROW(parse_proc_stat("cpu0 1 2 3 4 5 6 7 8\ncpu1 1 2 3 4 5 6 7 8\n"), std::runtime_error);
    EXPECT_THROW(parse_proc_stat("intr 1 2 3\nctxt 4\n"), std::runtime_error);
    EXPECT_THROW(parse_proc_stat("cpu  x 2 3 4\n"), std::runtime_error);
    EXPECT_THROW(read_proc_stat("/nonexistent/zcperf/stat"), std::runtime_error);
}

TEST(ProcStatParse, MalformedPerCpuLineIsSkipped) {
    ProcStat ps = parse_proc_stat("cpu  1 1 1 1\ncpu0 1 1 1 1\ncpuX 9 9 9 9\ncpu1 -5 1 1 1\ncpu2 2 2 2 2\n");
    ASSERT_EQ(ps.per_cpu.size(), 2u);
    EXPECT_EQ(ps.per_cpu[0].cpu, 0);
    EXPECT_EQ(ps.per_cpu[1].cpu, 2);
}

// ---------------------------------------------------------------- diff

TEST(ProcStatDiff, TwoCpuDeltas) {
    ProcStat d = diff(fixture("proc_stat_2cpu_before.txt"), fixture("proc_stat_2cpu_after.txt"));
    EXPECT_EQ(d.all.cpu, -1);
    EXPECT_EQ(d.all.user, 120u);
    EXPECT_EQ(d.all.nice, 10u);
    EXPECT_EQ(d.all.system, 50u);
    EXPECT_EQ(d.all.idle, 180u);
    EXPECT_EQ(d.all.iowait, 20u);
    EXPECT_EQ(d.all.irq, 4u);
    EXPECT_EQ(d.all.softirq, 16u);
    EXPECT_EQ(d.all.steal, 0u);
    EXPECT_EQ(d.all.total(), 400u);  // 2 CPUs x 2.0 s x 100 Hz: the guest +30 is not added
    ASSERT_EQ(d.per_cpu.size(), 2u);
    EXPECT_EQ(d.per_cpu[0].cpu, 0);
    EXPECT_EQ(d.per_cpu[0].total(), 200u);
    EXPECT_EQ(d.per_cpu[0].busy(), 150u);  // 100 + 0 + 40 + 4 + 6
    EXPECT_EQ(d.per_cpu[1].cpu, 1);
    EXPECT_EQ(d.per_cpu[1].total(), 200u);
    EXPECT_EQ(d.per_cpu[1].busy(), 50u);  // 20 + 10 + 10 + 0 + 10
}

TEST(ProcStatDiff, CounterGoingBackwardsClampsToZero) {
    ProcStat d = diff(fixture("proc_stat_4cpu_before.txt"), fixture("proc_stat_4cpu_unplugged_after.txt"));
    // cpu1: iowait 22345 -> 22338 (-7): clamped to 0, not 2^64 - 7.
    ASSERT_EQ(d.per_cpu.size(), 3u);
    const CpuTicks& c1 = d.per_cpu[1];
    EXPECT_EQ(c1.cpu, 1);
    EXPECT_EQ(c1.iowait, 0u);
    EXPECT_EQ(c1.idle, 80u);
    EXPECT_EQ(c1.user, 10u);
    EXPECT_EQ(c1.system, 5u);
    EXPECT_EQ(c1.steal, 5u);
    EXPECT_EQ(c1.total(), 100u);
    // The aggregate's iowait went backwards by the same 7 ticks: clamped too.
    EXPECT_EQ(d.all.iowait, 0u);
    EXPECT_EQ(d.all.total(), 300u);  // user 60 + system 25 + idle 130 + irq 5 + softirq 25 + steal 55
}

TEST(ProcStatDiff, EveryFieldBackwardsClamps) {
    ProcStat before = parse_proc_stat("cpu  9 9 9 9 9 9 9 9\ncpu0 9 9 9 9 9 9 9 9\n");
    ProcStat after = parse_proc_stat("cpu  1 1 1 1 1 1 1 1\ncpu0 1 1 1 1 1 1 1 1\n");
    ProcStat d = diff(before, after);
    EXPECT_EQ(d.all.total(), 0u);
    ASSERT_EQ(d.per_cpu.size(), 1u);
    EXPECT_EQ(d.per_cpu[0].total(), 0u);
    // A zero-tick interval is reported as idle, never as a division by zero.
    CpuShare s = share_of(d.all);
    EXPECT_DOUBLE_EQ(s.busy(), 0.0);
    EXPECT_DOUBLE_EQ(s.idle, 100.0);
}

TEST(ProcStatDiff, CpuMissingFromEitherReadingIsDropped) {
    // Gone from "after" (unplugged during the test):
    ProcStat d = diff(fixture("proc_stat_4cpu_before.txt"), fixture("proc_stat_4cpu_unplugged_after.txt"));
    ASSERT_EQ(d.per_cpu.size(), 3u);
    EXPECT_EQ(d.per_cpu[0].cpu, 0);
    EXPECT_EQ(d.per_cpu[1].cpu, 1);
    EXPECT_EQ(d.per_cpu[2].cpu, 3);
    // Absent from "before" (plugged in during the test):
    ProcStat d2 = diff(fixture("proc_stat_4cpu_unplugged_after.txt"), fixture("proc_stat_4cpu_after.txt"));
    ASSERT_EQ(d2.per_cpu.size(), 3u);
    EXPECT_EQ(d2.per_cpu[2].cpu, 3);
    // Matching is by CPU number, not position.
    ProcStat b = parse_proc_stat("cpu  0 0 0 0\ncpu5 10 0 0 0\ncpu7 20 0 0 0\n");
    ProcStat a = parse_proc_stat("cpu  0 0 0 0\ncpu7 25 0 0 0\n");
    ProcStat d3 = diff(b, a);
    ASSERT_EQ(d3.per_cpu.size(), 1u);
    EXPECT_EQ(d3.per_cpu[0].cpu, 7);
    EXPECT_EQ(d3.per_cpu[0].user, 5u);
}

// ---------------------------------------------------------------- shares and CPU-seconds

TEST(CpuShares, ShareOfOneDelta) {
    CpuTicks d;
    d.user = 30;
    d.nice = 5;
    d.system = 20;
    d.idle = 25;
    d.iowait = 10;
    d.irq = 2;
    d.softirq = 3;
    d.steal = 5;  // total 100
    CpuShare s = share_of(d);
    EXPECT_DOUBLE_EQ(s.user, 30);
    EXPECT_DOUBLE_EQ(s.nice, 5);
    EXPECT_DOUBLE_EQ(s.system, 20);
    EXPECT_DOUBLE_EQ(s.idle, 25);
    EXPECT_DOUBLE_EQ(s.iowait, 10);
    EXPECT_DOUBLE_EQ(s.irq, 2);
    EXPECT_DOUBLE_EQ(s.softirq, 3);
    EXPECT_DOUBLE_EQ(s.steal, 5);
    // busy = 30 + 5 + 20 + 2 + 3 = 60: iowait (10) and steal (5) are not busy.
    EXPECT_DOUBLE_EQ(s.busy(), 60);
}

// A fully busy CPU whose ticks split into parts that each round: the parts' sum may land an ulp over
// 100 (seen as 100.00000001 under load), the busy share never does.
TEST(CpuShares, FullyBusyIsNeverOverOneHundredPercent) {
    bool over = false;
    for (uint64_t user = 1; user < 300; ++user) {
        CpuTicks d;
        d.user = user;
        d.system = 3 * user + 1;
        d.softirq = 7;
        d.irq = 11;
        CpuShare s = share_of(d);
        over = over || s.user + s.nice + s.system + s.irq + s.softirq > 100.0;
        EXPECT_LE(s.busy(), 100.0) << user;
        EXPECT_NEAR(s.busy(), 100.0, 1e-9) << user;
    }
    EXPECT_TRUE(over) << "no split rounded over 100: the cap went untested";
}

TEST(CpuShares, TwoCpuUsage) {
    CpuUsage u = usage_between(fixture("proc_stat_2cpu_before.txt"), fixture("proc_stat_2cpu_after.txt"), 2.0);
    EXPECT_EQ(u.ncpus, 2);
    EXPECT_DOUBLE_EQ(u.elapsed_s, 2.0);
    // Aggregate over 400 ticks: user 120 -> 30 %, nice 10 -> 2.5 %, system 50 -> 12.5 %, irq 4 -> 1 %,
    // softirq 16 -> 4 %, iowait 20 -> 5 %, idle 180 -> 45 %. Had guest (+30) been added to the total
    // (430 ticks), user would read 27.9 %.
    EXPECT_DOUBLE_EQ(u.all.user, 30.0);
    EXPECT_DOUBLE_EQ(u.all.nice, 2.5);
    EXPECT_DOUBLE_EQ(u.all.system, 12.5);
    EXPECT_DOUBLE_EQ(u.all.irq, 1.0);
    EXPECT_DOUBLE_EQ(u.all.softirq, 4.0);
    EXPECT_DOUBLE_EQ(u.all.iowait, 5.0);
    EXPECT_DOUBLE_EQ(u.all.steal, 0.0);
    EXPECT_DOUBLE_EQ(u.all.idle, 45.0);
    EXPECT_DOUBLE_EQ(u.all.busy(), 50.0);  // 30 + 2.5 + 12.5 + 1 + 4
    // busy CPU-s = 50 % x 2 CPUs x 2.0 s = 2.0
    EXPECT_DOUBLE_EQ(u.busy_cpu_s, 2.0);
    ASSERT_EQ(u.per_cpu.size(), 2u);
    const auto* c0 = find_cpu(u, 0);
    const auto* c1 = find_cpu(u, 1);
    ASSERT_TRUE(c0 && c1);
    // cpu0 over 200 ticks: user 100 -> 50 %, system 40 -> 20 %, irq 4 -> 2 %, softirq 6 -> 3 %,
    // iowait 10 -> 5 %, idle 40 -> 20 %; busy 75 %.
    EXPECT_DOUBLE_EQ(c0->share.user, 50.0);
    EXPECT_DOUBLE_EQ(c0->share.system, 20.0);
    EXPECT_DOUBLE_EQ(c0->share.irq, 2.0);
    EXPECT_DOUBLE_EQ(c0->share.softirq, 3.0);
    EXPECT_DOUBLE_EQ(c0->share.iowait, 5.0);
    EXPECT_DOUBLE_EQ(c0->share.idle, 20.0);
    EXPECT_DOUBLE_EQ(c0->share.busy(), 75.0);
    // cpu1: user 20 -> 10 %, nice 10 -> 5 %, system 10 -> 5 %, softirq 10 -> 5 %, iowait 10 -> 5 %,
    // idle 140 -> 70 %; busy 25 %.
    EXPECT_DOUBLE_EQ(c1->share.user, 10.0);
    EXPECT_DOUBLE_EQ(c1->share.nice, 5.0);
    EXPECT_DOUBLE_EQ(c1->share.idle, 70.0);
    EXPECT_DOUBLE_EQ(c1->share.busy(), 25.0);
    // On the test's own CPUs: cpu0 75 % x 2.0 s = 1.5 CPU-s; cpu1 25 % x 2.0 s = 0.5 CPU-s.
    EXPECT_DOUBLE_EQ(busy_cpu_s_on(u, {0}), 1.5);
    EXPECT_DOUBLE_EQ(busy_cpu_s_on(u, {1}), 0.5);
    EXPECT_DOUBLE_EQ(busy_cpu_s_on(u, {0, 1}), 2.0);     // both CPUs = the whole host
    EXPECT_DOUBLE_EQ(busy_cpu_s_on(u, {1, 0, 1}), 2.0);  // a CPU named twice counts once
    EXPECT_DOUBLE_EQ(busy_cpu_s_on(u, {}), 0.0);
    EXPECT_DOUBLE_EQ(busy_cpu_s_on(u, {7}), 0.0);  // not a CPU of this host
}

TEST(CpuShares, FourCpuUsageIowaitAndStealAreNotBusy) {
    CpuUsage u = usage_between(fixture("proc_stat_4cpu_before.txt"), fixture("proc_stat_4cpu_after.txt"), 1.0);
    EXPECT_EQ(u.ncpus, 4);
    // Aggregate over 400 ticks: user 60 -> 15 %, system 25 -> 6.25 %, irq 5 -> 1.25 %,
    // softirq 25 -> 6.25 %, iowait 20 -> 5 %, steal 55 -> 13.75 %, idle 210 -> 52.5 %.
    EXPECT_DOUBLE_EQ(u.all.user, 15.0);
    EXPECT_DOUBLE_EQ(u.all.nice, 0.0);
    EXPECT_DOUBLE_EQ(u.all.system, 6.25);
    EXPECT_DOUBLE_EQ(u.all.irq, 1.25);
    EXPECT_DOUBLE_EQ(u.all.softirq, 6.25);
    EXPECT_DOUBLE_EQ(u.all.iowait, 5.0);
    EXPECT_DOUBLE_EQ(u.all.steal, 13.75);
    EXPECT_DOUBLE_EQ(u.all.idle, 52.5);
    // busy = 15 + 0 + 6.25 + 1.25 + 6.25 = 28.75 % (with iowait and steal it would be 47.5 %)
    EXPECT_DOUBLE_EQ(u.all.busy(), 28.75);
    // busy CPU-s = 28.75 % x 4 CPUs x 1.0 s = 1.15 = cpu0's 1.0 + cpu1's 0.15
    EXPECT_NEAR(u.busy_cpu_s, 1.15, 1e-12);
    ASSERT_EQ(u.per_cpu.size(), 4u);
    EXPECT_DOUBLE_EQ(find_cpu(u, 0)->share.busy(), 100.0);
    EXPECT_DOUBLE_EQ(find_cpu(u, 1)->share.busy(), 15.0);
    EXPECT_DOUBLE_EQ(find_cpu(u, 1)->share.iowait, 20.0);
    EXPECT_DOUBLE_EQ(find_cpu(u, 1)->share.steal, 5.0);
    EXPECT_DOUBLE_EQ(find_cpu(u, 2)->share.busy(), 0.0);
    EXPECT_DOUBLE_EQ(find_cpu(u, 2)->share.idle, 100.0);
    EXPECT_DOUBLE_EQ(find_cpu(u, 3)->share.busy(), 0.0);
    EXPECT_DOUBLE_EQ(find_cpu(u, 3)->share.steal, 50.0);
    EXPECT_DOUBLE_EQ(busy_cpu_s_on(u, {0}), 1.0);
    EXPECT_DOUBLE_EQ(busy_cpu_s_on(u, {0, 1}), 1.15);
    EXPECT_DOUBLE_EQ(busy_cpu_s_on(u, {2, 3}), 0.0);
    EXPECT_NEAR(busy_cpu_s_on(u, {0, 1, 2, 3}), u.busy_cpu_s, 1e-12);
}

TEST(CpuShares, UnpluggedCpuAndBackwardsCounter) {
    CpuUsage u =
        usage_between(fixture("proc_stat_4cpu_before.txt"), fixture("proc_stat_4cpu_unplugged_after.txt"), 1.0);
    // Three CPUs remain in both readings.
    EXPECT_EQ(u.ncpus, 3);
    ASSERT_EQ(u.per_cpu.size(), 3u);
    EXPECT_EQ(find_cpu(u, 2), nullptr);
    // cpu1: user 10, system 5, idle 80, iowait 0 (clamped), steal 5 over 100 ticks.
    EXPECT_DOUBLE_EQ(find_cpu(u, 1)->share.busy(), 15.0);
    EXPECT_DOUBLE_EQ(find_cpu(u, 1)->share.idle, 80.0);
    EXPECT_DOUBLE_EQ(find_cpu(u, 1)->share.iowait, 0.0);
    // Aggregate over 300 ticks: busy = 60 + 25 + 5 + 25 = 115 -> 38.333 %; steal 55 -> 18.333 %.
    EXPECT_NEAR(u.all.busy(), 115.0 / 3.0, 1e-12);
    EXPECT_NEAR(u.all.steal, 55.0 / 3.0, 1e-12);
    EXPECT_DOUBLE_EQ(u.all.iowait, 0.0);
    // busy CPU-s = 38.333 % x 3 CPUs x 1.0 s = 1.15
    EXPECT_NEAR(u.busy_cpu_s, 1.15, 1e-12);
}

TEST(CpuShares, TicksTheKernelDidNotAccountAreNotCountedBusy) {
    ProcStat b = fixture("proc_stat_2cpu_before.txt"), a = fixture("proc_stat_2cpu_after.txt");
    // The same ticks over a longer interval than they cover: the busy ticks are 2 CPU-s, and the
    // missing ticks must not be scaled into busy time (netperf's busy/total ratio would say 10).
    CpuUsage u = usage_between(b, a, 10.0);
    EXPECT_DOUBLE_EQ(u.busy_cpu_s, 2.0);
    EXPECT_DOUBLE_EQ(busy_cpu_s_on(u, {0}), 1.5);
    EXPECT_DOUBLE_EQ(u.all.busy(), 10.0);  // 200 busy ticks of 2 CPUs x 10 s x 100
    // An interval shorter than the ticks (clock read a little early) falls back to the ticks' own total.
    EXPECT_DOUBLE_EQ(usage_between(b, a, 0.0).busy_cpu_s, 0.0);
}

TEST(CpuShares, PartlyIdleTicklessCpuThatLostTicks) {
    // Seen on this VM: over 5 s, cpu0 counted 499 ticks (498 busy), cpu1 only 421 (140 busy).
    ProcStat b = parse_proc_stat("cpu  0 0 0 0 0 0 0 0\ncpu0 0 0 0 0 0 0 0 0\ncpu1 0 0 0 0 0 0 0 0\n");
    ProcStat a = parse_proc_stat("cpu  0 0 638 282 0 0 0 0\ncpu0 0 0 498 1 0 0 0 0\ncpu1 0 0 140 281 0 0 0 0\n");
    CpuUsage u = usage_between(b, a, 5.0, 100);
    EXPECT_NEAR(u.busy_cpu_s, 6.38, 1e-9);               // the busy ticks, not 638/920 x 10 = 6.93
    EXPECT_NEAR(u.per_cpu[1].share.busy(), 28.0, 1e-9);  // 140 of 500, not 140 of 421 (33.3)
    EXPECT_NEAR(u.per_cpu[0].share.busy(), 99.6, 1e-9);
}

TEST(CpuShares, NoPerCpuLinesCountsAsOneCpu) {
    ProcStat b = parse_proc_stat("cpu  100 0 100 800\n");
    ProcStat a = parse_proc_stat("cpu  150 0 150 900\n");
    CpuUsage u = usage_between(b, a, 2.0);
    EXPECT_EQ(u.ncpus, 1);
    EXPECT_TRUE(u.per_cpu.empty());
    // 100 busy of 200 ticks = 50 %; x 1 CPU x 2.0 s = 1.0 CPU-s
    EXPECT_DOUBLE_EQ(u.all.busy(), 50.0);
    EXPECT_DOUBLE_EQ(u.busy_cpu_s, 1.0);
}

TEST(CpuShares, SideResultHelpersUseTheseFigures) {
    SideResult s;
    s.bytes = 1ull << 30;  // 1 GiB = 1048576 KB
    s.cpus = {0};
    s.cpu = usage_between(fixture("proc_stat_2cpu_before.txt"), fixture("proc_stat_2cpu_after.txt"), 2.0);
    s.process_user_s = 0.25;
    s.process_sys_s = 0.75;
    EXPECT_DOUBLE_EQ(s.cpu_util_pct(), 50.0);
    // whole host: 2.0 CPU-s x 1e6 / 1048576 KB = 1.9073486328125 us/KB
    EXPECT_DOUBLE_EQ(s.service_demand_us_per_kb(), 1.9073486328125);
    // process: 1.0 CPU-s of 2 CPUs x 2.0 s = 25 %; 1.0e6 / 1048576 = 0.95367431640625 us/KB
    EXPECT_DOUBLE_EQ(s.process_cpu_util_pct(), 25.0);
    EXPECT_DOUBLE_EQ(s.process_service_demand_us_per_kb(), 0.95367431640625);
    EXPECT_DOUBLE_EQ(s.test_cpus_busy_s(), 1.5);
}
