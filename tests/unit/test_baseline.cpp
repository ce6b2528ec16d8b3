// "Is zero-copy cheaper than copying?": each result against the same test on the run's first transport.
#include <gtest/gtest.h>

#include <map>

#include "baseline.hpp"

using namespace zc;

namespace {

constexpr uint64_t GiB = 1ull << 30;

TestResult result(Transport t, RxMode rx, Workload k, uint64_t size, double gbps, double local_busy_s,
                  double remote_busy_s) {
    TestResult r;
    r.transport = t;
    r.rx = rx;
    r.test = k;
    r.message_size = size;
    r.streams = 1;
    r.throughput_gbps = gbps;
    r.local.bytes = r.remote.bytes = GiB;  // 1048576 KB
    r.local.cpu.busy_cpu_s = local_busy_s;
    r.remote.cpu.busy_cpu_s = remote_busy_s;
    return r;
}

}  // namespace

TEST(Baseline, RatiosAgainstTheMatchingBaselineResult) {
    std::vector<TestResult> earlier{
        result(transport_named("tcp"), RxMode::copy, Workload::stream, 65536, 40, 99, 99),      // other size
        result(transport_named("tcp"), RxMode::copy, Workload::stream, 1 << 20, 20, 2.0, 4.0),  // the match
        result(transport_named("tcp"), RxMode::copy, Workload::stream, 1 << 20, 99, 9,
               9),  // a later duplicate: ignored
    };
    TestResult r = result(transport_named("tcp-msgzc"), RxMode::copy, Workload::stream, 1 << 20, 30, 1.0, 5.0);
    compare_with_baseline(r, earlier, transport_named("tcp"));
    EXPECT_EQ(r.baseline.transport, "tcp");
    EXPECT_DOUBLE_EQ(r.baseline.throughput, 1.5);              // 30 / 20
    EXPECT_DOUBLE_EQ(r.baseline.local_service_demand, 0.5);    // same bytes: 1.0 / 2.0 CPU-s
    EXPECT_DOUBLE_EQ(r.baseline.remote_service_demand, 1.25);  // 5.0 / 4.0
}

TEST(Baseline, ServiceDemandRatioUsesPerKbFiguresNotCpuSeconds) {
    // The baseline moved twice the bytes with the same CPU: its SD is half, so the ratio is 2.
    TestResult b = result(transport_named("tcp"), RxMode::copy, Workload::stream, 4096, 10, 1.0, 1.0);
    b.local.bytes = 2 * GiB;
    TestResult r = result(transport_named("tcp-sendfile"), RxMode::copy, Workload::stream, 4096, 10, 1.0, 1.0);
    compare_with_baseline(r, {b}, transport_named("tcp"));
    EXPECT_DOUBLE_EQ(r.baseline.local_service_demand, 2.0);
    EXPECT_DOUBLE_EQ(r.baseline.remote_service_demand, 1.0);
}

TEST(Baseline, NoMatchLeavesTheResultAlone) {
    TestResult r = result(transport_named("tcp-msgzc"), RxMode::copy, Workload::stream, 1 << 20, 30, 1, 1);
    std::vector<TestResult> others{
        result(transport_named("tcp"), RxMode::zerocopy, Workload::stream, 1 << 20, 20, 1, 1),       // other rx mode
        result(transport_named("tcp"), RxMode::copy, Workload::maerts, 1 << 20, 20, 1, 1),           // other direction
        result(transport_named("tcp"), RxMode::copy, Workload::stream, 1 << 19, 20, 1, 1),           // other size
        result(transport_named("tcp-sendfile"), RxMode::copy, Workload::stream, 1 << 20, 20, 1, 1),  // not the baseline
    };
    TestResult streams = result(transport_named("tcp"), RxMode::copy, Workload::stream, 1 << 20, 20, 1, 1);
    streams.streams = 4;  // other stream count
    others.push_back(streams);
    compare_with_baseline(r, others, transport_named("tcp"));
    EXPECT_TRUE(r.baseline.transport.empty());
    EXPECT_EQ(r.baseline.throughput, 0.0);
    compare_with_baseline(r, {}, transport_named("tcp"));
    EXPECT_TRUE(r.baseline.transport.empty());
}

