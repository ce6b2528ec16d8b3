// UDP end to end over loopback: every UDP path, test and receive mode between real zcperf
// and zcserver processes. Paced well under what loopback drops at, the counts are exact (every
// datagram the sender counted arrived, in order, once); with the receiver starved on purpose (a 4 KiB
// receive buffer and an unpaced sender) the losses are counted and add up with what arrived to what
// was sent, beside the kernel's own drop count. Bad input ends with exit code 2 and the limit named.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "process.hpp"
#include "report.hpp"

using namespace zc::e2e;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

// The sender's count, the end marker's, and the receiver's agree, with nothing lost.
void expect_exact(const json& r) {
    const json& tx = r["local"]["role"] == "send" ? r["local"] : r["remote"];
    const json& rx = r["local"]["role"] == "send" ? r["remote"] : r["local"];
    ASSERT_TRUE(tx.contains("udp")) << tx.dump();
    ASSERT_TRUE(rx.contains("udp")) << rx.dump();
    uint64_t sent = tx["udp"]["datagrams"];
    EXPECT_GT(sent, 0u);
    EXPECT_EQ(rx["udp"]["datagrams"].get<uint64_t>(), sent) << rx["udp"].dump();
    EXPECT_EQ(rx["udp"]["sender_datagrams"].get<uint64_t>(), sent);
    EXPECT_TRUE(rx["udp"]["end_marker"].get<bool>());
    EXPECT_EQ(rx["udp"]["lost"], 0);
    EXPECT_EQ(rx["udp"]["reordered"], 0);
    EXPECT_EQ(rx["udp"]["duplicates"], 0);
    EXPECT_EQ(rx["udp"]["kernel_drops"], 0);
    EXPECT_EQ(rx["bytes"], tx["bytes"]);
    EXPECT_EQ(r["bytes"], rx["bytes"]);
}

}  // namespace

TEST(UdpE2e, PacedStreamIsExactInEveryReceiveMode) {
    auto o = run_zcperf({"-T", "udp", "--rx", "copy,mmsg,gro", "-b", "20M", "-l", "1", "-S", "4M", "-o", "json"});
    json j = ok_report(o);
    ASSERT_EQ(j["results"].size(), 3u);
    const char* modes[] = {"copy", "mmsg", "gro"};
    for (int i = 0; i < 3; ++i) {
        const json& r = j["results"][i];
        SCOPED_TRACE(modes[i]);
        expect_exact(r);
        EXPECT_EQ(r["message_size"], 1472);  // UDP's default datagram
        EXPECT_EQ(r["remote"]["udp"]["rx_mode"], modes[i]);
        EXPECT_EQ(r["local"]["pacing"]["method"], "sender clock");  // lo's qdisc is noqueue
        EXPECT_EQ(r["local"]["pacing"]["bitrate"], 20000000);
        // The rate asked, within 5 %: the receiver's bytes over its interval.
        EXPECT_NEAR(r["throughput_gbps"].get<double>(), 0.020, 0.001) << r["throughput_gbps"];
    }
}

TEST(UdpE2e, GsoMaertsWithGroAndSeveralStreams) {
    LocalServer server;
    auto o = run_zcperf(
        {"-H", server.address(), "-t",  "maerts", "-T",   "udp-gso", "--gso-size", "1400", "-m", "56000", "-P",
         "2",  "--rx",           "gro", "-b",     "100M", "-l",      "1",          "-s",   "4M", "-o",    "json"});
    json j = ok_report(o);
    const json& r = j["results"][0];
    expect_exact(r);
    const json& tx = r["remote"];  // maerts: the server sends
    EXPECT_EQ(tx["role"], "send");
    EXPECT_EQ(tx["udp"]["gso_size"], 1400);
    EXPECT_EQ(tx["udp"]["gso_where"], "none");  // lo hands the buffer up whole
    // 40 segments per call, each carrying its own sequence number.
    EXPECT_EQ(tx["udp"]["datagrams"].get<uint64_t>(), 40 * tx["ops"].get<uint64_t>());
    EXPECT_GT(r["local"]["udp"]["gro_buffers"].get<uint64_t>(), 0u);
    EXPECT_EQ(r["local"]["stream_bytes"].size(), 2u);
}

TEST(UdpE2e, MsgZerocopyReportsTheCopiedShare) {
    auto o = run_zcperf({"-T", "udp-msgzc", "--gso-size", "1472", "-b", "100M", "-l", "1", "-S", "4M", "-o", "json"});
    json j = ok_report(o);
    const json& r = j["results"][0];
    expect_exact(r);
    EXPECT_EQ(r["message_size"], 44 * 1472);
    const json& z = r["local"]["zerocopy"];
    EXPECT_EQ(z["sent_bytes"], r["local"]["bytes"]);
    EXPECT_GT(z["completions"].get<uint64_t>(), 0u);
    EXPECT_DOUBLE_EQ(z["copied_pct"].get<double>(), 100.0);  // loopback always copies
}

