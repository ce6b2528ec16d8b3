#include "measure/latency_samples.hpp"

#include <algorithm>
#include <cmath>

namespace zc {

uint64_t LatencySamples::capacity_for(double duration_s) {
    if (duration_s <= 0) return kMaxPerStream;
    double wanted = std::ceil(duration_s * static_cast<double>(kPerSecond));
    return std::min<uint64_t>(kMaxPerStream, static_cast<uint64_t>(wanted));
}

// make_unique<T[]> value-initializes: the zero-fill touches every page now, not in the timed loop.
LatencySamples::LatencySamples(uint64_t capacity)
    : buffer_(std::make_unique<Sample[]>(capacity)), capacity_(capacity) {}

}  // namespace zc
