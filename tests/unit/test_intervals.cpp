// --interval: the partition arithmetic, pairing both sides' intervals, the interval
// message's bounds, the welcome's feature list, the option's errors and the report writers.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "iterations.hpp"
#include "parse_cli.hpp"
#include "protocol/interval.hpp"
#include "protocol/messages.hpp"
#include "report/report_writer.hpp"
#include "run_driver.hpp"

using namespace zc;
using zc::test::parse;

namespace {

// Two CPUs; `busy` ticks of user time on each CPU since the start, the rest of 100 ticks/s idle.
ProcStat stat_at(double t_s, uint64_t busy_ticks) {
    ProcStat s;
    uint64_t total = static_cast<uint64_t>(t_s * 100);
    for (int c = 0; c < 2; ++c) {
        CpuTicks t;
        t.cpu = c;
        t.user = busy_ticks;
        t.idle = total - busy_ticks;
        s.per_cpu.push_back(t);
        s.all.user += t.user;
        s.all.idle += t.idle;
    }
    return s;
}

IntervalReading reading(double t, uint64_t bytes, uint64_t busy_ticks = 0, double thread_cpu = 0) {
    IntervalReading r;
    r.t_s = t;
    r.bytes = bytes;
    r.stat = stat_at(t, busy_ticks);
    r.thread_cpu_s = thread_cpu;
    return r;
}

SideInterval side(uint32_t index, double start, double end, uint64_t bytes, uint64_t messages = 0) {
    SideInterval s;
    s.index = index;
    s.start_s = start;
    s.end_s = end;
    s.bytes = bytes;
    s.messages = messages;
    return s;
}

}  // namespace

TEST(Intervals, ConsecutiveReadingsPartitionTheTotalsExactly) {
    // Uneven edges (a late wake-up), a stalled interval and a short last one: the counts still add up.
    std::vector<IntervalReading> r = {reading(0, 0), reading(0.1, 1000003, 10, 0.05), reading(0.2031, 2000000, 20, 0.1),
                                      reading(0.3, 2000000, 21, 0.1), reading(0.3104, 2100017, 22, 0.11)};
    uint64_t sum = 0;
    double seconds = 0, cpu = 0;
    for (size_t i = 1; i < r.size(); ++i) {
        SideInterval s = interval_between(r[i - 1], r[i], static_cast<uint32_t>(i - 1));
        EXPECT_EQ(s.index, i - 1);
        EXPECT_DOUBLE_EQ(s.start_s, r[i - 1].t_s);
        EXPECT_DOUBLE_EQ(s.end_s, r[i].t_s);
        sum += s.bytes;
        seconds += s.duration_s();
        cpu += s.process_cpu_s;
    }
    EXPECT_EQ(sum, r.back().bytes);
    EXPECT_DOUBLE_EQ(seconds, r.back().t_s);
    EXPECT_NEAR(cpu, 0.11, 1e-12);
    SideInterval stalled = interval_between(r[2], r[3], 2);
    EXPECT_EQ(stalled.bytes, 0u);
}

TEST(Intervals, CpuOfAnIntervalComesFromItsTicks) {
    // 10 busy ticks on each of 2 CPUs over 0.1 s (capacity 10 ticks each): all busy, 0.2 CPU-seconds.
    SideInterval s = interval_between(reading(0, 0), reading(0.1, 1 << 20, 10, 0.08), 0);
    EXPECT_NEAR(s.cpu_util_pct, 100.0, 1e-9);
    EXPECT_NEAR(s.busy_cpu_s, 0.2, 1e-9);
    EXPECT_NEAR(s.process_cpu_s, 0.08, 1e-12);
    EXPECT_NEAR(s.service_demand_us_per_kb(), 0.2 * 1e6 / 1024, 1e-6);
    // Half busy over the next 0.1 s.
    SideInterval h = interval_between(reading(0.1, 1 << 20, 10), reading(0.2, 2 << 20, 15), 1);
    EXPECT_NEAR(h.cpu_util_pct, 50.0, 1e-9);
}

