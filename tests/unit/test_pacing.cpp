// -b's section of a side's result (protocol/pacing_report.hpp): its codec written and read back, a bad field
// refused by its name, the human words and the run's note; where -b may run (kind/spec_rules.cpp).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "kind/spec_rules.hpp"
#include "protocol/json_fields.hpp"
#include "protocol/pacing_report.hpp"
#include "protocol/result.hpp"

namespace zc {
namespace {

using nlohmann::json;

PacingReport paced() { return {250000000, {PacingMethod::sender_clock, 1500000000}}; }

TEST(PacingSection, WrittenAndReadBack) {
    json j = to_json(paced());
    EXPECT_EQ(j, (json{{"bitrate", 250000000}, {"method", "sender clock"}, {"sleep_s", 1.5}}));
    PacingReport b = pacing_report_from_json(j);
    EXPECT_EQ(b.bitrate, 250000000u);
    EXPECT_EQ(b.counts.method, PacingMethod::sender_clock);
    EXPECT_EQ(b.counts.sleep_ns, 1500000000u);
    // In a side's result under its key, sent only by a side asked a rate.
    SideResult s;
    s.cpu.ncpus = 2;  // a side the wire takes
    json unpaced = to_json(s);
    EXPECT_FALSE(unpaced.contains(kPacingKey));
    EXPECT_FALSE(side_result_from_json(unpaced).pacing.asked());
    s.pacing = paced();
    json side = to_json(s);
    ASSERT_TRUE(side.contains(kPacingKey));
    EXPECT_EQ(side_result_from_json(side).pacing.counts.sleep_ns, 1500000000u);
}

TEST(PacingSection, ABadFieldIsRefusedByItsName) {
    for (auto [key, bad] : {std::pair<const char*, json>{"bitrate", 999},  // under -b's 1 kbit/s
                            {"bitrate", "fast"},
                            {"sleep_s", -1},
                            {"method", 3}}) {
        json j = to_json(paced());
        j[key] = bad;
        try {
            pacing_report_from_json(j);
            ADD_FAILURE() << key << " = " << bad.dump() << " was taken";
        } catch (const ProtocolError& e) {
            EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
        }
    }
    json missing = to_json(paced());
    missing.erase("bitrate");
    EXPECT_THROW(pacing_report_from_json(missing), ProtocolError);
    json newer = to_json(paced());
    newer["method"] = "newer kind";  // a newer peer's method: none here, not an error
    EXPECT_EQ(pacing_report_from_json(newer).counts.method, PacingMethod::none);
    SideResult s;
    s.cpu.ncpus = 2;
    json side = to_json(s);
    side[kPacingKey] = 3;  // through a whole side, as a peer's result arrives
    EXPECT_THROW(side_result_from_json(side), ProtocolError);
}

TEST(PacingSection, HumanWordsOnlyWhereTheLoopsPaced) {
    EXPECT_EQ(pacing_text(paced()), "paced at " + bitrate_text(250000000) + " by the sender clock, waited 1.500 s");
    EXPECT_EQ(pacing_text(PacingReport{250000000, {}}), "");  // a receiver (or rdma-read's sender): not its loops
    EXPECT_EQ(pacing_text(PacingReport{}), "");
}

TEST(PacingSection, NoteSaysWhenTheSenderFellBehind) {
    PacingReport p;
    EXPECT_EQ(pacing_note(p, 1e9, 1), "");
    p.bitrate = 1000000000;
    p.counts = {PacingMethod::sender_clock, 0};
    EXPECT_EQ(pacing_note(p, 1e9, 1).find("fell behind"), std::string::npos);
    std::string behind = pacing_note(p, 0.5e9, 2);
    EXPECT_NE(behind.find("per stream (2 streams)"), std::string::npos) << behind;
    EXPECT_NE(behind.find("(-50.00%)"), std::string::npos) << behind;
    EXPECT_NE(behind.find("fell behind"), std::string::npos) << behind;
}

// Where -b runs is one rule over the rows' paced_tests: every stream loop, and a message loop whose row says so.
TEST(PacingRules, StreamsEverywhereMessageTestsWhereTheRowPacesThem) {
    auto half = [](const char* transport, Workload test) {
        HalfSpec h;
        h.transport = transport_named(transport);
        h.test = test;
        h.message_size = 64;
        h.bitrate = 1000000;
        return h;
    };
    EXPECT_EQ(spec_problem(half("tcp", Workload::stream), Role::send), "");
    EXPECT_EQ(spec_problem(half("udp", Workload::msgrate), Role::send), "");
    std::string tcp_msgrate = spec_problem(half("tcp", Workload::msgrate), Role::send);
    EXPECT_NE(tcp_msgrate.find("tcp's msgrate runs as fast as its calls go (-b paces msgrate over -T udp)"),
              std::string::npos)
        << tcp_msgrate;
    for (const char* t : {"tcp", "udp"}) {
        std::string rr = spec_problem(half(t, Workload::rr), Role::send);
        EXPECT_NE(rr.find("-b paces a stream (stream, maerts); " + std::string(t) +
                          "'s rr runs as fast as its "
                          "transactions go"),
                  std::string::npos)
            << rr;
    }
}

}  // namespace
}  // namespace zc
