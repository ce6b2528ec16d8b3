#pragma once
// --percentiles: which percentiles a latency report gives, read from a LatencyHistogram with the error
// the histogram's bucket width allows at that value (the true percentile lies in the bucket; the report
// gives its midpoint, so it is off by at most half the bucket's width).
#include <string>
#include <vector>

namespace zc {

class LatencyHistogram;

// netperf's omni default set, and what zcperf reported before --percentiles.
inline const std::vector<double> kDefaultPercentiles{50, 90, 99, 99.9};
inline constexpr size_t kMaxPercentiles = 16;

struct PercentileReading {
    double percentile = 0;  // e.g. 99.99
    double us = 0;          // the value, microseconds (the bucket's midpoint)
    double error_pct = 0;   // +- this much of the value at most (0 below 256 ns: a bucket per ns there)
};

// "50,99,99.99" -> {50, 99, 99.99}: each in (0, 100), at most kMaxPercentiles, ascending, no repeats.
// Throws std::invalid_argument saying what to give instead.
std::vector<double> parse_percentile_list(const std::string& text);

std::vector<PercentileReading> read_percentiles(const LatencyHistogram& h, const std::vector<double>& percentiles);

// "p50", "p99.9", "p99.99": the key a report gives the percentile under.
std::string percentile_label(double percentile);

}  // namespace zc
