#include <fmt/format.h>

#include <cmath>
#include <set>
#include <stdexcept>

#include "measure/service_demand.hpp"
#include "report/explain_report.hpp"
#include "report/report_writer.hpp"
#include "system/cpu_list.hpp"
#include "core/units.hpp"

namespace zc {

namespace {

std::string split(const SideResult& s) {
    const CpuShare& a = s.cpu.all;
    return fmt::format("usr {:.1f} sys {:.1f} irq {:.1f} soft {:.1f}{}", a.user + a.nice, a.system, a.irq, a.softirq,
                       a.steal > 0.05 ? fmt::format(" steal {:.1f}", a.steal) : "");
}

std::string busiest_cpus(const SideResult& s) {
    std::string out;
    for (const auto& c : s.cpu.per_cpu) {
        if (c.share.busy() < 1.0) continue;
        out += fmt::format("{}cpu{} {:.0f}% (sys {:.0f} soft {:.0f})", out.empty() ? "" : ", ", c.cpu, c.share.busy(),
                           c.share.system, c.share.softirq);
    }
    return out.empty() ? "all idle" : out;
}

// A side whose host ran other tests during its interval.
std::string shared_line(const SideResult& s) {
    std::string who;
    for (const auto& t : s.shared_with) who += (who.empty() ? "" : "; ") + describe(t);
    size_t n = s.shared_with.size();
    return fmt::format(
        "CPU%, SD and per CPU above count {} other test{} on this host too: {}; proc SD is this "
        "test's own",
        n, n == 1 ? "" : "s", who);
}

std::string placement_line(const SideResult& s) {
    const Placement& p = s.placement;
    std::string out = p.interface.empty() ? "device ?" : p.interface;
    if (!p.pci.empty()) out += fmt::format(" ({}, node {})", p.pci, p.device_numa_node);
    std::string pages;
    for (const auto& [node, n] : p.buffer_pages_by_node)
        pages += fmt::format("{}{} pages on node {}", pages.empty() ? "" : ", ", n, node);
    if (!pages.empty())
        out += "; buffers: " + pages + (p.mem_node >= 0 ? fmt::format(" (asked node {})", p.mem_node) : "");
    for (const auto& i : p.irqs) {
        out += fmt::format("; IRQ {} {} on CPUs {}{}: {} interrupts", i.irq, i.name, i.affinity,
                           i.affinity != i.affinity_before ? " (was " + i.affinity_before + ")" : "", i.interrupts);
    }
    if (!p.irq_note.empty()) out += "; " + p.irq_note;
    if (!p.gpu.device.empty()) {
        out += fmt::format("; GPU {} {}{}{}", p.gpu.device, p.gpu.name, p.gpu.pci.empty() ? "" : " (" + p.gpu.pci,
                           p.gpu.pci.empty() ? "" : fmt::format(", node {})", p.gpu.numa_node));
        if (!p.gpu.nic_relation.empty()) out += ", to the NIC: " + p.gpu.nic_relation;
    }
    return out;
}

// --under-load: what ran beside the test (its rate counted by the load's receiver), or that it ran alone.
std::string under_load_line(const LoadBeside& l) {
    if (l.streams == 0) return "    under load: none (--under-load 0: the test ran alone)\n";
    auto cpus = [](const std::vector<int>& c) { return c.empty() ? std::string("any") : format_cpu_list(c); };
    return fmt::format(
        "    under load: {} {} stream{} of {} B beside it, {:.2f} Gb/s (counted by their receiver), on CPUs local {} "
        "remote {}; whole-host CPU over the load's {:.2f} s local {:.1f} % remote {:.1f} %; the load ran {:.2f} s "
        "before the test's interval and {:.2f} s after it\n",
        l.streams, l.transport, l.streams == 1 ? "" : "s", l.message_size, l.throughput_gbps, cpus(l.local_cpus),
        cpus(l.remote_cpus), l.elapsed_s, l.local_cpu_pct, l.remote_cpu_pct, l.lead_s, l.tail_s);
}

// rr has no sender and receiver: each side does both; say who asks and who answers.
const char* side_role(const TestResult& r, const SideResult& s) {
    if (is_transaction_test(r.test)) return s.role == Role::send ? "asks" : "answers";
    return role_name(s.role);
}

// Only for buffers other than pageable host memory: what they were and what staging cost.
std::string memory_line(const SideResult& s) {
    const MemoryReport& m = s.memory;
    if (m.buffer == "host") return "";
    if (m.gpu_path.empty()) return m.buffer + " host memory (cudaHostAlloc), used directly";
    std::string why = m.gpu_path_note.empty() || m.gpu_path_note.rfind(m.gpu_path + ":", 0) == 0
                          ? std::string()
                          : " (" + m.gpu_path_note + ")";
    if (m.gpu_path == "direct")
        return m.buffer + " direct: the NIC reads and writes GPU memory (" + m.gpu_path_note + "), no copy";
    const StagingCounts& st = m.staging;
    double copy_s = static_cast<double>(st.copy_ns) * 1e-9;
    return fmt::format(
        "{} {}{} through {} x {} {} bounce buffers{}: {} B in {} copies, copy time {:.3f} s "
        "({:.1f} GB/s while copying, {:.0f}% of the interval), thread waited {:.3f} s for copies",
        m.buffer, m.gpu_path, why, m.stage_slots, format_size(m.stage_slot_bytes),
        m.buffer == "sim-gpu" ? "host (sim-gpu: memcpy, no GPU)" : "pinned",
        m.stage_batch > 1 ? fmt::format(" ({} messages per copy)", m.stage_batch) : "", st.bytes, st.copies, copy_s,
        copy_s > 0 ? static_cast<double>(st.bytes) / copy_s / 1e9 : 0.0,
        s.elapsed_s > 0 ? 100.0 * copy_s / s.elapsed_s : 0.0, static_cast<double>(st.wait_ns) * 1e-9);
}

// Where messages may be lost (UDP's datagrams) a lost one is not a mismatch: the side that sees what arrived
// counts (rr: the initiator).
const char* counted_by(const TestResult& r) {
    if (!kind_block_counts_losses(r.local)) return "both sides";
    return r.test == Workload::rr ? "the initiator (answers that arrived)" : "the receiver (messages that arrived)";
}

// The transport (and --rx), and what a side's kind says its figures are instead ("smc [TCP fallback]").
std::string label(const TestResult& r) {
    std::string s = transport_name(r.transport);
    if (r.rx != RxMode::copy) s += std::string("/") + rx_mode_name(r.rx);
    std::string note = kind_block_label_note(r.local.kinds);
    if (note.empty()) note = kind_block_label_note(r.remote.kinds);
    return note.empty() ? s : s + " [" + note + "]";
}

class HumanReport : public ReportWriter {
public:
    explicit HumanReport(std::ostream& out) : out_(out) {}

