// End to end over loopback: real zcperf and zcserver processes, checked through their reports.
#include <gtest/gtest.h>

#include <signal.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "process.hpp"
#include "report.hpp"

using namespace zc::e2e;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

void expect_side_measured(const json& side, uint64_t bytes, const char* role) {
    EXPECT_EQ(side["bytes"].get<uint64_t>(), bytes);
    EXPECT_EQ(side["role"], role);
    EXPECT_GT(side["cpu_util_pct"].get<double>(), 0.0);
    EXPECT_LE(side["cpu_util_pct"].get<double>(), 100.0);
    EXPECT_GT(side["service_demand_us_per_kb"].get<double>(), 0.0);
    EXPECT_GT(side["process_cpu_util_pct"].get<double>(), 0.0);
    EXPECT_GT(side["process_service_demand_us_per_kb"].get<double>(), 0.0);
    // The process is part of the host: its CPU cannot exceed the whole host's (ticks allow 2 %).
    EXPECT_LE(side["process_cpu_util_pct"].get<double>(), side["cpu_util_pct"].get<double>() + 2.0);
    EXPECT_FALSE(side["cpus"].empty());
    EXPECT_GE(side["cpu"]["per_cpu_pct"].size(), 1u);
}

}  // namespace

TEST(Loopback, EmbeddedServerStreamReportsBothSides) {
    auto o = run({zcperf_bin(), "-l", "1", "-m", "64K", "-o", "json"});
    json j = ok_report(o);
    ASSERT_EQ(j["results"].size(), 1u);
    const json& r = j["results"][0];
    EXPECT_EQ(r["transport"], "tcp");
    EXPECT_EQ(r["test"], "stream");
    EXPECT_EQ(r["message_size"], 65536);
    EXPECT_EQ(r["streams"], 1);
    uint64_t bytes = r["bytes"];
    EXPECT_GT(bytes, 0u);
    EXPECT_GT(r["throughput_gbps"].get<double>(), 0.0);
    EXPECT_NEAR(r["elapsed_s"].get<double>(), 1.0, 0.5);
    EXPECT_NEAR(r["throughput_gbps"].get<double>(), bytes * 8 / r["elapsed_s"].get<double>() / 1e9, 1e-6);
    expect_side_measured(r["local"], bytes, "send");
    expect_side_measured(r["remote"], bytes, "recv");
    EXPECT_TRUE(j["run"]["embedded_server"].get<bool>());
}

TEST(Loopback, ExactByteCountOverSeveralStreamsAgainstDaemon) {
    LocalServer server;
    auto o =
        run({zcperf_bin(), "-H", server.address(), "-n", "100M", "-P", "3", "-m", "1M", "-o", "json", "--cpu", "0,1"});
    json j = ok_report(o);
    const json& r = j["results"][0];
    EXPECT_EQ(r["bytes"].get<uint64_t>(), 100ull << 20);
    EXPECT_EQ(r["local"]["stream_bytes"].size(), 3u);
    uint64_t sum = 0;
    for (auto& b : r["remote"]["stream_bytes"]) sum += b.get<uint64_t>();
    EXPECT_EQ(sum, 100ull << 20);
    EXPECT_EQ(r["local"]["cpus"], json({0, 0, 0}));
    EXPECT_EQ(r["remote"]["cpus"], json({1, 1, 1}));
}

TEST(Loopback, MaertsServerSendsAndSweepGivesOneResultPerSize) {
    LocalServer server;
    auto o = run({zcperf_bin(), "-H", server.address(), "-t", "maerts", "-m", "16K..64K", "-l", "0.5", "-o", "json"});
    json j = ok_report(o);
    ASSERT_EQ(j["results"].size(), 3u);
    uint64_t expected[] = {16384, 32768, 65536};
    for (size_t i = 0; i < 3; ++i) {
        const json& r = j["results"][i];
        EXPECT_EQ(r["message_size"].get<uint64_t>(), expected[i]);
        EXPECT_EQ(r["local"]["role"], "recv");
        EXPECT_EQ(r["remote"]["role"], "send");
        EXPECT_EQ(r["local"]["bytes"], r["remote"]["bytes"]);
        EXPECT_GT(r["bytes"].get<uint64_t>(), 0u);
    }
}

