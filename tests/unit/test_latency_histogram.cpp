// The latency histogram and its percentile math on inputs whose answers are known.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "measure/latency_histogram.hpp"

using zc::LatencyHistogram;

namespace {

// Nearest rank on a sorted copy: the reference the histogram must match (exactly below 256 ns,
// within one bucket above).
uint64_t nearest_rank(std::vector<uint64_t> v, double p) {
    std::sort(v.begin(), v.end());
    if (p <= 0) return v.front();
    size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size()) - 1e-9));
    return v[std::clamp<size_t>(rank, 1, v.size()) - 1];
}

}  // namespace

TEST(LatencyHistogram, BucketsAreContiguousAndCoverEveryValue) {
    // Each bucket starts where the previous one ended, and bucket_of maps both ends back to it.
    uint64_t next = 0;
    for (size_t i = 0; i < LatencyHistogram::kBuckets; ++i) {
        uint64_t low = LatencyHistogram::bucket_low(i);
        uint64_t width = LatencyHistogram::bucket_width(i);
        ASSERT_EQ(low, next) << "bucket " << i;
        ASSERT_EQ(LatencyHistogram::bucket_of(low), i);
        ASSERT_EQ(LatencyHistogram::bucket_of(low + (width - 1)), i);
        next = low + width;  // wraps to 0 after the last bucket
    }
    EXPECT_EQ(next, 0u);
    EXPECT_EQ(LatencyHistogram::bucket_of(UINT64_MAX), LatencyHistogram::kBuckets - 1);
}

TEST(LatencyHistogram, SmallValuesAreExact) {
    for (uint64_t v = 0; v < 256; ++v) {
        EXPECT_EQ(LatencyHistogram::bucket_of(v), v);
        EXPECT_EQ(LatencyHistogram::bucket_width(v), 1u);
    }
}

TEST(LatencyHistogram, RelativeBucketWidthIsBounded) {
    for (size_t i = 256; i < LatencyHistogram::kBuckets; ++i) {
        double rel = static_cast<double>(LatencyHistogram::bucket_width(i)) /
                     static_cast<double>(LatencyHistogram::bucket_low(i));
        ASSERT_LE(rel, 1.0 / 128 + 1e-12) << i;
    }
    EXPECT_EQ(LatencyHistogram::kBuckets * sizeof(uint64_t), 59392u);  // 58 KiB, whatever the values
}

TEST(LatencyHistogram, OneToHundredGivesTextbookPercentiles) {
    LatencyHistogram h;
    h.prepare();
    for (uint64_t v = 1; v <= 100; ++v) h.record(v);
    EXPECT_EQ(h.count(), 100u);
    EXPECT_EQ(h.min(), 1u);
    EXPECT_EQ(h.max(), 100u);
    EXPECT_DOUBLE_EQ(h.mean(), 50.5);
    EXPECT_EQ(h.percentile(0), 1u);
    EXPECT_EQ(h.percentile(50), 50u);
    EXPECT_EQ(h.percentile(90), 90u);
    EXPECT_EQ(h.percentile(99), 99u);
    EXPECT_EQ(h.percentile(99.9), 100u);
    EXPECT_EQ(h.percentile(100), 100u);
    EXPECT_EQ(h.percentile(50.5), 51u);
}

TEST(LatencyHistogram, RankArithmeticDoesNotRoundUpAWholeRank) {
    // 99.9 % of 1000 samples is rank 999 exactly: floating point must not make it 1000.
    LatencyHistogram h;
    h.prepare();
    for (uint64_t v = 1; v <= 1000; ++v) h.record(v < 256 ? v : 200);  // keep them exact
    std::vector<uint64_t> ref;
    for (uint64_t v = 1; v <= 1000; ++v) ref.push_back(v < 256 ? v : 200);
    for (double p : {50.0, 90.0, 99.0, 99.9, 12.3}) EXPECT_EQ(h.percentile(p), nearest_rank(ref, p)) << p;
}

