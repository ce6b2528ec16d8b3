// End to end between two network namespaces joined by a veth pair: the data crosses a real
// (virtual) link with its own device, as between two hosts. Needs root (ip netns); skips otherwise.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "process.hpp"
#include "report.hpp"

using namespace zc::e2e;
using namespace std::chrono_literals;

namespace {

// 198.18.0.0/15 is reserved for benchmarking (RFC 2544): it never routes anywhere real.
constexpr const char* kClientAddr = "198.18.0.1";
constexpr const char* kServerAddr = "198.18.0.2";

class NetnsPair : public ::testing::Test {
protected:
    void SetUp() override {
        std::string tag = std::to_string(getpid() % 100000);
        client_ns_ = "zcperf-c" + tag;
        server_ns_ = "zcperf-s" + tag;
        if (geteuid() != 0) GTEST_SKIP() << "network namespaces need root";
        auto add = run({"ip", "netns", "add", client_ns_}, 10s);
        if (add.exit_code != 0) GTEST_SKIP() << "cannot create a network namespace here: " << add.err;
        created_ = true;
        std::string va = "zcva" + tag, vb = "zcvb" + tag;
        std::vector<std::vector<std::string>> steps = {
            {"ip", "netns", "add", server_ns_},
            {"ip", "link", "add", va, "netns", client_ns_, "type", "veth", "peer", "name", vb, "netns", server_ns_},
            {"ip", "-n", client_ns_, "addr", "add", std::string(kClientAddr) + "/30", "dev", va},
            {"ip", "-n", server_ns_, "addr", "add", std::string(kServerAddr) + "/30", "dev", vb},
            {"ip", "-n", client_ns_, "link", "set", va, "up"},
            {"ip", "-n", server_ns_, "link", "set", vb, "up"},
            {"ip", "-n", client_ns_, "link", "set", "lo", "up"},
            {"ip", "-n", server_ns_, "link", "set", "lo", "up"},
        };
        for (const auto& s : steps) {
            auto o = run(s, 10s);
            ASSERT_EQ(o.exit_code, 0) << s[1] << " " << s[2] << ": " << o.err;
        }
    }
    void TearDown() override {
        if (!created_) return;
        run({"ip", "netns", "del", client_ns_}, 10s);
        run({"ip", "netns", "del", server_ns_}, 10s);
    }
    std::vector<std::string> in(const std::string& ns, std::vector<std::string> argv) {
        argv.insert(argv.begin(), {"ip", "netns", "exec", ns});
        return argv;
    }
    std::unique_ptr<Process> start_server(uint16_t port) {
        auto p = std::make_unique<Process>(
            in(server_ns_, {zcserver_bin(), "--bind", kServerAddr, "--port", std::to_string(port)}));
        EXPECT_TRUE(p->wait_for_stderr("listening on", 60s)) << p->stderr_so_far();
        return p;
    }

    std::string client_ns_, server_ns_;
    bool created_ = false;
};

}  // namespace

TEST_F(NetnsPair, StreamAndMaertsAcrossVethCountEveryByte) {
    uint16_t port = 12875;
    auto server = start_server(port);
    for (const char* test : {"stream", "maerts"}) {
        auto o = run(in(client_ns_, {zcperf_bin(), "-H", std::string(kServerAddr) + ":" + std::to_string(port), "-t",
                                     test, "-n", "64M", "-m", "128K", "-P", "2", "-o", "json"}),
                     60s);
        ASSERT_EQ(o.exit_code, 0) << o.err;
        auto j = report_json(o);
        const auto& r = j["results"][0];
        EXPECT_EQ(r["bytes"].get<uint64_t>(), 64ull << 20) << test;
        EXPECT_EQ(r["local"]["bytes"], r["remote"]["bytes"]);
        for (const char* side : {"local", "remote"}) {
            EXPECT_GT(r[side]["cpu_util_pct"].get<double>(), 0.0) << side;
            EXPECT_GT(r[side]["process_service_demand_us_per_kb"].get<double>(), 0.0) << side;
        }
        EXPECT_EQ(j["run"]["server"], std::string(kServerAddr) + ":" + std::to_string(port));
    }
}

