#pragma once
// --flows: many connections per stream thread. How evenly they shared the path: per-flow
// min / median / max and Jain's fairness index, (sum x)^2 / (n * sum x^2): 1 when every flow moved the
// same, 1/n when one flow moved everything (R. Jain, D. Chiu, W. Hawe, DEC-TR-301, 1984).
#include <cstdint>
#include <string>
#include <vector>

namespace zc {

struct FlowStats {
    size_t flows = 0;
    uint64_t min_bytes = 0, median_bytes = 0, max_bytes = 0;
    double jain = 0;  // 0 when there is no flow, or none moved anything
};

FlowStats flow_stats(std::vector<uint64_t> flow_bytes);

// A side's per-flow figures: the rates are each flow's bytes over the side's measured interval, in bits/s.
struct FlowFigures {
    FlowStats flows;
    double min_bps = 0, median_bps = 0, max_bps = 0;
    // rr: the bytes of one transaction each way (-m), for each flow's transactions per second; 0: a stream test.
    uint64_t transaction_bytes = 0;
};
FlowFigures flow_figures(const std::vector<uint64_t>& flow_bytes, double seconds, uint64_t transaction_bytes);

// The receiver's per-flow counts against the sender's: "" when every flow's count on one side is some
// flow's count on the other (the sides group flows into threads each in its own way, so flows are
// matched as a multiset) or neither side ran flows; else what differs.
std::string flow_count_problem(std::vector<uint64_t> sent, std::vector<uint64_t> received);

}  // namespace zc
