#pragma once
// zcperf compare: two sets of zcperf JSON reports, BASE and NEW, test by test (matched by
// transport, test, message size and receive mode): each figure's ratio NEW / BASE (or difference where a
// side has a zero, so a ratio means nothing) with a 95 % Welch interval over the repetitions, and a
// verdict. The samples are the repetitions: -i's rounds ("iterations"."rounds") or one per report.
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "measure/welch.hpp"

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

struct FigureComparison {
    std::string figure;  // result_figures' name, e.g. local_service_demand_us_per_kb
    bool ratio = true;   // false: a difference (a side has a zero)
    std::vector<double> base, next;
    Comparison c;
    std::string verdict;  // "higher", "lower", "not resolved", "no interval: ..."
};

struct TestComparison {
    std::string transport, test, rx;
    uint64_t message_size = 0;
    std::vector<FigureComparison> figures;
};

struct CompareResult {
    double level_pct = 95;
    std::vector<TestComparison> tests;
};

// Matches the tests and compares their figures; throws CompareError, listing each side's tests, when none match.
CompareResult compare_sides(const CompareSide& base, const CompareSide& next);

// What names a side: its hosts, kernels, zcperf versions and command lines, from the reports' own "run".
nlohmann::json describe_side(const CompareSide& side);

nlohmann::json to_json(const CompareResult& r, const CompareSide& base, const CompareSide& next);
void write_compare_human(std::ostream& out, const CompareResult& r, const CompareSide& base, const CompareSide& next);
void write_compare_csv(std::ostream& out, const CompareResult& r);

}  // namespace zc