TEST(Intervals, RoundTripPercentilesAreThoseOfTheIntervalOnly) {
    LatencyHistogram h;
    h.prepare();
    for (int i = 0; i < 1000; ++i) h.record(100'000);  // 100 us before the edge
    IntervalReading a = reading(0, 0);
    a.rtt = h.snapshot();
    for (int i = 0; i < 98; ++i) h.record(10'000);  // 10 us after it, and two slow ones
    h.record(1'000'000);
    h.record(1'000'000);
    IntervalReading b = reading(0.1, 0);
    b.rtt = h.snapshot();
    SideInterval s = interval_between(a, b, 0);
    EXPECT_EQ(s.rtt_samples, 100u);
    EXPECT_NEAR(s.rtt_p50_us, 10.0, 0.1);
    EXPECT_NEAR(s.rtt_p99_us, 1000.0, 5.0);
    // No round trips (not rr): zeros.
    SideInterval none = interval_between(reading(0, 0), reading(0.1, 5), 0);
    EXPECT_EQ(none.rtt_samples, 0u);
    EXPECT_EQ(none.rtt_p99_us, 0.0);
}

TEST(Intervals, PairerWaitsForBothSidesThenHandsRowsOutInOrder) {
    // Stream test, the client sends: the rows carry the server's (receiver's) counts.
    IntervalPairer p(Workload::stream, false, true, 1.0, 1);
    p.add_local(side(0, 0, 1, 1250000000));
    EXPECT_TRUE(p.take().empty());  // the server's half is not in yet
    p.add_remote(side(0, 0.001, 1.001, 1250000001));
    p.add_remote(side(1, 1.001, 2.001, 0));
    auto rows = p.take();
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].bytes, 1250000001u);
    EXPECT_DOUBLE_EQ(rows[0].start_s, 0.001);
    EXPECT_NEAR(rows[0].throughput_gbps, 10.000000008, 1e-6);
    ASSERT_TRUE(rows[0].local && rows[0].remote);
    EXPECT_FALSE(rows[0].stall);
    p.add_local(side(1, 1, 2, 0));
    rows = p.take();
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_TRUE(rows[0].stall) << "a whole interval without a byte is a stall";
    // The end: the counting side's last sliver, which the client never had, still comes out.
    p.add_remote(side(2, 2.001, 2.0013, 0));
    EXPECT_TRUE(p.take().empty()) << "the client's interval 2 may still come";
    rows = p.take(true);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_FALSE(rows[0].local);
    EXPECT_FALSE(rows[0].stall) << "a sliver at the end is no stall";
    EXPECT_TRUE(p.take(true).empty());
}

TEST(Intervals, PairerMatchesByEdgeWhenOneSideSkippedSome) {
    // maerts: the client receives and counts. The server was stopped from 0.75 s to 2.25 s, so its
    // sampler woke once, late: one interval 3 over [0.75, 2.25], then 9.
    IntervalPairer p(Workload::maerts, true, true, 0.25, 1);
    for (uint32_t i = 3; i < 10; ++i) p.add_local(side(i, i * 0.25, (i + 1) * 0.25, i == 3 ? 100 : 0));
    p.add_remote(side(3, 0.75, 2.25, 100));
    auto rows = p.take();
    ASSERT_EQ(rows.size(), 1u) << "4..9 wait for the server";
    p.add_remote(side(9, 2.25, 2.5, 5));
    rows = p.take();
    ASSERT_EQ(rows.size(), 6u);  // 4..8 without the server's half, 9 with it
    EXPECT_FALSE(rows[0].remote);
    EXPECT_TRUE(rows[0].stall);
    ASSERT_TRUE(rows[5].remote);
    EXPECT_EQ(rows[5].index, 9u);
    EXPECT_THROW(p.add_remote(side(4, 1, 1.25, 0)), ProtocolError) << "intervals only move forward";
}

TEST(Intervals, PairerWithoutServerSamplesUsesOursAlone) {
    IntervalPairer p(Workload::rr, true, false, 0.5, 2);
    p.add_local(side(0, 0, 0.5, 100, 5000));
    auto rows = p.take();
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].iteration, 2);
    EXPECT_EQ(rows[0].messages, 5000u);
    EXPECT_DOUBLE_EQ(rows[0].messages_per_s, 10000.0);
    EXPECT_FALSE(rows[0].remote);
}