    void begin(const ReportHeader& h) override {
        out_ << fmt::format("{}  local {}  ->  {} {} ({})\n", h.software, h.local_host, h.server,
                            h.embedded_server ? "[embedded server]" : "", h.remote_software);
        out_ << "Throughput is counted by the receiver; CPU from /proc/stat (all CPUs, netperf's method) and from\n"
                "getrusage of the test's threads (proc); SD = service demand, us of CPU per KB moved (rr: per\n"
                "transaction, msgrate: per message).\n";
        out_.flush();
    }

    void add(const TestResult& r) override {
        header_for(r.test);
        if (is_transaction_test(r.test)) {
            add_rr_row(r);
        } else if (r.test == Workload::msgrate) {
            add_msgrate_row(r);
        } else {
            out_ << fmt::format(
                "{:<20} {:<7} {:>7} {:>3} {:>10.2f} | {:>6.1f} {:>8.3f} {:>8.3f} | {:>6.1f} {:>8.3f} {:>8.3f}\n",
                label(r), workload_name(r.test), format_size(r.message_size), r.streams, r.throughput_gbps,
                r.local.cpu_util_pct(), r.local.service_demand_us_per_kb(), r.local.process_service_demand_us_per_kb(),
                r.remote.cpu_util_pct(), r.remote.service_demand_us_per_kb(),
                r.remote.process_service_demand_us_per_kb());
        }
        for (const auto* s : {&r.local, &r.remote}) {
            out_ << fmt::format("    {:<6} {} {}: {} B{} in {:.2f} s, {} calls; data CPUs {}; all CPUs: {}\n",
                                s == &r.local ? "local" : "remote", side_role(r, *s), s->host, s->bytes,
                                is_transaction_test(r.test) ? " received" : "", s->elapsed_s, s->ops,
                                format_cpu_list(s->cpus), split(*s));
            out_ << fmt::format(
                "           per CPU: {}; proc {:.2f} CPU-s (usr {:.2f} sys {:.2f}); others {:.2f} CPU-s\n",
                busiest_cpus(*s), s->process_cpu_s(), s->process_user_s, s->process_sys_s, s->cpu.others.cpu_s);
            out_ << "           placement: " << placement_line(*s) << "\n";
            if (auto m = memory_line(*s); !m.empty()) out_ << "           memory: " << m << "\n";
            if (auto p = pacing_text(s->pacing); !p.empty()) out_ << "           pacing: " << p << "\n";
            if (s->host_shared()) out_ << "           SHARED host: " << shared_line(*s) << "\n";
            for (const auto& line : kind_block_lines(*s)) out_ << "           " << line << "\n";
        }
        for (const auto* s : {&r.local, &r.remote})
            for (const auto& line : explain_lines(r, *s, s == &r.local ? "local" : "remote")) out_ << line << "\n";
        if (!r.baseline.transport.empty()) {
            out_ << fmt::format("    vs {}: throughput {:.2f}x, local SD {:.2f}x, remote SD {:.2f}x\n",
                                r.baseline.transport, r.baseline.throughput, r.baseline.local_service_demand,
                                r.baseline.remote_service_demand);
            for (const auto& [side, d] : {std::pair{"local", &r.baseline.local_explain_delta},
                                          std::pair{"remote", &r.baseline.remote_explain_delta}}) {
                if (auto text = explain_delta_text(r, *d); !text.empty())
                    out_ << "    vs " << r.baseline.transport << ", " << side << " explain: " << text << "\n";
            }
        }
        if (r.iterations.iterations > 1 || r.iterations.level_pct > 0) {
            out_ << fmt::format("    {} iterations; {} {}% confidence interval width {:.1f}% (goal {:.1f}%){}\n",
                                r.iterations.iterations, r.iterations.metric, r.iterations.level_pct,
                                r.iterations.throughput_width_pct, r.iterations.width_goal_pct,
                                r.iterations.met ? "" : "  NOT MET: add iterations (-i)");
        }
        if (!r.bidir_with.empty()) {
            out_ << fmt::format(
                "    bidir: ran at the same time as {} on its own connections; both directions "
                "together {:.2f} Gb/s (CPU% is the host's over both)\n",
                r.bidir_with, r.bidir_sum_gbps);
        }
        if (r.under_load.asked) out_ << under_load_line(r.under_load);
        out_ << fmt::format("    set-up + teardown {:.1f} ms\n", r.setup_ms);
        for (const auto& w : r.warnings) {
            if (seen_notes_.insert(w).second) out_ << "    note: " << w << "\n";  // each note once per report
        }
        out_.flush();
    }

