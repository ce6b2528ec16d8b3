// zcperf survey's logic: its paths and their copy paths, the round order, the paired ratios, the crossover.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "survey.hpp"
#include "html/html_page.hpp"

namespace {

TEST(Survey, PathsNameTheirReceiveModeAndFamily) {
    auto p = zc::survey_path_from_name("tcp/zerocopy");
    EXPECT_EQ(p.transport, zc::transport_named("tcp"));
    EXPECT_EQ(p.rx, zc::RxMode::zerocopy);
    EXPECT_EQ(p.name(), "tcp/zerocopy");
    EXPECT_EQ(zc::survey_path_from_name("tcp-msgzc").name(), "tcp-msgzc");
    EXPECT_THROW(zc::survey_path_from_name("tcp/nope"), std::invalid_argument);
    EXPECT_THROW(zc::survey_path_from_name("nope"), std::invalid_argument);
    EXPECT_EQ(zc::copy_path_of(zc::survey_path_from_name("tcp-msgzc")).name(), "tcp");
    EXPECT_EQ(zc::copy_path_of(p).name(), "tcp");
    EXPECT_EQ(zc::copy_path_of(zc::survey_path_from_name("udp-msgzc")).name(), "udp");
    EXPECT_EQ(zc::copy_path_of(zc::survey_path_from_name("rsocket-iomap")).name(), "rsocket");
    std::set<std::string> names;
    for (const auto& d : zc::default_survey_paths()) names.insert(d.name());
    for (const char* want : {"tcp", "tcp-sendfile", "tcp-msgzc", "tcp-uringzc", "tcp/zerocopy", "tcp/trunc", "mptcp",
                             "ktls", "udp", "udp-gso", "udp-msgzc", "rsocket", "rsocket-iomap", "rdma-write"})
        EXPECT_TRUE(names.count(want)) << want;
    auto sizes = zc::default_survey_sizes();
    ASSERT_EQ(sizes.size(), 11u);
    EXPECT_EQ(sizes.front(), 4096u);
    EXPECT_EQ(sizes.back(), 4u << 20);
}

// The words on which copy path each path is set against come from the rows' copy_path, not a list of kinds.
TEST(Survey, CopyPathWordsComeFromTheRows) {
    const std::string t = zc::copy_paths_text();
    EXPECT_NE(t.find("udp for udp-gso, udp-msgzc; "), std::string::npos) << t;
    if (zc::transport_built(zc::transport_named("rsocket-iomap"))) {
        EXPECT_NE(t.find("rsocket for rsocket-iomap; "), std::string::npos) << t;
    }
    const std::string end = "tcp for the others";
    ASSERT_GE(t.size(), end.size()) << t;
    EXPECT_EQ(t.substr(t.size() - end.size()), end);
    EXPECT_EQ(t.find("tcp-msgzc"), std::string::npos) << t;  // the reference's own family is "the others"
}

TEST(Survey, EachRoundVisitsEveryPointOnceInAnOrderThatChanges) {
    std::set<std::vector<std::pair<size_t, size_t>>> orders;
    for (int round = 1; round <= 5; ++round) {
        auto o = zc::round_order(3, 4, round);
        ASSERT_EQ(o.size(), 12u);
        std::set<std::pair<size_t, size_t>> seen(o.begin(), o.end());
        EXPECT_EQ(seen.size(), 12u);
        // the paths of one size run one after the other (their pairing spans seconds, not the round)
        for (size_t i = 0; i < o.size(); i += 3)
            EXPECT_TRUE(o[i].second == o[i + 1].second && o[i].second == o[i + 2].second);
        orders.insert(o);
        EXPECT_EQ(o, zc::round_order(3, 4, round));  // reproducible
    }
    EXPECT_GE(orders.size(), 4u);
}

nlohmann::json figures(double gbps, double sender_sd, double receiver_sd) {
    return {{"throughput_gbps", gbps},
            {"local_service_demand_us_per_kb", sender_sd},
            {"remote_service_demand_us_per_kb", receiver_sd}};
}

// tcp-msgzc's sender SD against tcp's: higher at 4K, lower at 16K and 64K, back to even at 256K; each
// round's host load moves both paths together (the pairing takes it out).
zc::SurveyResult synthetic() {
    zc::SurveyResult r;
    r.paths = {zc::survey_path_from_name("tcp"), zc::survey_path_from_name("tcp-msgzc"),
               zc::survey_path_from_name("udp-msgzc")};
    r.sizes = {4096, 16384, 65536, 262144};
    r.rounds = 4;
    const std::vector<double> load{1.0, 1.3, 0.8, 1.1};
    const std::vector<double> zc_ratio{1.4, 0.7, 0.6, 1.0};
    const std::vector<double> wobble{1.01, 0.99, 1.02, 0.98};
    for (const auto& p : r.paths)
        for (size_t s = 0; s < r.sizes.size(); ++s) {
            zc::SurveyPoint pt{p, r.sizes[s], {}, {}, {}};
            if (p.name() == "udp-msgzc") {
                pt.refused = "not in this build";
            } else {
                for (int i = 0; i < r.rounds; ++i) {
                    double k = p.name() == "tcp" ? 1.0 : zc_ratio[s] * wobble[(i + s) % 4];
                    pt.rounds.push_back(figures(5.0 / load[i], 2.0 * load[i] * k, 1.5 * load[i]));
                }
                if (p.name() == "tcp-msgzc") pt.zerocopy = {1000, 970};
            }
            r.points.push_back(pt);
        }
    return r;
}

TEST(Survey, RatiosArePairedByRoundAndTheCrossoverIsWhereTheSenderSdTurnsLower) {
    auto r = synthetic();
    zc::analyse_survey(r);
    ASSERT_EQ(r.ratios.tests.size(), 4u);  // tcp-msgzc at each size; udp-msgzc refused, tcp the reference
    EXPECT_EQ(r.ratios.family, 12u);       // 3 figures a point
    for (const auto& t : r.ratios.tests) EXPECT_EQ(t.against, "tcp");
    const auto& at16k = r.ratios.tests[1];
    EXPECT_EQ(at16k.message_size, 16384u);
    EXPECT_EQ(at16k.figures[1].figure, zc::kSurveySenderSd);
    EXPECT_NEAR(at16k.figures[1].c.estimate, 0.7, 0.01);
    EXPECT_EQ(at16k.figures[1].verdict, "lower");
    EXPECT_LT(at16k.figures[1].c.hi, 1);
    EXPECT_EQ(r.ratios.tests[0].figures[1].verdict, "higher");
    ASSERT_EQ(r.crossovers.size(), 1u);  // udp-msgzc has no measured point
    const auto& x = r.crossovers[0];
    EXPECT_TRUE(x.found);
    EXPECT_EQ(x.from, 16384u);
    EXPECT_EQ(x.until, 65536u);
    EXPECT_EQ(x.stops, 262144u);
    EXPECT_NE(x.text.find("lower from 16K"), std::string::npos) << x.text;

    auto j = zc::to_json(r)["survey"];
    ASSERT_EQ(j["points"].size(), 8u);
    for (const auto& p : j["points"]) {
        EXPECT_TRUE(p.contains("crossover")) << p.dump();
        EXPECT_EQ(p["round_figures"].size(), 4u);
        if (p["path"] != "tcp-msgzc") continue;
        for (const char* k : {"throughput_ratio", "sender_service_demand_ratio", "receiver_service_demand_ratio"}) {
            ASSERT_TRUE(p.contains(k)) << k;
            EXPECT_EQ(p[k]["interval"].size(), 2u);
            EXPECT_TRUE(p[k]["verdict"].is_string());
        }
        EXPECT_NEAR(p["zerocopy"]["sender"]["copied_pct"].get<double>(), 97.0, 1e-9);
    }
    ASSERT_EQ(j["refused"].size(), 4u);
    EXPECT_EQ(j["refused"][0]["path"], "udp-msgzc");
    EXPECT_EQ(j["refused"][0]["reason"], "not in this build");

    std::ostringstream human, csv;
    zc::write_survey_human(human, r);
    EXPECT_NE(human.str().find("crossover: sender SD lower from 16K"), std::string::npos) << human.str();
    EXPECT_NE(human.str().find("udp-msgzc at every size: not in this build"), std::string::npos) << human.str();
    zc::write_survey_csv(csv, r);
    const std::string rows = csv.str();
    EXPECT_EQ(std::count(rows.begin(), rows.end(), '\n'), 1 + 12);  // a header, and a row per point
    EXPECT_NE(rows.find("tcp-msgzc,tcp,16384,4,"), std::string::npos) << rows;
    EXPECT_NE(rows.find(",\"not in this build\"\n"), std::string::npos) << rows;  // the refused point's reason
    std::istringstream lines(rows);
    for (std::string line; std::getline(lines, line);)  // every row has the header's columns
        EXPECT_EQ(std::count(line.begin(), line.end(), ','), 23) << line;
}

TEST(Survey, AFigureWithAZeroRoundIsADifferenceAndPrintedAsOne) {
    auto r = synthetic();
    for (auto& p : r.points)  // one round of tcp-msgzc at 4K moved nothing: its ratio means nothing
        if (p.path.name() == "tcp-msgzc" && p.size == 4096) p.rounds[1] = figures(0.0, 2.0, 1.5);
    zc::analyse_survey(r);
    const auto& at4k = r.ratios.tests[0].figures[0];
    EXPECT_EQ(at4k.figure, zc::kSurveyRate);
    EXPECT_FALSE(at4k.ratio);
    std::ostringstream human;
    zc::write_survey_human(human, r);
    EXPECT_EQ(human.str().find("x-"), std::string::npos) << human.str();
    EXPECT_EQ(human.str().find("x+"), std::string::npos) << human.str();
}

TEST(Survey, NoSizeLowerIsNeverInTheLadder) {
    auto r = synthetic();
    for (auto& p : r.points)
        if (p.path.name() == "tcp-msgzc")
            for (auto& f : p.rounds)
                f["local_service_demand_us_per_kb"] = f["local_service_demand_us_per_kb"].get<double>() * 3;
    zc::analyse_survey(r);
    ASSERT_EQ(r.crossovers.size(), 1u);
    EXPECT_FALSE(r.crossovers[0].found);
    EXPECT_EQ(r.crossovers[0].text.rfind("never in 4K..256K", 0), 0u) << r.crossovers[0].text;
}

// The page keeps each point's heaviest stacks per side (bounded: a survey has many points), counts the
// samples of the rest, names every kept frame's category, and is a survey page.
TEST(Survey, ThePageKeepsEachPointsHeaviestStacks) {
    auto r = synthetic();
    zc::analyse_survey(r);
    auto& pt = r.points[5];  // tcp-msgzc 16K
    for (uint64_t i = 0; i < zc::kSurveyPageStacks + 10; ++i) pt.stacks[0]["main;f" + std::to_string(i)] = i + 1;
    pt.stacks[1]["recv;memcpy"] = 7;
    const std::string file = ::testing::TempDir() + "survey_page.html";
    zc::write_survey_html(file, r);
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    const std::string page = text.str();
    EXPECT_NE(page.find("<title>zcperf survey</title>"), std::string::npos);
    std::smatch m;
    ASSERT_TRUE(
        std::regex_search(page, m, std::regex(R"(<script id="zc-data" type="application/json">([^<]*)</script>)")));
    const auto data = nlohmann::json::parse(m[1].str());
    EXPECT_EQ(data["kind"], "survey");
    EXPECT_EQ(data["survey"]["crossovers"]["tcp-msgzc"]["from"], 16384);
    const auto& points = data["survey"]["points"];
    const auto it = std::find_if(points.begin(), points.end(), [](const nlohmann::json& p) {
        return p["path"] == "tcp-msgzc" && p["message_size"] == 16384;
    });
    ASSERT_NE(it, points.end());
    const auto& local = (*it)["explain"]["local"];
    ASSERT_EQ(local["stacks"].size(), zc::kSurveyPageStacks);
    EXPECT_EQ(local["stacks"][0][1], zc::kSurveyPageStacks + 10);  // the heaviest first
    EXPECT_EQ(local["stacks_left_out_samples"], 55u);              // the ten lightest: 1 + ... + 10
    EXPECT_EQ((*it)["explain"]["remote"]["stacks"][0][0], "recv;memcpy");
    EXPECT_TRUE(data["frame_categories"].contains("memcpy"));
    EXPECT_TRUE(data["frame_categories"].contains("f" + std::to_string(zc::kSurveyPageStacks + 9)));
    std::remove(file.c_str());
}

}  // namespace
