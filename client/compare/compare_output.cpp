// zcperf compare's human and CSV reports (the JSON is compare.cpp's to_json).
#include <fmt/format.h>

#include <numeric>
#include <ostream>

#include "compare.hpp"
#include "core/units.hpp"

namespace zc {

namespace {

double mean(const std::vector<double>& v) {
    return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

std::string estimate_text(const FigureComparison& f) {
    return f.ratio ? fmt::format("x{:.3f}", f.c.estimate) : fmt::format("{:+.4g}", f.c.estimate);
}

std::string interval_text(const FigureComparison& f) {
    if (!f.c.has_interval) return "-";
    return f.ratio ? fmt::format("[{:.3f}, {:.3f}]", f.c.lo, f.c.hi)
                   : fmt::format("[{:+.4g}, {:+.4g}]", f.c.lo, f.c.hi);
}

void write_side(std::ostream& out, const char* name, const nlohmann::json& d) {
    auto join = [](const nlohmann::json& list) {
        std::string s;
        for (const auto& x : list) s += (s.empty() ? "" : "; ") + x.get<std::string>();
        return s;
    };
    out << fmt::format("  {:<5} {}\n", name, join(d["files"]));
    out << fmt::format("        hosts: {}\n        kernels: {}\n        software: {}\n", join(d["hosts"]),
                       join(d["kernels"]), join(d["software"]));
}

std::string test_title(const TestComparison& t) {
    return fmt::format("{} {} {} rx {}", t.transport, t.test, format_size(t.message_size), t.rx);
}

}  // namespace

void write_compare_human(std::ostream& out, const CompareResult& r, const CompareSide& base, const CompareSide& next) {
    out << fmt::format("zcperf compare: NEW against BASE, {:g} % Welch intervals over each side's repetitions\n",
                       r.level_pct);
    write_side(out, "base", describe_side(base));
    write_side(out, "new", describe_side(next));
    out << "x: the ratio NEW / BASE (interval on the log ratios); +/-: the difference NEW - BASE where a side has a "
           "zero.\nhigher / lower: changed beyond noise (the interval excludes no change); not resolved: it does "
           "not.\n";
    for (const auto& t : r.tests) {
        size_t nb = t.figures.empty() ? 0 : t.figures.front().base.size();
        size_t nn = t.figures.empty() ? 0 : t.figures.front().next.size();
        out << fmt::format("\n{} (base {} round{}, new {})\n", test_title(t), nb, nb == 1 ? "" : "s", nn);
        out << fmt::format("  {:<40} {:>11} {:>11} {:>10} {:>22}  {}\n", "figure (mean)", "base", "new", "change",
                           fmt::format("{:g}% interval", r.level_pct), "verdict");
        for (const auto& f : t.figures)
            out << fmt::format("  {:<40} {:>11.4g} {:>11.4g} {:>10} {:>22}  {}\n", f.figure, mean(f.base), mean(f.next),
                               estimate_text(f), interval_text(f), f.verdict);
    }
}

void write_compare_csv(std::ostream& out, const CompareResult& r) {
    out << "transport,test,message_size,rx,figure,kind,base_rounds,new_rounds,base_mean,new_mean,estimate,"
           "interval_lo,interval_hi,df,level_pct,verdict\n";
    for (const auto& t : r.tests) {
        for (const auto& f : t.figures) {
            std::string lo = f.c.has_interval ? fmt::format("{:.6g}", f.c.lo) : "";
            std::string hi = f.c.has_interval ? fmt::format("{:.6g}", f.c.hi) : "";
            out << fmt::format("{},{},{},{},{},{},{},{},{:.6g},{:.6g},{:.6g},{},{},{:.3f},{:g},\"{}\"\n", t.transport,
                               t.test, t.message_size, t.rx, f.figure, f.ratio ? "ratio" : "difference", f.base.size(),
                               f.next.size(), mean(f.base), mean(f.next), f.c.estimate, lo, hi, f.c.df, r.level_pct,
                               f.verdict);
        }
    }
}

}  // namespace zc
