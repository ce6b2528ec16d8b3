#include <fmt/format.h>

#include "measure/service_demand.hpp"
#include "report/report_writer.hpp"
#include "system/cpu_list.hpp"

namespace zc {

namespace {

std::string quoted(const std::string& s) {
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string side_columns(const char* p) {
    return fmt::format(
        "{0}_host,{0}_role,{0}_bytes,{0}_elapsed_s,{0}_cpus,{0}_cpu_util_pct,{0}_user_pct,{0}_system_pct,{0}_irq_pct,"
        "{0}_softirq_pct,{0}_steal_pct,{0}_path,{0}_zc_sent_bytes,{0}_zc_copied_bytes,{0}_rx_mapped_bytes,"
        "{0}_rx_copied_bytes,{0}_service_demand_us_per_kb,{0}_process_cpu_util_pct,"
        "{0}_process_service_demand_us_per_kb,{0}_test_cpus_service_demand_us_per_kb,{0}_other_processes_cpu_s,"
        "{0}_buffer,{0}_staged_bytes,{0}_stage_copy_s,{0}_stage_wait_s,{0}_rcv_lowat,"
        "{0}_rdma_device,{0}_rdma_port,{0}_rdma_gid_index,{0}_rdma_mtu,{0}_rdma_link_layer,{0}_cq_mode,{0}_qps,"
        "{0}_registration_ms,{0}_registered_bytes,{0}_credit_waits,{0}_rdma_provider,{0}_thread_domains,"
        "{0}_doorbell_env,{0}_contexts_opened",
        p);
}

// Empty cells where no RDMA path ran, so TCP rows do not claim a device.
std::string rdma_values(const RdmaInfo& r) {
    if (r.empty()) return ",,,,,,,,,,,,,";
    const std::string env = [&] {  // NAME=VALUE of the doorbell variables set on that side, space-separated
        std::string text;
        for (const auto& [name, value] : r.doorbell_env) text += (text.empty() ? "" : " ") + name + "=" + value;
        return text;
    }();
    return fmt::format("{},{},{},{},{},{},{},{:.3f},{},{},{},{},{},{}", quoted(r.device), r.port, r.gid_index, r.mtu,
                       quoted(r.link_layer), r.cq_mode, r.qps, r.registration_ms, r.registered_bytes, r.credit_waits,
                       quoted(r.provider), r.thread_domains, quoted(env), r.contexts_opened);
}

std::string side_values(const SideResult& s) {
    const CpuShare& a = s.cpu.all;
    return fmt::format("{},{},{},{:.6f},{},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{},{},{},{},{},{:.5f},{:.3f},{:.5f},{:.5f},{:.3f},"
                       "{},{},{:.6f},{:.6f}",
                       quoted(s.host), role_name(s.role), s.bytes, s.elapsed_s, quoted(format_cpu_list(s.cpus)),
                       s.cpu_util_pct(), a.user + a.nice, a.system, a.irq, a.softirq, a.steal, s.path,
                       s.zerocopy.sent_bytes, s.zerocopy.copied_bytes, s.zerocopy.rx_mapped_bytes, s.zerocopy.rx_copied_bytes,
                       s.service_demand_us_per_kb(), s.process_cpu_util_pct(), s.process_service_demand_us_per_kb(),
                       service_demand_us_per_kb(s.test_cpus_busy_s(), s.bytes), s.cpu.others.cpu_s, s.memory.buffer,
                       s.memory.staging.bytes, static_cast<double>(s.memory.staging.copy_ns) * 1e-9,
                       static_cast<double>(s.memory.staging.wait_ns) * 1e-9) +
           "," + std::to_string(s.rcv_lowat) + "," + rdma_values(s.rdma);
}

std::string message_values(const TestResult& r) {
    if (!is_message_test(r.test)) return ",,,,,,,,,,,,,";
    const MessageResult& m = r.messages;
    const LatencySummary& l = m.rtt;
    if (r.test != TestKind::rr) {
        return fmt::format("{},{:.1f},,,,,,,,,{:.4f},{:.4f},{},{:.4f}", m.messages, m.messages_per_s, m.local_sd_us,
                           m.remote_sd_us, m.batch, m.segments_per_message);
    }
    return fmt::format("{},{:.1f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.4f},{:.4f},{},{:.4f}", m.messages,
                       m.messages_per_s, l.min_us, l.mean_us, l.p50_us, l.p90_us, l.p99_us, l.p999_us, l.max_us,
                       l.mean_us / 2, m.local_sd_us, m.remote_sd_us, m.batch, m.segments_per_message);
}

class CsvReport : public ReportWriter {
public:
    explicit CsvReport(std::ostream& out) : out_(out) {}
    void begin(const ReportHeader&) override {
        out_ << "transport,rx,test,message_size,streams,bytes,elapsed_s,throughput_gbps,setup_ms,iterations,"
                "confidence_width_pct,baseline,baseline_throughput_ratio,baseline_local_sd_ratio,baseline_remote_sd_ratio,"
             << side_columns("local") << "," << side_columns("remote") << ",warnings,"
             // rr and msgrate (empty for stream tests); for rr a message is a transaction
             << "messages,messages_per_s,rtt_min_us,rtt_mean_us,rtt_p50_us,rtt_p90_us,rtt_p99_us,rtt_p99.9_us,"
                "rtt_max_us,latency_us,local_sd_us_per_msg,remote_sd_us_per_msg,batch,segments_per_message\n";
        out_.flush();
    }
    void add(const TestResult& r) override {
        std::string warnings;
        for (const auto& w : r.warnings) warnings += (warnings.empty() ? "" : " | ") + w;
        out_ << fmt::format("{},{},{},{},{},{},{:.6f},{:.4f},{:.2f},{},{:.2f},{},{:.4f},{:.4f},{:.4f},",
                            transport_name(r.transport), rx_mode_name(r.rx), test_name(r.test), r.message_size,
                            r.streams, r.bytes, r.elapsed_s, r.throughput_gbps, r.setup_ms, r.iterations.iterations,
                            r.iterations.throughput_width_pct, r.baseline.transport, r.baseline.throughput,
                            r.baseline.local_service_demand, r.baseline.remote_service_demand)
             << side_values(r.local) << "," << side_values(r.remote) << "," << quoted(warnings) << ","
             << message_values(r) << "\n";
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

}  // namespace

std::unique_ptr<ReportWriter> make_csv_report(std::ostream& out) { return std::make_unique<CsvReport>(out); }

}  // namespace zc