    // The live lines: the counting side's rate, then each side's whole-host CPU % and service demand.
    void interval(const TestParams& p, const IntervalRow& row) override {
        header_kind_ = -1;  // the result's table header again after the lines
        if (row.index == 0) {
            out_ << fmt::format(
                "\n{} {} {} x{}{}, every {:g} s ({}; each side: CPU% of its host, SD {}):\n",
                transport_name(p.transport), workload_name(p.test), format_size(p.message_size), p.streams,
                row.iteration > 1 ? fmt::format(" (run {})", row.iteration) : "", p.interval_s,
                is_transaction_test(p.test) ? "the client's transactions and round trips" : "counted by the receiver",
                is_message_test(p.test) ? (is_transaction_test(p.test) ? "us/Tran" : "us/msg") : "us/KB");
        }
        std::string rate =
            is_transaction_test(p.test)
                ? fmt::format("{:>10.1f} trans/s  RTT p50 {:>8.2f} p99 {:>8.2f} us", row.messages_per_s,
                              row.local ? row.local->rtt_p50_us : 0.0, row.local ? row.local->rtt_p99_us : 0.0)
            : p.test == Workload::msgrate ? fmt::format("{:>12.0f} msgs/s", row.messages_per_s)
                                          : fmt::format("{:>8.2f} Gb/s", row.throughput_gbps);
        auto side = [&](const char* name, const std::optional<SideInterval>& s) {
            if (!s) return fmt::format("{} {:>6} {:>8}", name, "-", "-");
            double sd = is_message_test(p.test) ? service_demand_us_per_tran(s->busy_cpu_s, s->messages)
                                                : s->service_demand_us_per_kb();
            // A side that slept through edges (stopped, starved) has one long interval: say over what.
            bool own_span = std::abs(s->end_s - row.end_s) > p.interval_s / 2;
            return fmt::format("{} {:>5.1f}% {:>8.3f}{}", name, s->cpu_util_pct, sd,
                               own_span ? fmt::format(" (over its {:.2f}-{:.2f} s)", s->start_s, s->end_s) : "");
        };
        // Other tests on a side's host during the interval: that side's CPU % and SD count their work too.
        std::string shared;
        for (const auto& [name, s] : {std::pair{"local", &row.local}, std::pair{"remote", &row.remote}})
            if (*s && (*s)->shared_tests > 0)
                shared += fmt::format("{}{} host shared with {} other test{}", shared.empty() ? "  SHARED: " : "; ",
                                      name, (*s)->shared_tests, (*s)->shared_tests == 1 ? "" : "s");
        // The kinds' words on the interval (TCP's: the sending side's TCP_INFO).
        std::string kinds = kind_blocks_interval_text(row.local ? &row.local->kinds : nullptr,
                                                      row.remote ? &row.remote->kinds : nullptr);
        out_ << fmt::format("  [{:7.2f}-{:7.2f} s] {} | {} | {}{}{}{}\n", row.start_s, row.end_s, rate,
                            side("local", row.local), side("remote", row.remote), kinds,
                            row.stall ? "  STALL: nothing moved in this interval" : "", shared);
        out_.flush();
    }