TEST(UdpE2e, MsgrateAndRrCountMessages) {
    auto o = run_zcperf(
        {"-T", "udp", "-t", "msgrate", "-m", "64", "--batch", "8", "-b", "10M", "-l", "1", "-S", "4M", "-o", "json"});
    json j = ok_report(o);
    const json& m = j["results"][0]["msgrate"];
    uint64_t n = m["messages"];
    EXPECT_GT(n, 0u);
    EXPECT_EQ(j["results"][0]["local"]["messages"]["messages"].get<uint64_t>(), n);  // none lost at this rate
    EXPECT_NE(m["measured"].get<std::string>().find("sequence numbers"), std::string::npos) << m.dump();
    EXPECT_NEAR(m["sender_calls_per_message"].get<double>(), 1.0 / 8, 1e-3);

    o = run_zcperf({"-T", "udp", "-t", "rr", "-m", "1,64", "-l", "0.5", "-o", "json"});
    j = ok_report(o);
    ASSERT_EQ(j["results"].size(), 2u);
    for (const auto& r : j["results"]) {
        uint64_t t = r["rr"]["transactions"];
        EXPECT_GT(t, 10u);
        EXPECT_EQ(r["local"]["udp"]["rr_timeouts"], 0);
        EXPECT_EQ(r["remote"]["messages"]["messages"].get<uint64_t>(), t);
        EXPECT_EQ(r["local"]["bytes"].get<uint64_t>(), t * r["message_size"].get<uint64_t>());
    }
}

TEST(UdpE2e, StarvedReceiverCountsItsLossesBesideTheKernel) {
    auto o = run_zcperf({"-T", "udp", "-S", "4K", "-l", "1", "-o", "json"});
    json j = ok_report(o);
    const json& r = j["results"][0];
    const json& tx = r["local"]["udp"];
    const json& rx = r["remote"]["udp"];
    uint64_t lost = rx["lost"];
    EXPECT_GT(lost, 0u) << rx.dump();
    EXPECT_EQ(rx["datagrams"].get<uint64_t>() + lost, tx["datagrams"].get<uint64_t>());
    EXPECT_GT(rx["loss_pct"].get<double>(), 0.0);
    EXPECT_GE(rx["kernel_drops"].get<uint64_t>(), lost);  // the socket dropped them (and end-marker repeats)
    EXPECT_GE(rx["snmp"]["rcvbuf_errors"].get<uint64_t>(), lost);
    EXPECT_LT(r["remote"]["bytes"].get<uint64_t>(), r["local"]["bytes"].get<uint64_t>());
    std::string notes = r["warnings"].dump();
    EXPECT_NE(notes.find("as fast as it can"), std::string::npos) << notes;
}

TEST(UdpE2e, HumanAndCsvReportsCarryTheUdpFigures) {
    auto human = run_zcperf({"-T", "udp-gso", "--gso-size", "1472", "-b", "50M", "-l", "0.5", "--rx", "gro"});
    ASSERT_EQ(human.exit_code, 0) << human.err;
    for (const char* s : {"udp: sent", "per call", "GSO segments of 1472 B", "received", "lost 0 (0.000%)", "jitter",
                          "GRO:", "datagrams per receive", "the sockets dropped 0",
                          "paced at 50 Mbit/s by the sender clock", "achieved"}) {
        EXPECT_NE(human.out.find(s), std::string::npos) << s << " missing from:\n" << human.out;
    }
    auto csv = run_zcperf({"-T", "udp", "-b", "10M", "-l", "0.3", "-o", "csv"});
    ASSERT_EQ(csv.exit_code, 0) << csv.err;
    std::string header = csv.out.substr(0, csv.out.find('\n'));
    for (const char* c : {",remote_udp_lost,", ",remote_udp_loss_pct,", ",remote_udp_jitter_ms,",
                          ",remote_udp_kernel_drops,", ",local_bitrate,", ",local_pacing"}) {
        EXPECT_NE(header.find(c), std::string::npos) << c << " in " << header;
    }
}

