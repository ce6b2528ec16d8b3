// --flows over loopback: stream, maerts and rr with many connections per thread
// between real zcperf and zcserver processes; each side's per-flow counts (the run fails when the
// receiver's flows do not match the sender's), the fairness figures in JSON and CSV; 1000 flows over
// 2 threads in a few seconds; the open-file limit raised and said (the client's soft limit lowered with
// prlimit), or refused beyond the hard limit; bad input with exit code 2 and what to do.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "process.hpp"
#include "report.hpp"

using namespace zc::e2e;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

// zcperf ARGS, under `prlimit --nofile=NOFILE` when given (the open-file limit tests).
Outcome zcperf(std::vector<std::string> args, std::chrono::milliseconds limit = 60s, const std::string& nofile = "") {
    if (nofile.empty()) return run_zcperf(std::move(args), limit);
    args.insert(args.begin(), {"prlimit", "--nofile=" + nofile, zcperf_bin()});
    return run(args, limit);
}

json result_of(const Outcome& o) { return first_result(ok_report(o)); }

// Each side lists every flow; the two lists are the same multiset (zcperf checked it, or failed); the
// figures are consistent with them.
void expect_flows(const json& r, size_t flows) {
    for (const char* side : {"local", "remote"}) {
        SCOPED_TRACE(side);
        const json& s = r[side];
        ASSERT_TRUE(s.contains("flow_bytes")) << s.dump().substr(0, 2000);
        ASSERT_EQ(s["flow_bytes"].size(), flows);
        uint64_t sum = 0;
        for (const auto& b : s["flow_bytes"]) sum += b.get<uint64_t>();
        EXPECT_EQ(sum, s["bytes"].get<uint64_t>());
        const json& f = s["flows"];
        EXPECT_EQ(f["count"], flows);
        EXPECT_GT(f["min_bytes"].get<uint64_t>(), 0u) << "a flow that never moved";
        EXPECT_LE(f["min_bytes"].get<uint64_t>(), f["median_bytes"].get<uint64_t>());
        EXPECT_LE(f["median_bytes"].get<uint64_t>(), f["max_bytes"].get<uint64_t>());
        double jain = f["jain_index"];
        EXPECT_GT(jain, 1.0 / static_cast<double>(flows));
        EXPECT_LE(jain, 1.0 + 1e-9);
    }
    std::vector<uint64_t> a = r["local"]["flow_bytes"], b = r["remote"]["flow_bytes"];
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    EXPECT_EQ(a, b);
    EXPECT_EQ(r["local"]["bytes"], r["remote"]["bytes"]);
}

}  // namespace

TEST(FlowsE2e, StreamMaertsAndRrWithFlowsAgainstZcserver) {
    LocalServer server;
    auto o =
        zcperf({"-H", server.address(), "-t", "stream,maerts,rr", "--flows", "16", "-P", "2", "-l", "1", "-o", "json"});
    json j = ok_report(o);
    ASSERT_EQ(o.exit_code, 0);
    ASSERT_EQ(j["results"].size(), 3u);
    for (const auto& r : j["results"]) {
        SCOPED_TRACE(r["test"].get<std::string>());
        expect_flows(r, 32);
        if (r["test"] == "rr") {
            EXPECT_GT(r["rr"]["transactions"].get<uint64_t>(), 32u) << r["rr"].dump();
        } else {
            EXPECT_GT(r["throughput_gbps"].get<double>(), 0);
            // The sender's TCP_INFO covers each stream's 16 connections, not its first: the bytes they
            // acked are the bytes the receiver counted (a first flow's alone would be about 1/16 of them).
            const json& sender = r[r["test"] == "stream" ? "local" : "remote"];
            ASSERT_EQ(sender["tcp_info"].size(), 2u) << sender.dump().substr(0, 2000);
            EXPECT_EQ(sender["tcp_info_connections_per_stream"], 16);
            uint64_t acked = 0;
            for (const auto& s : sender["tcp_info"]) acked += s["bytes_acked"].get<uint64_t>();
            const auto received = static_cast<double>(sender["bytes"].get<uint64_t>());
            EXPECT_GT(static_cast<double>(acked), 0.5 * received) << acked << " acked of " << received;
            EXPECT_LT(static_cast<double>(acked), 1.5 * received + 1e6) << acked << " acked of " << received;
        }
    }
}