TEST(Intervals, MessageRoundTripsAndIsBounded) {
    SideInterval s = side(7, 0.7, 0.8, 123456789, 42);
    s.cpu_util_pct = 55.5;
    s.busy_cpu_s = 0.111;
    s.process_cpu_s = 0.09;
    s.rtt_samples = 42;
    s.rtt_p50_us = 21.5;
    s.rtt_p99_us = 80.25;
    Message m = decode_body(encode_body(IntervalMsg{s}));
    auto* i = std::get_if<IntervalMsg>(&m);
    ASSERT_NE(i, nullptr);
    EXPECT_EQ(i->sample.index, 7u);
    EXPECT_EQ(i->sample.bytes, 123456789u);
    EXPECT_EQ(i->sample.messages, 42u);
    EXPECT_DOUBLE_EQ(i->sample.cpu_util_pct, 55.5);
    EXPECT_DOUBLE_EQ(i->sample.rtt_p99_us, 80.25);
    EXPECT_STREQ(message_name(m), "interval");

    nlohmann::json good = to_json(s);
    auto refused = [&](const char* field, nlohmann::json v) {
        nlohmann::json bad = good;
        if (v.is_discarded())
            bad.erase(field);
        else
            bad[field] = v;
        std::string body = nlohmann::json{{"type", "interval"}, {"sample", bad}}.dump();
        EXPECT_THROW(decode_body(body), ProtocolError) << field << " = " << v.dump();
    };
    refused("index", -1);
    refused("index", 1e12);
    refused("bytes", -5);
    refused("bytes", "many");
    refused("cpu_util_pct", 100.01);
    refused("start_s", 1e300);
    refused("end_s", 0.5);  // before start_s
    refused("rtt_p50_us", nlohmann::json(nlohmann::json::value_t::discarded));
    EXPECT_THROW(decode_body(R"({"type":"interval"})"), ProtocolError);
    EXPECT_THROW(decode_body(R"({"type":"interval","sample":[]})"), ProtocolError);
}

TEST(Intervals, WelcomeListsTheFeatureAndAnOlderOneDoesNot) {
    Welcome w;
    w.software = "zcserver test";
    w.has_host = true;
    w.host.hostname = "h";
    w.features = {kFeatureIntervals};
    Message m = decode_body(encode_body(w));
    EXPECT_TRUE(std::get<Welcome>(m).has_feature(kFeatureIntervals));
    // An older server's welcome: no "features" at all.
    nlohmann::json old = nlohmann::json::parse(encode_body(w));
    old.erase("features");
    Welcome o = std::get<Welcome>(decode_body(old.dump()));
    EXPECT_FALSE(o.has_feature(kFeatureIntervals));
    TestParams p;
    EXPECT_EQ(interval_support_problem(p, o), "") << "no --interval: nothing to say";
    p.interval_s = 1;
    EXPECT_NE(interval_support_problem(p, o).find("sends no interval samples"), std::string::npos);
    EXPECT_EQ(interval_support_problem(p, std::get<Welcome>(m)), "");
}

TEST(Intervals, SpecCarriesTheIntervalAndRefusesBadOnes) {
    HalfSpec s;
    s.duration_s = 5;
    s.interval_s = 0.25;
    nlohmann::json j = to_json(s);
    EXPECT_DOUBLE_EQ(half_spec_from_json(j).interval_s, 0.25);
    j.erase("interval_s");  // an older client
    EXPECT_EQ(half_spec_from_json(j).interval_s, 0.0);
    for (double bad : {0.001, 6.0, -1.0}) {
        j["interval_s"] = bad;
        EXPECT_THROW(half_spec_from_json(j), ProtocolError) << bad;
    }
    j["total_bytes"] = 1 << 30;  // a byte total has no duration to exceed
    j["duration_s"] = 0;
    j["interval_s"] = 6.0;
    EXPECT_NO_THROW(half_spec_from_json(j));
}

TEST(Intervals, OptionErrorsExitWith2) {
    ClientOptions o;
    ASSERT_EQ(parse({"-D", "0.5", "-l", "5"}, o), -1);
    EXPECT_DOUBLE_EQ(o.params.interval_s, 0.5);
    ClientOptions o2;
    ASSERT_EQ(parse({"--interval", "1"}, o2), -1);
    EXPECT_DOUBLE_EQ(o2.params.interval_s, 1);
    EXPECT_EQ(parse({"-D", "0.005"}), 2) << "under 10 ms";
    EXPECT_EQ(parse({"-D", "0"}), -1) << "0 is off";
    EXPECT_EQ(parse({"-D", "-1"}), 2);
    EXPECT_EQ(parse({"-D", "11"}), 2) << "longer than the default 10 s test";
    EXPECT_EQ(parse({"-D", "3", "-l", "2"}), 2);
    EXPECT_EQ(parse({"-D", "3", "-n", "1G"}), -1) << "a byte total has no length to exceed";
    EXPECT_EQ(parse({"-D", "abc"}), 2);
    EXPECT_EQ(parse({"-D", "0.01", "-l", "3600"}), 2) << "360000 intervals: too many to keep";
    EXPECT_EQ(parse({"-D", "0.05", "-l", "3600"}), -1);
    EXPECT_EQ(parse({"--csv-intervals", "/tmp/x.csv"}), 2) << "needs --interval";
    EXPECT_EQ(parse({"--json-stream", "-o", "json"}), 2);
    ClientOptions o3;
    ASSERT_EQ(parse({"--json-stream", "-D", "1"}, o3), -1);
    EXPECT_EQ(o3.output, "json-stream");
    ClientOptions o4;
    ASSERT_EQ(parse({"-D", "1", "-l", "1"}, o4), -1) << "an interval as long as the test";
}

