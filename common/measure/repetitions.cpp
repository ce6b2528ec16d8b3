#include "measure/repetitions.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace zc {

namespace {

double mean(const std::vector<double>& x) {
    return std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
}

// The t-interval of the mean of x (no interval under two samples).
Comparison one_sample(const std::vector<double>& x, double level_pct) {
    if (x.empty()) throw std::invalid_argument("a side has no samples");
    const double m = mean(x);
    if (x.size() < 2) {
        Comparison c;
        c.estimate = m;
        return c;
    }
    double ss = 0;
    for (double v : x) ss += (v - m) * (v - m);
    const double n = static_cast<double>(x.size());
    return t_interval(m, std::sqrt(ss / (n - 1) / n), n - 1, level_pct);
}

double scaled(double v, Scale s, const char* what) {
    if (s == Scale::difference) return v;
    if (!(v > 0))
        throw std::invalid_argument(std::string(what) + ": a ratio needs samples > 0 (a difference takes zeros)");
    return std::log(v);
}

// The invocations that hold rounds, each value on the scale's axis (the log for a ratio).
Invocations on_axis(const Invocations& in, Scale s) {
    Invocations out;
    for (const auto& inv : in) {
        if (inv.empty()) continue;
        std::vector<double> v;
        for (double x : inv) v.push_back(scaled(x, s, "compare"));
        out.push_back(std::move(v));
    }
    if (out.empty()) throw std::invalid_argument("compare: a side has no samples");
    return out;
}

std::vector<double> means(const Invocations& in) {
    std::vector<double> m;
    for (const auto& inv : in) m.push_back(mean(inv));
    return m;
}

std::vector<double> pooled(const Invocations& in) {
    std::vector<double> all;
    for (const auto& inv : in) all.insert(all.end(), inv.begin(), inv.end());
    return all;
}

// Back from the log axis: the ratio's estimate and interval; p and df stay.
Comparison from_axis(Comparison c, Scale s) {
    if (s == Scale::difference) return c;
    c.estimate = std::exp(c.estimate);
    c.lo = std::exp(c.lo);
    c.hi = std::exp(c.hi);
    c.changed = c.has_interval && (c.lo > 1 || c.hi < 1);
    return c;
}

}  // namespace

const char* repetition_level_name(RepetitionLevel l) {
    return l == RepetitionLevel::invocations ? "invocations" : "rounds";
}

LevelComparison compare_levels(const Invocations& base, const Invocations& next, Scale scale, double level_pct) {
    const Invocations a = on_axis(base, scale), b = on_axis(next, scale);
    LevelComparison out;
    out.run_to_run_known = a.size() >= 2 && b.size() >= 2;
    out.level = out.run_to_run_known ? RepetitionLevel::invocations : RepetitionLevel::rounds;
    // Welch on the axis's values is compare_difference; the ratio is taken back from the logs after.
    out.c = out.run_to_run_known ? compare_difference(means(a), means(b), level_pct)
                                 : compare_difference(pooled(a), pooled(b), level_pct);
    out.c = from_axis(out.c, scale);
    return out;
}

LevelComparison compare_paired(const Invocations& a, const Invocations& b, Scale scale, double level_pct) {
    if (a.size() != b.size())
        throw std::invalid_argument("compare_paired: the two paths have different numbers of invocations");
    Invocations d;
    for (size_t i = 0; i < a.size(); ++i) {
        if (a[i].size() != b[i].size())
            throw std::invalid_argument("compare_paired: the two paths have different rounds in an invocation");
        if (a[i].empty()) continue;
        std::vector<double> di;
        for (size_t r = 0; r < a[i].size(); ++r)
            di.push_back(scaled(a[i][r], scale, "compare_paired") - scaled(b[i][r], scale, "compare_paired"));
        d.push_back(std::move(di));
    }
    if (d.empty()) throw std::invalid_argument("compare_paired: no rounds");
    LevelComparison out;
    out.run_to_run_known = d.size() >= 2;
    out.level = out.run_to_run_known ? RepetitionLevel::invocations : RepetitionLevel::rounds;
    out.c = from_axis(one_sample(out.run_to_run_known ? means(d) : d.front(), level_pct), scale);
    return out;
}

Comparison paired_ratio(const std::vector<double>& a, const std::vector<double>& b, double level_pct) {
    return compare_paired({a}, {b}, Scale::ratio, level_pct).c;
}

std::vector<double> bh_adjusted(const std::vector<double>& p) {
    const size_t m = p.size();
    std::vector<size_t> order(m);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return p[x] < p[y]; });
    std::vector<double> q(m);
    double running = 1;
    for (size_t k = m; k-- > 0;) {  // from the largest p down: q(k) = min over j >= k of p(j) m / j
        running = std::min(running, p[order[k]] * static_cast<double>(m) / static_cast<double>(k + 1));
        q[order[k]] = running;
    }
    return q;
}

std::vector<bool> bh_discoveries(const std::vector<double>& p, double q) {
    if (!(q > 0 && q < 1)) throw std::invalid_argument("the false discovery rate must be within (0, 1)");
    std::vector<double> adj = bh_adjusted(p);
    std::vector<bool> out;
    for (double v : adj) out.push_back(v <= q);
    return out;
}

}  // namespace zc
