#include "measure/percentiles.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <stdexcept>

#include "measure/latency_histogram.hpp"

namespace zc {

std::vector<double> parse_percentile_list(const std::string& text) {
    std::vector<double> out;
    size_t start = 0;
    while (start <= text.size()) {
        size_t comma = text.find(',', start);
        std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        char* end = nullptr;
        double p = std::strtod(item.c_str(), &end);
        if (item.empty() || *end != '\0' || !(p > 0 && p < 100))
            throw std::invalid_argument(
                "--percentiles takes numbers above 0 and below 100, comma-separated (e.g. "
                "50,99,99.99); '" +
                item + "' is not one (min and max are always reported)");
        if (!out.empty() && p <= out.back())
            throw std::invalid_argument("--percentiles: give them ascending and once each (e.g. 50,99,99.99)");
        out.push_back(p);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    if (out.size() > kMaxPercentiles)
        throw std::invalid_argument(fmt::format("--percentiles takes at most {} values", kMaxPercentiles));
    return out;
}

std::vector<PercentileReading> read_percentiles(const LatencyHistogram& h, const std::vector<double>& percentiles) {
    std::vector<PercentileReading> out;
    if (!h.count()) return out;
    for (double p : percentiles) {
        uint64_t ns = h.percentile(p);
        // Half the width of the bucket the value fell in: the midpoint is at most that far from any value in it.
        double half_width = static_cast<double>(LatencyHistogram::bucket_width(LatencyHistogram::bucket_of(ns)) / 2);
        out.push_back({p, static_cast<double>(ns) / 1000.0, ns ? 100.0 * half_width / static_cast<double>(ns) : 0.0});
    }
    return out;
}

std::string percentile_label(double percentile) { return fmt::format("p{:g}", percentile); }

}  // namespace zc
