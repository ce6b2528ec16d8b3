// -T smc. Here (a host without SMC sockets) it is refused before any test, with what to load. In the two-guest
// lab with SMC set up (scripts/lab.sh --smc; docs/smc.md) each data connection's mode and reason come from the
// kernel: with the same UEID on both guests on Debian's 6.12 kernel SMC-R carries the bytes over rxe (SMC's own
// counters rise by them), and with a guest left without one (--smc-no-ueid a|b) every connection falls back,
// the reason named, the test's first line marked, and --require-smc refuses the test.
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "lab.hpp"
#include "process.hpp"
#include "report.hpp"

using namespace zc::e2e;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

const Lab kLab;
const std::string kSmcSetup = env_or("ZCPERF_LAB_SMC");  // "a: smc: 6.12... ueid=ZCPERF-LAB ...;b: ..."

bool smc_in_this_kernel() { return run({"bash", "-c", "grep -qw '^smc' /proc/modules"}, 10s).exit_code == 0; }

// What the lab's set-up gave each guest: a UEID, or none.
bool without_ueid(char guest) {
    const std::string tag = std::string(1, guest) + ": ";
    const size_t at = kSmcSetup.find(tag);
    return at != std::string::npos && kSmcSetup.find("ueid=none", at) < kSmcSetup.find(';', at);
}

}  // namespace

TEST(Smc, RefusedBeforeTheTestWithWhatToLoadWhereTheKernelHasNone) {
    if (smc_in_this_kernel()) GTEST_SKIP() << "this kernel has SMC sockets";
    Outcome o = run_zcperf({"-T", "smc", "-l", "1"}, 60s);
    EXPECT_NE(o.exit_code, 0) << o.out;
    EXPECT_NE(o.err.find("modprobe"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("smc"), std::string::npos) << o.err;
}

TEST(Lab, SmcEachConnectionsModeAndReasonFromTheKernel) {
    if (!kLab.here()) GTEST_SKIP() << kNotInLab;
    if (kSmcSetup.empty()) GTEST_SKIP() << "the lab was started without --smc (ZCPERF_LAB_SMC is not set)";
    std::cout << "lab SMC set-up: " << kSmcSetup << "\n";
    const bool fallback_expected = without_ueid('a') || without_ueid('b');
    json j = zcperf_report({"-H", kLab.server, "-T", "smc", "-t", "stream", "-l", "3"}, 180s);
    ASSERT_EQ(j["results"].size(), 1u) << j.dump();
    const json& r = j["results"][0];
    const json &a = r["local"], &b = r["remote"];
    ASSERT_TRUE(a.contains("smc") && b.contains("smc")) << r.dump();
    const uint64_t received = b["stream_bytes"][0].get<uint64_t>();
    EXPECT_GT(received, 0u);
    EXPECT_EQ(a["stream_bytes"][0].get<uint64_t>(), received) << "the sender sent what arrived";
    for (const json* side : {&a, &b}) {
        const json& smc = (*side)["smc"];
        SCOPED_TRACE(smc.dump());
        ASSERT_EQ(smc["connections"].size(), 1u);
        const json& c = smc["connections"][0];
        if (fallback_expected) {
            EXPECT_EQ(c["mode"].get<int>(), 1) << "TCP fallback";
            // The side without a UEID finds no SMC device (0x03030000); the other hears the peer decline
            // (0x05000000) with that diagnosis (docs/smc.md traces both to net/smc/af_smc.c).
            const bool this_side_lacks = without_ueid(side == &a ? 'a' : 'b');
            EXPECT_EQ(c["reason"].get<uint32_t>(), this_side_lacks ? 0x03030000u : 0x05000000u);
            if (!this_side_lacks) {
                EXPECT_EQ(c["peer_diagnosis"].get<uint32_t>(), 0x03030000u);
            }
        } else {
            EXPECT_EQ(c["mode"].get<int>(), 0) << "SMC-R";
            EXPECT_TRUE(c["has_link"].get<bool>()) << "a link group: SMC-R carries it";
            EXPECT_EQ(c["ib_device"].get<std::string>(), "rxe0");
            EXPECT_GT(c["rmb_size"].get<uint32_t>(), 0u);
        }
    }
    if (!fallback_expected) {
        // SMC's counters over the test: the sender's SMC-R bytes cover what the receiver counted (the token and
        // other SMC sockets of the host aside: the lab runs none).
        const json& stats = a["smc"]["stats"];
        ASSERT_TRUE(stats["present"].get<bool>()) << stats.dump();
        EXPECT_GE(stats["smcr"]["tx_bytes"].get<uint64_t>(), received) << stats.dump();
        // read before the connection was made: its SMC-Rv2 handshake is among them (the client's, on A)
        EXPECT_GE(stats["smcr"]["client_v2_ok"].get<uint64_t>(), 1u) << stats.dump();
    }
    // The human report: the test's first line says a fallback; --require-smc refuses one, naming the reason.
    Outcome o = run({zcperf_bin(), "-H", kLab.server, "-T", "smc", "-l", "2"}, 120s);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    std::cout << o.out;
    EXPECT_EQ(o.out.find("smc [TCP fallback]") != std::string::npos, fallback_expected) << o.out;
    Outcome required = run({zcperf_bin(), "-H", kLab.server, "-T", "smc", "-l", "2", "--require-smc"}, 120s);
    if (fallback_expected) {
        EXPECT_NE(required.exit_code, 0) << required.out;
        EXPECT_NE(required.err.find("fell back to TCP"), std::string::npos) << required.err;
        EXPECT_NE(required.err.find("0x03030000"), std::string::npos) << required.err;
    } else {
        EXPECT_EQ(required.exit_code, 0) << required.err;
    }
}
