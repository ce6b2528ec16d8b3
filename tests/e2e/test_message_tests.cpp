// End to end over loopback for the message tests: rr (request/response latency) and msgrate
// (message rate), real zcperf and zcserver processes, checked through their reports.
#include <gtest/gtest.h>

#include <signal.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "process.hpp"
#include "report.hpp"
#include "protocol/frame.hpp"
#include "protocol/messages.hpp"
#include "tcp/tcp_socket.hpp"

using namespace zc::e2e;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

void expect_rr_result(const json& r, uint64_t size, int streams) {
    ASSERT_TRUE(r.contains("rr")) << r.dump();
    const json& rr = r["rr"];
    EXPECT_EQ(r["test"], "rr");
    EXPECT_EQ(r["message_size"].get<uint64_t>(), size);
    uint64_t n = rr["transactions"];
    EXPECT_GT(n, 0u);
    // Counted by both sides, stream by stream, and equal (zcperf refuses to report otherwise).
    EXPECT_EQ(r["local"]["messages"]["messages"].get<uint64_t>(), n);
    EXPECT_EQ(r["remote"]["messages"]["messages"].get<uint64_t>(), n);
    EXPECT_EQ(r["local"]["messages"]["stream_messages"], r["remote"]["messages"]["stream_messages"]);
    EXPECT_EQ(r["local"]["messages"]["stream_messages"].size(), static_cast<size_t>(streams));
    // Each side received one message per transaction.
    EXPECT_EQ(r["local"]["bytes"].get<uint64_t>(), n * size);
    EXPECT_EQ(r["remote"]["bytes"].get<uint64_t>(), n * size);
    EXPECT_EQ(rr["samples"].get<uint64_t>(), n);
    EXPECT_NEAR(rr["transactions_per_s"].get<double>(), n / rr["elapsed_s"].get<double>(), 1e-6 * n);
    const json& t = rr["rtt_us"];
    double prev = 0;
    for (const char* k : {"min", "p50", "p90", "p99", "p99.9", "max"}) {
        ASSERT_TRUE(t.contains(k)) << k;
        EXPECT_GE(t[k].get<double>(), prev) << k << " below the previous percentile: " << t.dump();
        prev = t[k].get<double>();
    }
    EXPECT_GT(t["min"].get<double>(), 0.0);
    EXPECT_GE(t["mean"].get<double>(), t["min"].get<double>());
    EXPECT_LE(t["mean"].get<double>(), t["max"].get<double>());
    EXPECT_DOUBLE_EQ(rr["latency_us"]["mean"].get<double>(), t["mean"].get<double>() / 2);
    EXPECT_DOUBLE_EQ(rr["latency_us"]["p99"].get<double>(), t["p99"].get<double>() / 2);
    EXPECT_EQ(rr["latency_definition"], "RTT/2");
    EXPECT_GE(rr["client_calls_per_tran"].get<double>(), 2.0);  // one send and at least one recv
    for (const char* k : {"local_sd_us_per_tran", "remote_sd_us_per_tran", "local_proc_sd_us_per_tran",
                          "remote_proc_sd_us_per_tran", "transactions_per_s"}) {
        ASSERT_TRUE(rr.contains(k)) << k;
        EXPECT_GE(rr[k].get<double>(), 0.0) << k;
    }
    EXPECT_GT(rr["local_sd_us_per_tran"].get<double>(), 0.0);
}

}  // namespace

TEST(MessageTestsE2e, RrOneByteAndFourKiBAgainstTheEmbeddedServer) {
    auto o = run({zcperf_bin(), "-t", "rr", "-m", "1,4K", "-l", "1", "--cpu", "0,1", "-o", "json"});
    json j = ok_report(o);
    ASSERT_EQ(j["results"].size(), 2u);
    expect_rr_result(j["results"][0], 1, 1);
    expect_rr_result(j["results"][1], 4096, 1);
    // 1-byte messages: exactly one send and one recv per transaction, nothing else in the loop.
    EXPECT_DOUBLE_EQ(j["results"][0]["rr"]["client_calls_per_tran"].get<double>(), 2.0);
    EXPECT_EQ(j["results"][0]["local"]["cpus"], json({0}));
    EXPECT_EQ(j["results"][0]["remote"]["cpus"], json({1}));
}

