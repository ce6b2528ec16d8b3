// zcperf itself with GPU buffers on both sides (embedded server): the report carries each side's
// staging and the GPU's placement. ZCPERF_BIN in the environment overrides the built binary's path
// (tests/support: zcperf_bin()).
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>
#include <nlohmann/json.hpp>
#include <string>

#include "gpu_test.hpp"
#include "process.hpp"
#include "report.hpp"

namespace {

using zc::e2e::Outcome;
using zc::e2e::report_json;

// zcperf ARGS (split at spaces) through the test-support library: killed if it runs past 120 s.
Outcome zcperf_run(const std::string& args) {
    std::vector<std::string> argv;
    std::istringstream words(args);
    for (std::string w; words >> w;) argv.push_back(w);
    return zc::e2e::run_zcperf(argv, std::chrono::seconds(120));
}

// Has process `pid` the GPU driver mapped (libcuda.so, which the CUDA runtime loads at its first call)?
bool maps_gpu_driver(pid_t pid) {
    std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
    for (std::string line; std::getline(maps, line);)
        if (line.find("/libcuda.so") != std::string::npos) return true;
    return false;
}

// zcperf's embedded server: the one child its main thread forked (-1: none yet).
pid_t embedded_server_of(pid_t zcperf) {
    std::ifstream f("/proc/" + std::to_string(zcperf) + "/task/" + std::to_string(zcperf) + "/children");
    pid_t child = -1;
    f >> child;
    return child;
}

}  // namespace

// A host-only run never starts the GPU driver, in the client or its embedded server (the driver's start is
// seconds on some hosts); the server starts it when the remote side's --buffer asks for GPU memory, which
// also shows that this check sees the driver where it is.
TEST(GpuE2e, HostOnlyRunNeverStartsTheGpuDriver) {
    ZC_REQUIRE_GPU();
    for (bool remote_gpu : {false, true}) {
        SCOPED_TRACE(remote_gpu ? "--buffer host,cuda:0" : "--buffer host,host");
        zc::e2e::Process p({zc::e2e::zcperf_bin(), "-l", "4", "--buffer", remote_gpu ? "host,cuda:0" : "host,host"});
        pid_t server = -1;
        for (int i = 0; i < 200 && server < 0; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            server = embedded_server_of(p.pid());
        }
        ASSERT_GT(server, 0) << "no embedded server after 10 s: " << p.stderr_so_far();
        std::this_thread::sleep_for(std::chrono::milliseconds(2000));  // its start and the test's set-up are done
        const bool client_driver = maps_gpu_driver(p.pid()), server_driver = maps_gpu_driver(server);
        Outcome o = p.wait(std::chrono::seconds(60));
        ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
        EXPECT_FALSE(client_driver);
        EXPECT_EQ(server_driver, remote_gpu);
    }
}

TEST(GpuE2e, GpuToGpuStreamReportsStagingAndPlacement) {
    ZC_REQUIRE_GPU();
    Outcome o = zcperf_run("--buffer cuda:0,cuda:0 -n 256M -m 4M -o json");
    const std::string out = o.out + o.err;
    ASSERT_EQ(o.exit_code, 0) << out;
    auto j = report_json(o);
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
    Outcome o = zcperf_run("--buffer cuda,pinned -n 64M -m 1M");
    const std::string out = o.out + o.err;
    ASSERT_EQ(o.exit_code, 0) << out;
    EXPECT_NE(out.find("memory: cuda:0 staged through"), std::string::npos) << out;
    EXPECT_NE(out.find("memory: pinned host memory"), std::string::npos) << out;
    EXPECT_NE(out.find("GPU cuda:0"), std::string::npos) << out;
    std::cout << out;
}

TEST(GpuE2e, DirectOverTcpIsAClearError) {
    Outcome o = zcperf_run("--buffer ,cuda --gpu-path direct -n 1M");
    const std::string out = o.out + o.err;
    EXPECT_EQ(o.exit_code, 2) << out;
    EXPECT_NE(out.find("cannot DMA into GPU memory"), std::string::npos) << out;
}

// --gpu-copy-bandwidth: measured figures where a GPU is usable, else exit 1 naming why (never zeros).
TEST(GpuE2e, CopyBandwidthIsMeasuredOrAClearError) {
    Outcome o = zcperf_run("--gpu-copy-bandwidth -o json");
    const std::string out = o.out + o.err;
    if (zc::cuda::devices().empty()) {
        EXPECT_EQ(o.exit_code, 1) << out;
        EXPECT_NE(out.find("--gpu-copy-bandwidth: "), std::string::npos) << out;
        EXPECT_EQ(out.find("h2d_pinned_gbs"), std::string::npos) << out;
        return;
    }
    ASSERT_EQ(o.exit_code, 0) << out;
    const nlohmann::json doc = report_json(o);  // named: a reference into a temporary would dangle
    const auto& all = doc.at("gpu_copy_bandwidth");
    ASSERT_FALSE(all.empty()) << out;
    for (const char* k : {"h2d_pinned_gbs", "d2h_pinned_gbs", "h2d_pageable_gbs", "d2h_pageable_gbs"}) {
        EXPECT_GT(all.at(0).at(k).get<double>(), 0.0) << k;
    }
}

TEST(GpuE2e, GpuToGpuRrReportsTransactionsAndStagingPerSide) {
    ZC_REQUIRE_GPU();
    Outcome o = zcperf_run("-t rr --buffer cuda:0,cuda:0 -m 64K -l 1 -o json");
    const std::string out = o.out + o.err;
    ASSERT_EQ(o.exit_code, 0) << out;
    auto j = report_json(o);
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
    Outcome o = zcperf_run("-t msgrate --buffer cuda -l 1");
    const std::string out = o.out + o.err;
    EXPECT_EQ(o.exit_code, 2) << out;
    EXPECT_NE(out.find("msgrate uses host memory"), std::string::npos) << out;
}
