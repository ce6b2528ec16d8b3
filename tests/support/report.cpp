#include "report.hpp"

#include <gtest/gtest.h>

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

}  // namespace zc::e2e
