#include "baseline.hpp"

namespace zc {

namespace {
double ratio(double a, double b) { return b > 0 ? a / b : 0; }
}  // namespace

void compare_with_baseline(TestResult& r, const std::vector<TestResult>& earlier, Transport baseline) {
    if (r.transport == baseline) return;
    for (const auto& b : earlier) {
        if (b.transport != baseline || b.rx != r.rx || b.test != r.test || b.message_size != r.message_size ||
            b.streams != r.streams) {
            continue;
        }
        r.baseline.transport = transport_name(baseline);
        r.baseline.throughput = ratio(r.throughput_gbps, b.throughput_gbps);
        r.baseline.local_service_demand = ratio(r.local.service_demand_us_per_kb(), b.local.service_demand_us_per_kb());
        r.baseline.remote_service_demand =
            ratio(r.remote.service_demand_us_per_kb(), b.remote.service_demand_us_per_kb());
        return;
    }
}

}  // namespace zc
