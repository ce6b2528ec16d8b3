// zcperf itself with GPU buffers on both sides (embedded server): the report carries each side's
// staging and the GPU's placement. ZCPERF_BIN in the environment overrides the built binary's path.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "gpu_test.hpp"

namespace {

std::string run(const std::string& args, int& status) {
    const char* env = std::getenv("ZCPERF_BIN");
    std::string cmd = std::string(env && *env ? env : ZCPERF_BIN) + " " + args + " 2>&1";
    std::string out;
    FILE* f = popen(cmd.c_str(), "r");
    if (!f) return "popen failed";
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0) out.append(buf, n);
    status = pclose(f);
    return out;
}

}  // namespace

TEST(GpuE2e, GpuToGpuStreamReportsStagingAndPlacement) {
    ZC_REQUIRE_GPU();
    int status = 0;
    std::string out = run("--buffer cuda:0,cuda:0 -n 256M -m 4M -o json", status);
    ASSERT_EQ(status, 0) << out;
    auto j = nlohmann::json::parse(out);
    const auto& r = j.at("results").at(0);
    for (const char* side : {"local", "remote"}) {
        const auto& s = r.at(side);
        EXPECT_EQ(s.at("memory").at("buffer"), "cuda:0") << side;
        EXPECT_EQ(s.at("memory").at("gpu_path"), "staged") << side;
        EXPECT_EQ(s.at("memory").at("staged_bytes").get<uint64_t>(), 256u << 20) << side;
        EXPECT_EQ(s.at("placement").at("gpu").at("device"), "cuda:0") << side;
        EXPECT_FALSE(s.at("placement").at("gpu").at("pci").get<std::string>().empty()) << side;
    }
    std::cout << "D-D 4M: " << r.at("throughput_gbps") << " Gb/s; local copy " << r["local"]["memory"]["stage_copy_s"]
              << " s, remote copy " << r["remote"]["memory"]["stage_copy_s"] << " s\n";
}

TEST(GpuE2e, HumanReportShowsTheStage) {
    ZC_REQUIRE_GPU();
    int status = 0;
    std::string out = run("--buffer cuda,pinned -n 64M -m 1M", status);
    ASSERT_EQ(status, 0) << out;
    EXPECT_NE(out.find("memory: cuda:0 staged through"), std::string::npos) << out;
    EXPECT_NE(out.find("memory: pinned host memory"), std::string::npos) << out;
    EXPECT_NE(out.find("GPU cuda:0"), std::string::npos) << out;
    std::cout << out;
}

TEST(GpuE2e, DirectOverTcpIsAClearError) {
    int status = 0;
    std::string out = run("--buffer ,cuda --gpu-path direct -n 1M", status);
    EXPECT_EQ(WEXITSTATUS(status), 2) << out;
    EXPECT_NE(out.find("cannot DMA into GPU memory"), std::string::npos) << out;
}

// --gpu-copy-bandwidth: measured figures where a GPU is usable, else exit 1 naming why (never zeros).
TEST(GpuE2e, CopyBandwidthIsMeasuredOrAClearError) {
    int status = 0;
    std::string out = run("--gpu-copy-bandwidth -o json", status);
    if (zc::cuda::devices().empty()) {
        EXPECT_EQ(WEXITSTATUS(status), 1) << out;
        EXPECT_NE(out.find("--gpu-copy-bandwidth: "), std::string::npos) << out;
        EXPECT_EQ(out.find("h2d_pinned_gbs"), std::string::npos) << out;
        return;
    }
    ASSERT_EQ(status, 0) << out;
    const nlohmann::json doc = nlohmann::json::parse(out);  // named: a reference into a temporary would dangle
    const auto& all = doc.at("gpu_copy_bandwidth");
    ASSERT_FALSE(all.empty()) << out;
    for (const char* k : {"h2d_pinned_gbs", "d2h_pinned_gbs", "h2d_pageable_gbs", "d2h_pageable_gbs"}) {
        EXPECT_GT(all.at(0).at(k).get<double>(), 0.0) << k;
    }
}

TEST(GpuE2e, GpuToGpuRrReportsTransactionsAndStagingPerSide) {
    ZC_REQUIRE_GPU();
    int status = 0;
    std::string out = run("-t rr --buffer cuda:0,cuda:0 -m 64K -l 1 -o json", status);
    ASSERT_EQ(status, 0) << out;
    auto j = nlohmann::json::parse(out);
    const auto& r = j.at("results").at(0);
    uint64_t tx = r.at("rr").at("transactions").get<uint64_t>();
    ASSERT_GT(tx, 0u) << out;
    for (const char* side : {"local", "remote"}) {
        const auto& m = r.at(side).at("memory");
        EXPECT_EQ(m.at("buffer"), "cuda:0") << side;
        EXPECT_EQ(m.at("gpu_path"), "staged") << side;
        // Each transaction stages the 64 KiB message out of and into each side's GPU memory once.
        EXPECT_EQ(m.at("staged_bytes").get<uint64_t>(), 2 * tx * 65536) << side;
    }
    std::cout << "rr D-D 64K: " << tx << " transactions, mean RTT " << r["rr"]["rtt_us"]["mean"] << " us\n";
}

TEST(GpuE2e, MsgrateRefusesGpuMemory) {
    if (!zc::cuda::built())
        GTEST_SKIP() << "this build has no CUDA: --buffer cuda is refused before msgrate is looked at";
    int status = 0;
    std::string out = run("-t msgrate --buffer cuda -l 1", status);
    EXPECT_EQ(WEXITSTATUS(status), 2) << out;
    EXPECT_NE(out.find("msgrate uses host memory"), std::string::npos) << out;
}
