// Who may take a slot on zcserver. Random early drop (sshd's MaxStartups line) measured
// with a seeded generator, per-source counting, sessions apart from handshakes, RAII release.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "admission.hpp"

using zc::Admission;

namespace {

zc::SourceKey v4(uint8_t last) { return zc::source_key_v4({10, 0, 0, last}); }

zc::StartupLimits limits(int start, int rate, int full, int per_source) {
    zc::StartupLimits l;
    l.start = start;
    l.rate_percent = rate;
    l.full = full;
    l.per_source = per_source;
    return l;
}

}  // namespace

TEST(Admission, ParsesStartRateFullAndASingleNumber) {
    auto l = zc::parse_max_startups("10:30:100");
    EXPECT_EQ(l.start, 10);
    EXPECT_EQ(l.rate_percent, 30);
    EXPECT_EQ(l.full, 100);
    EXPECT_EQ(l.text(), "10:30:100");
    auto hard = zc::parse_max_startups("50");
    EXPECT_EQ(hard.start, 50);
    EXPECT_EQ(hard.full, 50);
    EXPECT_EQ(hard.text(), "50");
    for (const char* bad : {"", "10:30", "10:30:100:1", "a:b:c", "30:10:20", "0", "10:101:100", "-1", "10::100"}) {
        EXPECT_THROW(zc::parse_max_startups(bad), std::invalid_argument) << bad;
    }
    try {
        zc::parse_max_startups("10:30");
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("START:RATE:FULL"), std::string::npos) << e.what();
    }
}

TEST(Admission, DropProbabilityFollowsSshdsLine) {
    Admission a(limits(10, 30, 100, 1000), 64, 1);
    EXPECT_DOUBLE_EQ(a.drop_probability(0), 0.0);
    EXPECT_DOUBLE_EQ(a.drop_probability(9), 0.0);
    EXPECT_DOUBLE_EQ(a.drop_probability(10), 0.30);
    EXPECT_DOUBLE_EQ(a.drop_probability(55), 0.65);  // halfway: 30 % + 70 % / 2
    EXPECT_DOUBLE_EQ(a.drop_probability(99), 0.30 + 0.70 * 89 / 90);
    EXPECT_DOUBLE_EQ(a.drop_probability(100), 1.0);
    EXPECT_DOUBLE_EQ(a.drop_probability(500), 1.0);
}

// With START..FULL held steady, the share of new connections dropped matches the probability.
TEST(Admission, RandomEarlyDropRateIsMeasuredWithASeed) {
    for (int held : {10, 40, 70, 95}) {
        Admission a(limits(10, 30, 100, 1000), 64, 42);
        std::vector<Admission::Ticket> tickets;
        Admission::Verdict v;
        for (int i = 0; tickets.size() < static_cast<size_t>(held); ++i) {
            auto t = a.admit_startup(v4(static_cast<uint8_t>(i % 200)), v);
            if (t) tickets.push_back(std::move(t));
        }
        ASSERT_EQ(a.startups(), held);
        const int trials = 20000;
        int dropped = 0;
        for (int i = 0; i < trials; ++i) {
            auto t = a.admit_startup(v4(250), v);  // admitted ones are released at once: `held` stays
            if (!t) {
                EXPECT_EQ(v, Admission::Verdict::early_drop);
                ++dropped;
            }
        }
        EXPECT_NEAR(static_cast<double>(dropped) / trials, a.drop_probability(held), 0.015) << held << " held";
    }
}

TEST(Admission, SameSeedSameVerdicts) {
    auto verdicts = [](uint64_t seed) {
        Admission a(limits(2, 50, 20, 1000), 64, seed);
        std::vector<Admission::Ticket> keep;
        std::vector<bool> out;
        Admission::Verdict v;
        for (int i = 0; i < 200; ++i) {
            auto t = a.admit_startup(v4(static_cast<uint8_t>(i)), v);
            out.push_back(static_cast<bool>(t));
            if (t && i % 3) keep.push_back(std::move(t));
        }
        return out;
    };
    EXPECT_EQ(verdicts(7), verdicts(7));
    EXPECT_NE(verdicts(7), verdicts(8));
}

TEST(Admission, FullRefusesEveryNewConnection) {
    Admission a(limits(3, 0, 3, 1000), 64, 1);
    Admission::Verdict v;
    std::vector<Admission::Ticket> t;
    for (int i = 0; i < 3; ++i) t.push_back(a.admit_startup(v4(static_cast<uint8_t>(i)), v));
    for (auto& x : t) EXPECT_TRUE(x);
    EXPECT_FALSE(a.admit_startup(v4(9), v));
    EXPECT_EQ(v, Admission::Verdict::full);
    t.pop_back();  // one handshake ends: room again
    EXPECT_TRUE(a.admit_startup(v4(9), v));
}

TEST(Admission, PerSourceLimitCountsEachAddressAndForgetsIdleOnes) {
    Admission a(limits(100, 30, 200, 2), 64, 1);
    Admission::Verdict v;
    auto a1 = a.admit_startup(v4(1), v);
    auto a2 = a.admit_startup(v4(1), v);
    EXPECT_TRUE(a1 && a2);
    EXPECT_FALSE(a.admit_startup(v4(1), v));
    EXPECT_EQ(v, Admission::Verdict::per_source);
    auto b1 = a.admit_startup(v4(2), v);  // another address is not affected
    EXPECT_TRUE(b1);
    EXPECT_EQ(a.startups_from(v4(1)), 2);
    EXPECT_EQ(a.startups_from(v4(2)), 1);
    EXPECT_EQ(a.sources_tracked(), 2u);
    a1.release();
    EXPECT_EQ(a.startups_from(v4(1)), 1);
    EXPECT_TRUE(a.admit_startup(v4(1), v));  // admitted, then released at once by the temporary
    a2.release();
    b1 = Admission::Ticket();
    EXPECT_EQ(a.startups(), 0);
    EXPECT_EQ(a.sources_tracked(), 0u) << "an address with nothing in flight is forgotten";
}

TEST(Admission, IPv4MappedCountsAsIPv4AndIPv6ByItsSlash64) {
    std::array<uint8_t, 16> mapped{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1};
    EXPECT_EQ(zc::source_key_v6(mapped), v4(1));
    std::array<uint8_t, 16> h1{0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1};
    std::array<uint8_t, 16> h2 = h1;
    h2[15] = 0x99;  // another host in the same /64
    h2[9] = 0x42;
    std::array<uint8_t, 16> other = h1;
    other[7] = 3;  // another /64
    EXPECT_EQ(zc::source_key_v6(h1), zc::source_key_v6(h2));
    EXPECT_FALSE(zc::source_key_v6(h1) == zc::source_key_v6(other));
}

TEST(Admission, SessionsAreCountedApartFromHandshakes) {
    Admission a(limits(1, 100, 1, 1), 2, 1);
    Admission::Verdict v;
    auto s1 = a.admit_session();
    auto s2 = a.admit_session();
    EXPECT_TRUE(s1 && s2);
    EXPECT_FALSE(a.admit_session());
    EXPECT_TRUE(a.admit_startup(v4(1), v)) << "full sessions do not stop a handshake";
    // A handshake that ends becomes a session: moving the ticket gives the startup slot back.
    auto startup = a.admit_startup(v4(1), v);
    ASSERT_TRUE(startup);
    s1.release();
    startup = a.admit_session();
    EXPECT_TRUE(startup);
    EXPECT_EQ(a.startups(), 0);
    EXPECT_EQ(a.sessions(), 2);
}
