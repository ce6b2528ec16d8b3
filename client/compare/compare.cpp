#include "compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <set>

#include "core/transport_registry.hpp"
#include "options/option_rows.hpp"
#include "protocol/field_table.hpp"
#include "report/report_writer.hpp"

namespace zc {

namespace {

// A test's identity, as a report's result names it and as compare's document repeats it: one line a field.
const auto kTestIdFields =
    std::make_tuple(str("transport", &TestComparison::transport), str("test", &TestComparison::test),
                    number("message_size", &TestComparison::message_size), str("rx", &TestComparison::rx));

TestComparison test_id(const nlohmann::json& result) { return decoded<TestComparison>(result, kTestIdFields); }

nlohmann::json read_report(const std::string& file) {
    std::ifstream in(file);
    if (!in)
        throw CompareError("cannot read " + file + ": " + std::strerror(errno) +
                           " (give the JSON reports zcperf -o json wrote)");
    nlohmann::json j;
    try {
        in >> j;
    } catch (const nlohmann::json::exception& e) {
        throw CompareError(file + " is not JSON (" + e.what() + "): give a report from zcperf -o json");
    }
    const bool zcperf = j.is_object() && j.contains(kRunKey) && j[kRunKey].is_object() && j.contains(kResultsKey) &&
                        j[kResultsKey].is_array() && j[kRunKey].value("software", "").rfind("zcperf", 0) == 0;
    if (!zcperf)
        throw CompareError(file +
                           " is JSON but not a zcperf report (no \"run\" by zcperf and \"results\"): give a "
                           "report from zcperf -o json");
    for (const auto& r : j[kResultsKey]) {
        if (!r.is_object() || !r.contains(kFiguresKey))
            throw CompareError(file + " has a result without \"" + kFiguresKey +
                               "\": it was written by a zcperf older than compare; run the test again with this "
                               "zcperf (-o json)");
        try {
            test_id(r);
        } catch (const ProtocolError& e) {
            throw CompareError(file + " has a result that does not say which test it is (" + e.what() +
                               "): give a report from zcperf -o json, as zcperf wrote it");
        }
    }
    return j;
}

std::string test_key(const nlohmann::json& r) {
    const TestComparison t = test_id(r);
    return t.transport + " " + t.test + " " + std::to_string(t.message_size) + " B rx " + t.rx;
}

// A test's rounds in one side's runs, each round's figures object, grouped by invocation: each report
// file is one or more (its rounds' "round_invocations" label them; without, the file is one).
using RoundSet = std::vector<std::vector<nlohmann::json>>;

const nlohmann::json* rounds_of(const nlohmann::json& r) {
    if (auto it = r.find(kIterationsKey); it != r.end() && it->is_object() && it->contains(kRoundsKey) &&
                                          (*it)[kRoundsKey].is_array() && !(*it)[kRoundsKey].empty())
        return &(*it)[kRoundsKey];
    return nullptr;
}

void add_invocations(const nlohmann::json& r, RoundSet& into) {
    const nlohmann::json* rounds = rounds_of(r);
    const nlohmann::json one = nlohmann::json::array({r[kFiguresKey]});
    const nlohmann::json& list = rounds ? *rounds : one;
    const nlohmann::json* labels = nullptr;
    if (rounds) {
        const auto& it = r[kIterationsKey];
        if (auto l = it.find(kRoundInvocationsKey); l != it.end() && l->is_array() && l->size() == list.size())
            labels = &*l;
    }
    std::map<int64_t, size_t> where;  // an invocation label -> its place in `into`
    for (size_t i = 0; i < list.size(); ++i) {
        int64_t label = labels && (*labels)[i].is_number_integer() ? (*labels)[i].get<int64_t>() : 0;
        auto [it, fresh] = where.emplace(label, into.size());
        if (fresh) into.emplace_back();
        into[it->second].push_back(list[i]);
    }
}

struct TestRounds {
    TestComparison id;
    RoundSet rounds;
};

// {test key: its rounds} over a side's reports, and the keys in the order first seen.
using Samples = std::map<std::string, TestRounds>;

Samples samples_of(const CompareSide& side, std::vector<std::string>& order) {
    Samples s;
    for (const auto& doc : side.reports) {
        for (const auto& r : doc[kResultsKey]) {
            std::string key = test_key(r);
            if (!s.count(key)) {
                order.push_back(key);
                s[key].id = test_id(r);
            }
            add_invocations(r, s[key].rounds);
        }
    }
    return s;
}

// One figure's values, invocation by invocation, over the rounds that have it.
Invocations figure_values(const RoundSet& rs, const std::string& name) {
    Invocations out;
    for (const auto& inv : rs) {
        std::vector<double> v;
        for (const auto& round : inv)
            if (auto it = round.find(name); it != round.end() && it->is_number()) v.push_back(it->get<double>());
        if (!v.empty()) out.push_back(std::move(v));
    }
    return out;
}

std::set<std::string> figure_names(const RoundSet& rs) {
    std::set<std::string> names;
    for (const auto& inv : rs)
        for (const auto& round : inv)
            for (const auto& [name, v] : round.items())
                if (v.is_number()) names.insert(name);
    return names;
}

std::vector<double> pooled(const Invocations& in) {
    std::vector<double> all;
    for (const auto& i : in) all.insert(all.end(), i.begin(), i.end());
    return all;
}

// The rate first, then service demand, proc, RTT, then the categories: the order a reader asks in.
int figure_rank(const std::string& f) {
    static const std::vector<std::string> heads = {
        "throughput", "transactions_per_s", "messages_per_s", "local_service", "remote_service",
        "local_proc", "remote_proc",        "rtt_",           "local_explain", "remote_explain"};
    for (size_t i = 0; i < heads.size(); ++i)
        if (f.rfind(heads[i], 0) == 0) return static_cast<int>(i);
    return static_cast<int>(heads.size());
}

void sort_figures(TestComparison& t) {
    std::stable_sort(t.figures.begin(), t.figures.end(),
                     [](const auto& x, const auto& y) { return figure_rank(x.figure) < figure_rank(y.figure); });
}

bool all_positive(const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [](double x) { return x > 0; });
}

// One figure, NEW against BASE: unpaired at the level that varies, or (paired) A = NEW against B = BASE
// round by round.
FigureComparison compare_figure(const std::string& name, const Invocations& base, const Invocations& next, bool paired,
                                double level_pct) {
    FigureComparison f;
    f.figure = name;
    f.base = pooled(base);
    f.next = pooled(next);
    f.base_invocations = base.size();
    f.next_invocations = next.size();
    f.ratio = all_positive(f.base) && all_positive(f.next);
    const Scale scale = f.ratio ? Scale::ratio : Scale::difference;
    LevelComparison l =
        paired ? compare_paired(next, base, scale, level_pct) : compare_levels(base, next, scale, level_pct);
    f.c = l.c;
    f.level = l.level;
    f.run_to_run_known = l.run_to_run_known;
    return f;
}

bool all_zero(const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [](double x) { return x == 0; });
}

