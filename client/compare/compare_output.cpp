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
    if (!t.against.empty())
        return fmt::format("{} against {}: {} {} rx {}", t.transport, t.against, t.test, format_size(t.message_size),
                           t.rx);
    return fmt::format("{} {} {} rx {}", t.transport, t.test, format_size(t.message_size), t.rx);
}

std::string count_text(size_t rounds, size_t invocations) {
    return fmt::format("{} round{} in {} invocation{}", rounds, rounds == 1 ? "" : "s", invocations,
                       invocations == 1 ? "" : "s");
}

std::string q_text(const FigureComparison& f) { return f.in_family ? fmt::format("{:.3g}", f.q) : "-"; }

}  // namespace

void write_compare_human(std::ostream& out, const CompareResult& r, const CompareSide& base, const CompareSide& next) {
    const bool paired = !r.paths.empty();
    out << (paired ? fmt::format("zcperf compare --paths {}: A against B in the same runs, paired by round\n", r.paths)
                   : std::string("zcperf compare: NEW against BASE\n"));
    write_side(out, paired ? "runs" : "base", describe_side(base));
    if (!paired) write_side(out, "new", describe_side(next));
    out << method_text(r) << ".\n";
    out << (paired ? "x: the ratio A / B" : "x: the ratio NEW / BASE")
        << "; +/-: the difference where a side has a zero. q: the figure's Benjamini-Hochberg adjusted p.\n"
           "higher / lower: changed beyond noise (q within the false discovery rate); not resolved: it is not.\n";
    out << fmt::format("{} of {} figures called changed at a false discovery rate of {:g} %.\n", r.changed, r.family,
                       r.fdr * 100);
    for (const auto& t : r.tests) {
        const FigureComparison* f0 = t.figures.empty() ? nullptr : &t.figures.front();
        if (paired)
            out << fmt::format("\n{} ({}, interval over the {})\n", test_title(t),
                               f0 ? count_text(f0->next.size(), f0->next_invocations) : "no figures",
                               f0 ? repetition_level_name(f0->level) : "rounds");
        else
            out << fmt::format("\n{} (base {}, new {})\n", test_title(t),
                               f0 ? count_text(f0->base.size(), f0->base_invocations) : "-",
                               f0 ? count_text(f0->next.size(), f0->next_invocations) : "-");
        out << fmt::format("  {:<40} {:>11} {:>11} {:>10} {:>22} {:>8}  {}\n", "figure (mean)", paired ? "B" : "base",
                           paired ? "A" : "new", "change", fmt::format("{:g}% interval", r.level_pct), "q", "verdict");
        for (const auto& f : t.figures)
            out << fmt::format("  {:<40} {:>11.4g} {:>11.4g} {:>10} {:>22} {:>8}  {}\n", f.figure, mean(f.base),
                               mean(f.next), estimate_text(f), interval_text(f), q_text(f), f.verdict);
    }
}

void write_compare_csv(std::ostream& out, const CompareResult& r) {
    out << "transport,against,test,message_size,rx,figure,kind,base_rounds,new_rounds,base_invocations,"
           "new_invocations,level,base_mean,new_mean,estimate,interval_lo,interval_hi,df,level_pct,p,q,fdr,verdict\n";
    for (const auto& t : r.tests) {
        for (const auto& f : t.figures) {
            std::string lo = f.c.has_interval ? fmt::format("{:.6g}", f.c.lo) : "";
            std::string hi = f.c.has_interval ? fmt::format("{:.6g}", f.c.hi) : "";
            std::string p = f.c.has_interval ? fmt::format("{:.6g}", f.c.p) : "";
            std::string q = f.in_family ? fmt::format("{:.6g}", f.q) : "";
            out << fmt::format(
                "{},{},{},{},{},{},{},{},{},{},{},{},{:.6g},{:.6g},{:.6g},{},{},{:.3f},{:g},{},{},{:g},\"{}\"\n",
                t.transport, t.against, t.test, t.message_size, t.rx, f.figure, f.ratio ? "ratio" : "difference",
                f.base.size(), f.next.size(), f.base_invocations, f.next_invocations, repetition_level_name(f.level),
                mean(f.base), mean(f.next), f.c.estimate, lo, hi, f.c.df, r.level_pct, p, q, r.fdr, f.verdict);
        }
    }
}

}  // namespace zc
