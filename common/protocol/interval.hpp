#pragma once
// --interval: what each side counted over each interval of its measured interval (SideInterval: the
// server sends one per interval as the test runs), and the client's row of both sides (IntervalRow,
// part of TestResult). Counts are differences of running totals, so one side's intervals add up to its
// totals exactly; the last interval ends where the side's measured interval ends.
#include <any>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "core/workload.hpp"
#include "measure/latency_histogram.hpp"
#include "measure/proc_stat.hpp"
#include "protocol/kind_block.hpp"

namespace zc {

// Intervals shorter than this are refused (the CPU figures come in 1/100 s ticks).
inline constexpr double kMinIntervalS = 0.01;
// At most this many intervals in a timed test (the client keeps every row for the result).
inline constexpr double kMaxIntervals = 100000;

struct SideInterval {
    uint32_t index = 0;             // the interval edge it starts at (start_s is about index x the interval):
                                    // both sides number alike, even when one skipped edges (it was stopped)
    double start_s = 0, end_s = 0;  // from the start of this side's measured interval
    uint64_t bytes = 0;             // moved by this side, all streams
    uint64_t messages = 0;          // rr: transactions; msgrate: whole messages
    double cpu_util_pct = 0;        // whole host (/proc/stat), % of all its CPUs
    double busy_cpu_s = 0;          // whole host busy CPU-seconds: service demand's numerator
    double process_cpu_s = 0;       // this side's data threads (their CPU clocks)
    uint64_t rtt_samples = 0;       // rr, the client: round trips that ended in the interval
    double rtt_p50_us = 0, rtt_p99_us = 0;
    // Other tests of this side's host that ran during the interval: its whole-host CPU figures are
    // then shared (they count those tests' work too).
    uint32_t shared_tests = 0;
    KindBlocks kinds;  // each kind's own block over the interval (the TCP family's: TCP_INFO), by its key

    double duration_s() const { return end_s - start_s; }
    double service_demand_us_per_kb() const;
};

nlohmann::json to_json(const SideInterval& s);
SideInterval side_interval_from_json(const nlohmann::json& j);  // bounded; throws ProtocolError

// A side's running totals at one instant, as its interval sampler reads them.
struct IntervalReading {
    double t_s = 0;  // from the start of the measured interval
    uint64_t bytes = 0, messages = 0;
    ProcStat stat;            // whole host
    double thread_cpu_s = 0;  // the data threads, since the start
    LatencyHistogram rtt;     // rr client: every stream's round trips so far (a snapshot)
    // Each stream's kind reading then (TransportOps::stream_reading: the TCP family's TCP_INFO; empty where
    // the kind reads none).
    std::vector<std::any> kind_readings;
};

// The interval between two readings: the partition arithmetic.
SideInterval interval_between(const IntervalReading& a, const IntervalReading& b, uint32_t index,
                              long ticks_per_s = 100);

// One line of the live report and one element of a result's "intervals": the counting side's interval
// (the receiver's for stream tests and msgrate, the client's for rr, as the result's own bytes and
// transactions are), so the rows partition its measured interval, with the other side's interval of the
// same index where it has one.
struct IntervalRow {
    int iteration = 1;  // -i/-I: the repetition it belongs to (times restart at 0 in each)
    uint32_t index = 0;
    double start_s = 0, end_s = 0;
    uint64_t bytes = 0, messages = 0;
    double throughput_gbps = 0, messages_per_s = 0;
    bool stall = false;  // nothing moved in a whole interval: the link or a peer stalled
    std::optional<SideInterval> local, remote;
};

nlohmann::json to_json(const IntervalRow& r, Workload test);

// Pairs the two sides' intervals by index as they arrive (the server's over the control connection,
// ours from our sampler) and hands out one row per interval of the counting side, in order, as soon as
// the other side's interval of that index is in or the other side is past it.
class IntervalPairer {
public:
    // counting_side_local: whose intervals the rows are (see IntervalRow). remote_expected: false for a
    // server too old to send samples (the rows are then ours alone, whoever counts).
    IntervalPairer(Workload test, bool counting_side_local, bool remote_expected, double interval_s, int iteration)
        : test_(test),
          local_counts_(counting_side_local || !remote_expected),
          remote_expected_(remote_expected),
          interval_s_(interval_s),
          iteration_(iteration) {}
    void add_local(const SideInterval& s) { add(s, local_counts_); }
    void add_remote(const SideInterval& s) { add(s, !local_counts_); }
    // Rows complete so far, in order; with `all` (the test has ended), every one left.
    std::vector<IntervalRow> take(bool all = false);

private:
    void add(const SideInterval& s, bool counting);
    IntervalRow row(const SideInterval& counting, const SideInterval* other) const;

    Workload test_;
    bool local_counts_, remote_expected_;
    double interval_s_;
    int iteration_;
    std::vector<SideInterval> counting_;  // in order
    std::vector<SideInterval> other_;     // in order
    size_t next_ = 0, other_next_ = 0;    // the next counting interval to hand out; the other's to look at
};

}  // namespace zc
