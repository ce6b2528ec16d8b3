#include <algorithm>
#include <fmt/format.h>

#include "measure/service_demand.hpp"
#include "report/pairs_report.hpp"
#include "report/explain_report.hpp"
#include "report/report_writer.hpp"
#include "system/cpu_list.hpp"

namespace zc {

namespace {

std::string quoted(const std::string& s) {
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

// The columns, one (header, value) pair a line, so a header can never drift from its value.
template <class T>
struct Column {
    const char* header;
    std::string (*value)(const T&);
};

template <class T, size_t N>
std::string header_of(const Column<T> (&cols)[N], const std::string& prefix = "") {
    std::string out;
    for (const auto& c : cols) out += (out.empty() ? "" : ",") + prefix + c.header;
    return out;
}

template <class T, size_t N>
std::string values_of(const Column<T> (&cols)[N], const T& v) {
    std::string out;
    for (size_t i = 0; i < N; ++i) out += (i ? "," : "") + cols[i].value(v);
    return out;
}

std::string num(uint64_t v) { return std::to_string(v); }

const Column<TestResult> kTestColumns[] = {
    {"transport", [](const TestResult& r) -> std::string { return transport_name(r.transport); }},
    {"rx", [](const TestResult& r) -> std::string { return rx_mode_name(r.rx); }},
    {"test", [](const TestResult& r) -> std::string { return workload_name(r.test); }},
    {"message_size", [](const TestResult& r) { return num(r.message_size); }},
    {"streams", [](const TestResult& r) { return std::to_string(r.streams); }},
    {"bytes", [](const TestResult& r) { return num(r.bytes); }},
    {"elapsed_s", [](const TestResult& r) { return fmt::format("{:.6f}", r.elapsed_s); }},
    {"throughput_gbps", [](const TestResult& r) { return fmt::format("{:.4f}", r.throughput_gbps); }},
    {"setup_ms", [](const TestResult& r) { return fmt::format("{:.2f}", r.setup_ms); }},
    {"iterations", [](const TestResult& r) { return std::to_string(r.iterations.iterations); }},
    {"confidence_width_pct",
     [](const TestResult& r) { return fmt::format("{:.2f}", r.iterations.throughput_width_pct); }},
    {"baseline", [](const TestResult& r) { return r.baseline.transport; }},
    {"baseline_throughput_ratio", [](const TestResult& r) { return fmt::format("{:.4f}", r.baseline.throughput); }},
    {"baseline_local_sd_ratio",
     [](const TestResult& r) { return fmt::format("{:.4f}", r.baseline.local_service_demand); }},
    {"baseline_remote_sd_ratio",
     [](const TestResult& r) { return fmt::format("{:.4f}", r.baseline.remote_service_demand); }},
};

// Each side's columns, prefixed local_ / remote_ (each kind's own are its block's, at the end).
const Column<SideResult> kSideColumns[] = {
    {"host", [](const SideResult& s) { return quoted(s.host); }},
    {"role", [](const SideResult& s) -> std::string { return role_name(s.role); }},
    {"bytes", [](const SideResult& s) { return num(s.bytes); }},
    {"elapsed_s", [](const SideResult& s) { return fmt::format("{:.6f}", s.elapsed_s); }},
    {"cpus", [](const SideResult& s) { return quoted(format_cpu_list(s.cpus)); }},
    {"cpu_util_pct", [](const SideResult& s) { return fmt::format("{:.3f}", s.cpu_util_pct()); }},
    {"user_pct", [](const SideResult& s) { return fmt::format("{:.3f}", s.cpu.all.user + s.cpu.all.nice); }},
    {"system_pct", [](const SideResult& s) { return fmt::format("{:.3f}", s.cpu.all.system); }},
    {"irq_pct", [](const SideResult& s) { return fmt::format("{:.3f}", s.cpu.all.irq); }},
    {"softirq_pct", [](const SideResult& s) { return fmt::format("{:.3f}", s.cpu.all.softirq); }},
    {"steal_pct", [](const SideResult& s) { return fmt::format("{:.3f}", s.cpu.all.steal); }},
    {"path", [](const SideResult& s) { return s.path; }},
    {"zc_sent_bytes", [](const SideResult& s) { return num(s.zerocopy.sent_bytes); }},
    {"zc_copied_bytes", [](const SideResult& s) { return num(s.zerocopy.copied_bytes); }},
    {"rx_mapped_bytes", [](const SideResult& s) { return num(s.zerocopy.rx_mapped_bytes); }},
    {"rx_copied_bytes", [](const SideResult& s) { return num(s.zerocopy.rx_copied_bytes); }},
    {"service_demand_us_per_kb",
     [](const SideResult& s) { return fmt::format("{:.5f}", s.service_demand_us_per_kb()); }},
    {"process_cpu_util_pct", [](const SideResult& s) { return fmt::format("{:.3f}", s.process_cpu_util_pct()); }},
    {"process_service_demand_us_per_kb",
     [](const SideResult& s) { return fmt::format("{:.5f}", s.process_service_demand_us_per_kb()); }},
    {"test_cpus_service_demand_us_per_kb",
     [](const SideResult& s) {
         return fmt::format("{:.5f}", service_demand_us_per_kb(s.test_cpus_busy_s(), s.bytes));
     }},
    {"other_processes_cpu_s", [](const SideResult& s) { return fmt::format("{:.3f}", s.cpu.others.cpu_s); }},
    {"buffer", [](const SideResult& s) { return s.memory.buffer; }},
    {"staged_bytes", [](const SideResult& s) { return num(s.memory.staging.bytes); }},
    {"stage_copy_s",
     [](const SideResult& s) { return fmt::format("{:.6f}", static_cast<double>(s.memory.staging.copy_ns) * 1e-9); }},
    {"stage_wait_s",
     [](const SideResult& s) { return fmt::format("{:.6f}", static_cast<double>(s.memory.staging.wait_ns) * 1e-9); }},
    // Other tests on this side's host during its interval: 1 = the whole-host CPU cells count them too.
    {"cpu_shared", [](const SideResult& s) -> std::string { return s.host_shared() ? "1" : "0"; }},
    {"shared_tests", [](const SideResult& s) { return std::to_string(s.shared_with.size()); }},
    {"shared_overlap_s",
     [](const SideResult& s) {
         double most = 0;
         for (const auto& t : s.shared_with) most = std::max(most, t.overlap_s);
         return fmt::format("{:.3f}", most);
     }},
    {"shared_with",  // PROGRAM|PID|PEER|TEST|OVERLAP_S|CPUS of each, separated by ';'
     [](const SideResult& s) {
         std::string text;
         for (const auto& t : s.shared_with)
             text += fmt::format("{}{}|{}|{}|{}|{:.3f}|{}", text.empty() ? "" : ";", t.program, t.pid, t.peer, t.test,
                                 t.overlap_s, format_cpu_list(t.cpus));
         return zc::quoted(text);
     }},
    // -b (any transport): the rate asked and how it was kept (the side's pacing section, protocol/pacing_report.hpp)
    {"bitrate", [](const SideResult& s) { return s.pacing.asked() ? num(s.pacing.bitrate) : std::string(); }},
    {"pacing",
     [](const SideResult& s) {
         return s.pacing.asked() ? quoted(pacing_method_name(s.pacing.counts.method)) : std::string();
     }},
};

// --percentiles in one cell, each with its error: "p50=12.345+-0.39%;p99.99=20.100+-0.31%" (ASCII for any CSV reader).
std::string percentile_cells(const std::vector<PercentileReading>& chosen) {
    std::string out;
    for (const PercentileReading& c : chosen)
        out += fmt::format("{}{}={:.3f}+-{:.2f}%", out.empty() ? "" : ";", percentile_label(c.percentile), c.us,
                           c.error_pct);
    return out;
}

// rr and msgrate (empty for stream tests); for rr a message is a transaction, and only rr has the
// latency cells.
template <class F>
std::string message_cell(const TestResult& r, bool rr_only, F f) {
    if (!is_message_test(r.test) || (rr_only && !is_transaction_test(r.test))) return "";
    return f(r.messages);
}
#define ZC_MSG(hdr, rr_only, expr)                                                                                     \
    {                                                                                                                  \
        hdr, [](const TestResult& r) { return message_cell(r, rr_only, [](const MessageResult& m) { return expr; }); } \
    }
const Column<TestResult> kMessageColumns[] = {
    ZC_MSG("messages", false, num(m.messages)),
    ZC_MSG("messages_per_s", false, fmt::format("{:.1f}", m.messages_per_s)),
    ZC_MSG("rtt_min_us", true, fmt::format("{:.3f}", m.rtt.min_us)),
    ZC_MSG("rtt_mean_us", true, fmt::format("{:.3f}", m.rtt.mean_us)),
    ZC_MSG("rtt_p50_us", true, fmt::format("{:.3f}", m.rtt.p50_us)),
    ZC_MSG("rtt_p90_us", true, fmt::format("{:.3f}", m.rtt.p90_us)),
    ZC_MSG("rtt_p99_us", true, fmt::format("{:.3f}", m.rtt.p99_us)),
    ZC_MSG("rtt_p99.9_us", true, fmt::format("{:.3f}", m.rtt.p999_us)),
    ZC_MSG("rtt_max_us", true, fmt::format("{:.3f}", m.rtt.max_us)),
    ZC_MSG("rtt_percentiles_us", true, quoted(percentile_cells(m.rtt.chosen))),
    ZC_MSG("samples_kept", true, num(m.samples_kept)),
    ZC_MSG("samples_dropped", true, num(m.samples_dropped)),
    ZC_MSG("connect_p50_us", true, m.connect.samples ? fmt::format("{:.3f}", m.connect.p50_us) : std::string()),
    ZC_MSG("connect_p99_us", true, m.connect.samples ? fmt::format("{:.3f}", m.connect.p99_us) : std::string()),
    ZC_MSG("latency_us", true, fmt::format("{:.3f}", m.rtt.mean_us / 2)),
    ZC_MSG("local_sd_us_per_msg", false, fmt::format("{:.4f}", m.local_sd_us)),
    ZC_MSG("remote_sd_us_per_msg", false, fmt::format("{:.4f}", m.remote_sd_us)),
    ZC_MSG("batch", false, num(m.batch)),
    ZC_MSG("segments_per_message", false, fmt::format("{:.4f}", m.segments_per_message)),
#define ZC_LOAD(hdr, expr)                                                                                      \
    {                                                                                                           \
        hdr, [](const TestResult& r) {                                                                          \
            return r.under_load.asked ? [](const LoadBeside& l) { return expr; }(r.under_load) : std::string(); \
        }                                                                                                       \
    }
    // --under-load: the streams beside the transaction test (0: it ran alone); empty without the option.
    ZC_LOAD("under_load_streams", num(l.streams)),
    ZC_LOAD("under_load_transport", l.transport),
    ZC_LOAD("under_load_gbps", fmt::format("{:.3f}", l.throughput_gbps)),
    ZC_LOAD("under_load_local_cpu_pct", fmt::format("{:.1f}", l.local_cpu_pct)),
    ZC_LOAD("under_load_remote_cpu_pct", fmt::format("{:.1f}", l.remote_cpu_pct)),
#undef ZC_LOAD
};
#undef ZC_MSG

// zcperf-mpi: who ran the pair, ahead of the result's columns (empty after a failed pair's error).
const Column<PairRecord> kPairColumns[] = {
    {"round", [](const PairRecord& p) { return std::to_string(p.round); }},
    {"client_rank", [](const PairRecord& p) { return std::to_string(p.client_rank); }},
    {"server_rank", [](const PairRecord& p) { return std::to_string(p.server_rank); }},
    {"client_host", [](const PairRecord& p) { return zc::quoted(p.client_host); }},
    {"server_host", [](const PairRecord& p) { return zc::quoted(p.server_host); }},
    {"start_offset_us", [](const PairRecord& p) { return fmt::format("{:.1f}", p.start_offset_us); }},
    {"error", [](const PairRecord& p) { return zc::quoted(p.error); }},
};

// zcperf-mpi's aggregate of each round, as a '#' line after the round's pairs.
const Column<RoundSummary> kRoundColumns[] = {
    {"round", [](const RoundSummary& s) { return std::to_string(s.round); }},
    {"test", [](const RoundSummary& s) -> std::string { return workload_name(s.test); }},
    {"transport", [](const RoundSummary& s) -> std::string { return transport_name(s.transport); }},
    {"message_size", [](const RoundSummary& s) { return num(s.message_size); }},
    {"pairs", [](const RoundSummary& s) { return std::to_string(s.pairs); }},
    {"failed", [](const RoundSummary& s) { return std::to_string(s.failed); }},
    {"sum_gbps", [](const RoundSummary& s) { return fmt::format("{:.4f}", s.gbps.sum); }},
    {"min_gbps", [](const RoundSummary& s) { return fmt::format("{:.4f}", s.gbps.min); }},
    {"median_gbps", [](const RoundSummary& s) { return fmt::format("{:.4f}", s.gbps.median); }},
    {"max_gbps", [](const RoundSummary& s) { return fmt::format("{:.4f}", s.gbps.max); }},
    {"sum_rate_per_s", [](const RoundSummary& s) { return fmt::format("{:.1f}", s.rate.sum); }},
    {"min_latency_us", [](const RoundSummary& s) { return fmt::format("{:.3f}", s.latency_us.min); }},
    {"median_latency_us", [](const RoundSummary& s) { return fmt::format("{:.3f}", s.latency_us.median); }},
    {"max_latency_us", [](const RoundSummary& s) { return fmt::format("{:.3f}", s.latency_us.max); }},
    {"start_skew_us", [](const RoundSummary& s) { return fmt::format("{:.1f}", s.start_skew_us); }},
    {"barrier_spread_us", [](const RoundSummary& s) { return fmt::format("{:.1f}", s.barrier_spread_us); }},
    {"overlap_s", [](const RoundSummary& s) { return fmt::format("{:.6f}", s.overlap_s); }},
    {"longest_interval_s", [](const RoundSummary& s) { return fmt::format("{:.6f}", s.longest_interval_s); }},
    {"barrier_ms", [](const RoundSummary& s) { return fmt::format("{:.3f}", s.barrier_ms); }},
    {"gather_ms", [](const RoundSummary& s) { return fmt::format("{:.3f}", s.gather_ms); }},
};

// The kinds' own blocks' columns and cells (protocol/kind_block.hpp), each group led by its comma.
std::string kind_columns(const std::string& prefix) {
    std::string h = kind_blocks_csv_header(prefix);
    return h.empty() ? h : "," + h;
}
std::string kind_cells(const KindBlocks& blocks) {
    return kind_blocks_csv_header("").empty() ? "" : "," + kind_blocks_csv_cells(blocks);
}

std::string result_header() {
    return header_of(kTestColumns) + "," + header_of(kSideColumns, "local_") + "," +
           header_of(kSideColumns, "remote_") + ",warnings," + header_of(kMessageColumns) + "," +
           explain_csv_header("local_") + "," + explain_csv_header("remote_") +  // --explain: empty cells without
           kind_columns("local_") + kind_columns("remote_");                     // each kind's block: empty elsewhere
}

std::string result_row(const TestResult& r) {
    std::string warnings;
    for (const auto& w : r.warnings) warnings += (warnings.empty() ? "" : " | ") + w;
    return values_of(kTestColumns, r) + "," + values_of(kSideColumns, r.local) + "," +
           values_of(kSideColumns, r.remote) + "," + zc::quoted(warnings) + "," + values_of(kMessageColumns, r) + "," +
           explain_csv_cells(r, r.local) + "," + explain_csv_cells(r, r.remote) + kind_cells(r.local.kinds) +
           kind_cells(r.remote.kinds);
}

class CsvReport : public ReportWriter {
public:
    explicit CsvReport(std::ostream& out) : out_(out) {}
    void begin(const ReportHeader&) override {
        out_ << result_header() << "\n";
        out_.flush();
    }
    void add(const TestResult& r) override {
        out_ << result_row(r) << "\n";
        out_.flush();
    }
    void error(const std::string& what) override { errors_.push_back(what); }
    void end() override {
        for (const auto& e : errors_) out_ << "# error: " << e << "\n";
    }

private:
    std::ostream& out_;
    std::vector<std::string> errors_;
};

// --csv-intervals: one row per interval. The test's own cells, the row's (the counting side's counts),
// then each side's, prefixed local_ / remote_ (empty where that side sent none).
struct IntervalCell {
    const TestParams& test;
    const IntervalRow& row;
};
std::string side_cell(const std::optional<SideInterval>& s, std::string (*f)(const SideInterval&)) {
    return s ? f(*s) : std::string();
}
const Column<IntervalCell> kIntervalColumns[] = {
    {"transport", [](const IntervalCell& c) -> std::string { return transport_name(c.test.transport); }},
    {"rx", [](const IntervalCell& c) -> std::string { return rx_mode_name(c.test.rx); }},
    {"test", [](const IntervalCell& c) -> std::string { return workload_name(c.test.test); }},
    {"message_size", [](const IntervalCell& c) { return num(c.test.message_size); }},
    {"streams", [](const IntervalCell& c) { return std::to_string(c.test.streams); }},
    {"iteration", [](const IntervalCell& c) { return std::to_string(c.row.iteration); }},
    {"index", [](const IntervalCell& c) { return std::to_string(c.row.index); }},
    {"start_s", [](const IntervalCell& c) { return fmt::format("{:.6f}", c.row.start_s); }},
    {"end_s", [](const IntervalCell& c) { return fmt::format("{:.6f}", c.row.end_s); }},
    {"bytes", [](const IntervalCell& c) { return num(c.row.bytes); }},
    {"throughput_gbps", [](const IntervalCell& c) { return fmt::format("{:.4f}", c.row.throughput_gbps); }},
    {"messages", [](const IntervalCell& c) { return num(c.row.messages); }},
    {"messages_per_s", [](const IntervalCell& c) { return fmt::format("{:.1f}", c.row.messages_per_s); }},
    {"stall", [](const IntervalCell& c) -> std::string { return c.row.stall ? "1" : "0"; }},
};
const Column<std::optional<SideInterval>> kSideIntervalColumns[] = {
    {"bytes",
     [](const std::optional<SideInterval>& s) {
         return side_cell(s, [](const SideInterval& v) { return num(v.bytes); });
     }},
    {"messages",
     [](const std::optional<SideInterval>& s) {
         return side_cell(s, [](const SideInterval& v) { return num(v.messages); });
     }},
    {"cpu_util_pct",
     [](const std::optional<SideInterval>& s) {
         return side_cell(s, [](const SideInterval& v) { return fmt::format("{:.3f}", v.cpu_util_pct); });
     }},
    {"process_cpu_s",
     [](const std::optional<SideInterval>& s) {
         return side_cell(s, [](const SideInterval& v) { return fmt::format("{:.6f}", v.process_cpu_s); });
     }},
    {"service_demand_us_per_kb",
     [](const std::optional<SideInterval>& s) {
         return side_cell(s, [](const SideInterval& v) { return fmt::format("{:.5f}", v.service_demand_us_per_kb()); });
     }},
    {"rtt_p50_us",
     [](const std::optional<SideInterval>& s) {
         return side_cell(s, [](const SideInterval& v) {
             return v.rtt_samples ? fmt::format("{:.3f}", v.rtt_p50_us) : std::string();
         });
     }},
    {"rtt_p99_us",
     [](const std::optional<SideInterval>& s) {
         return side_cell(s, [](const SideInterval& v) {
             return v.rtt_samples ? fmt::format("{:.3f}", v.rtt_p99_us) : std::string();
         });
     }},
    {"shared_tests",  // other tests on that side's host during the interval: its CPU cells count them too
     [](const std::optional<SideInterval>& s) {
         return side_cell(s, [](const SideInterval& v) { return std::to_string(v.shared_tests); });
     }},
};
// Then the kinds' blocks' over the interval (TCP's: TCP_INFO, named as in the result's TCP block).
std::string interval_kind_cells(const std::optional<SideInterval>& s) {
    return kind_blocks_interval_csv_cells(s ? &s->kinds : nullptr);
}

class CsvIntervalsReport : public ReportWriter {
public:
    explicit CsvIntervalsReport(std::ostream& out) : out_(out) {}
    void begin(const ReportHeader&) override {
        out_ << header_of(kIntervalColumns) << "," << header_of(kSideIntervalColumns, "local_")
             << kind_blocks_interval_csv_header("local_") << "," << header_of(kSideIntervalColumns, "remote_")
             << kind_blocks_interval_csv_header("remote_") << "\n";
        out_.flush();
    }
    void interval(const TestParams& p, const IntervalRow& row) override {
        out_ << values_of(kIntervalColumns, IntervalCell{p, row}) << "," << values_of(kSideIntervalColumns, row.local)
             << interval_kind_cells(row.local) << "," << values_of(kSideIntervalColumns, row.remote)
             << interval_kind_cells(row.remote) << "\n";
        out_.flush();
    }
    void add(const TestResult&) override {}
    void error(const std::string&) override {}
    void end() override {}

private:
    std::ostream& out_;
};

}  // namespace

std::unique_ptr<ReportWriter> make_csv_intervals_report(std::ostream& out) {
    return std::make_unique<CsvIntervalsReport>(out);
}

std::unique_ptr<ReportWriter> make_csv_report(std::ostream& out) { return std::make_unique<CsvReport>(out); }

void write_pairs_csv_head(std::ostream& out) {
    out << header_of(kPairColumns) << "," << result_header() << "\n";
    out << "# aggregate," << header_of(kRoundColumns) << "\n";
}

void write_pairs_csv_round(std::ostream& out, const PairsReport& r, int round) {
    const std::string header = result_header();
    const std::string empty_result(static_cast<size_t>(std::count(header.begin(), header.end(), ',')), ',');
    for (const auto& p : r.pairs)
        if (p.round == round)
            out << values_of(kPairColumns, p) << "," << (p.ok() ? result_row(p.result) : empty_result) << "\n";
    for (const auto& s : r.rounds)
        if (s.round == round) out << "# aggregate," << values_of(kRoundColumns, s) << "\n";
}

}  // namespace zc
