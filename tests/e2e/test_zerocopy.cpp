// The zero-copy paths end to end over loopback: each moves exactly the bytes the receiver counted,
// and each says what the kernel really did (copied anyway, pages mapped or copied).
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "process.hpp"
#include "report.hpp"

using namespace zc::e2e;
using nlohmann::json;
using namespace std::chrono_literals;

TEST(ZeroCopy, EverySenderAndReceiverPathMovesExactlyTheBytes) {
    LocalServer server;
    for (std::string t : {"tcp", "tcp-sendfile", "tcp-msgzc", "tcp-uringzc"}) {
        for (std::string rx : {"copy", "zerocopy", "splice", "trunc"}) {
            json j = zcperf_report({"-H", server.address(), "-T", t, "--rx", rx, "-n", "24M", "-m", "128K"});
            ASSERT_EQ(j["results"].size(), 1u) << t << "/" << rx << ": " << j["errors"];
            const json& r = j["results"][0];
            EXPECT_EQ(r["bytes"].get<uint64_t>(), 24ull << 20) << t << "/" << rx;
            EXPECT_EQ(r["local"]["bytes"], r["remote"]["bytes"]);
            EXPECT_EQ(r["local"]["path"], t) << "the sender ran another path than asked";
            EXPECT_EQ(r["remote"]["path"], "rx-" + rx) << "the receiver ran another path than asked";
            EXPECT_EQ(r["rx"], rx);
        }
    }
}

TEST(ZeroCopy, KernelReportsEveryZeroCopySendCopiedOnLoopback) {
    for (std::string t : {"tcp-msgzc", "tcp-uringzc"}) {
        json j = zcperf_report({"-T", t, "-n", "64M", "-m", "1M"});
        const json& r = j["results"][0];
        const json& z = r["local"]["zerocopy"];
        EXPECT_EQ(z["sent_bytes"].get<uint64_t>(), 64ull << 20) << t;
        EXPECT_EQ(z["copied_bytes"].get<uint64_t>(), 64ull << 20) << t;
        EXPECT_DOUBLE_EQ(z["copied_pct"].get<double>(), 100.0) << t;
        EXPECT_GT(z["completions"].get<uint64_t>(), 0u) << t;
        EXPECT_TRUE(has_warning(r, "on loopback and veth it always copies")) << r["warnings"];
    }
}

TEST(ZeroCopy, ServerSideZeroCopySendInMaerts) {
    json j = zcperf_report({"-T", "tcp-msgzc", "-t", "maerts", "-n", "32M", "-m", "256K"});
    const json& r = j["results"][0];
    EXPECT_EQ(r["remote"]["path"], "tcp-msgzc");
    EXPECT_EQ(r["remote"]["zerocopy"]["sent_bytes"].get<uint64_t>(), 32ull << 20);
    EXPECT_EQ(r["local"]["bytes"].get<uint64_t>(), 32ull << 20);
}

TEST(ZeroCopy, ReceiveMapsPagesOnlyFromAZeroCopySender) {
    // With MSG_ZEROCOPY on the sender, loopback hands whole pages through and most map (93.8 % at
    // the default MTU, as measured here); with a copying sender nothing maps and the report says so.
    json zc = zcperf_report({"-T", "tcp-msgzc", "--rx", "zerocopy", "-n", "64M", "-m", "1M"});
    const json& z = zc["results"][0]["remote"]["zerocopy"];
    EXPECT_GT(z["rx_mapped_pct"].get<double>(), 50.0) << z;
    EXPECT_EQ(z["rx_mapped_bytes"].get<uint64_t>() + z["rx_copied_bytes"].get<uint64_t>(), 64ull << 20);

    json plain = zcperf_report({"-T", "tcp", "--rx", "zerocopy", "-n", "64M", "-m", "1M"});
    const json& r = plain["results"][0];
    EXPECT_EQ(r["remote"]["zerocopy"]["rx_mapped_bytes"].get<uint64_t>(), 0u);
    EXPECT_EQ(r["remote"]["zerocopy"]["rx_copied_bytes"].get<uint64_t>(), 64ull << 20);
    EXPECT_TRUE(has_warning(r, "pages map only when")) << r["warnings"];
}

TEST(ZeroCopy, ComparisonReportsRatiosToTheFirstTransport) {
    json j = zcperf_report({"-T", "tcp,tcp-sendfile", "-m", "64K,256K", "-n", "16M"});
    ASSERT_EQ(j["results"].size(), 4u);
    EXPECT_TRUE(j["results"][0]["baseline"].is_null());
    const json& b = j["results"][2]["baseline"];
    ASSERT_FALSE(b.is_null());
    EXPECT_EQ(b["transport"], "tcp");
    double expected =
        j["results"][2]["throughput_gbps"].get<double>() / j["results"][0]["throughput_gbps"].get<double>();
    EXPECT_NEAR(b["throughput_ratio"].get<double>(), expected, 1e-9);
}

// io_uring can be switched off system-wide (kernel.io_uring_disabled, Linux 6.6+): the path must
// then fail with the cause named, never fall back silently. The setting is restored, even on failure.
TEST(ZeroCopy, IoUringRefusedIsAClearError) {
    const char* knob = "/proc/sys/kernel/io_uring_disabled";
    std::string before;
    {
        std::ifstream in(knob);
        if (!(in >> before) || access(knob, W_OK) != 0) GTEST_SKIP() << knob << " is not there or not writable";
    }
    struct Restore {
        const char* path;
        std::string value;
        ~Restore() { std::ofstream(path) << value; }
    } restore{knob, before};
    {
        std::ofstream out(knob);
        out << "2";
    }
    auto o = run({zcperf_bin(), "-T", "tcp-uringzc", "-n", "4M"}, 30s);
    EXPECT_EQ(o.exit_code, 1);
    EXPECT_NE(o.err.find("io_uring is not available"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("io_uring_disabled"), std::string::npos) << o.err;
}