TEST(MessageTestsE2e, RrSeveralStreamsAndLargeMessagesAgainstADaemon) {
    LocalServer server;
    auto o =
        run({zcperf_bin(), "-H", server.address(), "-t", "rr", "-P", "2", "-m", "64K,64M", "-l", "0.5", "-o", "json"},
            120s);
    json j = ok_report(o);
    ASSERT_EQ(j["results"].size(), 2u);
    expect_rr_result(j["results"][0], 65536, 2);
    expect_rr_result(j["results"][1], 64ull << 20, 2);
}

TEST(MessageTestsE2e, RrRepetitionsMergeTransactions) {
    auto o = run({zcperf_bin(), "-t", "rr", "-l", "0.3", "-i", "2,2", "-o", "json"});
    json j = ok_report(o);
    const json& r = j["results"][0];
    EXPECT_EQ(r["iterations"]["count"], 2);
    expect_rr_result(r, 1, 1);
}

TEST(MessageTestsE2e, MsgrateTwoThreadsCountEveryMessage) {
    LocalServer server;
    auto o = run({zcperf_bin(), "-H", server.address(), "-t", "msgrate", "-P", "2", "-l", "1", "--cpu", "0+1,0+1", "-o",
                  "json"});
    json j = ok_report(o);
    const json& r = j["results"][0];
    ASSERT_TRUE(r.contains("msgrate")) << r.dump();
    const json& m = r["msgrate"];
    EXPECT_EQ(r["message_size"], 2);
    uint64_t n = m["messages"];
    EXPECT_GT(n, 0u);
    EXPECT_EQ(r["local"]["messages"]["messages"].get<uint64_t>(), n);
    EXPECT_EQ(r["remote"]["messages"]["messages"].get<uint64_t>(), n);
    EXPECT_EQ(r["local"]["bytes"].get<uint64_t>(), 2 * n);
    ASSERT_EQ(m["stream_messages_per_s"].size(), 2u);
    double sum = 0;
    for (const auto& v : m["stream_messages_per_s"]) {
        EXPECT_GT(v.get<double>(), 0.0);
        sum += v.get<double>();
    }
    EXPECT_NEAR(sum, m["messages_per_s"].get<double>(), 1e-6 * sum);
    EXPECT_EQ(m["batch"], 1);
    EXPECT_DOUBLE_EQ(m["sender_calls_per_message"].get<double>(), 1.0);
    EXPECT_GT(m["sender_segments_per_message"].get<double>(), 0.0);
    EXPECT_LE(m["sender_segments_per_message"].get<double>(), 1.0);
    EXPECT_NE(m["measured"].get<std::string>().find("TCP_NODELAY"), std::string::npos);
    EXPECT_EQ(r["local"]["cpus"], json({0, 1}));
}

TEST(MessageTestsE2e, MsgrateBatchesWithSendmmsg) {
    auto o = run({zcperf_bin(), "-t", "msgrate", "--batch", "16", "-m", "8", "-l", "0.5", "-o", "json"});
    json j = ok_report(o);
    const json& m = j["results"][0]["msgrate"];
    EXPECT_EQ(m["batch"], 16);
    EXPECT_NEAR(m["sender_calls_per_message"].get<double>(), 1.0 / 16, 1e-3);
    EXPECT_EQ(m["messages"].get<uint64_t>() * 8, j["results"][0]["remote"]["bytes"].get<uint64_t>());
}

