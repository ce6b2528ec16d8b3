#pragma once
// netperf-style repetitions: the same test run until the confidence interval is met (-i/-I), and
// the iterations merged into one result.
#include <vector>

#include "measure/confidence.hpp"
#include "protocol/result.hpp"

namespace zc {

// Bytes, CPU seconds and intervals add up (so service demand is total CPU over total bytes);
// throughput is the mean of the iterations' throughputs, as netperf reports it; the CPU shares are
// weighted by each iteration's interval.
TestResult merge_iterations(const std::vector<TestResult>& runs, const ConfidenceGoal& goal);

// The quantities whose confidence intervals must be met: the rate (throughput; rr transactions/s,
// the inverse of the mean round trip per connection; msgrate messages/s) and both sides' service
// demand (per KB; per transaction or message for rr and msgrate).
std::vector<std::vector<double>> tracked_series(const std::vector<TestResult>& runs);
double tracked_rate(const TestResult& r);
const char* tracked_metric(Workload t);

}  // namespace zc