std::string list_tests(const std::vector<std::string>& keys) {
    std::string out;
    for (const auto& k : keys) out += "\n  " + k;
    return keys.empty() ? "\n  (no results)" : out;
}

}  // namespace

CompareSide load_side(const std::string& name, const std::string& comma_separated_files) {
    CompareSide side;
    side.name = name;
    for (const auto& f : split_commas(comma_separated_files)) {
        if (f.empty()) throw CompareError("an empty file name in " + name + " '" + comma_separated_files + "'");
        side.files.push_back(f);
        side.reports.push_back(read_report(f));
    }
    return side;
}

CompareResult compare_sides(const CompareSide& base, const CompareSide& next, double fdr) {
    std::vector<std::string> base_order, next_order;
    Samples a = samples_of(base, base_order), b = samples_of(next, next_order);
    CompareResult out;
    out.fdr = fdr;
    for (const auto& key : base_order) {
        if (!b.count(key)) continue;
        TestComparison t = a[key].id;
        for (const auto& name : figure_names(a[key].rounds)) {
            Invocations va = figure_values(a[key].rounds, name), vb = figure_values(b[key].rounds, name);
            if (vb.empty() || (all_zero(pooled(va)) && all_zero(pooled(vb)))) continue;  // nothing to compare
            t.figures.push_back(compare_figure(name, va, vb, false, out.level_pct));
        }
        sort_figures(t);
        out.tests.push_back(std::move(t));
    }
    if (out.tests.empty())
        throw CompareError("no test is in both sides (tests match by transport, test, message size and --rx)." +
                           std::string("\nbase has:") + list_tests(base_order) + "\nnew has:" + list_tests(next_order));
    judge(out);
    return out;
}

