#include "measure/latency_histogram.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace zc {

uint64_t LatencyHistogram::bucket_low(size_t i) {
    size_t band = i >> kSubBits;  // 0 and 1: exact values; band b >= 2 covers [2^(b+kSubBits-1), 2^(b+kSubBits))
    if (band <= 1) return i;
    int shift = static_cast<int>(band) - 1;
    return (kSubCount + (i & (kSubCount - 1))) << shift;
}

uint64_t LatencyHistogram::bucket_width(size_t i) {
    size_t band = i >> kSubBits;
    return band <= 1 ? 1 : uint64_t{1} << (band - 1);
}

LatencyHistogram LatencyHistogram::snapshot() const {
    LatencyHistogram h;
    if (counts_.empty()) return h;
    h.counts_.resize(kBuckets);
    for (size_t i = 0; i < kBuckets; ++i) h.counts_[i] = load(counts_[i]);
    h.count_ = load(count_);
    h.sum_ = load(sum_);
    return h;
}

LatencyHistogram LatencyHistogram::since(const LatencyHistogram& later, const LatencyHistogram& earlier) {
    LatencyHistogram h;
    if (later.counts_.empty()) return h;
    h.counts_ = later.counts_;
    bool first = true;
    for (size_t i = 0; i < kBuckets; ++i) {
        if (!earlier.counts_.empty()) h.counts_[i] -= std::min(h.counts_[i], earlier.counts_[i]);
        if (!h.counts_[i]) continue;
        h.count_ += h.counts_[i];
        if (first) h.min_ = bucket_low(i);
        first = false;
        h.max_ = bucket_low(i) + bucket_width(i) - 1;
    }
    h.sum_ = later.sum_ - std::min(later.sum_, earlier.sum_);
    return h;
}

void LatencyHistogram::merge(const LatencyHistogram& o) {
    if (o.count_ == 0) return;
    prepare();
    for (size_t i = 0; i < kBuckets; ++i) counts_[i] += o.counts_[i];
    count_ += o.count_;
    sum_ += o.sum_;
    min_ = std::min(min_, o.min_);
    max_ = std::max(max_, o.max_);
}

uint64_t LatencyHistogram::percentile(double p) const {
    if (count_ == 0) return 0;
    if (p <= 0) return min_;
    if (p >= 100) return max_;
    // ceil(p/100 * n), computed so that e.g. 99.9 % of 1000 is 999, not 1000 from rounding error
    double exact = p / 100.0 * static_cast<double>(count_);
    uint64_t rank = static_cast<uint64_t>(std::ceil(exact - 1e-9 * exact));
    rank = std::clamp<uint64_t>(rank, 1, count_);
    uint64_t seen = 0;
    for (size_t i = 0; i < kBuckets; ++i) {
        seen += counts_[i];
        if (seen >= rank) {
            uint64_t mid = bucket_low(i) + (bucket_width(i) - 1) / 2;
            return std::clamp(mid, min_, max_);
        }
    }
    return max_;
}

std::vector<std::pair<uint32_t, uint64_t>> LatencyHistogram::sparse() const {
    std::vector<std::pair<uint32_t, uint64_t>> out;
    for (size_t i = 0; i < counts_.size(); ++i)
        if (counts_[i]) out.emplace_back(static_cast<uint32_t>(i), counts_[i]);
    return out;
}

LatencyHistogram LatencyHistogram::from_sparse(const std::vector<std::pair<uint32_t, uint64_t>>& buckets, uint64_t min,
                                               uint64_t max, uint64_t sum) {
    LatencyHistogram h;
    if (buckets.empty()) return h;
    h.prepare();
    for (const auto& [i, n] : buckets) {
        if (i >= kBuckets) throw std::invalid_argument("latency histogram bucket index out of range");
        h.counts_[i] += n;
        h.count_ += n;
    }
    if (min > max) throw std::invalid_argument("latency histogram min above max");
    h.min_ = min;
    h.max_ = max;
    h.sum_ = sum;
    return h;
}

LatencySummary summarize(const LatencyHistogram& h, const std::vector<double>& percentiles) {
    auto us = [](uint64_t ns) { return static_cast<double>(ns) / 1000.0; };
    LatencySummary s;
    s.samples = h.count();
    if (!s.samples) return s;
    s.min_us = us(h.min());
    s.mean_us = h.mean() / 1000.0;
    s.p50_us = us(h.percentile(50));
    s.p90_us = us(h.percentile(90));
    s.p99_us = us(h.percentile(99));
    s.p999_us = us(h.percentile(99.9));
    s.max_us = us(h.max());
    s.chosen = read_percentiles(h, percentiles);
    return s;
}

}  // namespace zc
