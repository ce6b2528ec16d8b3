#include "report.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <string_view>
#include <utility>

#include "explain/categories.hpp"

namespace zc::e2e {

nlohmann::json report_json(const Outcome& o) {
    size_t a = o.out.find('{'), b = o.out.rfind('}');
    if (a == std::string::npos || b == std::string::npos || b < a) return nullptr;
    nlohmann::json j = nlohmann::json::parse(o.out.substr(a, b - a + 1), nullptr, false);
    return j.is_discarded() ? nlohmann::json() : j;
}

nlohmann::json ok_report(const Outcome& o) {
    EXPECT_EQ(o.exit_code, 0) << context(o);
    nlohmann::json j = report_json(o);
    EXPECT_TRUE(j.is_object()) << "no JSON report:\n" << context(o);
    if (j.is_object()) {
        EXPECT_TRUE(j.value("errors", nlohmann::json::array()).empty()) << j["errors"];
    }
    return j;
}

nlohmann::json first_result(const nlohmann::json& report) {
    if (!report.is_object() || !report.contains("results") || report["results"].empty())
        return nlohmann::json::object();
    return report["results"][0];
}

nlohmann::json zcperf_report(std::vector<std::string> args, std::chrono::milliseconds limit) {
    args.insert(args.end(), {"-o", "json"});
    return ok_report(run_zcperf(std::move(args), limit));
}

bool has_warning(const nlohmann::json& result, const std::string& text) {
    if (!result.is_object()) return false;
    for (const auto& w : result.value("warnings", nlohmann::json::array()))
        if (w.is_string() && w.get<std::string>().find(text) != std::string::npos) return true;
    return false;
}

std::string context(const Outcome& o) {
    return "exit " + std::to_string(o.exit_code) + (o.timed_out ? " (killed at its time limit)" : "") + "\nstdout:\n" +
           o.out + "\nstderr:\n" + o.err;
}

std::string heaviest_unclassified_leaves(const nlohmann::json& explain, size_t top) {
    std::map<std::string, uint64_t> leaves;
    for (const auto& st : explain.value("stacks", nlohmann::json::array())) {
        std::vector<std::string> frames;
        std::stringstream in(st[0].get<std::string>());
        for (std::string f; std::getline(in, f, ';');) frames.insert(frames.begin(), f);
        if (frames.empty() || frames[0].front() == '[') continue;  // user time, other processes
        const Category c = attribute_chain(std::vector<std::string_view>(frames.begin(), frames.end()));
        if (c != Category::other) continue;
        // The frame that decided: the leaf, or the first caller above leaves that take their caller's
        // category (a sample that lands on an IRQ-restoring unlock is its caller's work).
        size_t at = 0;
        while (at + 1 < frames.size() && category_of_function(frames[at]) == Category::inherit) ++at;
        leaves[at == 0 ? frames[0] : frames[at] + " (leaf " + frames[0] + ")"] += st[1].get<uint64_t>();
    }
    std::vector<std::pair<uint64_t, std::string>> heaviest;
    for (const auto& [f, n] : leaves) heaviest.emplace_back(n, f);
    std::sort(heaviest.rbegin(), heaviest.rend());
    std::ostringstream out;
    for (size_t i = 0; i < heaviest.size() && i < top; ++i)
        out << "\n  " << heaviest[i].second << ": " << heaviest[i].first << " samples";
    return out.str();
}

double share_error_pct(double pct, uint64_t n) {
    if (n == 0) return 100.0;
    const double p = pct / 100.0;
    return 196.0 * std::sqrt(p * (1 - p) / static_cast<double>(n));
}

}  // namespace zc::e2e
