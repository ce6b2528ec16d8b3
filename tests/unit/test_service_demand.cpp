// Service demand: netperf's formula, our cpu_s form, and qperf's CPU-s/GB.
#include <gtest/gtest.h>

#include "measure/service_demand.hpp"

using namespace zc;

namespace {

// netperf (src/netlib.c calc_service_demand): SD = util% x 10000 / (KB/s) x Ncpus, in us/KB.
double netperf_sd(double util_pct, double kb_per_s, int ncpus) { return util_pct * 10000.0 / kb_per_s * ncpus; }

}  // namespace

TEST(ServiceDemand, EqualsNetperfFormulaWorkedExample) {
    // 8 CPUs 25 % busy for 10 s while 10 GiB moved.
    // cpu_s = 0.25 x 8 x 10 = 20 CPU-s; KB = 10 GiB / 1024 = 10485760 KB; KB/s = 1048576.
    // netperf: 25 x 10000 / 1048576 x 8 = 1.9073486328125 us/KB
    // ours:    20 x 1e6 / 10485760        = 1.9073486328125 us/KB
    const uint64_t bytes = 10ull << 30;
    EXPECT_DOUBLE_EQ(service_demand_us_per_kb(20.0, bytes), 1.9073486328125);
    EXPECT_DOUBLE_EQ(netperf_sd(25.0, 1048576.0, 8), 1.9073486328125);
}

TEST(ServiceDemand, EqualsNetperfFormulaOverSeveralCases) {
    struct Case {
        double util_pct;
        int ncpus;
        double elapsed_s;
        uint64_t bytes;
    };
    for (const Case& c : {Case{100, 1, 1, 1ull << 20}, Case{3.7, 64, 30, 123456789012ull}, Case{50, 2, 2.5, 1000000},
                          Case{0.01, 256, 60, 7ull << 40}}) {
        double cpu_s = c.util_pct / 100.0 * c.ncpus * c.elapsed_s;
        double kb_per_s = static_cast<double>(c.bytes) / 1024.0 / c.elapsed_s;
        double ours = service_demand_us_per_kb(cpu_s, c.bytes);
        EXPECT_NEAR(ours, netperf_sd(c.util_pct, kb_per_s, c.ncpus), 1e-12 * ours) << c.util_pct;
    }
    // A whole CPU for 1 s moving 1 MiB = 1024 KB: 1e6 / 1024 = 976.5625 us/KB
    EXPECT_DOUBLE_EQ(service_demand_us_per_kb(1.0, 1ull << 20), 976.5625);
}

TEST(ServiceDemand, ZeroBytesIsZeroNotInfinity) {
    EXPECT_EQ(service_demand_us_per_kb(5.0, 0), 0.0);
    EXPECT_EQ(service_demand_us_per_kb(0.0, 0), 0.0);
    EXPECT_EQ(service_demand_us_per_kb(0.0, 1ull << 30), 0.0);
    EXPECT_EQ(service_demand_us_per_tran(3.0, 0), 0.0);
}

TEST(ServiceDemand, PerTransaction) {
    // 0.5 CPU-s over 100000 transactions = 5 us each
    EXPECT_DOUBLE_EQ(service_demand_us_per_tran(0.5, 100000), 5.0);
}

TEST(ServiceDemand, CpuSecondsPerGigabyte) {
    // 1 us per 1024 B -> 1e9 / 1024 us per 1e9 B = 976562.5 us = 0.9765625 CPU-s/GB
    EXPECT_DOUBLE_EQ(us_per_kb_to_cpu_s_per_gb(1.0), 0.9765625);
    EXPECT_NEAR(us_per_kb_to_cpu_s_per_gb(1.0), 0.977, 0.0005);
    EXPECT_DOUBLE_EQ(us_per_kb_to_cpu_s_per_gb(0.0), 0.0);
    EXPECT_DOUBLE_EQ(us_per_kb_to_cpu_s_per_gb(2.048), 2.0);
    // Round trip through the definition: 4 CPU-s for 1e9 bytes is 4 CPU-s/GB.
    EXPECT_DOUBLE_EQ(us_per_kb_to_cpu_s_per_gb(service_demand_us_per_kb(4.0, 1000000000)), 4.0);
}