namespace {

struct PathName {
    std::string transport, rx;  // rx empty: the other path's
};

PathName parse_path(const std::string& text, const std::string& whole) {
    PathName p;
    auto slash = text.find('/');
    p.transport = text.substr(0, slash);
    if (slash != std::string::npos) p.rx = text.substr(slash + 1);
    try {
        transport_from_name(p.transport);
        if (slash != std::string::npos) rx_mode_from_name(p.rx);
    } catch (const std::invalid_argument& e) {
        throw CompareError("--paths " + whole + ": " + e.what());
    }
    return p;
}

// The rounds A and B share, paired: invocation by invocation, the first rounds of each (a -i MAX,MIN run
// may stop one path's rounds before the other's).
std::pair<Invocations, Invocations> paired_values(const RoundSet& a, const RoundSet& b, const std::string& name) {
    Invocations va, vb;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
        std::vector<double> x, y;
        for (size_t r = 0; r < a[i].size() && r < b[i].size(); ++r) {
            auto ia = a[i][r].find(name), ib = b[i][r].find(name);
            if (ia == a[i][r].end() || ib == b[i][r].end() || !ia->is_number() || !ib->is_number()) continue;
            x.push_back(ia->get<double>());
            y.push_back(ib->get<double>());
        }
        if (!x.empty()) {
            va.push_back(std::move(x));
            vb.push_back(std::move(y));
        }
    }
    return {va, vb};
}

}  // namespace

FigureComparison paired_figure(const std::string& name, const Invocations& a, const Invocations& b, double level_pct) {
    return compare_figure(name, b, a, true, level_pct);
}

CompareResult compare_paths(const CompareSide& runs, const std::string& a_colon_b, double fdr) {
    auto colon = a_colon_b.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == a_colon_b.size())
        throw CompareError(fmt::format("--paths takes A:B, two paths of the same runs (e.g. {1}:{0}, {0}/zerocopy:{0})",
                                       example_rows().copy, example_rows().zerocopy));
    const PathName pa = parse_path(a_colon_b.substr(0, colon), a_colon_b),
                   pb = parse_path(a_colon_b.substr(colon + 1), a_colon_b);
    std::vector<std::string> order;
    Samples s = samples_of(runs, order);
    CompareResult out;
    out.fdr = fdr;
    out.paths = a_colon_b;
    for (const auto& key : order) {
        const TestComparison& ta = s[key].id;
        if (ta.transport != pa.transport || (!pa.rx.empty() && ta.rx != pa.rx)) continue;
        const std::string want_rx = !pb.rx.empty() ? pb.rx : pa.rx.empty() ? ta.rx : rx_mode_name(RxMode::copy);
        for (const auto& kb : order) {
            const TestComparison& tb = s[kb].id;
            if (kb == key || tb.transport != pb.transport || tb.rx != want_rx || tb.test != ta.test ||
                tb.message_size != ta.message_size)
                continue;
            TestComparison t = ta;
            t.against = tb.transport + (pb.rx.empty() && pa.rx.empty() ? "" : "/" + tb.rx);
            for (const auto& name : figure_names(s[key].rounds)) {
                auto [va, vb] = paired_values(s[key].rounds, s[kb].rounds, name);
                if (va.empty() || (all_zero(pooled(va)) && all_zero(pooled(vb)))) continue;
                t.figures.push_back(paired_figure(name, va, vb, out.level_pct));
            }
            sort_figures(t);
            out.tests.push_back(std::move(t));
        }
    }
    if (out.tests.empty())
        throw CompareError("--paths " + a_colon_b + ": no test of " + pa.transport + " has a twin on " + pb.transport +
                           " in these runs (same test, message size and --rx); run both, e.g. -T " + pa.transport +
                           "," + pb.transport + " -i 3,3. The runs have:" + list_tests(order));
    judge(out);
    return out;
}

std::string verdict_of(const FigureComparison& f, double fdr, bool paired) {
    if (!f.c.has_interval) {
        if (paired) return "no interval: one round (use -i 3 or more)";
        return f.base.size() < 2 ? "no interval: base has one round (use -i 3 or more)"
                                 : "no interval: new has one round (use -i 3 or more)";
    }
    if (!paired && !f.run_to_run_known)
        return std::string("run-to-run noise unknown: ") + (f.base_invocations < 2 ? "base" : "new") +
               " has one invocation (give 3 or more reports a side, or run with --invocations 3)";
    if (f.q > fdr) return "not resolved";
    return (f.ratio ? f.c.estimate > 1 : f.c.estimate > 0) ? kVerdictHigher : kVerdictLower;
}

