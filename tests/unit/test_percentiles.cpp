// --percentiles (read from the histogram, with the error its buckets allow) and --samples' buffer.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "measure/latency_histogram.hpp"
#include "measure/latency_samples.hpp"
#include "measure/percentiles.hpp"
#include "parse_cli.hpp"

using namespace zc;

TEST(Percentiles, ParsesAnAscendingListAndRefusesTheRest) {
    EXPECT_EQ(parse_percentile_list("50,99,99.99"), (std::vector<double>{50, 99, 99.99}));
    EXPECT_EQ(parse_percentile_list("99.999"), (std::vector<double>{99.999}));
    for (const char* bad : {"", "0", "100", "-1", "50,,99", "abc", "99,50", "50,50", "50;99", "50,"})
        EXPECT_THROW(parse_percentile_list(bad), std::invalid_argument) << bad;
    std::string many;
    for (int i = 1; i <= static_cast<int>(kMaxPercentiles) + 1; ++i) many += (i > 1 ? "," : "") + std::to_string(i);
    EXPECT_THROW(parse_percentile_list(many), std::invalid_argument);
}

TEST(Percentiles, LabelsAsReportsNameThem) {
    EXPECT_EQ(percentile_label(50), "p50");
    EXPECT_EQ(percentile_label(99.9), "p99.9");
    EXPECT_EQ(percentile_label(99.99), "p99.99");
}

// 1..100000 ns once each: the exact p-th percentile is p * 1000 ns; each reading must lie within its
// stated error of it, and the error must be half the bucket width at that value.
TEST(Percentiles, ReadingsLieWithinTheirStatedError) {
    LatencyHistogram h;
    h.prepare();
    for (uint64_t v = 1; v <= 100000; ++v) h.record(v);
    auto got = read_percentiles(h, {0.1, 50, 99, 99.99});
    ASSERT_EQ(got.size(), 4u);
    for (const PercentileReading& r : got) {
        double exact_us = r.percentile;  // p % of 100000 ns is p * 1000 ns: p us
        double err_us = r.us * r.error_pct / 100.0;
        EXPECT_LE(std::abs(r.us - exact_us), err_us + 0.0005) << r.percentile;
        uint64_t ns = static_cast<uint64_t>(std::llround(r.us * 1000));
        double half = static_cast<double>(LatencyHistogram::bucket_width(LatencyHistogram::bucket_of(ns)) / 2);
        EXPECT_NEAR(r.error_pct, 100.0 * half / static_cast<double>(ns), 1e-9);
        EXPECT_LE(r.error_pct, 100.0 / 256 + 1e-9);  // 128 buckets per power of two: at most 1/256 off
    }
    EXPECT_EQ(got[0].error_pct, 0.0);  // 100 ns: below 256 every value has its own bucket
    EXPECT_GT(got[3].error_pct, 0.0);  // 99990 ns: a 512-ns bucket
}

TEST(Percentiles, SummaryCarriesTheChosenSet) {
    LatencyHistogram h;
    h.prepare();
    for (uint64_t v = 1; v <= 10000; ++v) h.record(v * 10);
    LatencySummary s = summarize(h, {50, 99.99});
    ASSERT_EQ(s.chosen.size(), 2u);
    EXPECT_EQ(s.chosen[0].us, s.p50_us);
    EXPECT_NEAR(s.chosen[1].us, 99.99, 99.99 * s.chosen[1].error_pct / 100 + 0.001);
    EXPECT_EQ(summarize(h).chosen.size(), kDefaultPercentiles.size());
    EXPECT_TRUE(summarize(LatencyHistogram{}, {50}).chosen.empty());  // no samples: nothing to read
}

TEST(LatencySamples, KeepsUpToCapacityAndCountsTheDropped) {
    LatencySamples s(3);
    s.start_at(1000);
    for (int64_t i = 0; i < 5; ++i) s.add(1000 + i * 10, static_cast<uint64_t>(100 + i));
    EXPECT_EQ(s.kept(), 3u);
    EXPECT_EQ(s.dropped(), 2u);
    EXPECT_EQ(s[2].start_ns - s.origin_ns(), 20);
    EXPECT_EQ(s[2].latency_ns, 102u);
}

TEST(LatencySamples, SizedFromTheTestLengthUpToTheCap) {
    EXPECT_EQ(LatencySamples::capacity_for(3), 3 * LatencySamples::kPerSecond);
    EXPECT_EQ(LatencySamples::capacity_for(3600), LatencySamples::kMaxPerStream);
    EXPECT_EQ(LatencySamples::capacity_for(0), LatencySamples::kMaxPerStream);  // -n: a byte count, no length
}

TEST(LatencySamples, TheHistogramFeedsAttachedSamples) {
    LatencyHistogram h;
    h.prepare();
    LatencySamples s(10);
    h.record_transaction(5, 25);  // nothing attached: recorded only
    h.keep_samples(&s);
    h.record_transaction(100, 130);
    EXPECT_EQ(h.count(), 2u);
    ASSERT_EQ(s.kept(), 1u);
    EXPECT_EQ(s[0].start_ns, 100);
    EXPECT_EQ(s[0].latency_ns, 30u);
}

TEST(PercentilesCli, OptionsReachTheTestParams) {
    zc::ClientOptions o;
    ASSERT_EQ(zc::test::parse({"-t", "rr", "--percentiles", "50,99.99", "--samples", "/tmp/x.csv"}, o), -1);
    EXPECT_EQ(o.params.percentiles, (std::vector<double>{50, 99.99}));
    EXPECT_TRUE(o.params.keep_samples);
    zc::ClientOptions d;
    ASSERT_EQ(zc::test::parse({"-t", "rr"}, d), -1);
    EXPECT_EQ(d.params.percentiles, kDefaultPercentiles);
    EXPECT_FALSE(d.params.keep_samples);
    EXPECT_EQ(zc::test::parse({"-t", "stream", "--samples", "/tmp/x.csv"}), 2);  // no transaction to keep
    EXPECT_EQ(zc::test::parse({"-t", "rr", "--percentiles", "100"}), 2);
}
