#pragma once
// What zcperf, zcserver and zcperf-mpi said, as the tests read it: the JSON report in a run's output,
// a run of zcperf that must succeed, its warnings. Every run is bounded (process.hpp).
#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "process.hpp"

namespace zc::e2e {

// The JSON report in the run's standard output, from its first '{' to its last '}' (a launcher may add
// lines of its own around rank 0's); null when there is none or it does not parse.
nlohmann::json report_json(const Outcome& o);

// The report of a run that must have succeeded: expects (non-fatally, naming the output) exit status 0,
// a JSON report and no "errors" in it; returns the report (null when there is none).
nlohmann::json ok_report(const Outcome& o);

// The report's first result; an empty object when there is none.
nlohmann::json first_result(const nlohmann::json& report);

// zcperf ARGS -o json, killed if it runs past `limit`, through ok_report.
nlohmann::json zcperf_report(std::vector<std::string> args,
                             std::chrono::milliseconds limit = std::chrono::seconds(120));

// Whether a result's "warnings" hold one that contains `text`.
bool has_warning(const nlohmann::json& result, const std::string& text);

// The heaviest kernel functions --explain left unclassified ("other kernel"), from a side's explain object's
// folded stacks (-o json carries them; each attributed leaf first, as the sampler does; a leaf that takes
// its caller's category is named by that caller): up to `top` lines "  FUNCTION: N samples", heaviest
// first, for the message of a failed bound on the unclassified share.
std::string heaviest_unclassified_leaves(const nlohmann::json& explain, size_t top = 15);

// The 95 % sampling error, in points, of a share of `pct` % measured over `n` samples (binomial, normal
// approximation): a bound on a sampled share holds beyond it, so a handful of samples cannot fail it alone.
double share_error_pct(double pct, uint64_t n);

// Exit status, standard output and standard error, for the message of a failed expectation.
std::string context(const Outcome& o);

}  // namespace zc::e2e