TEST_F(NetnsPair, ZeroCopySendAcrossVethIsCopiedByTheKernelAndSaysSo) {
    uint16_t port = 12876;
    auto server = start_server(port);
    for (const char* t : {"tcp-sendfile", "tcp-msgzc", "tcp-uringzc"}) {
        auto o = run(in(client_ns_, {zcperf_bin(), "-H", std::string(kServerAddr) + ":" + std::to_string(port), "-T", t,
                                     "-n", "32M", "-m", "256K", "-o", "json"}),
                     60s);
        ASSERT_EQ(o.exit_code, 0) << t << ": " << o.err;
        auto j = report_json(o);
        const auto& r = j["results"][0];
        EXPECT_EQ(r["bytes"].get<uint64_t>(), 32ull << 20) << t;
        if (std::string(t) != "tcp-sendfile") {
            EXPECT_EQ(r["local"]["zerocopy"]["sent_bytes"].get<uint64_t>(), 32ull << 20) << t;
            EXPECT_DOUBLE_EQ(r["local"]["zerocopy"]["copied_pct"].get<double>(), 100.0) << t;
        }
    }
}

TEST_F(NetnsPair, SweepAcrossVethWritesCsvAndPlots) {
    if (run({"/usr/bin/python3", "-c", "import matplotlib"}, 30s).exit_code != 0) {
        GTEST_SKIP() << "Debian's python3-matplotlib is missing (apt-get install python3-matplotlib)";
    }
    uint16_t port = 12877;
    auto server = start_server(port);
    std::string out = "/tmp/zc-sweep-veth-" + std::to_string(getpid());
    auto o = run(
        in(client_ns_, {"/usr/bin/python3", ZCPERF_SOURCE_DIR "/scripts/irq_sweep.py", "--zcperf", zcperf_bin(), "-H",
                        std::string(kServerAddr) + ":" + std::to_string(port), "--client-cpus", "0", "--irq-cpus", "0",
                        "--sizes", "64K,256K", "--transports", "tcp,tcp-msgzc", "-l", "0.3", "--out", out}),
        120s);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    std::ifstream csv(out + ".csv");
    std::string line;
    int rows = -1;  // the header
    while (std::getline(csv, line)) ++rows;
    EXPECT_EQ(rows, 4);  // 2 sizes x 2 transports
    for (const char* png : {"_vs_size.png", "_heatmap.png"}) {
        std::ifstream f(out + png, std::ios::binary);
        char magic[4] = {};
        f.read(magic, 4);
        EXPECT_EQ(std::string(magic + 1, 3), "PNG") << out + png;
    }
    for (const char* suffix : {".csv", "_vs_size.png", "_heatmap.png"}) std::remove((out + suffix).c_str());
}

TEST_F(NetnsPair, ServerOutsideTheClientsNamespaceIsUnreachableWithAClearError) {
    // Nothing listens in the server namespace: refused, reported, and fast.
    auto o = run(in(client_ns_, {zcperf_bin(), "-H", std::string(kServerAddr) + ":1", "-l", "1"}), 20s);
    EXPECT_EQ(o.exit_code, 1);
    EXPECT_LT(o.seconds, 6.0);
    EXPECT_NE(o.err.find("cannot connect to 198.18.0.2:1"), std::string::npos) << o.err;
}

TEST_F(NetnsPair, RrAndMsgrateAcrossVethCountEveryTransaction) {
    uint16_t port = 12878;
    auto server = start_server(port);
    auto o = run(in(client_ns_, {zcperf_bin(), "-H", std::string(kServerAddr) + ":" + std::to_string(port), "-t",
                                 "rr,msgrate", "-P", "2", "-l", "0.5", "-o", "json"}),
                 60s);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    auto j = report_json(o);
    ASSERT_EQ(j["results"].size(), 2u);
    const auto& rr = j["results"][0];
    uint64_t n = rr["rr"]["transactions"];
    EXPECT_GT(n, 0u);
    EXPECT_EQ(rr["local"]["messages"]["messages"].get<uint64_t>(), n);
    EXPECT_EQ(rr["remote"]["messages"]["messages"].get<uint64_t>(), n);
    EXPECT_LE(rr["rr"]["rtt_us"]["p50"].get<double>(), rr["rr"]["rtt_us"]["p99"].get<double>());
    EXPECT_EQ(rr["local"]["placement"]["interface"].get<std::string>().rfind("zcva", 0), 0u);  // the veth, not lo
    const auto& mr = j["results"][1];
    EXPECT_EQ(mr["local"]["messages"]["messages"], mr["remote"]["messages"]["messages"]);
    EXPECT_EQ(mr["msgrate"]["stream_messages_per_s"].size(), 2u);
}
