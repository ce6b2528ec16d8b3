#include "baseline.hpp"

namespace zc {

namespace {
double ratio(double a, double b) { return b > 0 ? a / b : 0; }

// --explain on both: each category's CPU per unit here minus the baseline's.
std::vector<std::pair<Category, double>> explain_delta(const TestResult& r, const SideResult& s, const TestResult& b,
                                                       const SideResult& bs) {
    std::vector<std::pair<Category, double>> out;
    if (!s.explain.ran || !bs.explain.ran) return out;
    double units = explain_units(r, s), base_units = explain_units(b, bs);
    for (size_t i = 0; i < kCategoryCount; ++i) {
        out.emplace_back(static_cast<Category>(i), explain_per_unit(s.explain.category_s[i], units) -
                                                       explain_per_unit(bs.explain.category_s[i], base_units));
    }
    return out;
}
}  // namespace

void compare_with_baseline(TestResult& r, const std::vector<TestResult>& earlier, Transport baseline,
                           RxMode baseline_rx) {
    // Another transport is compared with the first transport at the same receive mode; the first
    // transport at another receive mode with itself at the first receive mode.
    bool other_transport = r.transport != baseline;
    if (!other_transport && r.rx == baseline_rx) return;
    for (const auto& b : earlier) {
        bool match =
            other_transport ? b.transport == baseline && b.rx == r.rx : b.transport == baseline && b.rx == baseline_rx;
        if (!match || b.test != r.test || b.message_size != r.message_size || b.streams != r.streams) continue;
        r.baseline.transport = other_transport
                                   ? transport_name(baseline)
                                   : std::string(transport_name(baseline)) + "/" + rx_mode_name(baseline_rx);
        r.baseline.throughput = ratio(r.throughput_gbps, b.throughput_gbps);
        r.baseline.local_service_demand = ratio(r.local.service_demand_us_per_kb(), b.local.service_demand_us_per_kb());
        r.baseline.remote_service_demand =
            ratio(r.remote.service_demand_us_per_kb(), b.remote.service_demand_us_per_kb());
        r.baseline.local_explain_delta = explain_delta(r, r.local, b, b.local);
        r.baseline.remote_explain_delta = explain_delta(r, r.remote, b, b.remote);
        return;
    }
}

}  // namespace zc