// -b is iperf3's: every stream transport keeps it by the sender's clock (the stop rule every send loop
// asks), so TCP's copy and zero-copy paths, in either direction, land on the rate asked.
TEST(UdpE2e, TcpPathsKeepTheBitrateInEitherDirection) {
    LocalServer server;
    auto o = run_zcperf({"-H", server.address(), "-t", "stream,maerts", "-T", "tcp,tcp-msgzc", "-b", "200M", "-P", "2",
                         "-l", "1", "-o", "json"});
    json j = ok_report(o);
    ASSERT_EQ(j["results"].size(), 4u);
    for (const json& r : j["results"]) {
        SCOPED_TRACE(r["test"].dump() + " " + r["transport"].dump());
        const json& tx = r["local"]["role"] == "send" ? r["local"] : r["remote"];
        EXPECT_FALSE(tx.contains("udp")) << tx.dump();    // no datagram facts over TCP
        ASSERT_TRUE(tx.contains("pacing")) << tx.dump();  // the side's pacing section, any kind's
        EXPECT_EQ(tx["pacing"]["method"], "sender clock");
        EXPECT_EQ(tx["pacing"]["bitrate"], 200000000);
        EXPECT_GT(tx["pacing"]["sleep_s"].get<double>(), 0.1) << "a paced loopback sender mostly waits";
        // Two streams at 200 Mbit/s each, counted by the receiver and checked against the sender: never 5 %
        // above the rate. Below it only by what a loaded host's late start costs (the schedule counts from
        // the first send: 0.21 of 0.40 Gb/s was seen under ctest -j2 beside two compilers); a pacer that
        // got its units wrong would be 8x or 1000x off.
        EXPECT_LE(r["throughput_gbps"].get<double>(), 0.420) << r["throughput_gbps"];
        EXPECT_GE(r["throughput_gbps"].get<double>(), 0.100) << r["throughput_gbps"];
        EXPECT_EQ(r["local"]["bytes"], r["remote"]["bytes"]);
    }
    // The human report says how the sender kept its rate.
    auto human = run_zcperf({"-H", server.address(), "-b", "100M", "-l", "0.3"});
    EXPECT_EQ(human.exit_code, 0) << human.err;
    EXPECT_NE(human.out.find("paced at 100 Mbit/s by the sender clock"), std::string::npos) << human.out;
}

TEST(UdpE2e, BadInputNamesTheLimit) {
    struct Case {
        std::vector<std::string> args;
        const char* says;
    } cases[] = {
        {{"-T", "udp", "-m", "65508"}, "65507"},
        {{"-T", "udp", "-m", "8"}, "16-byte sequence header"},
        {{"-T", "udp-gso", "--gso-size", "100", "-m", "6600"}, "UDP_MAX_SEGMENTS"},
        {{"-T", "udp-gso", "-m", "70000"}, "65507"},
        {{"-T", "udp", "-b", "999"}, "1 kbit/s"},
        {{"-T", "udp", "-b", "fast"}, "not a rate"},
        {{"-T", "udp", "--cq-mode", "poll"}, "--cq-mode is for -T rsocket, rsocket-iomap, rdma-write"},
        {{"-T", "udp", "--rx", "zerocopy"}, "udp receives with --rx copy, mmsg or gro; --rx zerocopy is for -T tcp,"},
        {{"-T", "tcp", "--rx", "gro"}, "--rx gro is for -T udp, udp-gso, udp-msgzc"},
        {{"-T", "udp", "--gso-size", "1400"}, "--gso-size is for -T udp-gso, udp-msgzc: none of the transports"},
        {{"-T", "udp-gso", "-t", "rr"}, "not offered"},
        {{"-T", "tcp", "-t", "rr", "-b", "1G"}, "-b paces a stream"},
        {{"-T", "tcp", "-t", "msgrate", "-b", "1G"}, "-b paces msgrate over -T udp"},
        {{"-T", "udp", "-t", "rr", "-b", "1G"}, "udp's rr runs as fast as its transactions go"},
    };
    for (const auto& c : cases) {
        auto o = run_zcperf(c.args, 10s);
        std::string what = c.args[0] + " " + c.args[1] + " " + c.args[2] + " " + c.args[3];
        EXPECT_EQ(o.exit_code, 2) << what << "\n" << o.err << o.out;
        EXPECT_NE(o.err.find(c.says), std::string::npos) << what << ": " << o.err;
    }
}

TEST(UdpE2e, IntervalsAddUpToTheReceiversBytes) {
    auto o = run_zcperf({"-T", "udp", "-b", "20M", "-l", "1", "-D", "0.25", "-S", "4M", "-o", "json"});
    json j = ok_report(o);
    const json& r = j["results"][0];
    expect_exact(r);
    const json& rows = r["intervals"];
    ASSERT_GE(rows.size(), 3u) << rows.dump();
    uint64_t sum = 0;
    for (const auto& row : rows) sum += row["bytes"].get<uint64_t>();
    EXPECT_EQ(sum, r["bytes"].get<uint64_t>());
}
