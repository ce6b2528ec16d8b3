#include "measure/welch.hpp"

#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace zc {

namespace {

struct Moments {
    double n = 0, mean = 0, var = 0;  // var: the sample variance (n - 1)
};

Moments moments(const std::vector<double>& x) {
    Moments m;
    m.n = static_cast<double>(x.size());
    if (x.empty()) return m;
    m.mean = std::accumulate(x.begin(), x.end(), 0.0) / m.n;
    if (x.size() < 2) return m;
    for (double v : x) m.var += (v - m.mean) * (v - m.mean);
    m.var /= m.n - 1;
    return m;
}

// Welch on two samples' values: the difference of means and its interval.
Comparison welch(const std::vector<double>& base, const std::vector<double>& next, double level_pct) {
    if (base.empty() || next.empty()) throw std::invalid_argument("welch: a side has no samples");
    Moments a = moments(base), b = moments(next);
    Comparison c;
    c.estimate = b.mean - a.mean;
    if (base.size() < 2 || next.size() < 2) return c;
    double va = a.var / a.n, vb = b.var / b.n;
    double se = std::sqrt(va + vb);
    // identical repetitions on both sides (se 0): the interval is the point itself
    double df = se == 0 ? a.n + b.n - 2 : (va + vb) * (va + vb) / (va * va / (a.n - 1) + vb * vb / (b.n - 1));
    return t_interval(c.estimate, se, df, level_pct);
}

}  // namespace

double t_quantile(double df, double level_pct) {
    if (!(df > 0) || !(level_pct > 0 && level_pct < 100))
        throw std::invalid_argument("t_quantile: df must be > 0 and the level within (0, 100)");
    boost::math::students_t dist(df);
    return boost::math::quantile(boost::math::complement(dist, (1.0 - level_pct / 100.0) / 2.0));
}

double t_two_sided_p(double t, double df) {
    if (!(df > 0)) throw std::invalid_argument("t_two_sided_p: df must be > 0");
    boost::math::students_t dist(df);
    return 2 * boost::math::cdf(boost::math::complement(dist, std::fabs(t)));
}

Comparison t_interval(double estimate, double se, double df, double level_pct) {
    Comparison c;
    c.estimate = estimate;
    c.has_interval = true;
    c.df = df;
    if (se == 0) {
        c.lo = c.hi = estimate;
        c.p = estimate == 0 ? 1 : 0;
    } else {
        double h = t_quantile(df, level_pct) * se;
        c.lo = estimate - h;
        c.hi = estimate + h;
        c.p = t_two_sided_p(estimate / se, df);
    }
    c.changed = c.lo > 0 || c.hi < 0;
    return c;
}

Comparison compare_ratio(const std::vector<double>& base, const std::vector<double>& next, double level_pct) {
    std::vector<double> la, lb;
    for (double v : base) la.push_back(std::log(v));
    for (double v : next) lb.push_back(std::log(v));
    for (double v : la)
        if (!std::isfinite(v)) throw std::invalid_argument("compare_ratio: a sample <= 0 has no log");
    for (double v : lb)
        if (!std::isfinite(v)) throw std::invalid_argument("compare_ratio: a sample <= 0 has no log");
    Comparison c = welch(la, lb, level_pct);
    c.estimate = std::exp(c.estimate);
    c.lo = std::exp(c.lo);
    c.hi = std::exp(c.hi);
    c.changed = c.has_interval && (c.lo > 1 || c.hi < 1);
    return c;
}

Comparison compare_difference(const std::vector<double>& base, const std::vector<double>& next, double level_pct) {
    return welch(base, next, level_pct);
}

}  // namespace zc
