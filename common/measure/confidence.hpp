#pragma once
// netperf's repetitions: run again until the confidence interval of the mean is narrow enough
// (-i max,min iterations; -I level,width: at `level` % confidence the interval's full width is
// at most `width` % of the mean), using Student's t.
#include <vector>

namespace zc {

struct ConfidenceGoal {
    int max_iterations = 1;
    int min_iterations = 1;
    double level_pct = 99;  // 95 or 99 in netperf; any 50..99.9 here
    double width_pct = 5;   // full width of the interval, % of the mean
};

struct Interval {
    double mean = 0;
    double half_width = 0;  // absolute
    double width_pct = 0;   // full width as % of the mean (0 for one sample: nothing is known)
};

Interval confidence_interval(const std::vector<double>& samples, double level_pct);

// True when every tracked quantity's interval is narrow enough; one sample never is (no spread known).
bool interval_met(const ConfidenceGoal& goal, const std::vector<std::vector<double>>& tracked);

// True when no more iterations are wanted: the maximum is reached, or the minimum is reached and
// the interval is met.
bool enough_iterations(const ConfidenceGoal& goal, const std::vector<std::vector<double>>& tracked);

}  // namespace zc
