// Student-t confidence intervals and netperf's -i/-I stopping rule.
#include <gtest/gtest.h>

#include <cmath>

#include "measure/confidence.hpp"

using namespace zc;

TEST(Confidence, FiveSamplesAt95) {
    // {10,12,11,13,9}: mean 11; squared deviations 1+1+0+4+4 = 10; sd = sqrt(10/4) = 1.5811388;
    // t(0.975, 4 dof) = 2.7764451; half width = 2.7764451 x 1.5811388 / sqrt(5) = 1.9632432;
    // full width = 2 x 1.9632432 / 11 = 35.695 % of the mean.
    Interval iv = confidence_interval({10, 12, 11, 13, 9}, 95);
    EXPECT_DOUBLE_EQ(iv.mean, 11.0);
    EXPECT_NEAR(iv.half_width, 1.963243, 1e-6);
    EXPECT_NEAR(iv.width_pct, 35.69533, 1e-4);
}

TEST(Confidence, FiveSamplesAt99) {
    // t(0.995, 4) = 4.6040949; half width = 4.6040949 x 0.70710678 = 3.2555863
    Interval iv = confidence_interval({10, 12, 11, 13, 9}, 99);
    EXPECT_NEAR(iv.half_width, 3.255586, 1e-6);
    EXPECT_NEAR(iv.width_pct, 200 * 3.255586 / 11, 1e-4);
}

TEST(Confidence, TwoSamplesAt90) {
    // {4, 6}: mean 5, sd = sqrt(2) = 1.4142136; t(0.95, 1) = 6.3137515;
    // half width = 6.3137515 x 1.4142136 / 1.4142136 = 6.3137515
    Interval iv = confidence_interval({4, 6}, 90);
    EXPECT_DOUBLE_EQ(iv.mean, 5.0);
    EXPECT_NEAR(iv.half_width, 6.313752, 1e-6);
    EXPECT_NEAR(iv.width_pct, 252.5501, 1e-3);
}

TEST(Confidence, LargeSampleApproachesNormal) {
    // 1000 samples alternating 9 and 11: sd = sqrt(1000/999) = 1.0005004; t(0.975, 999) = 1.9623415
    // (the normal's 1.95996 plus a little); half width = 1.9623415 x 1.0005004 / sqrt(1000) = 0.0620857
    std::vector<double> s;
    for (int i = 0; i < 1000; ++i) s.push_back(i % 2 ? 11 : 9);
    Interval iv = confidence_interval(s, 95);
    EXPECT_DOUBLE_EQ(iv.mean, 10.0);
    EXPECT_NEAR(iv.half_width, 0.0620857, 1e-6);
}

TEST(Confidence, DegenerateSamples) {
    Interval none = confidence_interval({}, 95);
    EXPECT_EQ(none.mean, 0.0);
    EXPECT_EQ(none.half_width, 0.0);
    Interval one = confidence_interval({42}, 95);
    EXPECT_DOUBLE_EQ(one.mean, 42.0);
    EXPECT_EQ(one.half_width, 0.0);
    EXPECT_EQ(one.width_pct, 0.0);
    Interval same = confidence_interval({7, 7, 7, 7}, 99);
    EXPECT_DOUBLE_EQ(same.mean, 7.0);
    EXPECT_EQ(same.half_width, 0.0);
    EXPECT_EQ(same.width_pct, 0.0);
    // A zero mean has no relative width (no division by zero).
    Interval zero = confidence_interval({-1, 1}, 95);
    EXPECT_EQ(zero.mean, 0.0);
    EXPECT_GT(zero.half_width, 0.0);
    EXPECT_EQ(zero.width_pct, 0.0);
    // A negative mean gives a positive width.
    Interval neg = confidence_interval({-10, -12, -11, -13, -9}, 95);
    EXPECT_DOUBLE_EQ(neg.mean, -11.0);
    EXPECT_NEAR(neg.width_pct, 35.69533, 1e-4);
}

TEST(Confidence, HigherLevelIsWider) {
    std::vector<double> s{100, 103, 98, 101, 99, 102};
    EXPECT_LT(confidence_interval(s, 90).half_width, confidence_interval(s, 95).half_width);
    EXPECT_LT(confidence_interval(s, 95).half_width, confidence_interval(s, 99).half_width);
    EXPECT_LT(confidence_interval(s, 99).half_width, confidence_interval(s, 99.9).half_width);
}

// ---------------------------------------------------------------- enough_iterations

TEST(EnoughIterations, BelowTheMinimumNeverEnough) {
    ConfidenceGoal g{10, 3, 95, 50};
    EXPECT_FALSE(enough_iterations(g, {{}}));
    EXPECT_FALSE(enough_iterations(g, {{100}}));
    EXPECT_FALSE(enough_iterations(g, {{100, 100}}));  // identical, but only 2 of the 3 wanted
    EXPECT_TRUE(enough_iterations(g, {{100, 100, 100}}));
}

TEST(EnoughIterations, WidthGoalBorderline) {
    ConfidenceGoal g{10, 3, 95, 5};
    // {100, 101, 99}: sd 1, t(0.975, 2) = 4.3026527; half width = 4.3026527 / sqrt(3) = 2.4841377;
    // full width = 4.968 % <= 5 %: met.
    EXPECT_TRUE(enough_iterations(g, {{100, 101, 99}}));
    // {100, 102, 98}: sd 2 -> full width 9.937 % > 5 %: run again.
    EXPECT_FALSE(enough_iterations(g, {{100, 102, 98}}));
    // The same 4.968 % against a 4.9 % goal is not met.
    EXPECT_FALSE(enough_iterations(ConfidenceGoal{10, 3, 95, 4.9}, {{100, 101, 99}}));
    // ... nor at 99 % (t(0.995, 2) = 9.9248 -> 11.46 %).
    EXPECT_FALSE(enough_iterations(ConfidenceGoal{10, 3, 99, 5}, {{100, 101, 99}}));
}

TEST(EnoughIterations, MaximumEndsEvenWhenNotMet) {
    ConfidenceGoal g{4, 3, 99, 1};
    EXPECT_FALSE(enough_iterations(g, {{1, 50, 100}}));
    EXPECT_TRUE(enough_iterations(g, {{1, 50, 100, 7}}));
    EXPECT_TRUE(enough_iterations(g, {{1, 50, 100, 7, 3}}));
    // One iteration wanted (no -i): the first run is enough.
    EXPECT_TRUE(enough_iterations(ConfidenceGoal{}, {{123}}));
}

TEST(EnoughIterations, EveryTrackedQuantityMustBeNarrow) {
    ConfidenceGoal g{10, 3, 95, 5};
    std::vector<double> narrow{100, 101, 99}, wide{1.0, 1.5, 0.5};
    EXPECT_TRUE(enough_iterations(g, {narrow, narrow, narrow}));
    EXPECT_FALSE(enough_iterations(g, {narrow, wide, narrow}));
    EXPECT_FALSE(enough_iterations(g, {narrow, narrow, wide}));
    // A quantity that is always 0 (no CPU figure) does not block.
    EXPECT_TRUE(enough_iterations(g, {narrow, {0, 0, 0}}));
}

// One sample says nothing about spread: a goal is never "met" by it, whatever -i MIN allows.
TEST(Confidence, OneSampleNeverMeetsTheInterval) {
    zc::ConfidenceGoal goal{10, 1, 95, 5};
    EXPECT_FALSE(zc::interval_met(goal, {{10.0}}));
    EXPECT_FALSE(zc::enough_iterations(goal, {{10.0}}));
    EXPECT_TRUE(zc::interval_met(goal, {{10.0, 10.0}}));
}
