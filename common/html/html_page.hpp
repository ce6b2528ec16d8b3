#pragma once
// The --html page: one self-contained file, the d3 and d3-flame-graph it needs inlined
// (third_party/d3-flame-graph, embedded at build time: nothing is fetched when it is viewed), the page's
// own script and style, and the data as JSON. The script (html/page.js) draws everything from the data.
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/report_writer.hpp"

namespace zc {

// The page's data for one run: its JSON report (zcperf -o json's document).
nlohmann::json run_page_data(const nlohmann::json& report);
// For zcperf compare: its JSON and both sides' reports (their stacks and categories).
nlohmann::json compare_page_data(const nlohmann::json& compare, const std::vector<nlohmann::json>& base,
                                 const std::vector<nlohmann::json>& next);
// For zcperf survey: its document ("survey"'s object), each point's sides' stacks under "explain".
nlohmann::json survey_page_data(const nlohmann::json& survey);

// The whole page.
std::string html_page(const nlohmann::json& data);
// Writes it to `file`; throws std::runtime_error saying why it could not.
void write_html_page(const std::string& file, const nlohmann::json& data);

// A run's --html: gathers the report as -o json does and writes the page at the end. Opens (creates) the
// file at once, so a path that cannot be written is refused before any test; throws std::runtime_error.
std::unique_ptr<ReportWriter> make_html_report(const std::string& file);

}  // namespace zc
