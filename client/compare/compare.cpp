#include "compare.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <set>

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

// {test key: {figure: samples}} over a side's reports: each -i round is a sample, else the result is.
using Samples = std::map<std::string, std::map<std::string, std::vector<double>>>;

Samples samples_of(const CompareSide& side, std::vector<std::string>& order) {
    Samples s;
    for (const auto& doc : side.reports) {
        for (const auto& r : doc[kResultsKey]) {
            std::string key = test_key(r);
            if (!s.count(key)) order.push_back(key);
            auto& figures = s[key];
            const nlohmann::json* rounds = nullptr;
            if (auto it = r.find(kIterationsKey); it != r.end() && it->is_object() && it->contains(kRoundsKey) &&
                                                  (*it)[kRoundsKey].is_array() && !(*it)[kRoundsKey].empty())
                rounds = &(*it)[kRoundsKey];
            for (const auto& f : rounds ? *rounds : nlohmann::json::array({r[kFiguresKey]}))
                for (const auto& [name, v] : f.items())
                    if (v.is_number()) figures[name].push_back(v.get<double>());
        }
    }
    return s;
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

bool all_positive(const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [](double x) { return x > 0; });
}

std::string verdict_of(const FigureComparison& f) {
    if (!f.c.has_interval)
        return f.base.size() < 2 ? "no interval: base has one round (use -i 3 or more)"
                                 : "no interval: new has one round (use -i 3 or more)";
    if (!f.c.changed) return "not resolved";
    return (f.ratio ? f.c.lo > 1 : f.c.lo > 0) ? "higher" : "lower";
}

FigureComparison compare_figure(const std::string& name, std::vector<double> base, std::vector<double> next,
                                double level_pct) {
    FigureComparison f;
    f.figure = name;
    f.ratio = all_positive(base) && all_positive(next);
    f.c = f.ratio ? compare_ratio(base, next, level_pct) : compare_difference(base, next, level_pct);
    f.base = std::move(base);
    f.next = std::move(next);
    f.verdict = verdict_of(f);
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

CompareResult compare_sides(const CompareSide& base, const CompareSide& next) {
    std::vector<std::string> base_order, next_order;
    Samples a = samples_of(base, base_order), b = samples_of(next, next_order);
    CompareResult out;
    for (const auto& key : base_order) {
        if (!b.count(key)) continue;
        const nlohmann::json* any = nullptr;
        for (const auto& doc : base.reports)
            for (const auto& r : doc[kResultsKey])
                if (!any && test_key(r) == key) any = &r;
        TestComparison t = test_id(*any);
        for (const auto& [name, va] : a[key]) {
            auto it = b[key].find(name);
            if (it == b[key].end() || (all_zero(va) && all_zero(it->second))) continue;  // nothing to compare
            t.figures.push_back(compare_figure(name, va, it->second, out.level_pct));
        }
        std::stable_sort(t.figures.begin(), t.figures.end(),
                         [](const auto& x, const auto& y) { return figure_rank(x.figure) < figure_rank(y.figure); });
        out.tests.push_back(std::move(t));
    }
    if (out.tests.empty())
        throw CompareError("no test is in both sides (tests match by transport, test, message size and --rx)." +
                           std::string("\nbase has:") + list_tests(base_order) + "\nnew has:" + list_tests(next_order));
    return out;
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

nlohmann::json to_json(const CompareResult& r, const CompareSide& base, const CompareSide& next) {
    nlohmann::json tests = nlohmann::json::array();
    for (const auto& t : r.tests) {
        nlohmann::json figures = nlohmann::json::array();
        for (const auto& f : t.figures) {
            figures.push_back({{"figure", f.figure},
                               {"kind", f.ratio ? "ratio" : "difference"},
                               {"base", f.base},
                               {"new", f.next},
                               {"estimate", f.c.estimate},
                               {"interval", f.c.has_interval ? nlohmann::json{f.c.lo, f.c.hi} : nlohmann::json()},
                               {"df", f.c.df},
                               {"changed", f.c.changed},
                               {"verdict", f.verdict}});
        }
        nlohmann::json test = encoded(t, kTestIdFields);
        test["figures"] = figures;  // compare's own: each figure's comparison
        tests.push_back(std::move(test));
    }
    return {{"base", describe_side(base)},
            {"new", describe_side(next)},
            {"level_pct", r.level_pct},
            {"method",
             "Welch's t on the log ratios (a ratio: NEW / BASE) or on the values (a difference: NEW - "
             "BASE), each side's repetitions its samples"},
            {"tests", tests}};
}

}  // namespace zc
