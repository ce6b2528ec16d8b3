// Repetitions at the level that varies, paths paired by round, Benjamini-Hochberg: worked examples.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "measure/repetitions.hpp"

namespace {

constexpr double kT2 = 4.302652729749464;  // Student's t, df 2, 97.5 %

// Worked by hand (Python's math): log(2/1), log(3/1.6), log(4/1.9); mean 0.688732, se 0.0335106, df 2; the
// df-2 t's two-sided p has a closed form, 1 - t / sqrt(2 + t^2).
TEST(PairedRatio, IsTheTIntervalOnTheLogsOfEachRoundsRatio) {
    auto c = zc::paired_ratio({2.0, 3.0, 4.0}, {1.0, 1.6, 1.9});
    ASSERT_TRUE(c.has_interval);
    EXPECT_NEAR(c.df, 2, 1e-12);
    EXPECT_NEAR(c.estimate, 1.9911893130698315, 1e-12);
    EXPECT_NEAR(c.lo, std::exp(0.6887321049766051 - kT2 * 0.03351055575619126), 1e-9);
    EXPECT_NEAR(c.lo, 1.7238287265831405, 1e-6);
    EXPECT_NEAR(c.hi, 2.300016712415706, 1e-6);
    EXPECT_NEAR(c.p, 0.0023589772395532504, 1e-9);
    EXPECT_TRUE(c.changed);
    // Unpaired, the same numbers overlap far more: the pairing takes out what each round shared.
    auto unpaired = zc::compare_ratio({1.0, 1.6, 1.9}, {2.0, 3.0, 4.0});
    EXPECT_GT(unpaired.hi / unpaired.lo, c.hi / c.lo);
}

TEST(PairedRatio, OneRoundHasNoIntervalAndZerosAreRefused) {
    auto c = zc::paired_ratio({2.0}, {1.0});
    EXPECT_FALSE(c.has_interval);
    EXPECT_NEAR(c.estimate, 2.0, 1e-12);
    EXPECT_FALSE(c.changed);
    EXPECT_THROW(zc::paired_ratio({2.0, 0.0}, {1.0, 1.0}), std::invalid_argument);
    EXPECT_THROW(zc::paired_ratio({2.0, 1.0}, {1.0}), std::invalid_argument);  // rounds must pair
}

// Three invocations of two rounds: each invocation's mean log ratio is one sample (worked in Python: means
// 0.6599, 0.6633, 0.6569..., their mean 0.660013, se 0.00868814, df 2).
TEST(PairedRatio, SeveralInvocationsTakeTheIntervalOverTheirMeans) {
    zc::Invocations a{{2.0, 2.2}, {3.0, 3.1}, {2.5, 2.4}}, b{{1.0, 1.2}, {1.6, 1.5}, {1.3, 1.25}};
    auto l = zc::compare_paired(a, b, zc::Scale::ratio);
    EXPECT_EQ(l.level, zc::RepetitionLevel::invocations);
    EXPECT_TRUE(l.run_to_run_known);
    EXPECT_NEAR(l.c.df, 2, 1e-12);
    EXPECT_NEAR(l.c.estimate, 1.9348182286692075, 1e-12);
    EXPECT_NEAR(l.c.lo, 1.8638259090065599, 1e-6);
    EXPECT_NEAR(l.c.hi, 2.008514614965294, 1e-6);
    // One invocation: over its rounds, and the run-to-run noise is not in the interval.
    auto one = zc::compare_paired({a[0]}, {b[0]}, zc::Scale::ratio);
    EXPECT_EQ(one.level, zc::RepetitionLevel::rounds);
    EXPECT_FALSE(one.run_to_run_known);
    EXPECT_NEAR(one.c.df, 1, 1e-12);
    // A difference pairs the values themselves (zeros allowed).
    auto d = zc::compare_paired({{0.0, 0.0, 0.0}}, {{0.1, 0.2, 0.3}}, zc::Scale::difference);
    EXPECT_NEAR(d.c.estimate, -0.2, 1e-12);
    EXPECT_NEAR(d.c.hi, -0.2 + kT2 * 0.1 / std::sqrt(3.0), 1e-9);
}

// The point of the two levels: rounds that agree closely inside each invocation while the invocations
// move (run-to-run noise) make a pooled Welch call a change the invocations' own spread does not support.
TEST(Levels, InvocationMeansCarryTheRunToRunNoiseThatPooledRoundsHide) {
    zc::Invocations base{{1.00, 1.001, 0.999}, {1.10, 1.101, 1.099}, {0.95, 0.951, 0.949}};
    zc::Invocations next{{1.07, 1.071, 1.069}, {1.00, 1.001, 0.999}, {1.12, 1.121, 1.119}};
    std::vector<double> pa, pb;
    for (const auto& i : base) pa.insert(pa.end(), i.begin(), i.end());
    for (const auto& i : next) pb.insert(pb.end(), i.begin(), i.end());
    auto levels = zc::compare_levels(base, next, zc::Scale::ratio);
    EXPECT_EQ(levels.level, zc::RepetitionLevel::invocations);
    EXPECT_TRUE(levels.run_to_run_known);
    EXPECT_FALSE(levels.c.changed);
    EXPECT_LT(levels.c.lo, 1);
    EXPECT_GT(levels.c.hi, 1);
    // Equal to Welch over each invocation's geometric mean.
    auto gm = [](const std::vector<double>& v) {
        double s = 0;
        for (double x : v) s += std::log(x);
        return std::exp(s / static_cast<double>(v.size()));
    };
    auto by_hand = zc::compare_ratio({gm(base[0]), gm(base[1]), gm(base[2])}, {gm(next[0]), gm(next[1]), gm(next[2])});
    EXPECT_NEAR(levels.c.estimate, by_hand.estimate, 1e-12);
    EXPECT_NEAR(levels.c.lo, by_hand.lo, 1e-12);
    EXPECT_NEAR(levels.c.df, by_hand.df, 1e-12);
    EXPECT_NEAR(levels.c.p, by_hand.p, 1e-12);
    // The geometric means' ratio is the same estimate either way; only the interval differs.
    EXPECT_NEAR(zc::compare_ratio(pa, pb).estimate, levels.c.estimate, 1e-12);
}

TEST(Levels, OneInvocationOnASideLeavesTheRunToRunNoiseUnknown) {
    auto l = zc::compare_levels({{5.0, 5.1, 4.9}}, {{6.0, 6.1}, {5.9, 6.0}}, zc::Scale::ratio);
    EXPECT_FALSE(l.run_to_run_known);
    EXPECT_EQ(l.level, zc::RepetitionLevel::rounds);
    EXPECT_TRUE(l.c.has_interval);  // over the pooled rounds, as before; the verdict must say what it lacks
    EXPECT_EQ(std::string(zc::repetition_level_name(l.level)), "rounds");
    EXPECT_THROW(zc::compare_levels({{5.0, 0.0}}, {{6.0, 6.1}}, zc::Scale::ratio), std::invalid_argument);
    auto d = zc::compare_levels({{0.0, 0.0}, {0.0, 0.0}}, {{0.5, 0.6}, {0.55, 0.5}}, zc::Scale::difference);
    EXPECT_TRUE(d.run_to_run_known);
    EXPECT_NEAR(d.c.estimate, 0.5375, 1e-12);
}

// The p-value under Welch is the one the interval inverts: df 2's closed form.
TEST(Levels, WelchPValueAgreesWithTheClosedFormAtTwoDegrees) {
    double t = 3.0;
    EXPECT_NEAR(zc::t_two_sided_p(t, 2), 1 - t / std::sqrt(2 + t * t), 1e-12);
    EXPECT_NEAR(zc::t_two_sided_p(-t, 2), 1 - t / std::sqrt(2 + t * t), 1e-12);
    EXPECT_NEAR(zc::t_two_sided_p(1.0, 1), 1 - 2 / M_PI * std::atan(1.0), 1e-12);  // df 1: Cauchy
    // At the interval's edge the p-value is 1 - the level.
    EXPECT_NEAR(zc::t_two_sided_p(zc::t_quantile(3.7, 95), 3.7), 0.05, 1e-9);
}

// Benjamini and Hochberg's own example (JRSS B 1995, section 4.1): 15 p-values from a clinical trial; at
// q = 0.05 the procedure rejects the four smallest (Bonferroni's 0.05/15 only three).
TEST(BenjaminiHochberg, RejectsThePapersFourOfFifteen) {
    std::vector<double> p{0.0201, 0.0001, 0.6528, 0.0004, 0.0019, 0.0095, 0.0278, 0.0298,
                          0.0344, 0.0459, 0.3240, 0.4262, 0.5719, 0.7590, 1.0000};  // shuffled: order must not matter
    auto found = zc::bh_discoveries(p, 0.05);
    std::vector<bool> expect{false, true,  false, true,  true,  true,  false, false,
                             false, false, false, false, false, false, false};
    EXPECT_EQ(found, expect);
    int bonferroni = 0;
    for (double x : p) bonferroni += x <= 0.05 / 15;
    EXPECT_EQ(bonferroni, 3);
    // Adjusted by hand: p(k) 15 / k, then the minimum from the largest down.
    auto q = zc::bh_adjusted(p);
    EXPECT_NEAR(q[1], 0.0001 * 15, 1e-12);
    EXPECT_NEAR(q[3], 0.0004 * 15 / 2, 1e-12);
    EXPECT_NEAR(q[4], 0.0019 * 15 / 3, 1e-12);
    EXPECT_NEAR(q[5], 0.0095 * 15 / 4, 1e-12);
    EXPECT_NEAR(q[0], 0.0201 * 15 / 5, 1e-12);  // 0.0603 < the later 0.0639 (0.0298 * 15 / 7)
    EXPECT_NEAR(q[6], 0.0298 * 15 / 7, 1e-12);  // 0.0278's own 0.0695 is lowered to 0.0298's
    EXPECT_NEAR(q[14], 1.0, 1e-12);
    // At q = 0.1 more pass: p(9) = 0.0459 <= 9 * 0.1 / 15 = 0.06, so the nine smallest.
    auto at10 = zc::bh_discoveries(p, 0.1);
    EXPECT_EQ(std::count(at10.begin(), at10.end(), true), 9);
    EXPECT_THROW(zc::bh_discoveries(p, 0), std::invalid_argument);
    EXPECT_TRUE(zc::bh_discoveries({}, 0.05).empty());
}

}  // namespace
