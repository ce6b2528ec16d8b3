// zcperf survey end to end on loopback: real zcperf processes against their embedded server. No timing
// asserts: the figures move with the host's load; the fields, their shapes and the refusals do not.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>

#include "process.hpp"
#include "report.hpp"

using namespace zc::e2e;
using namespace std::chrono_literals;

namespace {

nlohmann::json survey_json(const Outcome& o) {
    nlohmann::json j = report_json(o);
    return j.is_object() && j.contains("survey") ? j["survey"] : nlohmann::json();
}

// zcperf survey --paths PATHS --sizes SIZES --rounds ROUNDS -l 0.2 -o json: its "survey" object, null (with a
// failure) when it did not end well; `run` gets the outcome (stderr's progress).
nlohmann::json survey(const std::string& paths, const std::string& sizes, const std::string& rounds,
                      Outcome* run = nullptr) {
    auto o =
        run_zcperf({"survey", "--paths", paths, "--sizes", sizes, "--rounds", rounds, "-l", "0.2", "-o", "json"}, 110s);
    EXPECT_EQ(o.exit_code, 0) << context(o);
    nlohmann::json s = survey_json(o);
    EXPECT_TRUE(s.is_object()) << context(o);
    if (run) *run = o;
    return o.exit_code == 0 ? s : nlohmann::json();
}

}  // namespace