TEST(Loopback, CsvAndHumanReportsCarryTheSameTest) {
    LocalServer server;
    auto csv = run({zcperf_bin(), "-H", server.address(), "-n", "8M", "-m", "64K,128K", "-o", "csv"});
    ASSERT_EQ(csv.exit_code, 0) << csv.err;
    int lines = 0;
    for (char c : csv.out) lines += c == '\n';
    EXPECT_EQ(lines, 3) << csv.out;  // header + 2 results
    EXPECT_EQ(csv.out.rfind("transport,rx,test,message_size", 0), 0u);
    EXPECT_NE(csv.out.find("tcp,copy,stream,65536,1,8388608,"), std::string::npos) << csv.out;

    auto human = run({zcperf_bin(), "-H", server.address(), "-n", "8M", "-m", "64K"});
    ASSERT_EQ(human.exit_code, 0) << human.err;
    EXPECT_NE(human.out.find("proc SD"), std::string::npos);
    EXPECT_NE(human.out.find("8388608 B"), std::string::npos) << human.out;
}

TEST(Loopback, RepetitionsStopAtTheMaximumAndSayWhetherTheIntervalWasMet) {
    auto o = run({zcperf_bin(), "-n", "20M", "-m", "64K", "-i", "3,2", "-I", "95,50", "-o", "json"});
    json j = ok_report(o);
    const json& it = j["results"][0]["iterations"];
    EXPECT_GE(it["count"].get<int>(), 2);
    EXPECT_LE(it["count"].get<int>(), 3);
    EXPECT_EQ(it["confidence_level_pct"].get<double>(), 95.0);
    // Three iterations of 20 MiB each at most; the merged result adds them up.
    EXPECT_EQ(j["results"][0]["bytes"].get<uint64_t>(), it["count"].get<uint64_t>() * (20ull << 20));
}

TEST(Loopback, ConcurrentClientsShareOneServer) {
    LocalServer server;
    std::vector<std::unique_ptr<Process>> clients;
    for (int i = 0; i < 4; ++i) {
        clients.push_back(std::make_unique<Process>(
            std::vector<std::string>{zcperf_bin(), "-H", server.address(), "-n", "32M", "-m", "64K", "-o", "json"}));
    }
    for (auto& c : clients) {
        auto o = c->wait(60s);
        json j = ok_report(o);
        EXPECT_EQ(j["results"][0]["bytes"].get<uint64_t>(), 32ull << 20);
    }
}

// The stream receiver's wake-up threshold (SO_RCVLOWAT) is what the kernel holds, read back on the
// side that receives; an exact odd byte count still arrives whole (FIN wakes the reader).
TEST(Loopback, ReceiverWakeThresholdIsAppliedAndReported) {
    LocalServer server;
    json d = ok_report(run({zcperf_bin(), "-H", server.address(), "-n", "10000001", "-m", "1M", "-o", "json"}));
    const json& r = d["results"][0];
    EXPECT_EQ(r["bytes"].get<uint64_t>(), 10000001u);
    EXPECT_EQ(r["remote"]["rcv_lowat"].get<uint64_t>(), 256u << 10);
    EXPECT_EQ(r["local"]["rcv_lowat"].get<uint64_t>(), 0u);  // the sender has none

    json m = ok_report(run({zcperf_bin(), "-H", server.address(), "-t", "maerts", "-n", "3000001", "-m", "64K",
                            "--rcvlowat", "1", "-o", "json"}));
    EXPECT_EQ(m["results"][0]["bytes"].get<uint64_t>(), 3000001u);
    EXPECT_EQ(m["results"][0]["local"]["rcv_lowat"].get<uint64_t>(), 1u);
    EXPECT_EQ(m["results"][0]["remote"]["rcv_lowat"].get<uint64_t>(), 0u);

    // A locked 64 KiB receive buffer: the kernel caps the threshold at half of it, and says so.
    json c = ok_report(run({zcperf_bin(), "-H", server.address(), "-n", "4M", "-m", "64K", "-S", "64K", "--rcvlowat",
                            "1M", "-o", "json"}));
    const json& cr = c["results"][0];
    EXPECT_EQ(cr["bytes"].get<uint64_t>(), 4u << 20);
    EXPECT_LE(cr["remote"]["rcv_lowat"].get<uint64_t>(), cr["remote"]["socket_recv_buffer"].get<uint64_t>() / 2);
    EXPECT_GT(cr["remote"]["rcv_lowat"].get<uint64_t>(), 1u);
}

