// End to end over loopback for TCP as its users drive it: crr and cc (a connection per
// transaction), TCP_INFO per stream on both sides (result and intervals), -C, --fq-rate, --tos, -4/-6,
// and the bad input each refuses. Real zcperf (with its embedded server) processes, 1 s runs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../transport_built.hpp"
#include "process.hpp"
#include "report.hpp"

using namespace zc::e2e;
using nlohmann::json;

namespace {

json run_json(std::vector<std::string> args) { return first_result(zcperf_report(std::move(args))); }

Outcome run_bad(std::vector<std::string> args) { return run_zcperf(std::move(args)); }

// The transaction rate's interval is the client's loops' (at least -l, until the last transaction ended),
// not the client's side's, which goes on until the server's result has come.
void expect_rate_over_the_loops(const json& r, const json& t, double seconds) {
    double loops = t["elapsed_s"].get<double>();
    EXPECT_DOUBLE_EQ(loops, r["local"]["loops_s"].get<double>());
    EXPECT_GE(loops, seconds);
    EXPECT_LT(loops, r["local"]["elapsed_s"].get<double>()) << "the rate would include the wait for the result";
    EXPECT_NEAR(t["transactions_per_s"].get<double>(), t["transactions"].get<double>() / loops, 1e-6);
}

void expect_connection_test(const json& r, const char* test, uint64_t size, int streams) {
    ASSERT_TRUE(r.contains(test)) << r.dump();
    const json& c = r[test];
    uint64_t n = c["transactions"];
    EXPECT_GT(n, 10u);
    // Both sides counted every transaction (the server's streams share its listener: totals only).
    EXPECT_EQ(r["local"]["messages"]["messages"].get<uint64_t>(), n);
    EXPECT_EQ(r["remote"]["messages"]["messages"].get<uint64_t>(), n);
    EXPECT_EQ(r["local"]["messages"]["stream_messages"].size(), static_cast<size_t>(streams));
    EXPECT_EQ(r["local"]["bytes"].get<uint64_t>(), n * size);  // one response each (crr), none (cc)
    EXPECT_EQ(r["remote"]["bytes"].get<uint64_t>(), n * size);
    EXPECT_EQ(c["samples"].get<uint64_t>(), n);
    EXPECT_GT(c["rtt_us"]["p50"].get<double>(), 0);
    EXPECT_GE(c["rtt_us"]["p99"].get<double>(), c["rtt_us"]["p50"].get<double>());
    ASSERT_TRUE(c.contains("connect_us")) << c.dump();
    EXPECT_GT(c["connect_us"]["p50"].get<double>(), 0);
    // A transaction holds its connect: the whole is longer than the connect, percentile by percentile.
    EXPECT_GE(c["rtt_us"]["p50"].get<double>(), c["connect_us"]["p50"].get<double>());
    EXPECT_FALSE(c.contains("latency_us"));  // RTT/2 means nothing for four calls
    EXPECT_GT(c["local_sd_us_per_tran"].get<double>(), 0);
    EXPECT_GT(c["remote_sd_us_per_tran"].get<double>(), 0);
    EXPECT_NE(c["measured"].get<std::string>().find("a new TCP connection per transaction"), std::string::npos);
    EXPECT_FALSE(r["local"]["connection_close"].get<std::string>().empty());
}

TEST(TcpCrr, TwoStreamsCountTheSameTransactionsOnBothSidesWithConnectLatency) {
    json r = run_json({"-t", "crr", "-m", "64", "-P", "2", "-l", "1"});
    expect_connection_test(r, "crr", 64, 2);
    expect_rate_over_the_loops(r, r["crr"], 1.0);
    EXPECT_NE(r["local"]["connection_close"].get<std::string>().find("SO_LINGER"), std::string::npos);
}

// rr's rate too (crr's and cc's are checked above): over the client's loops, which the result came after.
TEST(TcpRr, TheTransactionRateIsOverTheClientsLoops) {
    json r = run_json({"-t", "rr", "-l", "1"});
    ASSERT_TRUE(r.contains("rr")) << r.dump();
    expect_rate_over_the_loops(r, r["rr"], 1.0);
}

TEST(TcpCc, ConnectAndCloseWithAnOrderlyCloseAndIntervals) {
    json r = run_json({"-t", "cc", "--crr-close", "fin", "-l", "1", "-D", "0.5"});
    expect_connection_test(r, "cc", 0, 1);
    expect_rate_over_the_loops(r, r["cc"], 1.0);
    EXPECT_NE(r["local"]["connection_close"].get<std::string>().find("TIME_WAIT"), std::string::npos);
    ASSERT_GE(r["intervals"].size(), 2u);
    uint64_t sum = 0;
    for (const auto& row : r["intervals"]) sum += row["transactions"].get<uint64_t>();
    EXPECT_EQ(sum, r["cc"]["transactions"].get<uint64_t>());
}

TEST(TcpInfo, DeliveryIsTheMeanAcknowledgedRateNotTheKernelsLastSample) {
    // The kernel's tcpi_delivery_rate is one sample as the test stops (523 Gb/s and 0.04 Gb/s were
    // reported for 50-60 Gb/s streams); "delivery" is the bytes the receiver acknowledged over the
    // interval, which a 3 s stream's throughput must match but for the data still in flight at the edges.
    json r = run_json({"-m", "64K", "-l", "3"});
    const json& t = r["local"]["tcp_info"];
    ASSERT_EQ(t.size(), 1u) << r["local"].dump();
    double delivery_gbps = t[0]["mean_delivery_rate_Bps"].get<double>() * 8 / 1e9;
    double throughput = r["throughput_gbps"].get<double>();
    ASSERT_GT(throughput, 0.0);
    EXPECT_GT(delivery_gbps, 0.5 * throughput) << "delivery " << delivery_gbps << " Gb/s";
    EXPECT_LT(delivery_gbps, 1.5 * throughput) << "delivery " << delivery_gbps << " Gb/s";
    EXPECT_GT(t[0]["bytes_acked"].get<uint64_t>(), 0u);
    EXPECT_TRUE(t[0].contains("delivery_rate_Bps"));  // the kernel's last sample, named as that
    EXPECT_TRUE(t[0].contains("delivery_app_limited"));
}

TEST(TcpInfo, EachStreamOnBothSidesAndEveryInterval) {
    json r = run_json({"-P", "2", "-m", "64K", "-l", "1", "-D", "0.5"});
    for (const char* side : {"local", "remote"}) {
        ASSERT_TRUE(r[side].contains("tcp_info")) << side << r[side].dump();
        ASSERT_EQ(r[side]["tcp_info"].size(), 2u);
    }
    for (const auto& t : r["local"]["tcp_info"]) {  // the sender
        EXPECT_GT(t["rtt_us"].get<uint32_t>(), 0u);
        EXPECT_GT(t["cwnd"].get<uint32_t>(), 0u);
        EXPECT_GT(t["bytes_sent"].get<uint64_t>(), 0u);
        EXPECT_GT(t["delivery_rate_Bps"].get<uint64_t>(), 0u);
        EXPECT_GT(t["busy"].get<double>(), 0.0);
        EXPECT_LE(t["rwnd_limited"].get<double>() + t["sndbuf_limited"].get<double>(), t["busy"].get<double>() + 1e-9);
        EXPECT_FALSE(t["limited_by"].get<std::string>().empty()) << t.dump();
    }
    uint64_t received = 0;
    for (const auto& t : r["remote"]["tcp_info"]) received += t["bytes_received"].get<uint64_t>();
    EXPECT_GE(received, r["bytes"].get<uint64_t>());  // the receiver's kernel saw at least what it counted
    ASSERT_GE(r["intervals"].size(), 2u);
    for (const auto& row : r["intervals"]) {
        ASSERT_TRUE(row["local"].contains("tcp_info")) << row.dump();
        EXPECT_EQ(row["local"]["tcp_info"].size(), 2u);
    }
}

TEST(TcpSettings, CongestionPacingAndTosReadBackOnBothSides) {
    json r = run_json({"-C", "reno", "--fq-rate", "200M", "--tos", "0x10", "-m", "64K", "-l", "1"});
    for (const char* side : {"local", "remote"}) {
        const json& s = r[side]["tcp_settings"];
        EXPECT_EQ(s["congestion"], "reno") << side;
        EXPECT_EQ(s["max_pacing_rate_Bps"].get<uint64_t>(), 25'000'000u) << side;
        EXPECT_EQ(s["tos"].get<int>(), 0x10) << side;
        EXPECT_EQ(s["family"], "IPv4") << side;
    }
    // The cap holds: 200 Mbit/s, with the first window's burst allowed for.
    EXPECT_LT(r["throughput_gbps"].get<double>(), 0.3);
    EXPECT_GT(r["throughput_gbps"].get<double>(), 0.05);
}

TEST(TcpSettings, BindDevOnTheClientOnly) {
    json r = run_json({"--bind-dev", "lo", "-m", "64K", "-l", "0.5"});
    EXPECT_EQ(r["local"]["tcp_settings"]["bind_dev"], "lo");
    EXPECT_EQ(r["remote"]["tcp_settings"]["bind_dev"], "");  // the server's side is its own
}

TEST(TcpSettings, Ipv6OverTheLoopback) {
    Outcome probe = run_bad({"-6", "-l", "0.3", "-m", "64K", "-o", "json"});
    if (probe.exit_code != 0 && probe.err.find("::1") != std::string::npos) GTEST_SKIP() << "no IPv6 loopback here";
    json r = run_json({"-6", "-l", "0.5", "-m", "64K"});
    EXPECT_EQ(r["local"]["tcp_settings"]["family"], "IPv6");
    EXPECT_EQ(r["remote"]["tcp_settings"]["family"], "IPv6");
}

TEST(TcpBidir, BothDirectionsAtOnceEachReportedAndTheirSum) {
    json j = zcperf_report({"--bidir", "-m", "64K", "-l", "1"});
    ASSERT_EQ(j["results"].size(), 2u) << j.dump();
    const json& fwd = j["results"][0];
    const json& back = j["results"][1];
    EXPECT_EQ(fwd["test"], "stream");
    EXPECT_EQ(back["test"], "maerts");
    EXPECT_EQ(fwd["bidir"]["with"], "maerts");
    EXPECT_EQ(back["bidir"]["with"], "stream");
    double sum = fwd["throughput_gbps"].get<double>() + back["throughput_gbps"].get<double>();
    EXPECT_GT(fwd["throughput_gbps"].get<double>(), 0);
    EXPECT_GT(back["throughput_gbps"].get<double>(), 0);
    EXPECT_NEAR(fwd["bidir"]["sum_gbps"].get<double>(), sum, 1e-9);
    EXPECT_NEAR(back["bidir"]["sum_gbps"].get<double>(), sum, 1e-9);
    // Each direction's receiver counted its own bytes: the client's in maerts, the server's in stream.
    EXPECT_EQ(fwd["bytes"], fwd["remote"]["bytes"]);
    EXPECT_EQ(back["bytes"], back["local"]["bytes"]);
}

TEST(TcpBadInput, EachRefusalSaysWhatToDo) {
    struct Case {
        std::vector<std::string> args;
        const char* says;
        int exit_code;
    };
    std::vector<Case> cases = {
        {{"-C", "no-such-cc"}, "available:", 2},
        {{"--fq-rate", "0"}, "--fq-rate 0", 2},
        {{"--fq-rate", "fast"}, "is not a rate", 2},
        {{"--tos", "300"}, "0..255", 2},
        {{"--crr-close", "fin"}, "is for -t crr and -t cc", 2},
        {{"-t", "crr", "--crr-close", "reset"}, "rst", 2},
        {{"-t", "crr", "-T", "tcp-msgzc"}, "runs over -T tcp, mptcp, smc, not tcp-msgzc", 2},
        {{"-t", "cc", "-T", "udp"}, "runs over -T tcp, smc, not udp", 2},
        {{"-T", "udp", "-C", "reno"}, "is for -T tcp, tcp-sendfile, tcp-msgzc, tcp-uringzc, tls", 2},
        {{"-t", "crr", "--buffer", "pinned"}, "crr uses host memory", 2},
        {{"-t", "crr", "-n", "1M"}, "-l SECONDS", 2},
        {{"-4", "-6"}, "excludes", 2},
        {{"--bind-dev", "nosuchif0", "-l", "0.5"}, "--bind-dev nosuchif0", 1},
        {{"--bidir", "-t", "rr"}, "give -t stream", 2},
        {{"--bidir", "-D", "0.5"}, "without -i/-I or -D", 2},
    };
    for (const auto& c : cases) {
        Outcome o = run_bad(c.args);
        std::string all = o.out + o.err;
        EXPECT_EQ(o.exit_code, c.exit_code) << c.args[0] << " " << all;
        EXPECT_NE(all.find(c.says), std::string::npos) << c.args[0] << ": " << all;
    }
}

TEST(TcpBadInput, CrrOverRsocketOrVerbsSaysItIsTcps) {
    REQUIRE_RDMA_BUILT();
    for (const char* t : {"rsocket", "rdma-write", "rdma-send"}) {
        Outcome o = run_bad({"-t", "crr", "-T", t, "-H", "127.0.0.1"});
        EXPECT_EQ(o.exit_code, 2) << t << o.err;
        EXPECT_NE(o.err.find("runs over -T tcp, mptcp, smc, not " + std::string(t)), std::string::npos)
            << t << ": " << o.err;
    }
    Outcome o = run_bad({"-T", "rsocket", "-C", "reno", "-H", "127.0.0.1"});
    EXPECT_EQ(o.exit_code, 2) << o.err;
    EXPECT_NE(o.err.find("none of the transports given takes it"), std::string::npos) << o.err;
}

}  // namespace
