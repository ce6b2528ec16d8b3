#include "protocol/result.hpp"

#include <map>
#include <stdexcept>

#include "measure/service_demand.hpp"
#include "protocol/explain_json.hpp"
#include "protocol/field_table.hpp"

namespace zc {

double SideResult::process_cpu_util_pct() const {
    double capacity = static_cast<double>(cpu.ncpus) * cpu.elapsed_s;
    return capacity > 0 ? 100.0 * process_cpu_s() / capacity : 0;
}
double SideResult::service_demand_us_per_kb() const { return zc::service_demand_us_per_kb(cpu.busy_cpu_s, bytes); }
double SideResult::process_service_demand_us_per_kb() const {
    return zc::service_demand_us_per_kb(process_cpu_s(), bytes);
}
double SideResult::test_cpus_busy_s() const { return busy_cpu_s_on(cpu, cpus); }
double SideResult::others_cpu_pct_of_one_cpu() const {
    return cpu.elapsed_s > 0 ? 100.0 * cpu.others.cpu_s / cpu.elapsed_s : 0;
}

namespace {

// The wire fields, one line each (field_table.hpp). Required unless marked: every peer has sent them.
const auto kCpuShareFields = std::make_tuple(number("user", &CpuShare::user), number("nice", &CpuShare::nice),
                                             number("system", &CpuShare::system), number("irq", &CpuShare::irq),
                                             number("softirq", &CpuShare::softirq), number("iowait", &CpuShare::iowait),
                                             number("steal", &CpuShare::steal), number("idle", &CpuShare::idle));
// A CPU's entry: its number beside its shares.
const auto kPerCpuFields =
    std::make_tuple(number("cpu", &PerCpuUsage::cpu), flat(&PerCpuUsage::share, kCpuShareFields));
const auto kTopProcessFields = std::make_tuple(number("pid", &OtherLoad::Top::pid), str("comm", &OtherLoad::Top::comm),
                                               number("cpu_s", &OtherLoad::Top::cpu_s));
const auto kOtherLoadFields =
    std::make_tuple(number("cpu_s", &OtherLoad::cpu_s), list("top", &OtherLoad::top, 64, kTopProcessFields));
const auto kCpuUsageFields =
    std::make_tuple(number("elapsed_s", &CpuUsage::elapsed_s, 0, 1e7), number("ncpus", &CpuUsage::ncpus, 1, 65536),
                    object("all_pct", &CpuUsage::all, kCpuShareFields), number("busy_cpu_s", &CpuUsage::busy_cpu_s),
                    list("per_cpu_pct", &CpuUsage::per_cpu, 65536, kPerCpuFields),
                    object("other_processes", &CpuUsage::others, kOtherLoadFields));

const auto kIrqFields =
    std::make_tuple(number("irq", &IrqReport::irq), str("name", &IrqReport::name),
                    str("affinity", &IrqReport::affinity), str("affinity_before", &IrqReport::affinity_before),
                    number("interrupts", &IrqReport::interrupts), list("per_cpu", &IrqReport::per_cpu, 65536));

// Pages by NUMA node: an object keyed by the node's number.
nlohmann::json pages_json(const std::map<int, uint64_t>& pages) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [node, n] : pages) j[std::to_string(node)] = n;
    return j;
}
std::map<int, uint64_t> pages_from_json(const nlohmann::json& j, const char* name) {
    if (!j.is_object() || j.size() > 1024)
        throw ProtocolError(std::string("field '") + name + "' must be a small object");
    std::map<int, uint64_t> pages;
    for (const auto& [node, n] : j.items()) {
        try {
            pages[std::stoi(node)] = value_as<uint64_t>(n, name);
        } catch (const std::exception&) {
            throw ProtocolError(std::string("field '") + name + "' holds a bad entry");
        }
    }
    return pages;
}

const auto kToJson = [](const auto& v) { return to_json(v); };

const auto kPlacementFields = std::make_tuple(
    str("interface", &Placement::interface), str("pci", &Placement::pci),
    number("device_numa_node", &Placement::device_numa_node, -1, 65535),
    number("mem_node", &Placement::mem_node, -1, 65535),
    custom("buffer_pages_by_node", &Placement::buffer_pages_by_node, pages_json, pages_from_json),
    list("cpu_nodes", &Placement::cpu_nodes, kMaxStreams), list("irqs", &Placement::irqs, 4096, kIrqFields),
    str("irq_note", &Placement::irq_note),
    optional(custom("gpu", &Placement::gpu, kToJson, gpu_placement_from_json)));  // optional: older peers