TEST(Intervals, ErrorMessageSaysWhatToDo) {
    ClientOptions o;
    o.params.interval_s = 0.001;
    try {
        check_interval(o);
        FAIL() << "no error";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("0.01 s or more"), std::string::npos) << e.what();
    }
    o.params.interval_s = 20;
    try {
        check_interval(o);
        FAIL() << "no error";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("longer than the test"), std::string::npos) << e.what();
    }
}

namespace {
TestResult result_with_intervals(int iteration, uint64_t a, uint64_t b) {
    TestResult r;
    r.interval_s = 1;
    r.bytes = a + b;
    r.elapsed_s = 2;
    r.throughput_gbps = 1;
    IntervalPairer p(Workload::stream, true, true, 1, iteration);
    p.add_local(side(0, 0, 1, a));
    p.add_local(side(1, 1, 2, b));
    p.add_remote(side(0, 0, 1, a));
    p.add_remote(side(1, 1, 2, b));
    r.intervals = p.take(true);
    return r;
}
}  // namespace

TEST(Intervals, RepetitionsKeepEveryRunsIntervalsTagged) {
    std::vector<TestResult> runs = {result_with_intervals(1, 10, 20), result_with_intervals(2, 30, 40)};
    TestResult m = merge_iterations(runs, ConfidenceGoal{});
    ASSERT_EQ(m.intervals.size(), 4u);
    uint64_t sum = 0;
    for (const auto& row : m.intervals) sum += row.bytes;
    EXPECT_EQ(sum, m.bytes);
    EXPECT_EQ(m.intervals[2].iteration, 2);
    nlohmann::json j = to_json(m);
    ASSERT_EQ(j["intervals"].size(), 4u);
    EXPECT_EQ(j["intervals"][3]["bytes"], 40);
    EXPECT_EQ(j["intervals"][3]["iteration"], 2);
    EXPECT_TRUE(j["intervals"][0]["local"].contains("service_demand_us_per_kb"));
}

TEST(Intervals, WritersShowEachInterval) {
    TestParams p;
    p.interval_s = 1;
    TestResult r = result_with_intervals(1, 1250000000, 0);
    std::ostringstream human, stream, csv;
    auto h = make_human_report(human);
    auto s = make_json_stream_report(stream);
    auto c = make_csv_intervals_report(csv);
    for (auto* w : {h.get(), s.get(), c.get()}) {
        w->begin(ReportHeader{});
        for (const auto& row : r.intervals) w->interval(p, row);
    }
    EXPECT_NE(human.str().find("10.00 Gb/s"), std::string::npos) << human.str();
    EXPECT_NE(human.str().find("STALL"), std::string::npos) << human.str();
    std::istringstream lines(stream.str());
    std::string line;
    std::vector<nlohmann::json> events;
    while (std::getline(lines, line)) events.push_back(nlohmann::json::parse(line));
    ASSERT_EQ(events.size(), 3u);
    EXPECT_EQ(events[0]["event"], "start");
    EXPECT_EQ(events[1]["event"], "interval");
    EXPECT_EQ(events[1]["bytes"], 1250000000u);
    EXPECT_EQ(events[2]["stall"], true);
    std::istringstream rows(csv.str());
    std::string header, first, second;
    std::getline(rows, header);
    std::getline(rows, first);
    std::getline(rows, second);
    auto cells = [](const std::string& x) {
        std::vector<std::string> out(1);
        for (char ch : x) {
            if (ch == ',')
                out.emplace_back();
            else
                out.back().push_back(ch);
        }
        return out;
    };
    auto names = cells(header);
    ASSERT_EQ(names.size(), cells(first).size());
    EXPECT_EQ(header.rfind("transport,rx,test,message_size,streams,iteration,index,start_s,end_s,bytes", 0), 0u);
    size_t stall = std::find(names.begin(), names.end(), "stall") - names.begin();
    ASSERT_LT(stall, names.size());
    EXPECT_EQ(cells(first)[stall], "0");
    EXPECT_EQ(cells(second)[stall], "1");
    EXPECT_NE(std::find(names.begin(), names.end(), "remote_cpu_util_pct"), names.end());
}
