#include "tcp/flow_stats.hpp"

#include <algorithm>

namespace zc {

FlowStats flow_stats(std::vector<uint64_t> b) {
    FlowStats s;
    s.flows = b.size();
    if (b.empty()) return s;
    std::sort(b.begin(), b.end());
    const size_t n = b.size();
    s.min_bytes = b.front();
    s.max_bytes = b.back();
    s.median_bytes = n % 2 ? b[n / 2] : b[n / 2 - 1] + (b[n / 2] - b[n / 2 - 1]) / 2;
    double sum = 0, squares = 0;
    for (uint64_t x : b) {
        sum += static_cast<double>(x);
        squares += static_cast<double>(x) * static_cast<double>(x);
    }
    s.jain = squares > 0 ? sum * sum / (static_cast<double>(n) * squares) : 0;
    return s;
}

FlowFigures flow_figures(const std::vector<uint64_t>& flow_bytes, double seconds, uint64_t transaction_bytes) {
    FlowFigures f;
    f.flows = flow_stats(flow_bytes);
    auto bps = [&](uint64_t bytes) { return seconds > 0 ? static_cast<double>(bytes) * 8 / seconds : 0.0; };
    f.min_bps = bps(f.flows.min_bytes);
    f.median_bps = bps(f.flows.median_bytes);
    f.max_bps = bps(f.flows.max_bytes);
    f.transaction_bytes = transaction_bytes;
    return f;
}

std::string flow_count_problem(std::vector<uint64_t> sent, std::vector<uint64_t> received) {
    if (sent.size() != received.size()) {
        return "flow count mismatch: the sender reports " + std::to_string(sent.size()) + " flows, the receiver " +
               std::to_string(received.size());
    }
    std::sort(sent.begin(), sent.end());
    std::sort(received.begin(), received.end());
    size_t differ = 0;
    for (size_t i = 0; i < sent.size(); ++i) differ += sent[i] != received[i];
    if (differ == 0) return "";
    return "per-flow byte count mismatch: " + std::to_string(differ) + " of " + std::to_string(sent.size()) +
           " flows' counts on the receiver match no flow's on the sender; a flow ended early or lost data";
}

}  // namespace zc