TEST(Baseline, TheBaselineItselfIsNotCompared) {
    TestResult b = result(transport_named("tcp"), RxMode::copy, Workload::stream, 1 << 20, 20, 1, 1);
    TestResult r = b;
    compare_with_baseline(r, {b}, transport_named("tcp"));
    EXPECT_TRUE(r.baseline.transport.empty());
    // Any transport can be the baseline (the run's first).
    TestResult t = result(transport_named("tcp"), RxMode::copy, Workload::stream, 1 << 20, 10, 1, 1);
    TestResult uz = result(transport_named("tcp-uringzc"), RxMode::copy, Workload::stream, 1 << 20, 40, 1, 1);
    compare_with_baseline(t, {uz}, transport_named("tcp-uringzc"));
    EXPECT_EQ(t.baseline.transport, "tcp-uringzc");
    EXPECT_DOUBLE_EQ(t.baseline.throughput, 0.25);
}

TEST(Baseline, ZeroBaselineFiguresGiveZeroRatiosNotInfinity) {
    TestResult b = result(transport_named("tcp"), RxMode::copy, Workload::stream, 1 << 20, 0, 0, 0);
    TestResult r = result(transport_named("tcp-msgzc"), RxMode::copy, Workload::stream, 1 << 20, 5, 1, 1);
    compare_with_baseline(r, {b}, transport_named("tcp"));
    EXPECT_EQ(r.baseline.transport, "tcp");
    EXPECT_EQ(r.baseline.throughput, 0.0);
    EXPECT_EQ(r.baseline.local_service_demand, 0.0);
    EXPECT_EQ(r.baseline.remote_service_demand, 0.0);
}

TEST(Baseline, AnotherReceiveModeIsComparedWithTheFirstMode) {
    TestResult copy = result(transport_named("tcp"), RxMode::copy, Workload::stream, 1 << 20, 20, 2, 2);
    TestResult trunc = result(transport_named("tcp"), RxMode::trunc, Workload::stream, 1 << 20, 30, 1, 1);
    compare_with_baseline(trunc, {copy}, transport_named("tcp"), RxMode::copy);
    EXPECT_EQ(trunc.baseline.transport, "tcp/copy");
    EXPECT_DOUBLE_EQ(trunc.baseline.throughput, 1.5);
    EXPECT_DOUBLE_EQ(trunc.baseline.remote_service_demand, 0.5);
}

TEST(Baseline, ExplainDeltasPerKbWhenBothExplained) {
    TestResult b = result(transport_named("tcp"), RxMode::copy, Workload::stream, 1 << 20, 20, 2, 2);
    TestResult r = result(transport_named("tcp-msgzc"), RxMode::copy, Workload::stream, 1 << 20, 20, 2, 2);
    compare_with_baseline(r, {b}, transport_named("tcp"));
    EXPECT_TRUE(r.baseline.local_explain_delta.empty());  // neither explained: no deltas, not zeros
    for (TestResult* x : {&b, &r}) x->local.explain.ran = x->remote.explain.ran = true;
    b.local.explain.category_s[static_cast<size_t>(Category::copy)] = 1.048576;  // 1 us/KB over 1 GiB
    r.local.explain.category_s[static_cast<size_t>(Category::copy)] = 0.524288;  // 0.5 us/KB
    r.local.explain.category_s[static_cast<size_t>(Category::zerocopy)] = 0.104858;
    compare_with_baseline(r, {b}, transport_named("tcp"));
    ASSERT_EQ(r.baseline.local_explain_delta.size(), kCategoryCount);
    std::map<Category, double> d(r.baseline.local_explain_delta.begin(), r.baseline.local_explain_delta.end());
    EXPECT_NEAR(d[Category::copy], -0.5, 1e-6);
    EXPECT_NEAR(d[Category::zerocopy], 0.1, 1e-6);
    EXPECT_NEAR(d[Category::tcp], 0.0, 1e-12);
}