TEST(LatencyHistogram, LargeValuesAreWithinOneBucket) {
    std::mt19937_64 rng(42);
    std::lognormal_distribution<double> d(std::log(30000.0), 0.6);  // ~30 us, a realistic tail
    std::vector<uint64_t> ref;
    LatencyHistogram h;
    h.prepare();
    for (int i = 0; i < 100000; ++i) {
        uint64_t v = static_cast<uint64_t>(d(rng));
        ref.push_back(v);
        h.record(v);
    }
    for (double p : {50.0, 90.0, 99.0, 99.9}) {
        double want = static_cast<double>(nearest_rank(ref, p));
        double got = static_cast<double>(h.percentile(p));
        EXPECT_NEAR(got, want, want / 128.0) << "p" << p;  // the bucket's midpoint: within half a bucket
    }
    uint64_t sum = 0;
    for (uint64_t v : ref) sum += v;
    EXPECT_DOUBLE_EQ(h.mean(), static_cast<double>(sum) / ref.size());  // exact, not from buckets
    EXPECT_EQ(h.min(), *std::min_element(ref.begin(), ref.end()));
    EXPECT_EQ(h.max(), *std::max_element(ref.begin(), ref.end()));
}

TEST(LatencyHistogram, PercentilesAreOrderedAndClampedToTheSamples) {
    LatencyHistogram h;
    h.prepare();
    h.record(1'000'003);  // one sample: every percentile is it, not its bucket's midpoint
    EXPECT_EQ(h.percentile(50), 1'000'003u);
    EXPECT_EQ(h.percentile(99.9), 1'000'003u);
    for (uint64_t v : {5000u, 7000u, 9000u, 2'000'000u}) h.record(v);
    auto s = zc::summarize(h);
    EXPECT_LE(s.min_us, s.p50_us);
    EXPECT_LE(s.p50_us, s.p90_us);
    EXPECT_LE(s.p90_us, s.p99_us);
    EXPECT_LE(s.p99_us, s.p999_us);
    EXPECT_LE(s.p999_us, s.max_us);
    EXPECT_DOUBLE_EQ(s.min_us, 5.0);
    EXPECT_DOUBLE_EQ(s.max_us, 2000.0);
}

TEST(LatencyHistogram, MergeEqualsRecordingEverythingInOne) {
    LatencyHistogram a, b, all;
    a.prepare();
    b.prepare();
    all.prepare();
    for (uint64_t v = 1; v < 5000; v += 7) {
        (v % 2 ? a : b).record(v * 13);
        all.record(v * 13);
    }
    LatencyHistogram m;
    m.merge(a);
    m.merge(b);
    m.merge(LatencyHistogram{});  // an empty one changes nothing
    EXPECT_EQ(m.count(), all.count());
    EXPECT_EQ(m.min(), all.min());
    EXPECT_EQ(m.max(), all.max());
    EXPECT_EQ(m.sum(), all.sum());
    for (double p : {1.0, 50.0, 99.0, 99.9}) EXPECT_EQ(m.percentile(p), all.percentile(p));
}

TEST(LatencyHistogram, SparseRoundTripAndEmptyHistogram) {
    LatencyHistogram h;
    EXPECT_FALSE(h.prepared());
    EXPECT_EQ(h.count(), 0u);
    EXPECT_EQ(h.percentile(50), 0u);
    EXPECT_EQ(zc::summarize(h).samples, 0u);
    h.prepare();
    for (uint64_t v : {10u, 20u, 20u, 40000u}) h.record(v);
    auto back = LatencyHistogram::from_sparse(h.sparse(), h.min(), h.max(), h.sum());
    EXPECT_EQ(back.count(), 4u);
    EXPECT_EQ(back.percentile(50), 20u);
    EXPECT_EQ(back.percentile(100), 40000u);
    EXPECT_THROW(LatencyHistogram::from_sparse({{LatencyHistogram::kBuckets, 1}}, 0, 1, 1), std::invalid_argument);
}