const auto kZeroCopyFields = std::make_tuple(
    number("sent_bytes", &ZeroCopyCounts::sent_bytes), number("copied_bytes", &ZeroCopyCounts::copied_bytes),
    number("completions", &ZeroCopyCounts::completions), number("enobufs", &ZeroCopyCounts::enobufs),
    number("rx_mapped_bytes", &ZeroCopyCounts::rx_mapped_bytes),
    number("rx_copied_bytes", &ZeroCopyCounts::rx_copied_bytes));

Role role_from_name(const std::string& name) {
    for (Role r : {Role::send, Role::recv})
        if (name == role_name(r)) return r;
    throw std::invalid_argument("must be send or recv");
}

constexpr double kMaxSeconds = 1e7;

// Optional blocks, sent where the side has them.
bool has_explain(const SideResult& s) { return s.explain.ran || !s.explain.problem.empty(); }
bool has_pacing(const SideResult& s) { return s.pacing.asked(); }

const auto kSideResultFields = std::make_tuple(
    str("host", &SideResult::host), named("role", &SideResult::role, role_name, role_from_name),
    number("bytes", &SideResult::bytes), number("ops", &SideResult::ops), str("path", &SideResult::path),
    object(kZeroCopyKey, &SideResult::zerocopy, kZeroCopyFields),
    number("elapsed_s", &SideResult::elapsed_s, 0, kMaxSeconds),
    number("loops_s", &SideResult::loops_s, 0, kMaxSeconds, 0),  // absent (an older server): not known
    list("stream_bytes", &SideResult::stream_bytes, kMaxStreams), list("cpus", &SideResult::cpus, kMaxStreams),
    object("cpu", &SideResult::cpu, kCpuUsageFields), number("process_user_s", &SideResult::process_user_s),
    number("process_sys_s", &SideResult::process_sys_s), object("placement", &SideResult::placement, kPlacementFields),
    number("socket_send_buffer", &SideResult::socket_send_buffer),
    number("socket_recv_buffer", &SideResult::socket_recv_buffer),
    // These two: absent from older servers, which measured neither.
    number("longest_call_s", &SideResult::longest_call_s, 0, kMaxSeconds, 0),
    number("longest_call_end_s", &SideResult::longest_call_end_s, 0, kMaxSeconds, 0),
    list("warnings", &SideResult::warnings, 64),
    optional(list("shared_with", &SideResult::shared_with, 64, kToJson, concurrent_test_from_json)),
    optional(custom("messages", &SideResult::messages, kToJson, message_side_from_json)),
    optional(custom("memory", &SideResult::memory, kToJson, memory_report_from_json)),
    sent_if(has_pacing, custom(kPacingKey, &SideResult::pacing, kToJson, pacing_report_from_json)),  // -b only
    sent_if(has_explain, custom(kExplainKey, &SideResult::explain, kToJson, explain_side_from_json)));

}  // namespace

nlohmann::json to_json(const CpuUsage& u) { return encoded(u, kCpuUsageFields); }
CpuUsage cpu_usage_from_json(const nlohmann::json& j) { return decoded<CpuUsage>(j, kCpuUsageFields); }

nlohmann::json to_json(const SideResult& s) {
    nlohmann::json j = encoded(s, kSideResultFields);
    kind_blocks_to_json(s.kinds, j);
    return j;
}

SideResult side_result_from_json(const nlohmann::json& j) {
    try {
        SideResult s = decoded<SideResult>(j, kSideResultFields);
        s.kinds = kind_blocks_from_json(j);
        return s;
    } catch (const nlohmann::json::exception& e) {
        throw ProtocolError(std::string("malformed result: ") + e.what());
    }
}

const char* explain_unit(Workload t) {
    return is_transaction_test(t) ? "us/tran" : t == Workload::msgrate ? "us/msg" : "us/KB";
}

double explain_units(const TestResult& r, const SideResult& s) {
    if (is_message_test(r.test)) return static_cast<double>(r.messages.messages);
    return static_cast<double>(s.bytes) / 1024.0;
}

}  // namespace zc
