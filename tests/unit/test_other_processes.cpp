// Other processes' CPU time from /proc/[pid]/stat: parsing, the process table, and the load in an interval.
//
// Fixtures: tests/fixtures/pid_stat_lines.txt (one /proc/[pid]/stat line per case) and
// tests/fixtures/proc_tree/, a fake /proc:
// A process's ticks are utime + stime only: cutime/cstime (children reaped) are not counted, since a
// child reaped during the interval would bring its whole lifetime with it.
//   1/stat      systemd       utime 120 + stime 300 = 420 ticks (cutime 5000, cstime 700 not counted)
//   2/stat      kthreadd      flags 0x208040 has PF_KTHREAD (0x00200000): excluded
//   4242/stat   "tmux: server" 1000 + 250 = 1250
//   5150/stat   "a) (b"       40 + 2 = 42 (a negative cutime -3 in the line still parses)
//   888/        no stat file (the process exited between readdir and open)
//   999/stat    empty
//   net/stat, sys/stat, stat: not numeric entries, skipped though they look parsable
#include <gtest/gtest.h>
#include <unistd.h>

#include <map>
#include <sstream>

#include "fixtures.hpp"
#include "measure/other_processes.hpp"

using namespace zc;
using zc::test::fixture_path;
using zc::test::read_fixture;

namespace {

std::map<std::string, std::string> pid_stat_lines() {
    std::map<std::string, std::string> out;
    std::istringstream in(read_fixture("pid_stat_lines.txt"));
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        size_t tab = line.find('\t');
        out[line.substr(0, tab)] = line.substr(tab + 1);
    }
    return out;
}

struct Parsed {
    bool ok;
    int pid;
    ProcessTicks t;
};

Parsed parse(const std::string& line) {
    Parsed p{false, -1, {}};
    p.ok = parse_pid_stat(line, p.pid, p.t);
    return p;
}

}  // namespace

TEST(PidStat, OrdinaryProcess) {
    auto lines = pid_stat_lines();
    ASSERT_EQ(lines.size(), 9u);
    Parsed p = parse(lines.at("bash"));
    ASSERT_TRUE(p.ok);
    EXPECT_EQ(p.pid, 31337);
    EXPECT_EQ(p.t.comm, "bash");
    EXPECT_EQ(p.t.ticks, 150u + 30);  // utime + stime; cutime 20 and cstime 10 are not counted
}

TEST(PidStat, CommWithSpaces) {
    Parsed p = parse(pid_stat_lines().at("spaces"));
    ASSERT_TRUE(p.ok);
    EXPECT_EQ(p.pid, 777);
    EXPECT_EQ(p.t.comm, "Web Content");
    EXPECT_EQ(p.t.ticks, 3000u);  // 2500 + 500
}

TEST(PidStat, CommWithParenthesesInside) {
    // "778 (x) (y)) R ...": the comm runs to the *last* ')'.
    Parsed p = parse(pid_stat_lines().at("paren"));
    ASSERT_TRUE(p.ok);
    EXPECT_EQ(p.pid, 778);
    EXPECT_EQ(p.t.comm, "x) (y)");
    EXPECT_EQ(p.t.ticks, 10u);  // 7 + 3
}

TEST(PidStat, KernelThreadExcluded) {
    // flags 69238880 = 0x4208060 carries PF_KTHREAD.
    EXPECT_FALSE(parse(pid_stat_lines().at("kworker")).ok);
    // The same line with the flag cleared (0x4008060 = 67141728) is a user process with 4000 ticks.
    std::string line = pid_stat_lines().at("kworker");
    line.replace(line.find("69238880"), 8, "67141728");
    Parsed p = parse(line);
    ASSERT_TRUE(p.ok);
    EXPECT_EQ(p.t.comm, "kworker/0:1-events");
    EXPECT_EQ(p.t.ticks, 4000u);
}

TEST(PidStat, NegativeCutimeStillParses) {
    // cutime is signed in the kernel's format: -7 must not make the line malformed or wrap anything.
    Parsed p = parse(pid_stat_lines().at("negative"));
    ASSERT_TRUE(p.ok);
    EXPECT_EQ(p.pid, 4000);
    EXPECT_EQ(p.t.comm, "sh");
    EXPECT_EQ(p.t.ticks, 15u);  // utime 10 + stime 5
}