    void error(const std::string& what) override {
        out_ << "    error: " << what << "\n";
        out_.flush();
    }

    void end() override {}

private:
    // Each kind of test has its own columns: a header whenever the kind changes.
    void header_for(Workload t) {
        int kind = is_transaction_test(t) ? 1 : t == Workload::msgrate ? 2 : 0;
        if (kind == header_kind_) return;
        header_kind_ = kind;
        out_ << "\n";
        if (kind == 1) {
            out_ << fmt::format("{:<20} {:<7} {:>7} {:>3} {:>10} | {:>8} {:>8} {:>8} | {:>8} | {:>9} {:>9}\n", "", "",
                                "", "", "", "RTT us", "", "", "one-way", "SD us/Tran", "");
            out_ << fmt::format("{:<20} {:<7} {:>7} {:>3} {:>10} | {:>8} {:>8} {:>8} | {:>8} | {:>9} {:>9}\n",
                                "transport", "test", "msg", "P", "trans/s", "mean", "p50", "p99", "lat us", "local",
                                "remote");
        } else if (kind == 2) {
            out_ << fmt::format("{:<20} {:<7} {:>7} {:>3} {:>12} {:>5} | {:>8} {:>8} | {:>9} {:>9}\n", "", "", "", "",
                                "", "", "sender", "", "SD us/msg", "");
            out_ << fmt::format("{:<20} {:<7} {:>7} {:>3} {:>12} {:>5} | {:>8} {:>8} | {:>9} {:>9}\n", "transport",
                                "test", "msg", "P", "msgs/s", "batch", "calls/m", "segs/m", "local", "remote");
        } else {
            out_ << fmt::format("{:<20} {:<7} {:>7} {:>3} {:>10} | {:>6} {:>8} {:>8} | {:>6} {:>8} {:>8}\n", "", "", "",
                                "", "", "Local", "", "", "Remote", "", "");
            out_ << fmt::format("{:<20} {:<7} {:>7} {:>3} {:>10} | {:>6} {:>8} {:>8} | {:>6} {:>8} {:>8}\n",
                                "transport[/rx]", "test", "msg", "P", "Gb/s", "CPU%", "SD", "proc SD", "CPU%", "SD",
                                "proc SD");
        }
    }

    // --percentiles, each with the histogram's error at its value; --samples' count.
    void add_percentiles_line(const MessageResult& m) {
        std::string line;
        for (const PercentileReading& c : m.rtt.chosen)
            line += fmt::format("{}{} {:.2f} (±{:.1f} %)", line.empty() ? "" : ", ", percentile_label(c.percentile),
                                c.us, c.error_pct);
        if (!line.empty()) out_ << "    percentiles us: " << line << "\n";
        if (m.samples_kept || m.samples_dropped)
            out_ << fmt::format("    --samples: {} transactions written, {} dropped{}\n", m.samples_kept,
                                m.samples_dropped, m.samples_dropped ? " (the buffer filled)" : "");
    }

