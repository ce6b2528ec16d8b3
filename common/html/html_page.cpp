#include "html/html_page.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <set>
#include <stdexcept>

#include "explain/categories.hpp"
#include "html/html_assets.hpp"

namespace zc {

namespace {

// Every frame of every sampled stack in the explain objects, by the category its name alone gives (the page
// walks up from a frame past "inherit" to its caller's, as --explain attributes a chain).
nlohmann::json frame_categories(const std::vector<const nlohmann::json*>& explains) {
    std::set<std::string> names;
    for (const nlohmann::json* e : explains)
        for (const auto& s : e->value("stacks", nlohmann::json::array())) {
            const std::string stack = s.at(0).get<std::string>();
            size_t start = 0;
            while (start <= stack.size()) {
                size_t end = stack.find(';', start);
                names.insert(stack.substr(start, end == std::string::npos ? std::string::npos : end - start));
                if (end == std::string::npos) break;
                start = end + 1;
            }
        }
    nlohmann::json out = nlohmann::json::object();
    for (const auto& n : names) out[n] = category_key(category_of_function(n));
    return out;
}

constexpr const char* kSideNames[] = {"local", "remote"};  // a result's (and a survey point's) two sides

// Each side's explain object of every result of the reports, added to `out`.
void add_report_explains(const std::vector<nlohmann::json>& reports, std::vector<const nlohmann::json*>& out) {
    for (const auto& doc : reports)
        if (doc.contains(kResultsKey))
            for (const auto& r : doc.at(kResultsKey))
                for (const char* side : kSideNames)
                    if (r.contains(side) && r.at(side).contains(kExplainKey))
                        out.push_back(&r.at(side).at(kExplainKey));
}

nlohmann::json category_list() {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& c : category_names()) out.push_back({{"key", c.key}, {"label", c.label}});
    return out;
}

// JSON inside <script>: "</" would end the element early; "<\/" is the same string to JSON.
std::string script_safe(const std::string& json) {
    std::string out;
    out.reserve(json.size());
    for (size_t i = 0; i < json.size(); ++i) {
        out += json[i];
        if (json[i] == '<' && i + 1 < json.size() && json[i + 1] == '/') out += '\\';
    }
    return out;
}

std::string asset(const EmbeddedAsset& a) { return std::string(reinterpret_cast<const char*>(a.data), a.size); }

// A script the page inlines, headed by its licence: the page is a copy of it, and its licence says a copy
// carries the notice. A licence text holds no "*/" (a unit test checks), so the comment cannot end early.
std::string inlined_script(const std::string& name, const EmbeddedAsset& js, const EmbeddedAsset& licence) {
    return "<script>\n/*! " + name + ", inlined by zcperf's --html page; its licence:\n\n" + asset(licence) + "*/\n" +
           asset(js) + "\n</script>\n";
}

// The page's kinds (page.js draws by data.kind): a run's page, its one side named so too; a compare page,
// which holds zcperf compare's document under the same name (data.compare).
constexpr const char* kKindKey = "kind";
constexpr const char* kRunPage = "run";
constexpr const char* kComparePage = "compare";
constexpr const char* kSurveyPage = "survey";  // zcperf survey's document (data.survey), its points' stacks inside

struct PageSide {
    const char* name;
    const std::vector<nlohmann::json>& reports;
};

// What page.js reads: the page's kind, each side's reports, the categories and every sampled frame's (the
// reports' and `explains`').
nlohmann::json page_data(const char* kind, std::initializer_list<PageSide> sides,
                         std::vector<const nlohmann::json*> explains = {}) {
    nlohmann::json side_list = nlohmann::json::array();
    std::vector<nlohmann::json> all;
    for (const auto& s : sides) {
        side_list.push_back({{"name", s.name}, {"reports", s.reports}});
        all.insert(all.end(), s.reports.begin(), s.reports.end());
    }
    add_report_explains(all, explains);
    return {{kKindKey, kind},
            {"sides", side_list},
            {"categories", category_list()},
            {"frame_categories", frame_categories(explains)}};
}

}  // namespace

nlohmann::json run_page_data(const nlohmann::json& report) { return page_data(kRunPage, {{kRunPage, {report}}}); }

nlohmann::json compare_page_data(const nlohmann::json& compare, const std::vector<nlohmann::json>& base,
                                 const std::vector<nlohmann::json>& next) {
    nlohmann::json data = page_data(kComparePage, {{"base", base}, {"new", next}});
    data[kComparePage] = compare;
    return data;
}

nlohmann::json survey_page_data(const nlohmann::json& survey) {
    std::vector<const nlohmann::json*> explains;  // pointers into survey: no copies
    if (const auto points = survey.find("points"); points != survey.end())
        for (const auto& p : *points)
            if (p.contains(kExplainKey))
                for (const char* side : kSideNames)
                    if (p.at(kExplainKey).contains(side)) explains.push_back(&p.at(kExplainKey).at(side));
    nlohmann::json data = page_data(kSurveyPage, {}, std::move(explains));
    data[kSurveyPage] = survey;
    return data;
}

std::string html_page(const nlohmann::json& data) {
    std::string page = "<!DOCTYPE html>\n<!-- zcperf " ZCPERF_VERSION "'s HTML report (" ZCPERF_LICENSE
                       "); it inlines d3 (ISC) and d3-flame-graph (Apache-2.0), each with its licence. -->\n"
                       "<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>";
    page += "zcperf " + data.value(kKindKey, std::string(kRunPage));
    page += "</title>\n<style>\n" + asset(kPageCss) + "</style>\n";
    // d3 and d3-flame-graph as published (third_party/d3-flame-graph: versions, integrity, licences).
    page += inlined_script("d3 " ZCPERF_D3_VERSION " (https://d3js.org)", kD3Js, kD3License);
    page +=
        inlined_script("d3-flame-graph " ZCPERF_D3_FLAME_GRAPH_VERSION " (https://github.com/spiermar/d3-flame-graph)",
                       kD3FlameGraphJs, kD3FlameGraphLicense);
    page += "</head><body>\n<div id=\"zc-page\"></div>\n";
    page += "<script id=\"zc-data\" type=\"application/json\">" + script_safe(data.dump()) + "</script>\n";
    page += "<script>\n" + asset(kPageJs) + "\n</script>\n</body></html>\n";
    return page;
}

void write_html_page(const std::string& file, const nlohmann::json& data) {
    std::ofstream out(file);
    if (!out) throw std::runtime_error("cannot write --html " + file + ": " + std::strerror(errno));
    out << html_page(data);
    out.close();
    if (!out) throw std::runtime_error("writing --html " + file + " failed: " + std::strerror(errno));
}

}  // namespace zc
