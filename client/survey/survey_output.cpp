// zcperf survey's human, CSV and HTML reports (the JSON is survey.cpp's to_json).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <ostream>

#include "core/units.hpp"
#include "html/html_page.hpp"
#include "survey.hpp"

namespace zc {

namespace {

// A ratio as x1.23 [lo,hi]; a difference (a round where one path measured zero) as +0.123 [lo,hi], never
// with the ratio's x.
std::string ratio_cell(const FigureComparison* f) {
    if (!f) return "-";
    if (!f->ratio) {
        if (!f->c.has_interval) return fmt::format("{:+.3g}", f->c.estimate);
        return fmt::format("{:+.3g} [{:+.3g},{:+.3g}]", f->c.estimate, f->c.lo, f->c.hi);
    }
    if (!f->c.has_interval) return fmt::format("x{:.3f}", f->c.estimate);
    return fmt::format("x{:.3g} [{:.3g},{:.3g}]", f->c.estimate, f->c.lo, f->c.hi);
}

const FigureComparison* figure(const TestComparison* t, const char* name) {
    if (!t) return nullptr;
    for (const auto& f : t->figures)
        if (f.figure == name) return &f;
    return nullptr;
}

// The refused points of each path, its sizes gathered under each reason.
void write_refused(std::ostream& out, const SurveyResult& r) {
    std::map<std::string, std::map<std::string, std::vector<uint64_t>>> by_path;
    std::vector<std::string> order;
    for (const auto& p : r.points) {
        if (p.refused.empty()) continue;
        if (!by_path.count(p.path.name())) order.push_back(p.path.name());
        by_path[p.path.name()][p.refused].push_back(p.size);
    }
    if (order.empty()) return;
    out << "\nRefused (not measured):\n";
    for (const auto& name : order)
        for (const auto& [why, sizes] : by_path[name]) {
            std::string at = sizes.size() == r.sizes.size()
                                 ? "every size"
                                 : (sizes.size() == 1 ? format_size(sizes.front())
                                                      : format_size(sizes.front()) + ".." + format_size(sizes.back()) +
                                                            fmt::format(" ({} sizes)", sizes.size()));
            out << fmt::format("  {} at {}: {}\n", name, at, why);
        }
}

// One side's stacks, heaviest first, at most kSurveyPageStacks; the rest's samples counted.
nlohmann::json page_stacks(const std::map<std::string, uint64_t>& stacks) {
    std::vector<std::pair<std::string, uint64_t>> v(stacks.begin(), stacks.end());
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    uint64_t left_out = 0;
    for (size_t i = kSurveyPageStacks; i < v.size(); ++i) left_out += v[i].second;
    if (v.size() > kSurveyPageStacks) v.resize(kSurveyPageStacks);
    nlohmann::json out = nlohmann::json::array();
    for (auto& [stack, n] : v) out.push_back({std::move(stack), n});
    return {{"stacks", out}, {"stacks_left_out_samples", left_out}};
}

}  // namespace

void write_survey_html(const std::string& file, const SurveyResult& r) {
    nlohmann::json doc = to_json(r);
    auto& survey = doc["survey"];
    auto& points = survey["points"];
    for (const auto& p : r.points) {  // to_json's points are the measured ones, in the same order
        if (!p.refused.empty()) continue;
        for (auto& j : points)
            if (j.value("path", "") == p.path.name() && j.value("message_size", uint64_t{0}) == p.size)
                j["explain"] = {{"local", page_stacks(p.stacks[0])}, {"remote", page_stacks(p.stacks[1])}};
    }
    write_html_page(file, survey_page_data(survey));
}

void write_survey_human(std::ostream& out, const SurveyResult& r) {
    out << fmt::format("zcperf survey: {} paths x {} sizes x {} rounds in {:.0f} s\n", r.paths.size(), r.sizes.size(),
                       r.rounds, r.seconds);
    if (r.run.is_object())
        out << fmt::format("  hosts: client {}, server {}\n", r.run.value("local_host", "?"),
                           r.run.value("remote_host", "?"));
    out << "x: path / copy path at the same size (" << copy_paths_text()
        << "); +/-: path - copy path where a round measured a zero. " << method_text(r.ratios) << ".\n";
    out << "SD: service demand, us/KB (sender: the client, receiver: the server). copied: the share of the zero-copy "
           "bytes the kernel copied anyway.\n";
    out << fmt::format("{} of {} ratios called changed at a false discovery rate of {:g} %.\n", r.ratios.changed,
                       r.ratios.family, r.ratios.fdr * 100);
    for (const auto& path : r.paths) {
        bool any = false;
        for (const auto& p : r.points) any = any || (p.path == path && p.refused.empty());
        if (!any) continue;
        const bool copy = copy_path_of(path) == path;
        out << fmt::format("\n{}{}\n", path.name(),
                           copy ? " (a copy path: the others' reference)" : " against " + copy_path_of(path).name());
        out << fmt::format("  {:>5} {:>8} {:>9} {:>9}", "size", "Gb/s", "send SD", "recv SD");
        if (!copy)
            out << fmt::format(" {:>21} {:>21} {:>12} {:>21} {:>9}", "x throughput", "x sender SD", "verdict",
                               "x receiver SD", "copied");
        out << "\n";
        for (const auto& p : r.points) {
            if (!(p.path == path) || !p.refused.empty()) continue;
            out << fmt::format("  {:>5} {:>8.3f} {:>9.4f} {:>9.4f}", format_size(p.size), survey_mean(p, kSurveyRate),
                               survey_mean(p, kSurveySenderSd), survey_mean(p, kSurveyReceiverSd));
            if (!copy) {
                const TestComparison* t = point_ratios(r, p);
                const FigureComparison* sd = figure(t, kSurveySenderSd);
                out << fmt::format(" {:>21} {:>21} {:>12} {:>21} {:>9}", ratio_cell(figure(t, kSurveyRate)),
                                   ratio_cell(sd), sd ? sd->verdict : "no copy path",
                                   ratio_cell(figure(t, kSurveyReceiverSd)), survey_copied_text(p));
            }
            out << "\n";
        }
        for (const auto& x : r.crossovers)
            if (x.path == path.name()) out << "  crossover: " << x.text << "\n";
    }
    write_refused(out, r);
}

void write_survey_csv(std::ostream& out, const SurveyResult& r) {
    out << "path,against,message_size,rounds,throughput_gbps,sender_sd_us_per_kb,receiver_sd_us_per_kb,"
           "throughput_ratio,throughput_lo,throughput_hi,throughput_verdict,sender_sd_ratio,sender_sd_lo,sender_sd_hi,"
           "sender_sd_q,sender_sd_verdict,receiver_sd_ratio,receiver_sd_lo,receiver_sd_hi,receiver_sd_verdict,"
           "copied,crossover_from,crossover_until,refused\n";
    auto cells = [](const FigureComparison* f, bool with_q) {
        if (!f) return std::string(with_q ? ",,,," : ",,,");  // 5 or 4 empty columns
        std::string lo = f->c.has_interval ? fmt::format("{:.6g}", f->c.lo) : "";
        std::string hi = f->c.has_interval ? fmt::format("{:.6g}", f->c.hi) : "";
        std::string q = f->in_family ? fmt::format("{:.6g}", f->q) : "";
        return fmt::format("{:.6g},{},{},{}\"{}\"", f->c.estimate, lo, hi, with_q ? q + "," : "", f->verdict);
    };
    for (const auto& p : r.points) {
        const TestComparison* t = p.refused.empty() ? point_ratios(r, p) : nullptr;
        std::string from, until;
        for (const auto& x : r.crossovers)
            if (x.path == p.path.name()) {
                from = x.found ? std::to_string(x.from) : "never";
                until = x.found ? std::to_string(x.until) : "";
            }
        out << fmt::format("{},{},{},{},{:.6g},{:.6g},{:.6g},{},{},{},{},{},{},\"{}\"\n", p.path.name(),
                           t ? t->against : "", p.size, p.rounds.size(), survey_mean(p, kSurveyRate),
                           survey_mean(p, kSurveySenderSd), survey_mean(p, kSurveyReceiverSd),
                           cells(figure(t, kSurveyRate), false), cells(figure(t, kSurveySenderSd), true),
                           cells(figure(t, kSurveyReceiverSd), false), survey_copied_text(p), from, until, p.refused);
    }
}

}  // namespace zc