TEST(PidStat, MalformedLinesRejected) {
    auto lines = pid_stat_lines();
    for (const char* name : {"truncated", "noparen", "badpid", "badnum"})
        EXPECT_FALSE(parse(lines.at(name)).ok) << name;
    EXPECT_FALSE(parse("").ok);
    EXPECT_FALSE(parse("42 (x").ok);
    EXPECT_FALSE(parse("42 )x( S 1 1 1 0 -1 0 0 0 0 0 1 1 0 0").ok);
    EXPECT_FALSE(parse(" 42 (x) S 1 1 1 0 -1 0 0 0 0 0 1 1 0 0").ok);
    // Exactly up to cstime (field 17) is enough.
    Parsed p = parse("42 (x) S 1 1 1 0 -1 0 0 0 0 0 1 2 3 4");
    ASSERT_TRUE(p.ok);
    EXPECT_EQ(p.t.ticks, 3u);  // utime 1 + stime 2
    EXPECT_FALSE(parse("42 (x) S 1 1 1 0 -1 0 0 0 0 0 1 2 3").ok);
}

TEST(ProcessTable, FakeProcTree) {
    ProcessTable t = read_process_table(fixture_path("proc_tree"));
    ASSERT_EQ(t.size(), 3u) << "expected pids 1, 4242, 5150 only";
    ASSERT_TRUE(t.count(1));
    EXPECT_EQ(t.at(1).comm, "systemd");
    EXPECT_EQ(t.at(1).ticks, 420u);
    ASSERT_TRUE(t.count(4242));
    EXPECT_EQ(t.at(4242).comm, "tmux: server");
    EXPECT_EQ(t.at(4242).ticks, 1250u);
    ASSERT_TRUE(t.count(5150));
    EXPECT_EQ(t.at(5150).comm, "a) (b");
    EXPECT_EQ(t.at(5150).ticks, 42u);
    EXPECT_FALSE(t.count(2));    // kernel thread
    EXPECT_FALSE(t.count(555));  // from "net/stat"
    EXPECT_FALSE(t.count(556));  // from "sys/stat"
}

TEST(ProcessTable, MissingRootIsEmpty) { EXPECT_TRUE(read_process_table("/nonexistent/zcperf-proc").empty()); }

TEST(ProcessTable, LiveProcHoldsThisProcess) {
    ProcessTable t = read_process_table();
    ASSERT_TRUE(t.count(getpid()));
    EXPECT_EQ(t.at(getpid()).comm.substr(0, 6), "zcperf");  // zcperf_unit_tests, cut to 15 chars by the kernel
}

// ---------------------------------------------------------------- other_load

namespace {

ProcessTable before_table() {
    return {{100, {"nginx", 1000}}, {200, {"postgres", 500}},  {300, {"zcperf", 50}},    {400, {"oldproc", 900}},
            {500, {"cron", 10}},    {700, {"vanished", 5000}}, {800, {"backwards", 300}}};
}

ProcessTable after_table() {
    return {{100, {"nginx", 1250}},      // +250
            {200, {"postgres", 560}},    // +60
            {300, {"zcperf", 9999}},     // ourselves: excluded below
            {400, {"newproc", 30}},      // pid reused by another program: counts whole (30)
            {500, {"cron", 10}},         // idle: 0, not listed
            {600, {"make", 120}},        // appeared during the interval: counts whole (120)
            {800, {"backwards", 200}}};  // went backwards: 0, never negative
}

}  // namespace

