#pragma once
// Repetitions at the level that varies, paths paired by round, and a false discovery rate over many figures.
//
// A figure's samples come in invocations (separate processes or set-ups: one report file each, or
// zcperf's --invocations), each with rounds (-i). Rounds of one invocation share its state (host load,
// memory, placement), so their spread leaves out the run-to-run variance; Kalibera and Jones ("Rigorous
// Benchmarking in Reasonable Time", ISMM 2013) repeat at the level that varies and estimate there. Here:
// each invocation's mean (of the logs, for a ratio) is one sample, and Welch's interval is taken over
// those. A side with one invocation has no run-to-run variance to estimate: its interval is over the
// rounds, and the comparison says the run-to-run noise is unknown.
//
// Two paths run in the same rounds (a survey's, or -T A,B with -i) are paired: each round's ratio A / B,
// a one-sample t-interval on the logs of those ratios (at the invocation level when there are several).
//
// Benjamini and Hochberg ("Controlling the false discovery rate", JRSS B 57, 1995): over m figures tested
// at once, call changed those whose p-value is at most the largest p(k) with p(k) <= k q / m, so that of
// the figures called changed, a share of at most q is expected to be false calls.
#include <string>
#include <vector>

#include "measure/welch.hpp"

namespace zc {

// One figure on one side: its rounds, grouped by invocation.
using Invocations = std::vector<std::vector<double>>;

// Which level an interval was taken over.
enum class RepetitionLevel { rounds, invocations };
const char* repetition_level_name(RepetitionLevel l);  // "rounds", "invocations"

struct LevelComparison {
    Comparison c;
    RepetitionLevel level = RepetitionLevel::rounds;
    // Both sides (a paired one: the runs) have two invocations or more: the interval holds the run-to-run
    // variance. False: it holds the round-to-round variance only, and a verdict says so.
    bool run_to_run_known = false;
};

// Ratio (on the logs; every sample > 0, else std::invalid_argument) or difference.
enum class Scale { ratio, difference };

// NEW against BASE, unpaired (two sets of runs): Welch over invocation means where both sides have two
// invocations or more, else over the pooled rounds (run_to_run_known false).
LevelComparison compare_levels(const Invocations& base, const Invocations& next, Scale scale, double level_pct = 95);

// A against B paired by round: a[i][r] and b[i][r] ran in round r of invocation i (equal shapes, else
// std::invalid_argument). The ratio A / B (one-sample t on the logs of the paired ratios) or the
// difference A - B, over the invocations' mean where there are two or more, else over the rounds.
LevelComparison compare_paired(const Invocations& a, const Invocations& b, Scale scale, double level_pct = 95);
// One invocation's rounds paired: the t-interval on the logs of a[r] / b[r] (at least two rounds for an interval).
Comparison paired_ratio(const std::vector<double>& a, const std::vector<double>& b, double level_pct = 95);

// Benjamini-Hochberg: the adjusted p-values (q-values), in the input's order: p(i) m / rank, made
// monotone from the largest down, at most 1. A figure is a discovery at level q when its q-value <= q.
std::vector<double> bh_adjusted(const std::vector<double>& p);
// Which of the p-values are discoveries at false discovery rate q (0 < q < 1).
std::vector<bool> bh_discoveries(const std::vector<double>& p, double q = 0.05);

inline constexpr double kDefaultFdr = 0.05;

}  // namespace zc
