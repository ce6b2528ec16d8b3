// zcperf compare: Welch's interval and its t quantiles, the matching of tests, the invocations, --paths, the verdicts.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>

#include "compare.hpp"
#include "html/html_page.hpp"
#include "parse_cli.hpp"
#include "measure/welch.hpp"

namespace {

// scripts/irq_sweep_stats.py's Student t table (df 1-30, 97.5 %): the compare's quantiles must be its.
std::vector<double> sweep_stats_t_table() {
    std::ifstream in(std::string(ZCPERF_FIXTURES) + "/../../scripts/irq_sweep_stats.py");
    std::stringstream text;
    text << in.rdbuf();
    std::smatch m;
    std::string s = text.str();
    if (!std::regex_search(s, m, std::regex(R"(_T975 = \[([^\]]*)\])"))) return {};
    std::vector<double> out;
    std::stringstream list(m[1].str());
    for (std::string item; std::getline(list, item, ',');) out.push_back(std::stod(item));
    return out;
}

TEST(Welch, TQuantilesAgreeWithTheSweepStatsTable) {
    auto table = sweep_stats_t_table();
    ASSERT_EQ(table.size(), 30u) << "scripts/irq_sweep_stats.py's _T975 table not found";
    for (size_t df = 1; df <= table.size(); ++df)
        EXPECT_NEAR(zc::t_quantile(static_cast<double>(df), 95), table[df - 1], 1e-3) << "df " << df;
    EXPECT_NEAR(zc::t_quantile(1e7, 95), 1.959964, 1e-5);  // the normal limit, the script's z
    // Welch's df is fractional: the quantile lies between its neighbours'.
    double t = zc::t_quantile(3.5, 95);
    EXPECT_LT(t, table[2]);
    EXPECT_GT(t, table[3]);
}

TEST(Welch, RatioIsTheGeometricMeansRatioWithTheLogInterval) {
    // Reference from the formulas in Python: exp(mean(log b) - mean(log a)), se of the log difference, and
    // the Welch-Satterthwaite df.
    auto c = zc::compare_ratio({5.1, 5.3, 4.9}, {5.6, 5.8, 5.5, 5.9});
    ASSERT_TRUE(c.has_interval);
    EXPECT_NEAR(c.estimate, 1.1177902192433704, 1e-12);
    EXPECT_NEAR(c.df, 3.8575917467176932, 1e-9);
    double h = zc::t_quantile(c.df, 95) * 0.02774709714620814;
    EXPECT_NEAR(c.lo, std::exp(0.1113537178092483 - h), 1e-9);
    EXPECT_NEAR(c.hi, std::exp(0.1113537178092483 + h), 1e-9);
    EXPECT_TRUE(c.changed);  // about +12 % with under 1 % noise
}

TEST(Welch, OverlappingSamplesAreNotResolved) {
    auto c = zc::compare_ratio({5.0, 6.0, 5.5}, {5.2, 5.9, 5.4});
    ASSERT_TRUE(c.has_interval);
    EXPECT_LT(c.lo, 1);
    EXPECT_GT(c.hi, 1);
    EXPECT_FALSE(c.changed);
}

TEST(Welch, OneRoundMakesNoInterval) {
    auto c = zc::compare_ratio({5.0}, {6.0, 6.1, 6.2});
    EXPECT_FALSE(c.has_interval);
    EXPECT_FALSE(c.changed);
    EXPECT_NEAR(c.estimate, std::exp((std::log(6.0) + std::log(6.1) + std::log(6.2)) / 3) / 5.0, 1e-12);
}

TEST(Welch, DifferenceTakesZeros) {
    auto c = zc::compare_difference({0, 0, 0}, {0.5, 0.6, 0.55});
    ASSERT_TRUE(c.has_interval);
    EXPECT_NEAR(c.estimate, 0.55, 1e-12);
    EXPECT_GT(c.lo, 0);
    EXPECT_TRUE(c.changed);
    EXPECT_THROW(zc::compare_ratio({0, 1}, {1, 2}), std::invalid_argument);
}

nlohmann::json result(const std::string& transport, std::vector<double> gbps, std::vector<double> copy) {
    nlohmann::json rounds = nlohmann::json::array();
    for (size_t i = 0; i < gbps.size(); ++i)
        rounds.push_back({{"throughput_gbps", gbps[i]},
                          {"local_explain_copy_us_per_kb", copy[i]},
                          {"local_explain_rdma_us_per_kb", 0.0}});
    return {{"transport", transport},
            {"test", "stream"},
            {"message_size", 65536},
            {"rx", "copy"},
            {"iterations", {{"count", gbps.size()}, {"rounds", gbps.size() > 1 ? rounds : nlohmann::json::array()}}},
            {"figures", rounds[0]}};
}

zc::CompareSide side(const std::string& name, std::vector<nlohmann::json> results) {
    zc::CompareSide s;
    s.name = name;
    s.files = {name + ".json"};
    s.reports = {
        {{"run", {{"software", "zcperf 0.1.0"}, {"local_host", "a"}, {"local_kernel", "6.1"}}}, {"results", results}}};
    return s;
}

// Several reports a side: each is an invocation.
zc::CompareSide sides(const std::string& name, const std::vector<std::vector<nlohmann::json>>& invocations) {
    zc::CompareSide s = side(name, invocations.front());
    for (size_t i = 1; i < invocations.size(); ++i) {
        s.files.push_back(name + std::to_string(i) + ".json");
        s.reports.push_back(side(name, invocations[i]).reports[0]);
    }
    return s;
}

TEST(Compare, MatchesTestsAndJudgesEachFigure) {
    auto base = sides("base", {{result("tcp", {5.0, 5.1, 4.9}, {0.30, 0.31, 0.29}),
                                result("tcp-msgzc", {4.0, 4.1, 3.9}, {0.1, 0.1, 0.1})},
                               {result("tcp", {5.1, 5.0, 5.0}, {0.31, 0.30, 0.28})},
                               {result("tcp", {4.9, 5.0, 5.1}, {0.29, 0.32, 0.30})}});
    auto next = sides("new", {{result("tcp", {6.0, 6.1, 5.9}, {0.30, 0.32, 0.29}), result("udp", {1}, {1})},
                              {result("tcp", {6.1, 6.0, 6.0}, {0.29, 0.31, 0.30})},
                              {result("tcp", {5.9, 6.0, 6.1}, {0.31, 0.30, 0.29})}});
    auto r = zc::compare_sides(base, next);
    ASSERT_EQ(r.tests.size(), 1u);  // tcp-msgzc and udp are on one side only
    const auto& figures = r.tests[0].figures;
    ASSERT_EQ(figures.size(), 2u);                    // rdma: zero on both sides, nothing to compare
    EXPECT_EQ(figures[0].figure, "throughput_gbps");  // the rate first
    EXPECT_EQ(figures[0].base_invocations, 3u);
    EXPECT_EQ(figures[0].base.size(), 9u);
    EXPECT_EQ(figures[0].level, zc::RepetitionLevel::invocations);
    EXPECT_EQ(figures[0].verdict, "higher");
    EXPECT_EQ(figures[1].figure, "local_explain_copy_us_per_kb");
    EXPECT_EQ(figures[1].verdict, "not resolved");
    EXPECT_EQ(r.family, 2u);
    EXPECT_EQ(r.changed, 1u);
    EXPECT_LE(figures[0].q, r.fdr);
    auto j = zc::to_json(r, base, next);
    EXPECT_EQ(j["base"]["kernels"][0], "client 6.1, server unknown (an older report)");
    EXPECT_EQ(j["tests"][0]["figures"][0]["level"], "invocations");
    EXPECT_EQ(j["fdr"], 0.05);
    EXPECT_NE(j["method"].get<std::string>().find("Benjamini-Hochberg"), std::string::npos);
}

// One report a side: its rounds share one invocation's state, so the run-to-run noise is unknown and no
// change is called; the interval over the rounds is still shown.
TEST(Compare, OneInvocationSaysTheRunToRunNoiseIsUnknown) {
    auto r = zc::compare_sides(side("base", {result("tcp", {5.0, 5.1, 4.9}, {0.3, 0.3, 0.3})}),
                               sides("new", {{result("tcp", {6.0, 6.1, 5.9}, {0.3, 0.3, 0.3})},
                                             {result("tcp", {6.0, 6.2, 5.9}, {0.3, 0.3, 0.3})}}));
    const auto& f = r.tests[0].figures[0];
    EXPECT_TRUE(f.c.has_interval);
    EXPECT_FALSE(f.in_family);
    EXPECT_EQ(f.level, zc::RepetitionLevel::rounds);
    EXPECT_EQ(f.verdict.rfind("run-to-run noise unknown: base has one invocation", 0), 0u) << f.verdict;
    EXPECT_EQ(r.changed, 0u);
}

// --invocations: the rounds of one report say which invocation each ran in.
TEST(Compare, RoundInvocationsSplitOneReport) {
    nlohmann::json a = result("tcp", {5.0, 5.1, 4.9, 5.0}, {0.3, 0.3, 0.3, 0.3});
    a["iterations"]["round_invocations"] = {1, 1, 2, 2};
    nlohmann::json b = result("tcp", {6.0, 6.1, 5.9, 6.0}, {0.3, 0.3, 0.3, 0.3});
    b["iterations"]["round_invocations"] = {1, 1, 2, 2};
    auto r = zc::compare_sides(side("base", {a}), side("new", {b}));
    EXPECT_EQ(r.tests[0].figures[0].base_invocations, 2u);
    EXPECT_EQ(r.tests[0].figures[0].level, zc::RepetitionLevel::invocations);
    EXPECT_TRUE(r.tests[0].figures[0].in_family);
}

// Many figures at once: a figure whose own 95 % interval clears 1 is not called changed when, among the
// rest, its p-value does not pass Benjamini-Hochberg's bar.
TEST(Compare, TheFalseDiscoveryRateHoldsOverAllFigures) {
    zc::CompareResult r;
    r.paths = "a:b";
    r.tests.resize(1);
    for (double p : {0.04, 0.5, 0.6, 0.7, 0.8}) {
        zc::FigureComparison f;
        f.figure = "x";
        f.c.has_interval = true;
        f.c.estimate = 1.1;
        f.c.lo = 1.01;
        f.c.hi = 1.2;
        f.c.p = p;
        r.tests[0].figures.push_back(f);
    }
    zc::judge(r);
    EXPECT_EQ(r.family, 5u);
    EXPECT_NEAR(r.tests[0].figures[0].q, 0.2, 1e-12);  // 0.04 * 5 / 1
    EXPECT_EQ(r.tests[0].figures[0].verdict, "not resolved");
    r.tests[0].figures[0].c.p = 0.001;
    zc::judge(r);
    EXPECT_EQ(r.tests[0].figures[0].verdict, "higher");
    EXPECT_EQ(r.changed, 1u);
}

// --paths A:B pairs the two paths' rounds of the same runs: A's round r against B's round r.
TEST(Compare, PathsPairTwoPathsOfTheSameRunsByRound) {
    // tcp-msgzc's throughput is 0.8x tcp's in every round, while the rounds themselves swing widely.
    auto runs = side("runs", {result("tcp", {5.0, 7.0, 3.0}, {0.30, 0.40, 0.20}),
                              result("tcp-msgzc", {4.0, 5.7, 2.4}, {0.1, 0.0, 0.1})});
    auto r = zc::compare_paths(runs, "tcp-msgzc:tcp");
    ASSERT_EQ(r.tests.size(), 1u);
    EXPECT_EQ(r.tests[0].transport, "tcp-msgzc");
    EXPECT_EQ(r.tests[0].against, "tcp");
    const auto& f = r.tests[0].figures[0];
    EXPECT_EQ(f.figure, "throughput_gbps");
    EXPECT_NEAR(f.c.estimate, 0.8047, 1e-3);
    EXPECT_EQ(f.verdict, "lower");  // unpaired, these rounds would overlap
    EXPECT_FALSE(zc::compare_ratio(f.base, f.next).changed);
    EXPECT_EQ(f.level, zc::RepetitionLevel::rounds);
    EXPECT_FALSE(r.tests[0].figures[1].ratio);  // a round with a zero copy time: a difference
    auto j = zc::to_json(r, runs, runs);
    EXPECT_EQ(j["paths"], "tcp-msgzc:tcp");
    EXPECT_EQ(j["tests"][0]["against"], "tcp");
    EXPECT_THROW(zc::compare_paths(runs, "tcp-msgzc"), zc::CompareError);
    EXPECT_THROW(zc::compare_paths(runs, "nope:tcp"), zc::CompareError);
    try {
        zc::compare_paths(runs, "udp:tcp");
        FAIL() << "no error";
    } catch (const zc::CompareError& e) {
        EXPECT_NE(std::string(e.what()).find("no test of udp has a twin on tcp"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("tcp-msgzc stream 65536 B rx copy"), std::string::npos) << e.what();
    }
}

TEST(Compare, OneRoundSaysThereIsNoInterval) {
    auto r = zc::compare_sides(side("base", {result("tcp", {5.0}, {0.3})}),
                               side("new", {result("tcp", {6.0, 6.1, 5.9}, {0.3, 0.3, 0.3})}));
    EXPECT_FALSE(r.tests[0].figures[0].c.has_interval);
    EXPECT_EQ(r.tests[0].figures[0].verdict, "no interval: base has one round (use -i 3 or more)");
}

TEST(Compare, NoMatchListsEachSidesTests) {
    try {
        zc::compare_sides(side("base", {result("tcp", {5.0}, {0.3})}), side("new", {result("udp", {5.0}, {0.3})}));
        FAIL() << "no error";
    } catch (const zc::CompareError& e) {
        std::string what = e.what();
        EXPECT_NE(what.find("base has:\n  tcp stream 65536 B rx copy"), std::string::npos) << what;
        EXPECT_NE(what.find("new has:\n  udp stream 65536 B rx copy"), std::string::npos) << what;
    }
}

TEST(Compare, RefusesWhatIsNoZcperfReport) {
    std::string dir = ::testing::TempDir();
    std::ofstream(dir + "/not_json.json") << "hello";
    std::ofstream(dir + "/other.json") << R"({"a": 1})";
    EXPECT_THROW(zc::load_side("base", dir + "/missing.json"), zc::CompareError);
    EXPECT_THROW(zc::load_side("base", dir + "/not_json.json"), zc::CompareError);
    try {
        zc::load_side("base", dir + "/other.json");
        FAIL() << "no error";
    } catch (const zc::CompareError& e) {
        EXPECT_NE(std::string(e.what()).find("not a zcperf report"), std::string::npos) << e.what();
    }
}

// A result that does not say which test it is cannot be matched: refused, saying what to give.
TEST(Compare, RefusesAResultWithoutItsTest) {
    std::string dir = ::testing::TempDir();
    nlohmann::json doc = side("base", {result("tcp", {5.0}, {0.3})}).reports[0];
    doc["results"][0].erase("transport");
    std::ofstream(dir + "/no_transport.json") << doc.dump();
    try {
        zc::load_side("base", dir + "/no_transport.json");
        FAIL() << "no error";
    } catch (const zc::CompareError& e) {
        EXPECT_NE(std::string(e.what()).find("does not say which test"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("transport"), std::string::npos) << e.what();
    }
}

// The --html page's data: its kind, each side's reports, and every sampled frame's category.
TEST(HtmlPage, TheDataNamesItsKindSidesAndFrames) {
    nlohmann::json report = side("base", {result("tcp", {5.0}, {0.3})}).reports[0];
    const auto stack = nlohmann::json::array({"main;memcpy", 3});  // a sampled stack and its count
    report["results"][0]["local"] = {{"explain", {{"stacks", nlohmann::json::array({stack})}}}};
    nlohmann::json run = zc::run_page_data(report);
    EXPECT_EQ(run["kind"], "run");
    ASSERT_EQ(run["sides"].size(), 1u);
    EXPECT_EQ(run["sides"][0]["name"], "run");
    EXPECT_EQ(run["sides"][0]["reports"], nlohmann::json::array({report}));
    EXPECT_FALSE(run.contains("compare"));
    EXPECT_TRUE(run["frame_categories"].contains("main"));
    EXPECT_TRUE(run["frame_categories"].contains("memcpy"));
    EXPECT_FALSE(run["categories"].empty());
    EXPECT_NE(zc::html_page(run).find("<title>zcperf run</title>"), std::string::npos);
    nlohmann::json cmp = zc::compare_page_data({{"tests", nlohmann::json::array()}}, {report}, {report, report});
    EXPECT_EQ(cmp["kind"], "compare");
    EXPECT_EQ(cmp["compare"]["tests"], nlohmann::json::array());
    ASSERT_EQ(cmp["sides"].size(), 2u);
    EXPECT_EQ(cmp["sides"][0]["name"], "base");
    EXPECT_EQ(cmp["sides"][1]["name"], "new");
    EXPECT_EQ(cmp["sides"][1]["reports"].size(), 2u);
    EXPECT_TRUE(cmp["frame_categories"].contains("memcpy"));
    EXPECT_NE(zc::html_page(cmp).find("<title>zcperf compare</title>"), std::string::npos);
}

// The page is a copy of d3 (ISC) and d3-flame-graph (Apache-2.0): each inlined script is headed by its
// whole licence, in a comment that ends after the licence's last words (a "*/" inside would end it early),
// and the page names zcperf's own version and licence.
TEST(Compare, HtmlPageCarriesTheLicencesOfWhatItInlines) {
    const std::string page = zc::html_page(zc::run_page_data({{"results", nlohmann::json::array()}}));
    EXPECT_NE(page.find("<!-- zcperf " ZCPERF_VERSION "'s HTML report (Apache-2.0)"), std::string::npos);
    struct Notice {
        const char* head;
        const char* first_words;
        const char* last_words;
    };
    for (const Notice& n : {Notice{"/*! d3 ", "Copyright 2010-2023 Mike Bostock", "PERFORMANCE OF\nTHIS SOFTWARE."},
                            Notice{"/*! d3-flame-graph ", "Apache License", "limitations under the License."}}) {
        const size_t head = page.find(n.head);
        ASSERT_NE(head, std::string::npos) << n.head;
        const size_t first = page.find(n.first_words, head), last = page.find(n.last_words, head);
        const size_t end = page.find("*/", head);
        ASSERT_NE(last, std::string::npos) << n.head;
        EXPECT_LT(first, last) << n.head;
        EXPECT_LT(last, end) << n.head << ": the comment ends inside the licence";
        EXPECT_EQ(page.rfind("<script>", head), head - 9) << n.head << ": the notice heads its script";
    }
}

// The stacks come back for the page and for -o json (so compare --html can draw saved runs), not for a
// human report alone (they would cost the sides' replies for nothing).
TEST(Compare, JsonAndHtmlAskTheSidesForTheirStacks) {
    zc::ClientOptions human, json, html;
    ASSERT_EQ(zc::test::parse({"--explain"}, human), -1);
    EXPECT_FALSE(human.params.explain_stacks);
    ASSERT_EQ(zc::test::parse({"--explain", "-o", "json"}, json), -1);
    EXPECT_TRUE(json.params.explain_stacks);
    ASSERT_EQ(zc::test::parse({"--explain", "--html", "/tmp/x.html"}, html), -1);
    EXPECT_TRUE(html.params.explain_stacks);
    EXPECT_EQ(html.html, "/tmp/x.html");
}

}  // namespace
