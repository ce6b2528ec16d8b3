#pragma once
// zcperf-mpi's report: every pair of every round (zcperf's TestResult, plus ranks and hosts), and per
// round the aggregate of the pairs that ran at once. Human, CSV and JSON, like zcperf's own report.
#include <ostream>
#include <string>
#include <vector>

#include "report/report_writer.hpp"

namespace zc {

struct PairRecord {
    int round = 0;
    int client_rank = 0, server_rank = 0;
    std::string client_host, server_host;
    double start_wall_s = 0;     // CLOCK_REALTIME when the pair's test started (after the round's barrier)
    double start_offset_us = 0;  // after the round's earliest start
    std::string error;           // empty: `result` holds the test's figures
    TestResult result;
    bool ok() const { return error.empty(); }
};

struct Spread {
    double sum = 0, min = 0, median = 0, max = 0;
};
Spread spread_of(std::vector<double> values);  // all zero when empty

struct RoundSummary {
    int round = 0;
    Workload test = Workload::stream;
    Transport transport{};  // the table's first row: tcp
    uint64_t message_size = 0;
    int pairs = 0, failed = 0;
    Spread gbps;                   // each pair's throughput over its own interval; sum = the aggregate
    Spread rate;                   // rr: transactions/s, msgrate: messages/s; streams: empty
    Spread latency_us;             // rr: each pair's mean one-way latency (RTT/2)
    double start_skew_us = 0;      // the latest pair's start after the earliest
    double barrier_spread_us = 0;  // the last rank's exit from the start barrier after the first
    // All pairs running at once: the earliest interval end minus the latest start; the aggregate is a
    // concurrent figure only as far as this covers the intervals (overlap_s / longest_interval_s).
    double overlap_s = 0;
    double longest_interval_s = 0;
    // The cost of MPI's part of the round (one host's clock; across hosts their offsets add in): the
    // start barrier, from the last rank's arrival to the last rank's exit; the gather, from the last
    // rank's results being ready to rank 0 holding every rank's.
    double barrier_ms = 0, gather_ms = 0;
};

// The figures of one round's pairs (the ones that succeeded); barrier_spread_us, barrier_ms and
// gather_ms are the caller's to fill.
RoundSummary summarize_round(int round, const std::vector<PairRecord>& pairs);

struct PairsReport {
    ReportHeader header;
    std::string pattern;
    int ranks = 0;
    std::string clock_note;  // what the start times can be trusted for (one host's clock or several)
    std::vector<PairRecord> pairs;
    std::vector<RoundSummary> rounds;
    std::vector<std::string> errors;
};

nlohmann::json to_json(const PairRecord& p);
nlohmann::json to_json(const RoundSummary& s);
nlohmann::json to_json(const PairsReport& r);
// "human", "csv" (csv_report.cpp: one row a pair, zcperf's columns after the pair's), "json".
// The report is written in three parts so that zcperf-mpi can stream it: whatever a launcher's kill
// cuts off, the rounds already written are complete. Human and CSV: the head (title, columns), then
// each round's pairs and aggregate as the round ends, then the errors. JSON is one document: the tail
// writes all of it.
void write_pairs_head(const std::string& format, std::ostream& out, const PairsReport& r);
void write_pairs_round(const std::string& format, std::ostream& out, const PairsReport& r, int round);
void write_pairs_tail(const std::string& format, std::ostream& out, const PairsReport& r);
// All three at once.
void write_pairs_report(const std::string& format, std::ostream& out, const PairsReport& r);
void write_pairs_csv_head(std::ostream& out);
void write_pairs_csv_round(std::ostream& out, const PairsReport& r, int round);

}  // namespace zc