void judge(CompareResult& r) {
    const bool paired = !r.paths.empty();
    std::vector<FigureComparison*> family;
    std::vector<double> p;
    for (auto& t : r.tests)
        for (auto& f : t.figures) {
            f.in_family = f.c.has_interval && (paired || f.run_to_run_known);
            f.q = 1;
            if (f.in_family) {
                family.push_back(&f);
                p.push_back(f.c.p);
            }
        }
    std::vector<double> q = bh_adjusted(p);
    for (size_t i = 0; i < family.size(); ++i) family[i]->q = q[i];
    r.family = family.size();
    r.changed = 0;
    for (auto& t : r.tests)
        for (auto& f : t.figures) {
            f.verdict = verdict_of(f, r.fdr, paired);
            if (f.called_changed()) ++r.changed;
        }
}

nlohmann::json describe_side(const CompareSide& side) {
    std::set<std::string> hosts, kernels, software, commands;
    for (const auto& doc : side.reports) {
        const auto& run = doc[kRunKey];
        auto kernel = [&](const char* k) { return run.value(k, std::string("unknown (an older report)")); };
        hosts.insert("client " + run.value("local_host", "?") + ", server " + run.value("remote_host", "?"));
        kernels.insert("client " + kernel("local_kernel") + ", server " + kernel("remote_kernel"));
        software.insert(run.value("software", "?") + ", server " + run.value("remote_software", "?"));
        commands.insert(run.value("command_line", "?"));
    }
    return {{"files", side.files},
            {"hosts", hosts},
            {"kernels", kernels},
            {"software", software},
            {"command_lines", commands}};
}

std::string method_text(const CompareResult& r) {
    std::string how =
        r.paths.empty()
            ? "NEW against BASE: Welch's t over each invocation's mean where both sides have 2 or more "
              "invocations (report files, or --invocations), else over the rounds (the run-to-run noise unknown)"
            : std::string("A against B paired by round (") +
                  (r.paths.find(':') != std::string::npos ? "--paths " : "") + r.paths +
                  "): a one-sample t over each invocation's mean of the paired values where there are 2 or more "
                  "invocations, else over the rounds";
    return how + "; on the logs for a ratio, the values for a difference; " + fmt::format("{:g}", r.level_pct) +
           " % intervals; verdicts hold a false discovery rate of " + fmt::format("{:g}", r.fdr * 100) +
           " % over the " + std::to_string(r.family) + " figures with an interval (Benjamini-Hochberg)";
}

nlohmann::json to_json(const CompareResult& r, const CompareSide& base, const CompareSide& next) {
    nlohmann::json tests = nlohmann::json::array();
    for (const auto& t : r.tests) {
        nlohmann::json figures = nlohmann::json::array();
        for (const auto& f : t.figures) {
            figures.push_back({{"figure", f.figure},
                               {"kind", f.ratio ? "ratio" : "difference"},
                               {"base", f.base},
                               {"new", f.next},
                               {"base_invocations", f.base_invocations},
                               {"new_invocations", f.next_invocations},
                               {"level", repetition_level_name(f.level)},
                               {"estimate", f.c.estimate},
                               {"interval", f.c.has_interval ? nlohmann::json{f.c.lo, f.c.hi} : nlohmann::json()},
                               {"df", f.c.df},
                               {"p", f.c.has_interval ? nlohmann::json(f.c.p) : nlohmann::json()},
                               {"q", f.in_family ? nlohmann::json(f.q) : nlohmann::json()},
                               {"changed", f.called_changed()},
                               {"verdict", f.verdict}});
        }
        nlohmann::json test = encoded(t, kTestIdFields);
        if (!t.against.empty()) test["against"] = t.against;
        test["figures"] = figures;  // compare's own: each figure's comparison
        tests.push_back(std::move(test));
    }
    nlohmann::json j = {
        {"base", describe_side(base)}, {"new", describe_side(next)}, {"level_pct", r.level_pct}, {"fdr", r.fdr},
        {"fdr_family", r.family},      {"fdr_changed", r.changed},   {"method", method_text(r)}, {"tests", tests}};
    if (!r.paths.empty()) j["paths"] = r.paths;
    return j;
}

}  // namespace zc
