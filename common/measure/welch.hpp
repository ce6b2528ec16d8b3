#pragma once
// Two independent samples compared (zcperf compare): Welch's t-interval, on the logs for a
// ratio (NEW / BASE), on the values for a difference (NEW - BASE). The samples are repetitions of a
// test (-i), each side's its own runs, so unpaired: Welch, not the paired interval of
// scripts/irq_sweep_stats.py, with the same t quantiles (Student's t, here from Boost.Math, which takes
// Welch's fractional degrees of freedom; the unit test checks them against that script's table).
#include <vector>

namespace zc {

struct Comparison {
    double estimate = 0;        // the ratio of geometric means, or the difference of means
    bool has_interval = false;  // false when either side has fewer than 2 samples: nothing is made up
    double lo = 0, hi = 0;      // the interval at `level_pct`
    double df = 0;              // Welch-Satterthwaite degrees of freedom (0 without an interval)
    // The interval excludes no-change (1 for a ratio, 0 for a difference).
    bool changed = false;
    // Two-sided p-value of no change under the same t (1 without an interval): what a false discovery
    // rate over many figures ranks (measure/repetitions.hpp).
    double p = 1;
};

// Student's t quantile for two-sided `level_pct` (95: the 97.5 % point), any df > 0.
double t_quantile(double df, double level_pct);
// The two-sided p-value of a t statistic at df > 0.
double t_two_sided_p(double t, double df);
// The interval and p of a mean estimate with its standard error and df (se 0: the point itself, p 0 or 1).
Comparison t_interval(double estimate, double se, double df, double level_pct);

// NEW / BASE from positive samples (a sample <= 0 has no log: use compare_difference).
Comparison compare_ratio(const std::vector<double>& base, const std::vector<double>& next, double level_pct = 95);
// NEW - BASE.
Comparison compare_difference(const std::vector<double>& base, const std::vector<double>& next, double level_pct = 95);

}  // namespace zc
