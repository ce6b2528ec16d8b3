// Latency over loopback: chosen percentiles in the report, and --samples' file holding every transaction.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "process.hpp"
#include "report.hpp"

using namespace zc::e2e;
using json = nlohmann::json;

TEST(LatencySamplesE2e, EveryTransactionIsInTheFileAndTheChosenPercentilesInTheReport) {
    const std::string file = testing::TempDir() + "zcperf_samples_" + std::to_string(getpid()) + ".csv";
    auto o = run({zcperf_bin(), "-t", "rr", "-m", "64", "-l", "3", "--percentiles", "50,99,99.99", "--samples", file,
                  "-o", "json"});
    json j = ok_report(o);
    const json& rr = j["results"][0]["rr"];
    const uint64_t transactions = rr["transactions"].get<uint64_t>();
    // A count, not a rate: 3 s of loopback rr make tens of thousands even on a loaded 2-CPU VM.
    EXPECT_GE(transactions, 1000u);
    ASSERT_TRUE(rr["rtt_us"].contains("p99.99")) << rr.dump();
    const json& chosen = rr["rtt_percentiles"];
    ASSERT_EQ(chosen.size(), 3u);
    EXPECT_EQ(chosen[2]["percentile"].get<double>(), 99.99);
    EXPECT_EQ(chosen[2]["rtt_us"], rr["rtt_us"]["p99.99"]);
    EXPECT_LE(chosen[2]["error_pct"].get<double>(), 0.4);
    EXPECT_LE(chosen[0]["rtt_us"].get<double>(), chosen[2]["rtt_us"].get<double>());
    EXPECT_EQ(rr["samples_kept"].get<uint64_t>(), transactions);
    EXPECT_EQ(rr["samples_dropped"].get<uint64_t>(), 0u);

    std::ifstream in(file);
    std::string line;
    ASSERT_TRUE(std::getline(in, line));
    EXPECT_EQ(line, "test,run,stream,start_ns,latency_ns");
    uint64_t lines = 0;
    int64_t last_start = -1;
    uint64_t out_of_order = 0;
    while (std::getline(in, line)) {
        ++lines;
        // "tcp rr 64,0,0,START,LATENCY": the start counts from the interval's; each latency is a real round trip.
        size_t c3 = line.find(',', line.find(',', line.find(',') + 1) + 1);
        size_t c4 = line.find(',', c3 + 1);
        ASSERT_NE(c4, std::string::npos) << line;
        int64_t start = std::stoll(line.substr(c3 + 1, c4 - c3 - 1));
        uint64_t latency = std::stoull(line.substr(c4 + 1));
        EXPECT_GE(start, 0) << line;
        EXPECT_GT(latency, 0u) << line;
        out_of_order += start < last_start;
        last_start = start;
    }
    EXPECT_EQ(lines, transactions);
    EXPECT_EQ(out_of_order, 0u);  // one stream: each transaction starts after the one before
    unlink(file.c_str());
}
