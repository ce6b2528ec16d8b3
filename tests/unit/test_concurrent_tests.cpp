// The host's list of running tests (run/concurrent_tests.hpp) in a temporary run directory: which
// tests overlapped a measured interval and by how much, a test's own other side left out, a killed
// test told apart by its free lock, the same-CPU warning, and the result field's round trip.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "parse_cli.hpp"
#include "protocol/frame.hpp"
#include "protocol/messages.hpp"
#include "protocol/result.hpp"
#include "protocol/run_spec.hpp"
#include "run/concurrent_tests.hpp"

namespace fs = std::filesystem;
using namespace zc;
using zc::test::parse;

namespace {

struct TempRunDir {
    fs::path root = fs::temp_directory_path() / ("zc-tests-" + std::to_string(::getpid()) + "-" +
                                                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
    TempRunDir() {
        fs::remove_all(root);
        fs::create_directories(root);
    }
    ~TempRunDir() { fs::remove_all(root); }
    std::string dir() const { return root.string(); }
};

ConcurrentTestEntry entry(const std::string& peer, uint64_t token, double start, std::vector<int> cpus = {}) {
    return ConcurrentTestEntry{"zcperf", ::getpid(), peer, "tcp stream", token, std::move(cpus), start, 0};
}

}  // namespace

TEST(ConcurrentTests, OverlapsAreMeasuredOnBothSidesOfTheInterval) {
    TempRunDir run;
    double t = wall_clock_s();
    ConcurrentTestRecord before(entry("a:1", 1, t - 10), run.dir());  // ran 10 s before us, ends 3 s into our interval
    before.end(t + 3);
    ConcurrentTestRecord after(entry("b:2", 2, t + 4, {1}), run.dir());  // starts 4 s in, still running at our end
    ConcurrentTestRecord outside(entry("c:3", 3, t - 30), run.dir());    // ended before we started
    outside.end(t - 20);
    auto o = tests_overlapping(run.dir(), 99, t, t + 6, t + 6);
    ASSERT_EQ(o.size(), 2u);
    EXPECT_EQ(o[0].peer, "a:1");  // the longest overlap first
    EXPECT_NEAR(o[0].overlap_s, 3.0, 1e-3);
    EXPECT_EQ(o[1].peer, "b:2");
    EXPECT_NEAR(o[1].overlap_s, 2.0, 1e-3);
    EXPECT_EQ(o[1].cpus, std::vector<int>{1});
    EXPECT_EQ(o[1].test, "tcp stream");
    EXPECT_FALSE(o[1].died);
}

TEST(ConcurrentTests, TheSameTestsOtherSideIsNoOtherTest) {
    TempRunDir run;
    double t = wall_clock_s();
    ConcurrentTestRecord client(entry("127.0.0.1:12875", 42, t), run.dir());
    ConcurrentTestRecord server(entry("127.0.0.1:40000", 42, t), run.dir());
    EXPECT_TRUE(client.overlapping(t + 1).empty());
    EXPECT_EQ(tests_overlapping(run.dir(), 7, t, t + 1, t + 1).size(), 2u);
}

TEST(ConcurrentTests, AKilledTestIsCountedUntilItIsFoundDeadAndNotAfter) {
    TempRunDir run;
    double t = wall_clock_s();
    // What kill -9 leaves: a file with a start, no end, and nobody holding its lock.
    write_file_atomically(run.dir() + "/999999-0.test", format_key_values({{"program", "zcperf"},
                                                                           {"pid", "999999"},
                                                                           {"peer", "x:1"},
                                                                           {"test", "tcp stream"},
                                                                           {"token", "5"},
                                                                           {"start", std::to_string(t - 5)}}));
    auto seen = tests_overlapping(run.dir(), 1, t - 2, t, t);
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_TRUE(seen[0].died);
    EXPECT_NEAR(seen[0].overlap_s, 2.0, 1e-3);
    EXPECT_NE(describe(seen[0]).find("it died"), std::string::npos);
    // From now on it has an end: a test that starts later does not count it.
    EXPECT_TRUE(tests_overlapping(run.dir(), 1, t + 1, t + 2, t + 2).empty());
}

TEST(ConcurrentTests, ARunningTestHoldsItsLockAndARecordEndsWhenDestroyed) {
    TempRunDir run;
    double t = wall_clock_s();
    {
        ConcurrentTestRecord r(entry("a:1", 1, t), run.dir());
        auto o = tests_overlapping(run.dir(), 2, t, t + 100, t + 0.5);  // it runs: counted up to now
        ASSERT_EQ(o.size(), 1u);
        EXPECT_NEAR(o[0].overlap_s, 0.5, 1e-3);
        EXPECT_FALSE(o[0].died);
    }
    auto o = tests_overlapping(run.dir(), 2, t, t + 100, wall_clock_s() + 50);
    ASSERT_EQ(o.size(), 1u);
    EXPECT_LT(o[0].overlap_s, 5.0) << "a record destroyed without end() must still say when it ended";
    EXPECT_FALSE(o[0].died);
}

TEST(ConcurrentTests, TwoTestsPinnedToOneCpuAreWarnedNamingIt) {
    ConcurrentTest other{"zcperf", 812, "10.0.0.2:12875", "tcp stream", 3.0, {1, 2}, false};
    auto w = shared_cpu_warnings({0, 1}, {other});
    ASSERT_EQ(w.size(), 1u);
    EXPECT_EQ(w[0].rfind("CPU 1 was the data CPU of this test and of another test", 0), 0u) << w[0];
    EXPECT_NE(w[0].find("zcperf pid 812 (peer 10.0.0.2:12875, tcp stream, CPUs 1-2) for 3.0 s"), std::string::npos)
        << w[0];
    EXPECT_TRUE(shared_cpu_warnings({3}, {other}).empty());
    EXPECT_TRUE(shared_cpu_warnings({}, {other}).empty()) << "an unpinned test shares no named CPU";
}

TEST(ConcurrentTests, SharedWithTravelsInTheResult) {
    SideResult s;
    s.host = "h";
    s.cpu.ncpus = 2;
    s.shared_with.push_back({"zcserver", 7, "10.0.0.3:5000", "tcp-msgzc stream", 1.5, {2}, true});
    SideResult back = side_result_from_json(to_json(s));
    ASSERT_EQ(back.shared_with.size(), 1u);
    EXPECT_EQ(back.shared_with[0].program, "zcserver");
    EXPECT_EQ(back.shared_with[0].pid, 7);
    EXPECT_EQ(back.shared_with[0].cpus, std::vector<int>{2});
    EXPECT_DOUBLE_EQ(back.shared_with[0].overlap_s, 1.5);
    EXPECT_TRUE(back.shared_with[0].died);
    EXPECT_TRUE(back.host_shared());
    nlohmann::json old = to_json(s);
    old.erase("shared_with");  // an older server
    EXPECT_TRUE(side_result_from_json(old).shared_with.empty());
}

TEST(ConcurrentTests, WaitOptionsParseAndTravelWithTheirBounds) {
    ClientOptions o;
    ASSERT_EQ(parse({"--irq-wait", "30", "--server-wait", "2.5"}, o), -1);
    EXPECT_DOUBLE_EQ(o.params.irq_wait_s, 30);
    EXPECT_DOUBLE_EQ(o.params.server_wait_s, 2.5);
    EXPECT_EQ(parse({"--irq-wait", "-1"}), 2);
    EXPECT_EQ(parse({"--server-wait", "4000"}), 2) << "over an hour";
    HalfSpec s;
    s.irq_wait_s = 30;
    s.server_wait_s = 2.5;
    nlohmann::json j = to_json(s);
    EXPECT_DOUBLE_EQ(half_spec_from_json(j).irq_wait_s, 30);
    EXPECT_DOUBLE_EQ(half_spec_from_json(j).server_wait_s, 2.5);
    j.erase("irq_wait_s");  // an older client: refused at once
    j.erase("server_wait_s");
    EXPECT_EQ(half_spec_from_json(j).irq_wait_s, 0.0);
    EXPECT_EQ(half_spec_from_json(j).server_wait_s, 0.0);
    j["irq_wait_s"] = 1e6;
    EXPECT_THROW(half_spec_from_json(j), ProtocolError);
    // The ready carries the wait.
    Ready r{4000, 7, 1.5};
    auto back = std::get<Ready>(decode_body(encode_message(r).substr(kFrameHeaderSize)));
    EXPECT_DOUBLE_EQ(back.waited_s, 1.5);
}
