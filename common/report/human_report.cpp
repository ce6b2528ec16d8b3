#include <fmt/format.h>

#include <set>
#include <stdexcept>

#include "report/report_writer.hpp"
#include "system/cpu_list.hpp"
#include "units.hpp"

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

std::string placement_line(const SideResult& s) {
    const Placement& p = s.placement;
    std::string out = p.interface.empty() ? "device ?" : p.interface;
    if (!p.pci.empty()) out += fmt::format(" ({}, node {})", p.pci, p.device_numa_node);
    std::string pages;
    for (const auto& [node, n] : p.buffer_pages_by_node) pages += fmt::format("{}{} pages on node {}", pages.empty() ? "" : ", ", n, node);
    if (!pages.empty()) out += "; buffers: " + pages + (p.mem_node >= 0 ? fmt::format(" (asked node {})", p.mem_node) : "");
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

// Only for buffers other than pageable host memory: what they were and what staging cost.
std::string memory_line(const SideResult& s) {
    const MemoryReport& m = s.memory;
    if (m.buffer == "host") return "";
    if (m.gpu_path.empty()) return m.buffer + " host memory (cudaHostAlloc), used directly";
    const StagingCounts& st = m.staging;
    double copy_s = static_cast<double>(st.copy_ns) * 1e-9;
    return fmt::format("{} {} through {} x {} pinned bounce buffers{}: {} B in {} copies, GPU copy time {:.3f} s "
                       "({:.1f} GB/s while copying, {:.0f}% of the interval), thread waited {:.3f} s for copies",
                       m.buffer, m.gpu_path, m.stage_slots, format_size(m.stage_slot_bytes),
                       m.stage_batch > 1 ? fmt::format(" ({} messages per copy)", m.stage_batch) : "", st.bytes, st.copies, copy_s,
                       copy_s > 0 ? static_cast<double>(st.bytes) / copy_s / 1e9 : 0.0,
                       s.elapsed_s > 0 ? 100.0 * copy_s / s.elapsed_s : 0.0, static_cast<double>(st.wait_ns) * 1e-9);
}

std::string label(const TestResult& r) {
    std::string s = transport_name(r.transport);
    if (r.rx != RxMode::copy) s += std::string("/") + rx_mode_name(r.rx);
    return s;
}

class HumanReport : public ReportWriter {
public:
    explicit HumanReport(std::ostream& out) : out_(out) {}

    void begin(const ReportHeader& h) override {
        out_ << fmt::format("{}  local {}  ->  {} {} ({})\n", h.software, h.local_host, h.server,
                            h.embedded_server ? "[embedded server]" : "", h.remote_software);
        out_ << "Throughput is counted by the receiver; CPU from /proc/stat (all CPUs, netperf's method) and from\n"
                "getrusage of the test's threads (proc); SD = service demand, us of CPU per KB moved.\n\n";
        out_ << fmt::format("{:<20} {:<7} {:>7} {:>3} {:>10} | {:>6} {:>8} {:>8} | {:>6} {:>8} {:>8}\n", "", "", "",
                            "", "", "Local", "", "", "Remote", "", "");
        out_ << fmt::format("{:<20} {:<7} {:>7} {:>3} {:>10} | {:>6} {:>8} {:>8} | {:>6} {:>8} {:>8}\n", "transport[/rx]",
                            "test", "msg", "P", "Gb/s", "CPU%", "SD", "proc SD", "CPU%", "SD", "proc SD");
        out_.flush();
    }

    void add(const TestResult& r) override {
        out_ << fmt::format("{:<20} {:<7} {:>7} {:>3} {:>10.2f} | {:>6.1f} {:>8.3f} {:>8.3f} | {:>6.1f} {:>8.3f} {:>8.3f}\n",
                            label(r), test_name(r.test), format_size(r.message_size), r.streams,
                            r.throughput_gbps, r.local.cpu_util_pct(), r.local.service_demand_us_per_kb(),
                            r.local.process_service_demand_us_per_kb(), r.remote.cpu_util_pct(),
                            r.remote.service_demand_us_per_kb(), r.remote.process_service_demand_us_per_kb());
        for (const auto* s : {&r.local, &r.remote}) {
            out_ << fmt::format("    {:<6} {} {}: {} B in {:.2f} s, {} calls; data CPUs {}; all CPUs: {}\n",
                                s == &r.local ? "local" : "remote", role_name(s->role), s->host, s->bytes,
                                s->elapsed_s, s->ops, format_cpu_list(s->cpus), split(*s));
            out_ << fmt::format("           per CPU: {}; proc {:.2f} CPU-s (usr {:.2f} sys {:.2f}); others {:.2f} CPU-s\n",
                                busiest_cpus(*s), s->process_cpu_s(), s->process_user_s, s->process_sys_s,
                                s->cpu.others.cpu_s);
            out_ << "           placement: " << placement_line(*s) << "\n";
            if (auto m = memory_line(*s); !m.empty()) out_ << "           memory: " << m << "\n";
        }
        if (!r.baseline.transport.empty()) {
            out_ << fmt::format("    vs {}: throughput {:.2f}x, local SD {:.2f}x, remote SD {:.2f}x\n", r.baseline.transport,
                                r.baseline.throughput, r.baseline.local_service_demand, r.baseline.remote_service_demand);
        }
        if (r.iterations.iterations > 1 || r.iterations.level_pct > 0) {
            out_ << fmt::format("    {} iterations; throughput {}% confidence interval width {:.1f}% (goal {:.1f}%){}\n",
                                r.iterations.iterations, r.iterations.level_pct, r.iterations.throughput_width_pct,
                                r.iterations.width_goal_pct, r.iterations.met ? "" : "  NOT MET: add iterations (-i)");
        }
        out_ << fmt::format("    set-up + teardown {:.1f} ms\n", r.setup_ms);
        for (const auto& w : r.warnings) {
            if (seen_notes_.insert(w).second) out_ << "    note: " << w << "\n";  // each note once per report
        }
        out_.flush();
    }

    void error(const std::string& what) override {
        out_ << "    error: " << what << "\n";
        out_.flush();
    }

    void end() override {}

private:
    std::ostream& out_;
    std::set<std::string> seen_notes_;
};

}  // namespace

std::unique_ptr<ReportWriter> make_human_report(std::ostream& out) { return std::make_unique<HumanReport>(out); }

std::unique_ptr<ReportWriter> make_report_writer(const std::string& format, std::ostream& out) {
    if (format == "human") return make_human_report(out);
    if (format == "csv") return make_csv_report(out);
    if (format == "json") return make_json_report(out);
    throw std::invalid_argument("unknown output format '" + format + "'; use human, csv or json");
}

}  // namespace zc