TEST(FlowsE2e, AThousandFlowsOverTwoThreadsRunInAFewSeconds) {
    auto o = zcperf({"--flows", "500", "-P", "2", "-l", "2", "-m", "64K", "-o", "json"}, 30s);
    json r = result_of(o);
    expect_flows(r, 1000);
    EXPECT_LT(o.seconds, 15) << "1000 flows' set-up and run";
    std::cout << "  1000 flows: " << r["throughput_gbps"] << " Gb/s, Jain " << r["local"]["flows"]["jain_index"] << ", "
              << o.seconds << " s in all\n";
}

TEST(FlowsE2e, HumanAndCsvReportsCarryTheFairnessFigures) {
    auto human = zcperf({"--flows", "8", "-l", "0.5"});
    ASSERT_EQ(human.exit_code, 0) << human.err << human.out;
    EXPECT_NE(human.out.find("flows: 8 connections over 1 thread; per flow min / median / max"), std::string::npos)
        << human.out;
    EXPECT_NE(human.out.find("Jain's fairness index"), std::string::npos);
    auto csv = zcperf({"--flows", "8", "-l", "0.5", "-o", "csv"});
    ASSERT_EQ(csv.exit_code, 0) << csv.err;
    auto nl = csv.out.find('\n');
    std::string header = csv.out.substr(0, nl);
    for (const char* col : {"local_flows", "local_flow_jain", "remote_flow_median_mbps"})
        EXPECT_NE(header.find(col), std::string::npos) << col << " in " << header;
}

TEST(FlowsE2e, TheOpenFileLimitIsRaisedAndSaid) {
    // The client (and its embedded server) start with a soft limit of 256: 2 x 300 connections need more.
    auto o = zcperf({"--flows", "300", "-l", "0.5"}, 30s, "256:20000");
    if (o.exit_code != 0 && o.err.find("prlimit") != std::string::npos) GTEST_SKIP() << o.err;
    ASSERT_EQ(o.exit_code, 0) << o.err << o.out;
    EXPECT_NE(o.out.find("raised the open-file limit (RLIMIT_NOFILE soft, hard 20000) from 256 to"), std::string::npos)
        << o.out;
}

TEST(FlowsE2e, BeyondTheHardLimitIsAClearErrorAndTheServerServesOn) {
    LocalServer server;
    auto o = zcperf({"-H", server.address(), "--flows", "1000", "-l", "0.5"}, 30s, "512:512");
    EXPECT_NE(o.exit_code, 0);
    EXPECT_NE(o.err.find("--flows 1000 x -P 1 (1000 connections) needs about"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("hard limit (512, RLIMIT_NOFILE)"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("LimitNOFILE="), std::string::npos) << o.err;
    auto after = zcperf({"-H", server.address(), "--flows", "4", "-l", "0.3"});
    EXPECT_EQ(after.exit_code, 0) << after.err;
}

TEST(FlowsE2e, BadInputSaysWhatToDo) {
    struct Case {
        std::vector<std::string> args;
        const char* says;
    } cases[] = {
        {{"--flows", "0"}, "--flows"},
        {{"--flows", "4", "-T", "udp"}, "--flows is for -T tcp: none of the transports given takes it"},
        {{"--flows", "4", "-T", "rsocket"}, ""},  // refused, as a transport without flows or not built
        {{"--flows", "4", "-T", "rdma-write"}, ""},
        {{"--flows", "4", "-t", "msgrate"}, "--flows runs stream, maerts and rr"},
        {{"--flows", "4", "--rx", "zerocopy"}, "--rx copy"},
    };
    for (const auto& c : cases) {
        std::vector<std::string> args = c.args;
        args.insert(args.end(), {"-l", "0.3"});
        auto o = zcperf(args, 20s);
        SCOPED_TRACE(::testing::PrintToString(c.args));
        EXPECT_NE(o.exit_code, 0) << o.out;
        EXPECT_FALSE(o.timed_out);
        EXPECT_NE(o.err.find(c.says), std::string::npos) << o.err;
        if (c.args.size() > 3 && c.args[2] == "-T" && c.args[3] != "udp") {
            EXPECT_NE(o.err.find("--flows"), std::string::npos) << o.err;
        }
    }
}