TEST(OtherLoad, ExclusionsNewPidsReusedPidsAndTopN) {
    OtherLoad l = other_load(before_table(), after_table(), {300}, 100);
    // 250 + 60 + 30 + 120 = 460 ticks at 100 Hz = 4.6 CPU-s
    EXPECT_DOUBLE_EQ(l.cpu_s, 4.6);
    ASSERT_EQ(l.top.size(), 3u);  // the default top_n
    EXPECT_EQ(l.top[0].pid, 100);
    EXPECT_EQ(l.top[0].comm, "nginx");
    EXPECT_DOUBLE_EQ(l.top[0].cpu_s, 2.5);
    EXPECT_EQ(l.top[1].pid, 600);
    EXPECT_EQ(l.top[1].comm, "make");
    EXPECT_DOUBLE_EQ(l.top[1].cpu_s, 1.2);
    EXPECT_EQ(l.top[2].pid, 200);
    EXPECT_DOUBLE_EQ(l.top[2].cpu_s, 0.6);
}

TEST(OtherLoad, TopNLargerThanTheListKeepsAllInOrder) {
    OtherLoad l = other_load(before_table(), after_table(), {300}, 100, 10);
    ASSERT_EQ(l.top.size(), 4u);  // nginx, make, postgres, newproc; cron and backwards used nothing
    EXPECT_EQ(l.top[3].pid, 400);
    EXPECT_EQ(l.top[3].comm, "newproc");
    EXPECT_DOUBLE_EQ(l.top[3].cpu_s, 0.3);
    for (size_t i = 1; i < l.top.size(); ++i) EXPECT_GE(l.top[i - 1].cpu_s, l.top[i].cpu_s);
    for (const auto& t : l.top) {
        EXPECT_NE(t.pid, 300);  // excluded
        EXPECT_NE(t.pid, 500);  // idle
        EXPECT_NE(t.pid, 700);  // vanished
        EXPECT_NE(t.pid, 800);  // counter went backwards
    }
}

TEST(OtherLoad, SeveralExclusions) {
    // Without ourselves (300) and the same-host peer (100): 60 + 30 + 120 = 210 ticks = 2.1 s
    OtherLoad l = other_load(before_table(), after_table(), {300, 100}, 100);
    EXPECT_DOUBLE_EQ(l.cpu_s, 2.1);
    ASSERT_FALSE(l.top.empty());
    EXPECT_EQ(l.top[0].comm, "make");
    // Nothing excluded: + 9949 ticks of pid 300 = 10409 ticks = 104.09 s
    EXPECT_NEAR(other_load(before_table(), after_table(), {}, 100).cpu_s, 104.09, 1e-9);
}

TEST(OtherLoad, TicksPerSecondScales) {
    // 460 ticks at 1000 Hz = 0.46 s
    EXPECT_DOUBLE_EQ(other_load(before_table(), after_table(), {300}, 1000).cpu_s, 0.46);
}

TEST(OtherLoad, TopZeroStillCountsTheLoad) {
    OtherLoad l = other_load(before_table(), after_table(), {300}, 100, 0);
    EXPECT_TRUE(l.top.empty());
    EXPECT_DOUBLE_EQ(l.cpu_s, 4.6);
}

TEST(OtherLoad, IdenticalTablesAreNoLoad) {
    OtherLoad l = other_load(before_table(), before_table(), {}, 100);
    EXPECT_DOUBLE_EQ(l.cpu_s, 0.0);
    EXPECT_TRUE(l.top.empty());
    EXPECT_DOUBLE_EQ(other_load({}, {}, {}, 100).cpu_s, 0.0);
}

TEST(OtherLoad, FromTheFakeProcTree) {
    // "before": an empty table; every process in the tree is new and counts whole:
    // 420 + 1250 + 42 = 1712 ticks = 17.12 s at 100 Hz.
    ProcessTable after = read_process_table(fixture_path("proc_tree"));
    OtherLoad l = other_load({}, after, {}, 100);
    EXPECT_NEAR(l.cpu_s, 17.12, 1e-9);
    ASSERT_EQ(l.top.size(), 3u);
    EXPECT_EQ(l.top[0].comm, "tmux: server");
    EXPECT_DOUBLE_EQ(l.top[0].cpu_s, 12.5);
    EXPECT_EQ(l.top[1].comm, "systemd");
    EXPECT_DOUBLE_EQ(l.top[1].cpu_s, 4.2);
    EXPECT_EQ(l.top[2].comm, "a) (b");
    EXPECT_DOUBLE_EQ(l.top[2].cpu_s, 0.42);
}
