#pragma once
// zcperf survey: where zero-copy starts to pay on this host. Every path over a ladder of message sizes,
// in alternating rounds (each round visits every point once, in an order that changes), with --explain;
// each path against its family's copy path at the same size, paired by round (compare's paired figures,
// measure/repetitions.hpp), the verdicts held to a false discovery rate over the whole survey, and per
// path the crossover: the size from which its sender's service demand is lower.
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compare.hpp"
#include "core/stream_counters.hpp"
#include "core/transport_registry.hpp"

namespace zc {

// A path: a transport and the receiver's mode ("tcp", "tcp/zerocopy").
struct SurveyPath {
    Transport transport{};
    RxMode rx = RxMode::copy;
    std::string name() const;
    bool operator==(const SurveyPath& o) const { return transport == o.transport && rx == o.rx; }
};

// "tcp-msgzc", "tcp/zerocopy"; throws std::invalid_argument naming the transports or modes there are.
SurveyPath survey_path_from_name(const std::string& name);
// The copy path a path is measured against: its transport row's copy_path (its family's: the kinds' rows say).
SurveyPath copy_path_of(const SurveyPath& p);
// Which copy path each stream path is set against, in words from the rows: "rsocket for rsocket-iomap, udp for
// udp-gso, udp-msgzc, tcp for the others".
std::string copy_paths_text();
// Every stream path of the transport table (built or not: one not built is listed refused, with what it
// needs), and the copy paths' other receive modes.
std::vector<SurveyPath> default_survey_paths();
// 4K, 8K, ... 4M.
std::vector<uint64_t> default_survey_sizes();

// One path at one size, over the rounds.
struct SurveyPoint {
    SurveyPath path;
    uint64_t size = 0;
    std::vector<nlohmann::json> rounds;  // each round's result_figures, in round order
    ZeroCopyCounts zerocopy;             // over the rounds: the sender's zero-copy and the receiver's mapped bytes
    std::string refused;                 // why it was not measured ("" when it was)
    // --html: each side's sampled stacks summed over the rounds ([0] the sender, this host; [1] the receiver)
    std::array<std::map<std::string, uint64_t>, 2> stacks{};
};

// Where a path's sender service demand is lower than its copy path's, beyond noise.
struct Crossover {
    std::string path, against;
    bool found = false;
    uint64_t from = 0;   // the smallest size from which it is lower
    uint64_t until = 0;  // the last size of that run of sizes; 0 with found false
    uint64_t stops = 0;  // the next surveyed size, where it is no longer lower (0: it holds to the largest)
    std::string text;    // in words ("lower from 64K through 4M", "never in 4K..4M")
};

struct SurveyResult {
    std::vector<SurveyPath> paths;
    std::vector<uint64_t> sizes;
    int rounds = 0;
    double seconds = 0;               // the survey's wall time
    nlohmann::json run;               // hosts, kernels, software, command line
    std::vector<SurveyPoint> points;  // path by path, each size ascending
    // Each measured point against its copy path: one TestComparison per point (transport: the path's name,
    // against: the copy path's), figures throughput and both sides' service demand, judged together.
    CompareResult ratios;
    std::vector<Crossover> crossovers;  // one per path that has a copy path measured beside it
};

// The figures a point is judged on: the rate and each side's service demand (the client sends).
inline constexpr const char* kSurveyRate = "throughput_gbps";
inline constexpr const char* kSurveySenderSd = "local_service_demand_us_per_kb";
inline constexpr const char* kSurveyReceiverSd = "remote_service_demand_us_per_kb";

// Fills ratios and crossovers from the points (the measurement is run_survey's, survey_cli.cpp).
void analyse_survey(SurveyResult& r, double fdr = kDefaultFdr);

// The order a round visits the points in: the sizes shuffled, and at each size the paths shuffled, so the
// paths compared at a size run seconds apart (their pairing takes out what drifts between sizes and rounds)
// and no path always runs first. Deterministic in `round` (a re-run visits in the same orders).
std::vector<std::pair<size_t, size_t>> round_order(size_t paths, size_t sizes, int round);

// A point's comparison with its copy path (nullptr: it is a copy path, or its copy path was not measured).
const TestComparison* point_ratios(const SurveyResult& r, const SurveyPoint& p);
// A figure's mean over the point's rounds.
double survey_mean(const SurveyPoint& p, const char* figure);
// The share the kernel copied anyway ("97.0%"; "rx 12.0%" for a zero-copy receiver; "-" for neither).
std::string survey_copied_text(const SurveyPoint& p);

nlohmann::json to_json(const SurveyResult& r);
void write_survey_human(std::ostream& out, const SurveyResult& r);
void write_survey_csv(std::ostream& out, const SurveyResult& r);
// The points' stacks kept on the page, per point and side (the heaviest; the rest counted as left out).
inline constexpr size_t kSurveyPageStacks = 300;
// --html's page: to_json's document, each measured point with its two sides' heaviest stacks.
void write_survey_html(const std::string& file, const SurveyResult& r);

int survey_main(int argc, char** argv);

}  // namespace zc