// 2 paths x 3 sizes x 3 rounds: every point measured, tcp-msgzc's each with a ratio, a 95 % interval and a
// verdict per figure against tcp, and its crossover (found or not).
TEST(Survey, TwoPathsThreeSizesThreeRoundsGiveRatiosIntervalsAndCrossovers) {
    Outcome o;
    auto s = survey("tcp-msgzc,tcp", "16K,64K,256K", "3", &o);
    ASSERT_TRUE(s.is_object());
    EXPECT_EQ(s["rounds"], 3);
    EXPECT_EQ(s["paths"], nlohmann::json::array({"tcp-msgzc", "tcp"}));
    ASSERT_EQ(s["points"].size(), 6u) << s["refused"].dump();
    int ratio_points = 0;
    for (const auto& p : s["points"]) {
        EXPECT_EQ(p["round_figures"].size(), 3u) << p.dump();
        EXPECT_GT(p["throughput_gbps"].get<double>(), 0);
        EXPECT_GT(p["sender_service_demand_us_per_kb"].get<double>(), 0);
        ASSERT_TRUE(p.contains("crossover")) << p.dump();
        if (p["path"] != "tcp-msgzc") {
            EXPECT_FALSE(p.contains("against"));
            continue;
        }
        ++ratio_points;
        EXPECT_EQ(p["against"], "tcp");
        for (const char* k : {"throughput_ratio", "sender_service_demand_ratio", "receiver_service_demand_ratio"}) {
            ASSERT_TRUE(p[k].is_object()) << k << " " << p.dump();
            const auto& f = p[k];
            EXPECT_GT(f["ratio"].get<double>(), 0) << k;
            ASSERT_EQ(f["interval"].size(), 2u) << k;
            EXPECT_LE(f["interval"][0].get<double>(), f["ratio"].get<double>()) << k;
            EXPECT_GE(f["interval"][1].get<double>(), f["ratio"].get<double>()) << k;
            EXPECT_TRUE(f["q"].is_number()) << k;
            const std::string v = f["verdict"];
            EXPECT_TRUE(v == "higher" || v == "lower" || v == "not resolved") << k << ": " << v;
        }
        // the zero-copy truth: on loopback the kernel copies what MSG_ZEROCOPY hands it
        ASSERT_TRUE(p["zerocopy"].is_object()) << p.dump();
        EXPECT_GE(p["zerocopy"]["sender"]["copied_pct"].get<double>(), 0);
    }
    EXPECT_EQ(ratio_points, 3);
    ASSERT_EQ(s["crossovers"].size(), 1u);  // by path
    ASSERT_TRUE(s["crossovers"].contains("tcp-msgzc")) << s["crossovers"].dump();
    EXPECT_TRUE(s["crossovers"]["tcp-msgzc"]["found"].is_boolean());
    EXPECT_TRUE(s["crossovers"]["tcp-msgzc"]["text"].is_string());
    EXPECT_EQ(s["fdr_family"], 9);
    // progress on stderr, with the time left
    EXPECT_NE(o.err.find("round 3/3"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("left"), std::string::npos) << o.err;
}

// A path this host refuses at a size (UDP's datagram limit) is listed with the reason, in the JSON and the
// human report; the rest of the survey runs.
TEST(Survey, ARefusedPathIsListedWithItsReason) {
    auto s = survey("tcp,udp", "16K,128K", "2");
    ASSERT_TRUE(s.is_object());
    ASSERT_EQ(s["refused"].size(), 1u) << s["refused"].dump();
    EXPECT_EQ(s["refused"][0]["path"], "udp");
    EXPECT_EQ(s["refused"][0]["message_size"], 131072);
    EXPECT_NE(s["refused"][0]["reason"].get<std::string>().find("largest datagram"), std::string::npos)
        << s["refused"].dump();
    EXPECT_EQ(s["points"].size(), 3u);

    auto h = run_zcperf({"survey", "--paths", "udp", "--sizes", "128K", "--rounds", "2", "-l", "0.2"}, 60s);
    ASSERT_EQ(h.exit_code, 0) << context(h);
    EXPECT_NE(h.out.find("Refused (not measured):"), std::string::npos) << h.out;
    EXPECT_NE(h.out.find("udp at every size: "), std::string::npos) << h.out;
}

// A point the server refuses (here rdma-write: no RDMA device, or rdma_cm's loopback) is dropped with the
// server's reason and the survey goes on over a fresh control connection; where it runs, it is measured.
TEST(Survey, AServerRefusalDropsThePointAndTheSurveyGoesOn) {
    auto s = survey("rdma-write,tcp", "64K", "3");
    ASSERT_TRUE(s.is_object());
    bool tcp = false, rdma = false;
    for (const auto& p : s["points"]) {
        tcp = tcp || (p["path"] == "tcp" && p["round_figures"].size() == 3);
        rdma = rdma || p["path"] == "rdma-write";
    }
    EXPECT_TRUE(tcp) << s.dump();
    for (const auto& r : s["refused"]) {
        EXPECT_EQ(r["path"], "rdma-write");
        EXPECT_FALSE(r["reason"].get<std::string>().empty());
        rdma = true;
    }
    EXPECT_TRUE(rdma) << "rdma-write neither measured nor refused: " << s.dump();
}

TEST(Survey, BadInputSaysWhatToGive) {
    auto o = run_zcperf({"survey", "--paths", "tcp,nope"}, 20s);
    EXPECT_EQ(o.exit_code, 2) << context(o);
    EXPECT_NE(o.err.find("nope"), std::string::npos) << o.err;
    auto t = run_zcperf({"survey", "-T", "tcp-msgzc"}, 20s);
    EXPECT_EQ(t.exit_code, 2) << context(t);
    EXPECT_NE(t.err.find("--paths"), std::string::npos) << t.err;
    // a page that cannot be written is refused before any point runs (the survey takes minutes)
    auto h = run_zcperf({"survey", "--paths", "tcp", "--html", "/nonexistent-dir/s.html"}, 20s);
    EXPECT_EQ(h.exit_code, 2) << context(h);
    EXPECT_NE(h.err.find("cannot write --html /nonexistent-dir/s.html"), std::string::npos) << h.err;
    EXPECT_EQ(h.err.find("round"), std::string::npos) << "the survey ran: " << h.err;
}

// --invocations: one command gives several invocations, the JSON labelling each round with its own, and
// compare takes its interval over them; --paths pairs the two paths of that one report by round.
TEST(Invocations, OneCommandGivesSeveralAndCompareUsesThem) {
    auto o = run_zcperf(
        {"-T", "tcp,tcp-msgzc", "-m", "64K", "-l", "0.2", "-i", "2,2", "--invocations", "2", "-o", "json"}, 90s);
    ASSERT_EQ(o.exit_code, 0) << context(o);
    auto j = ok_report(o);
    ASSERT_EQ(j["results"].size(), 2u);
    for (const auto& r : j["results"]) {
        EXPECT_EQ(r["iterations"]["rounds"].size(), 4u);
        EXPECT_EQ(r["iterations"]["round_invocations"], nlohmann::json::array({1, 1, 2, 2}));
    }
    const std::string file = ::testing::TempDir() + "/invocations.json";
    { std::ofstream(file) << o.out; }
    auto c = run_zcperf({"compare", "--paths", "tcp-msgzc:tcp", file, "-o", "json"}, 30s);
    ASSERT_EQ(c.exit_code, 0) << context(c);
    auto cj = report_json(c);
    ASSERT_EQ(cj["tests"].size(), 1u) << c.out;
    EXPECT_EQ(cj["tests"][0]["against"], "tcp");
    EXPECT_EQ(cj["paths"], "tcp-msgzc:tcp");
    const auto& f = cj["tests"][0]["figures"][0];
    EXPECT_EQ(f["figure"], "throughput_gbps");
    EXPECT_EQ(f["level"], "invocations");
    EXPECT_EQ(f["new_invocations"], 2);
    EXPECT_EQ(f["interval"].size(), 2u);
    // Against itself, two invocations a side: a verdict at the invocation level, never "noise unknown".
    auto self = run_zcperf({"compare", file, file, "-o", "json"}, 30s);
    ASSERT_EQ(self.exit_code, 0) << context(self);
    EXPECT_EQ(report_json(self)["tests"][0]["figures"][0]["level"], "invocations");
    auto bad = run_zcperf({"--invocations", "2", "--bidir"}, 20s);
    EXPECT_EQ(bad.exit_code, 2) << context(bad);
    EXPECT_NE(bad.err.find("--invocations"), std::string::npos) << bad.err;
}
