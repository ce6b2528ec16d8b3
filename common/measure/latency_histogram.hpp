#pragma once
// A log-linear latency histogram in the manner of HdrHistogram: values (nanoseconds) below
// 2^(kSubBits+1) get a bucket each; above that, every power of two is cut into 2^kSubBits equal
// buckets, so a value is known to within 1/2^kSubBits of itself (0.4 % with the bucket's
// midpoint) over the whole uint64 range, in a fixed 58 KiB. Recording is a count-leading-zeros,
// a shift, a mask and three adds: cheap enough for the inside of a request/response loop.
// Exact min, max and sum are kept beside the buckets, so min, max and mean carry no bucket error.
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "measure/latency_samples.hpp"
#include "measure/percentiles.hpp"

namespace zc {

class LatencyHistogram {
public:
    static constexpr int kSubBits = 7;  // 128 buckets per power of two
    static constexpr uint64_t kSubCount = uint64_t{1} << kSubBits;
    static constexpr size_t kBuckets = (64 - kSubBits + 1) * kSubCount;

    LatencyHistogram() = default;  // empty, no memory: a side that records nothing carries nothing

    // Allocates the buckets (before a measured interval: record() never allocates).
    void prepare() {
        if (counts_.empty()) counts_.assign(kBuckets, 0);
    }
    bool prepared() const { return !counts_.empty(); }

    // The hot path: prepare() must have been called. Counts and sum are stored as relaxed atomics (the
    // same plain stores on x86) so that snapshot() may read them from another thread meanwhile.
    void record(uint64_t ns) {
        uint64_t& bucket = counts_[bucket_of(ns)];
        store(bucket, bucket + 1);
        store(count_, count_ + 1);
        store(sum_, sum_ + ns);
        if (ns < min_) min_ = ns;
        if (ns > max_) max_ = ns;
    }
    // One transaction, from its start and end (CLOCK_MONOTONIC ns): recorded, and kept in the
    // --samples buffer when one is attached.
    void record_transaction(int64_t start_ns, int64_t end_ns) {
        const auto ns = static_cast<uint64_t>(end_ns - start_ns);
        record(ns);
        if (samples_) samples_->add(start_ns, ns);
    }
    // --samples: record_transaction() also keeps each transaction there (not owned; outlives the loop).
    // snapshot(), since() and merge() do not carry it: only the recording loop's histogram keeps samples.
    void keep_samples(LatencySamples* samples) { samples_ = samples; }

    // The buckets, count and sum as they are now, read while the recording thread goes on (--interval):
    // no min or max (they are not published). Empty if this histogram was never prepared.
    LatencyHistogram snapshot() const;
    // The samples recorded between two snapshots of one histogram (earlier may be empty); min and max
    // are the bounds of the lowest and highest bucket that gained samples.
    static LatencyHistogram since(const LatencyHistogram& later, const LatencyHistogram& earlier);

    // Adds another histogram's samples (streams of one side, repetitions of one test).
    void merge(const LatencyHistogram& o);

    uint64_t count() const { return count_; }
    uint64_t min() const { return count_ ? min_ : 0; }
    uint64_t max() const { return max_; }
    double mean() const { return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0.0; }
    // Nearest rank: the smallest recorded value v with at least ceil(p/100 * count) samples <= v,
    // given as its bucket's midpoint clamped to [min, max] (exact below 256 ns). p in [0, 100].
    uint64_t percentile(double p) const;

    static size_t bucket_of(uint64_t v) {
        // e = the highest set bit (at least kSubBits): the power of two; v >> shift keeps the
        // kSubBits+1 leading bits, which pick the bucket inside it. Below 2^(kSubBits+1) the shift is
        // 0 and the bucket is v itself.
        int shift = (63 - std::countl_zero(v | kSubCount)) - kSubBits;
        return (static_cast<size_t>(shift) << kSubBits) + static_cast<size_t>(v >> shift);
    }
    static uint64_t bucket_low(size_t i);    // smallest value in bucket i
    static uint64_t bucket_width(size_t i);  // how many values it holds

    // For the wire and tests: the non-empty buckets only, as (index, count) pairs.
    std::vector<std::pair<uint32_t, uint64_t>> sparse() const;
    static LatencyHistogram from_sparse(const std::vector<std::pair<uint32_t, uint64_t>>& buckets, uint64_t min,
                                        uint64_t max, uint64_t sum);
    uint64_t sum() const { return sum_; }

private:
    static void store(uint64_t& v, uint64_t x) { std::atomic_ref<uint64_t>(v).store(x, std::memory_order_relaxed); }
    static uint64_t load(const uint64_t& v) {
        return std::atomic_ref<uint64_t>(const_cast<uint64_t&>(v)).load(std::memory_order_relaxed);
    }

    std::vector<uint64_t> counts_;
    uint64_t count_ = 0;
    uint64_t sum_ = 0;
    uint64_t min_ = UINT64_MAX;
    uint64_t max_ = 0;
    LatencySamples* samples_ = nullptr;
};

// What a report shows of a histogram, in microseconds.
struct LatencySummary {
    uint64_t samples = 0;
    double min_us = 0, mean_us = 0, p50_us = 0, p90_us = 0, p99_us = 0, p999_us = 0, max_us = 0;
    std::vector<PercentileReading> chosen;  // --percentiles (default kDefaultPercentiles), each with its error
};

LatencySummary summarize(const LatencyHistogram& h, const std::vector<double>& percentiles = kDefaultPercentiles);

}  // namespace zc
