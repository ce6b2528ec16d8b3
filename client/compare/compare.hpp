#pragma once
// zcperf compare: two sets of zcperf JSON reports, BASE and NEW, test by test (matched by transport,
// test, message size and receive mode), or two paths of one set paired by round (--paths A:B): each
// figure's ratio (or difference where a side has a zero, so a ratio means nothing) with a 95 % interval
// at the level of repetition that varies (measure/repetitions.hpp), and a verdict held to a false
// discovery rate over all the figures (Benjamini-Hochberg). Each report file is an invocation; -i's
// rounds ("iterations"."rounds") are its rounds, and --invocations' runs say which invocation each round was.
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "measure/repetitions.hpp"

namespace zc {

// Bad input, in the user's words (what is wrong and what to do next).
struct CompareError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// One side: its reports as read ("A1.json,A2.json" gives two).
struct CompareSide {
    std::string name;  // "base" or "new"
    std::vector<std::string> files;
    std::vector<nlohmann::json> reports;
};

// Reads "A.json[,B.json...]"; throws CompareError for a missing file, non-JSON or a non-zcperf JSON.
CompareSide load_side(const std::string& name, const std::string& comma_separated_files);

// A figure's verdict when it is called changed (beyond noise, within the false discovery rate).
inline constexpr const char* kVerdictHigher = "higher";
inline constexpr const char* kVerdictLower = "lower";

struct FigureComparison {
    std::string figure;              // result_figures' name, e.g. local_service_demand_us_per_kb
    bool ratio = true;               // false: a difference (a side has a zero)
    std::vector<double> base, next;  // every round, pooled (--paths: base is B, next is A)
    size_t base_invocations = 0, next_invocations = 0;
    Comparison c;
    RepetitionLevel level = RepetitionLevel::rounds;  // what the interval was taken over
    bool run_to_run_known = false;
    bool in_family = false;  // tested under the false discovery rate (it has an interval at a known level)
    double q = 1;            // its Benjamini-Hochberg adjusted p-value (1 outside the family)
    // "higher", "lower", "not resolved", "no interval: ...", "run-to-run noise unknown: ..."
    std::string verdict;
    bool called_changed() const { return verdict == kVerdictHigher || verdict == kVerdictLower; }
};

struct TestComparison {
    std::string transport, test, rx;
    uint64_t message_size = 0;
    std::string against;  // --paths: B's path ("tcp", "tcp/zerocopy"); empty for two sides
    std::vector<FigureComparison> figures;
};

struct CompareResult {
    double level_pct = 95;
    double fdr = kDefaultFdr;  // the false discovery rate the verdicts hold
    size_t family = 0;         // figures tested under it
    size_t changed = 0;        // of those, called higher or lower
    std::string paths;         // --paths "A:B", empty for two sides
    std::vector<TestComparison> tests;
};

// Matches the tests and compares their figures; throws CompareError, listing each side's tests, when none match.
CompareResult compare_sides(const CompareSide& base, const CompareSide& next, double fdr = kDefaultFdr);

// --paths A:B: each test of path A against the same test of path B in the same runs, paired by round
// (invocation i's round r of A with its round r of B). A path is a transport, or TRANSPORT/RX for a
// receive mode ("tcp/zerocopy"); without /RX, both paths take the same. Throws CompareError for a
// malformed A:B, or listing the runs' tests when no pair is found.
CompareResult compare_paths(const CompareSide& runs, const std::string& a_colon_b, double fdr = kDefaultFdr);

// One figure of path A against path B paired by round (a[i][r] beside b[i][r]); its verdict comes from judge().
FigureComparison paired_figure(const std::string& name, const Invocations& a, const Invocations& b,
                               double level_pct = 95);

// Sets each figure's q and verdict: Benjamini-Hochberg over the figures with an interval at a known level.
void judge(CompareResult& r);
// One figure's verdict once its q is known.
std::string verdict_of(const FigureComparison& f, double fdr, bool paired);

// What names a side: its hosts, kernels, zcperf versions and command lines, from the reports' own "run".
nlohmann::json describe_side(const CompareSide& side);

// What the intervals and verdicts are, in words (the JSON's "method", the human report's head).
std::string method_text(const CompareResult& r);

nlohmann::json to_json(const CompareResult& r, const CompareSide& base, const CompareSide& next);
void write_compare_human(std::ostream& out, const CompareResult& r, const CompareSide& base, const CompareSide& next);
void write_compare_csv(std::ostream& out, const CompareResult& r);

}  // namespace zc