    void add_rr_row(const TestResult& r) {
        const MessageResult& m = r.messages;
        out_ << fmt::format(
            "{:<20} {:<7} {:>7} {:>3} {:>10.1f} | {:>8.2f} {:>8.2f} {:>8.2f} | {:>8} | {:>9.2f} {:>9.2f}\n", label(r),
            workload_name(r.test), format_size(r.message_size), r.streams, m.messages_per_s, m.rtt.mean_us,
            m.rtt.p50_us, m.rtt.p99_us, is_connection_test(r.test) ? "-" : fmt::format("{:.2f}", m.rtt.mean_us / 2),
            m.local_sd_us, m.remote_sd_us);
        // crr, cc: the "RTT" is the whole transaction (socket to close); half of it is no one-way latency.
        out_ << fmt::format(
            "    {} transactions counted by {} in {:.2f} s; {} us min {:.2f} p90 {:.2f} p99.9 {:.2f} "
            "max {:.2f}{}\n",
            m.messages, counted_by(r), m.elapsed_s, is_connection_test(r.test) ? "transaction" : "RTT", m.rtt.min_us,
            m.rtt.p90_us, m.rtt.p999_us, m.rtt.max_us,
            is_connection_test(r.test) ? "" : "; one-way latency = RTT/2 (OSU, perftest)");
        add_percentiles_line(m);
        if (m.connect.samples) {
            out_ << fmt::format(
                "    connect (socket to connected) us: min {:.2f} p50 {:.2f} p90 {:.2f} p99 {:.2f} max {:.2f}; "
                "proc SD us/Tran local {:.2f} remote {:.2f}\n    {}\n",
                m.connect.min_us, m.connect.p50_us, m.connect.p90_us, m.connect.p99_us, m.connect.max_us,
                m.local_proc_sd_us, m.remote_proc_sd_us, m.measured);
        } else if (m.stream_segments) {
            out_ << fmt::format(
                "    client: {:.2f} send/recv calls and {:.2f} data segments per transaction; proc SD us/Tran "
                "local {:.2f} remote {:.2f}\n",
                m.calls_per_message, m.segments_per_message, m.local_proc_sd_us, m.remote_proc_sd_us);
        } else {
            out_ << fmt::format(
                "    client: {:.2f} post/send/recv calls per transaction{}; proc SD us/Tran local {:.2f} "
                "remote {:.2f}\n",
                m.calls_per_message, m.measured.empty() ? "" : "; " + m.measured, m.local_proc_sd_us,
                m.remote_proc_sd_us);
        }
        if (m.stream_messages_per_s.size() > 1) {
            std::string per;
            for (double v : m.stream_messages_per_s) per += fmt::format("{}{:.1f}", per.empty() ? "" : ", ", v);
            out_ << "    per connection trans/s: " << per << "\n";
        }
    }

    void add_msgrate_row(const TestResult& r) {
        const MessageResult& m = r.messages;
        // Segments are TCP's count (TCP_INFO); RDMA has none to report.
        std::string segs = m.stream_segments ? fmt::format("{:.3f}", m.segments_per_message) : std::string("-");
        out_ << fmt::format("{:<20} {:<7} {:>7} {:>3} {:>12.0f} {:>5} | {:>8.3f} {:>8} | {:>9.3f} {:>9.3f}\n", label(r),
                            workload_name(r.test), format_size(r.message_size), r.streams, m.messages_per_s, m.batch,
                            m.calls_per_message, segs, m.local_sd_us, m.remote_sd_us);
        std::string per;
        for (double v : m.stream_messages_per_s) per += fmt::format("{}{:.0f}", per.empty() ? "" : ", ", v);
        out_ << fmt::format("    {} messages counted by {} in {:.2f} s; per connection msgs/s: {}\n", m.messages,
                            counted_by(r), m.elapsed_s, per);
        if (m.stream_segments) {
            out_ << fmt::format(
                "    measured: {} B messages, {} per {} with TCP_NODELAY (a message is its own segment only "
                "when segs/m is 1: TCP_INFO's count); the receiver reads in bulk\n",
                r.message_size, m.batch, m.batch == 1 ? "send()" : "sendmmsg()");
        } else {
            out_ << fmt::format("    measured: {} B messages, {}\n", r.message_size, m.measured);
        }
    }

    std::ostream& out_;
    std::set<std::string> seen_notes_;
    int header_kind_ = -1;
};

}  // namespace

std::unique_ptr<ReportWriter> make_human_report(std::ostream& out) { return std::make_unique<HumanReport>(out); }

std::unique_ptr<ReportWriter> make_report_writer(const std::string& format, std::ostream& out) {
    if (format == "human") return make_human_report(out);
    if (format == "csv") return make_csv_report(out);
    if (format == "json") return make_json_report(out);
    if (format == "json-stream") return make_json_stream_report(out);
    throw std::invalid_argument("unknown output format '" + format + "'; use human, csv, json or json-stream");
}

}  // namespace zc
