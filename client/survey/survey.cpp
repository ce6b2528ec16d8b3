#include "survey.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <stdexcept>

#include "core/units.hpp"
#include "kind/transport_ops.hpp"

namespace zc {

std::string SurveyPath::name() const {
    return rx == RxMode::copy ? transport_name(transport)
                              : std::string(transport_name(transport)) + "/" + rx_mode_name(rx);
}

SurveyPath survey_path_from_name(const std::string& name) {
    SurveyPath p;
    auto slash = name.find('/');
    p.transport = transport_from_name(name.substr(0, slash));
    if (slash != std::string::npos) p.rx = rx_mode_from_name(name.substr(slash + 1));
    return p;
}

SurveyPath copy_path_of(const SurveyPath& p) {
    return {transport_from_name(transport_info(p.transport).copy_path), RxMode::copy};
}

std::string copy_paths_text() {
    const std::string reference = transport_info(Transport{}).copy_path;  // the first row's, and a row's naming none
    std::vector<std::string> copies;                                      // the others, in the rows' order
    for (const auto& row : transport_table())
        if (row.copy_path != reference && std::find(copies.begin(), copies.end(), row.copy_path) == copies.end())
            copies.push_back(row.copy_path);
    std::string out;
    for (const auto& c : copies) {
        auto measured = [&](const TransportInfo& r) {
            return (r.tests & bit(Workload::stream)) && c == r.copy_path && c != r.name;
        };
        if (std::string rows = transport_names_where(measured); !rows.empty()) out += c + " for " + rows + "; ";
    }
    return out + reference + " for the others";
}

std::vector<SurveyPath> default_survey_paths() {
    std::vector<SurveyPath> out;
    for (const auto& row : transport_table()) {
        if (!(row.tests & bit(Workload::stream))) continue;
        out.push_back({row.id, RxMode::copy});
        if (!(copy_path_of({row.id, RxMode::copy}) == SurveyPath{row.id, RxMode::copy})) continue;
        for (const auto& m : transport_ops(row.id).rx_modes)  // the copy path's receivers that map, splice or drop
            if (m.mode != RxMode::copy) out.push_back({row.id, m.mode});
    }
    return out;
}

std::vector<uint64_t> default_survey_sizes() {
    std::vector<uint64_t> out;
    for (uint64_t s = 4096; s <= (4u << 20); s *= 2) out.push_back(s);
    return out;
}

std::vector<std::pair<size_t, size_t>> round_order(size_t paths, size_t sizes, int round) {
    std::mt19937 rng(static_cast<uint32_t>(round));
    std::vector<size_t> s(sizes), p(paths);
    std::iota(s.begin(), s.end(), 0);
    std::shuffle(s.begin(), s.end(), rng);
    std::vector<std::pair<size_t, size_t>> out;
    for (size_t size : s) {
        std::iota(p.begin(), p.end(), 0);
        std::shuffle(p.begin(), p.end(), rng);
        for (size_t path : p) out.emplace_back(path, size);
    }
    return out;
}

namespace {

const SurveyPoint* find_point(const SurveyResult& r, const SurveyPath& p, uint64_t size) {
    for (const auto& pt : r.points)
        if (pt.path == p && pt.size == size) return &pt;
    return nullptr;
}

// One figure over the rounds, as one invocation: the survey's rounds are its repetitions.
Invocations rounds_of(const SurveyPoint& p, const char* figure) {
    std::vector<double> v;
    for (const auto& f : p.rounds) v.push_back(f.value(figure, 0.0));
    return {v};
}

std::string sizes_span(const SurveyResult& r) {
    return r.sizes.empty() ? "" : format_size(r.sizes.front()) + ".." + format_size(r.sizes.back());
}

std::string ratio_text(const FigureComparison& f) {
    if (!f.c.has_interval) return fmt::format("x{:.3f}", f.c.estimate);
    return fmt::format("x{:.3f} [{:.3f}, {:.3f}]", f.c.estimate, f.c.lo, f.c.hi);
}

const FigureComparison* figure_in(const TestComparison& t, const char* name) {
    for (const auto& f : t.figures)
        if (f.figure == name) return &f;
    return nullptr;
}

Crossover crossover_of(const SurveyResult& r, const std::string& path, const std::string& against) {
    Crossover x;
    x.path = path;
    x.against = against;
    std::vector<std::pair<uint64_t, const FigureComparison*>> by_size;
    for (const auto& t : r.ratios.tests)
        if (t.transport == path) by_size.emplace_back(t.message_size, figure_in(t, kSurveySenderSd));
    std::sort(by_size.begin(), by_size.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = 0; i < by_size.size(); ++i) {
        const bool lower = by_size[i].second && by_size[i].second->verdict == kVerdictLower;
        if (!x.found && lower) {
            x.found = true;
            x.from = x.until = by_size[i].first;
            x.text = "sender SD lower from " + format_size(x.from) + " (" + ratio_text(*by_size[i].second) + ")";
        } else if (x.found && x.stops == 0 && lower) {
            x.until = by_size[i].first;
        } else if (x.found && x.stops == 0) {
            x.stops = by_size[i].first;
        }
    }
    if (!x.found) {
        x.text = "never in " + sizes_span(r) + " (the sender SD is not lower than " + against +
                 "'s beyond noise at any size surveyed)";
        return x;
    }
    x.text += x.stops ? " through " + format_size(x.until) + "; not at " + format_size(x.stops)
                      : " through " + format_size(x.until) + " (the largest surveyed)";
    return x;
}

}  // namespace

void analyse_survey(SurveyResult& r, double fdr) {
    r.ratios = {};
    r.ratios.fdr = fdr;
    r.ratios.paths = "each path against its family's copy path";
    r.crossovers.clear();
    for (const auto& pt : r.points) {
        const SurveyPath copy = copy_path_of(pt.path);
        if (!pt.refused.empty() || copy == pt.path) continue;
        const SurveyPoint* base = find_point(r, copy, pt.size);
        if (!base || !base->refused.empty() || base->rounds.size() != pt.rounds.size()) continue;
        TestComparison t;
        t.transport = pt.path.name();
        t.against = copy.name();
        t.test = workload_name(Workload::stream);
        t.rx = rx_mode_name(pt.path.rx);
        t.message_size = pt.size;
        for (const char* f : {kSurveyRate, kSurveySenderSd, kSurveyReceiverSd})
            t.figures.push_back(paired_figure(f, rounds_of(pt, f), rounds_of(*base, f), r.ratios.level_pct));
        r.ratios.tests.push_back(std::move(t));
    }
    judge(r.ratios);
    for (const auto& p : r.paths) {
        const SurveyPath copy = copy_path_of(p);
        if (copy == p) continue;
        const bool any = std::any_of(r.ratios.tests.begin(), r.ratios.tests.end(),
                                     [&](const TestComparison& t) { return t.transport == p.name(); });
        if (any) r.crossovers.push_back(crossover_of(r, p.name(), copy.name()));
    }
}

namespace {

nlohmann::json figure_json(const FigureComparison& f) {
    return {{"ratio", f.c.estimate},
            {"interval", f.c.has_interval ? nlohmann::json{f.c.lo, f.c.hi} : nlohmann::json()},
            {"df", f.c.df},
            {"p", f.c.has_interval ? nlohmann::json(f.c.p) : nlohmann::json()},
            {"q", f.in_family ? nlohmann::json(f.q) : nlohmann::json()},
            {"verdict", f.verdict}};
}

double mean_of(const SurveyPoint& p, const char* figure) {
    double s = 0;
    for (const auto& f : p.rounds) s += f.value(figure, 0.0);
    return p.rounds.empty() ? 0 : s / static_cast<double>(p.rounds.size());
}

// A zero-copy count and the share of it the kernel copied.
nlohmann::json copied_share(const char* whole_key, uint64_t whole, uint64_t copied) {
    return {{whole_key, whole},
            {"copied_bytes", copied},
            {"copied_pct", whole ? 100.0 * static_cast<double>(copied) / static_cast<double>(whole) : 0.0}};
}

nlohmann::json zerocopy_json(const ZeroCopyCounts& z) {
    nlohmann::json j = nlohmann::json::object();
    if (z.sent_bytes) j["sender"] = copied_share("zerocopy_bytes", z.sent_bytes, z.copied_bytes);
    if (z.rx_mapped_bytes + z.rx_copied_bytes)
        j["receiver"] =
            copied_share("zero_copy_receive_bytes", z.rx_mapped_bytes + z.rx_copied_bytes, z.rx_copied_bytes);
    return j.empty() ? nlohmann::json() : j;
}

nlohmann::json point_id(const SurveyPoint& p) { return {{"path", p.path.name()}, {"message_size", p.size}}; }

nlohmann::json crossover_json(const Crossover& x) {
    auto size_or_null = [](bool has, uint64_t v) { return has ? nlohmann::json(v) : nlohmann::json(); };
    return {{"found", x.found},
            {"from", size_or_null(x.found, x.from)},
            {"until", size_or_null(x.found, x.until)},
            {"stops", size_or_null(x.stops != 0, x.stops)},
            {"text", x.text}};
}

}  // namespace

const TestComparison* point_ratios(const SurveyResult& r, const SurveyPoint& p) {
    for (const auto& t : r.ratios.tests)
        if (t.transport == p.path.name() && t.message_size == p.size) return &t;
    return nullptr;
}

double survey_mean(const SurveyPoint& p, const char* figure) { return mean_of(p, figure); }

std::string survey_copied_text(const SurveyPoint& p) {
    const auto& z = p.zerocopy;
    if (z.sent_bytes)
        return fmt::format("{:.1f}%", 100.0 * static_cast<double>(z.copied_bytes) / static_cast<double>(z.sent_bytes));
    if (z.rx_mapped_bytes + z.rx_copied_bytes)
        return fmt::format("rx {:.1f}%", 100.0 * static_cast<double>(z.rx_copied_bytes) /
                                             static_cast<double>(z.rx_mapped_bytes + z.rx_copied_bytes));
    return "-";
}

nlohmann::json to_json(const SurveyResult& r) {
    nlohmann::json points = nlohmann::json::array(), refused = nlohmann::json::array();
    nlohmann::json crossovers = nlohmann::json::object();  // by path
    for (const auto& x : r.crossovers) crossovers[x.path] = crossover_json(x);
    for (const auto& p : r.points) {
        nlohmann::json j = point_id(p);
        if (!p.refused.empty()) {
            j["reason"] = p.refused;
            refused.push_back(std::move(j));
            continue;
        }
        j.update({{"transport", transport_name(p.path.transport)},
                  {"rx", rx_mode_name(p.path.rx)},
                  {"throughput_gbps", mean_of(p, kSurveyRate)},
                  {"sender_service_demand_us_per_kb", mean_of(p, kSurveySenderSd)},
                  {"receiver_service_demand_us_per_kb", mean_of(p, kSurveyReceiverSd)},
                  {"round_figures", p.rounds},
                  {"zerocopy", zerocopy_json(p.zerocopy)},
                  {"crossover", crossovers.value(p.path.name(), nlohmann::json())}});
        if (const TestComparison* t = point_ratios(r, p)) {
            j["against"] = t->against;
            j["throughput_ratio"] = figure_json(*figure_in(*t, kSurveyRate));
            j["sender_service_demand_ratio"] = figure_json(*figure_in(*t, kSurveySenderSd));
            j["receiver_service_demand_ratio"] = figure_json(*figure_in(*t, kSurveyReceiverSd));
        }
        points.push_back(std::move(j));
    }
    nlohmann::json paths = nlohmann::json::array(), sizes = r.sizes;
    for (const auto& p : r.paths) paths.push_back(p.name());
    return {{"survey",
             {{"run", r.run},
              {"paths", paths},
              {"message_sizes", sizes},
              {"rounds", r.rounds},
              {"seconds", r.seconds},
              {"level_pct", r.ratios.level_pct},
              {"fdr", r.ratios.fdr},
              {"fdr_family", r.ratios.family},
              {"fdr_changed", r.ratios.changed},
              {"method", method_text(r.ratios)},
              {"points", points},
              {"crossovers", crossovers},
              {"refused", refused}}}};
}

}  // namespace zc
