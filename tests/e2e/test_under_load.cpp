// --under-load over loopback (rr beside stream connections, the load's own stream test on a
// second control connection) and --histogram-log, against the embedded server and a real zcserver.
// Bounds are counts and orderings, never speeds: they hold on a loaded 2-CPU VM.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "process.hpp"
#include "report.hpp"

using namespace zc::e2e;
using json = nlohmann::json;
using namespace std::chrono_literals;

namespace {

std::string temp_file(const char* name) {
    return testing::TempDir() + "zcperf_" + name + "_" + std::to_string(getpid());
}

uint64_t lines_in(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    uint64_t n = 0;
    while (std::getline(in, line)) ++n;
    return n;
}

// The load ran beside the test: its bytes counted by its receiver, a rate from them, both sides' CPU,
// and its interval around the test's.
void expect_load(const json& r, int streams) {
    ASSERT_TRUE(r.contains("under_load")) << r.dump();
    const json& l = r["under_load"];
    EXPECT_EQ(l["streams"], streams);
    EXPECT_EQ(l["transport"], "tcp");
    EXPECT_GT(l["bytes"].get<uint64_t>(), 0u);
    const double gbps = l["throughput_gbps"].get<double>();
    EXPECT_NEAR(gbps, l["bytes"].get<double>() * 8 / l["elapsed_s"].get<double>() / 1e9, gbps * 0.01 + 1e-9);
    EXPECT_GT(l["local_cpu_util_pct"].get<double>(), 0.0);
    EXPECT_GT(l["remote_cpu_util_pct"].get<double>(), 0.0);
    EXPECT_GT(l["lead_s"].get<double>(), 0.3);  // started kLoadLeadS (0.5 s) before the test's interval
    EXPECT_GT(l["tail_s"].get<double>(), 0.0);  // and still ran when it ended
    for (const auto& w : r["warnings"]) EXPECT_EQ(w.get<std::string>().find("--under-load"), std::string::npos) << w;
}

}  // namespace

// What --under-load is for: rr under load with its 99.99th percentile and the stream beside it, and the
// samples file holding every transaction.
TEST(UnderLoadE2e, RrBesideAStreamWithChosenPercentilesAndEverySample) {
    const std::string samples = temp_file("under_load_samples") + ".csv";
    auto o = run({zcperf_bin(), "-t", "rr", "-m", "64", "-l", "3", "--under-load", "1", "--percentiles", "50,99,99.99",
                  "--samples", samples, "-o", "json"},
                 90s);
    json j = ok_report(o);
    ASSERT_EQ(j["results"].size(), 1u);
    const json& r = j["results"][0];
    expect_load(r, 1);
    const json& rr = r["rr"];
    const uint64_t transactions = rr["transactions"].get<uint64_t>();
    EXPECT_GE(transactions, 1000u);  // a count: even beside a stream on a loaded 2-CPU VM, far more
    ASSERT_TRUE(rr["rtt_us"].contains("p99.99")) << rr.dump();
    EXPECT_LE(rr["rtt_us"]["p50"].get<double>(), rr["rtt_us"]["p99.99"].get<double>());
    EXPECT_EQ(rr["samples_kept"].get<uint64_t>(), transactions);
    EXPECT_EQ(lines_in(samples), transactions + 1);  // the header and every transaction
    unlink(samples.c_str());
}

// A sweep against a real zcserver: one result per count, the first alone; CSV and human reports say so.
TEST(UnderLoadE2e, ASweepAgainstADaemonGivesOneResultPerCount) {
    LocalServer server;
    auto o = run({zcperf_bin(), "-H", server.address(), "-t", "rr", "-m", "64", "-l", "1", "--under-load", "0,2",
                  "--load-cpu", "0,1", "-o", "json"},
                 90s);
    json j = ok_report(o);
    ASSERT_EQ(j["results"].size(), 2u);
    EXPECT_EQ(j["results"][0]["under_load"]["streams"], 0);
    EXPECT_EQ(j["results"][0]["under_load"]["bytes"], 0);
    expect_load(j["results"][1], 2);
    EXPECT_EQ(j["results"][1]["under_load"]["local_cpus"], json({0, 0}));  // --load-cpu, each thread's, read back
    EXPECT_EQ(j["results"][1]["under_load"]["remote_cpus"], json({1, 1}));
    for (const auto& r : j["results"]) EXPECT_GT(r["rr"]["transactions"].get<uint64_t>(), 0u);

    auto csv =
        run({zcperf_bin(), "-H", server.address(), "-t", "rr", "-l", "0.5", "--under-load", "1", "-o", "csv"}, 60s);
    ASSERT_EQ(csv.exit_code, 0) << csv.err;
    EXPECT_NE(csv.out.find("under_load_streams,under_load_transport,under_load_gbps"), std::string::npos) << csv.out;
    auto human = run({zcperf_bin(), "-H", server.address(), "-t", "rr", "-l", "0.5", "--under-load", "1"}, 60s);
    ASSERT_EQ(human.exit_code, 0) << human.err;
    EXPECT_NE(human.out.find("under load: 1 tcp stream of"), std::string::npos) << human.out;
}

TEST(UnderLoadE2e, AnotherTransportForTheLoadAndClearRefusals) {
    auto o = run({zcperf_bin(), "-t", "rr", "-l", "1", "--under-load", "1:tcp-msgzc", "-o", "json"}, 60s);
    json j = ok_report(o);
    EXPECT_EQ(j["results"][0]["transport"], "tcp");
    EXPECT_EQ(j["results"][0]["under_load"]["transport"], "tcp-msgzc");
    EXPECT_GT(j["results"][0]["under_load"]["bytes"].get<uint64_t>(), 0u);

    auto stream = run({zcperf_bin(), "-t", "stream", "--under-load", "1"});
    EXPECT_EQ(stream.exit_code, 2);
    EXPECT_NE(stream.err.find("give -t rr"), std::string::npos) << stream.err;
    auto placement = run({zcperf_bin(), "-t", "rr", "--load-cpu", "0"});
    EXPECT_EQ(placement.exit_code, 2);
    EXPECT_NE(placement.err.find("give --under-load N too"), std::string::npos) << placement.err;
}

// An --exclusive zcserver runs one test at a time: refused before any test, saying why and what to do.
TEST(UnderLoadE2e, AnExclusiveServerIsRefusedClearly) {
    LocalServer server({"--exclusive"});
    auto o = run({zcperf_bin(), "-H", server.address(), "-t", "rr", "-l", "0.5", "--under-load", "0,1"}, 60s);
    EXPECT_EQ(o.exit_code, 1);
    EXPECT_NE(o.err.find("runs --exclusive"), std::string::npos) << o.err;
    EXPECT_EQ(o.out.find("transactions counted"), std::string::npos) << o.out;  // not even the test alone
}