TEST(MessageTestsE2e, HumanAndCsvReportsCarryTheRrColumns) {
    auto human = run({zcperf_bin(), "-t", "rr,msgrate", "-l", "0.3"});
    ASSERT_EQ(human.exit_code, 0) << human.err;
    for (const char* s : {"trans/s", "RTT us", "lat us", "SD us/Tran", "transactions counted by both sides", "msgs/s",
                          "messages counted by both sides", "TCP_NODELAY"}) {
        EXPECT_NE(human.out.find(s), std::string::npos) << s << " missing from:\n" << human.out;
    }
    auto csv = run({zcperf_bin(), "-t", "rr", "-l", "0.3", "-o", "csv"});
    ASSERT_EQ(csv.exit_code, 0) << csv.err;
    std::string header = csv.out.substr(0, csv.out.find('\n'));
    for (const char* c : {",messages,", ",messages_per_s,", ",rtt_p50_us,", ",rtt_p99.9_us,", ",latency_us,",
                          ",local_sd_us_per_msg,", ",remote_sd_us_per_msg,"}) {
        EXPECT_NE(header.find(c), std::string::npos) << c;
    }
}

TEST(MessageTestsE2e, BadCombinationsAreClearErrors) {
    struct Case {
        std::vector<std::string> args;
        const char* says;
    } cases[] = {
        {{"-t", "rr", "-n", "1G"}, "runs for a time"}, {{"-t", "rr", "-T", "tcp-msgzc"}, "rr runs over tcp"},
        {{"-t", "msgrate", "--rx", "splice"}, "--rx"}, {{"-t", "rr", "--batch", "4"}, "--batch is for -t msgrate"},
        {{"-t", "rr", "-m", "2G"}, "1 B..1G"},
    };
    for (const auto& c : cases) {
        std::vector<std::string> argv{zcperf_bin()};
        argv.insert(argv.end(), c.args.begin(), c.args.end());
        auto o = run(argv, 10s);
        EXPECT_EQ(o.exit_code, 2) << c.args[1] << " " << c.args[2];
        EXPECT_NE(o.err.find(c.says), std::string::npos) << o.err;
    }
}

TEST(MessageTestsE2e, ServerRefusesARrSpecItCannotRunAndKeepsServing) {
    // A client that skips zcperf's own checks: the server says why, and serves the next test.
    LocalServer server;
    zc::UniqueFd fd = zc::connect_tcp({"127.0.0.1", server.port()}, 2s);
    zc::Hello hello;
    hello.software = "test";
    zc::write_all(fd.get(), zc::encode_message(hello), 2s);
    auto welcome = zc::decode_body(zc::read_frame(fd.get(), zc::kMaxReplyBody, 5s));
    ASSERT_TRUE(std::holds_alternative<zc::Welcome>(welcome));
    zc::TestSpec spec;
    spec.test = zc::Workload::rr;
    spec.transport = zc::transport_named("tcp-msgzc");
    spec.message_size = 1;
    spec.duration_s = 1;
    zc::write_all(fd.get(), zc::encode_message(zc::Setup{zc::server_half(spec)}), 2s);
    auto reply = zc::decode_body(zc::read_frame(fd.get(), zc::kMaxReplyBody, 5s));
    auto* err = std::get_if<zc::ErrorMsg>(&reply);
    ASSERT_NE(err, nullptr) << zc::message_name(reply);
    EXPECT_NE(err->reason.find("rr runs over tcp, "), std::string::npos) << err->reason;  // the rows that run it
    auto o = run({zcperf_bin(), "-H", server.address(), "-t", "rr", "-l", "0.3", "-o", "json"});
    ok_report(o);
}

TEST(MessageTestsE2e, ServerKilledMidRrEndsTheClientWithinSeconds) {
    LocalServer server;
    Process client({zcperf_bin(), "-H", server.address(), "-t", "rr", "-l", "30"});
    std::this_thread::sleep_for(1500ms);
    server.process().signal(SIGKILL);
    auto o = client.wait(15s);
    EXPECT_FALSE(o.timed_out);
    EXPECT_EQ(o.exit_code, 1) << o.err;
    EXPECT_NE(o.err.find("zcperf:"), std::string::npos) << o.err;
}