// A run that outlasts its -l says so, and why: the server is stopped (SIGSTOP) for 3.5 s
// in the middle of a 2 s stream, so the sender blocks in one data call that long, on every TCP path,
// in both directions (stream: the client sends; maerts: the stopped server is the sender itself).
// The stop must land in the measured interval, not in the set-up: the sender starts within the
// report's set-up time of the server's "on data port" line, and the stop begins 0.7 s after that line,
// so a set-up under 2 s leaves the sender at least 3.5 - (2 - 0.7) = 2.2 s blocked in one call, however
// loaded the machine. A longer set-up is tried again.
TEST(Loopback, RunLongerThanAskedNamesTheStall) {
    for (const char* test : {"stream", "maerts"}) {
        for (const char* t : {"tcp", "tcp-sendfile", "tcp-msgzc", "tcp-uringzc"}) {
            SCOPED_TRACE(std::string(test) + " " + t);
            json r;
            for (int attempt = 0; attempt < 3; ++attempt) {
                LocalServer server;
                Process client(
                    {zcperf_bin(), "-H", server.address(), "-T", t, "-t", test, "-l", "2", "-m", "64K", "-o", "json"});
                ASSERT_TRUE(server.process().wait_for_stderr("on data port", 20s)) << server.process().stderr_so_far();
                std::this_thread::sleep_for(700ms);
                server.process().signal(SIGSTOP);
                std::this_thread::sleep_for(3500ms);
                server.process().signal(SIGCONT);
                json j = ok_report(client.wait(60s));
                ASSERT_EQ(j["results"].size(), 1u);
                r = j["results"][0];
                if (r["setup_ms"].get<double>() < 2000) break;  // the stop fell in the interval
            }
            ASSERT_LT(r["setup_ms"].get<double>(), 2000) << "the stop fell in the set-up three times";
            std::string warning;
            for (const auto& w : r["warnings"])
                if (w.get<std::string>().find("the measured interval lasted") != std::string::npos) warning = w;
            ASSERT_FALSE(warning.empty()) << r["warnings"].dump();
            EXPECT_NE(warning.find("x the 2 s asked (-l)"), std::string::npos) << warning;
            EXPECT_NE(warning.find("in one data call"), std::string::npos) << warning;
            const json& sender = std::string(test) == "stream" ? r["local"] : r["remote"];
            EXPECT_GT(sender["longest_call_s"].get<double>(), 2.0);
            EXPECT_LT(sender["longest_call_end_s"].get<double>(), sender["elapsed_s"].get<double>() + 0.5);
            EXPECT_GT(r["elapsed_s"].get<double>(), 2.4);
        }
    }
}

// ... and a run that took what it was asked says nothing of the kind.
TEST(Loopback, RunThatKeptItsTimeHasNoOverrunWarning) {
    json j = ok_report(run({zcperf_bin(), "-l", "1", "-m", "64K", "-o", "json"}));
    for (const auto& w : j["results"][0]["warnings"])
        EXPECT_EQ(w.get<std::string>().find("the measured interval lasted"), std::string::npos) << w;
    EXPECT_LT(j["results"][0]["local"]["longest_call_s"].get<double>(), 1.0);
}
