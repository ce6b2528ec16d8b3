#include "measure/confidence.hpp"

#include <boost/math/distributions/students_t.hpp>
#include <cmath>

namespace zc {

Interval confidence_interval(const std::vector<double>& samples, double level_pct) {
    Interval iv;
    size_t n = samples.size();
    if (n == 0) return iv;
    double sum = 0;
    for (double s : samples) sum += s;
    iv.mean = sum / static_cast<double>(n);
    if (n < 2) return iv;
    double sq = 0;
    for (double s : samples) sq += (s - iv.mean) * (s - iv.mean);
    double sd = std::sqrt(sq / static_cast<double>(n - 1));
    boost::math::students_t dist(static_cast<double>(n - 1));
    double t = boost::math::quantile(boost::math::complement(dist, (1.0 - level_pct / 100.0) / 2.0));
    iv.half_width = t * sd / std::sqrt(static_cast<double>(n));
    iv.width_pct = iv.mean != 0 ? 200.0 * iv.half_width / std::fabs(iv.mean) : 0;
    return iv;
}

bool interval_met(const ConfidenceGoal& goal, const std::vector<std::vector<double>>& tracked) {
    for (const auto& series : tracked) {
        if (series.size() < 2) return false;
        if (confidence_interval(series, goal.level_pct).width_pct > goal.width_pct) return false;
    }
    return true;
}

bool enough_iterations(const ConfidenceGoal& goal, const std::vector<std::vector<double>>& tracked) {
    size_t n = tracked.empty() ? 0 : tracked.front().size();
    if (static_cast<int>(n) >= goal.max_iterations) return true;
    if (static_cast<int>(n) < goal.min_iterations) return false;
    return interval_met(goal, tracked);
}

}  // namespace zc
