#include "protocol/result.hpp"

#include "measure/service_demand.hpp"
#include "protocol/explain_json.hpp"
#include "protocol/json_fields.hpp"

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

nlohmann::json to_json(const CpuShare& s) {
    return {{"user", s.user},       {"nice", s.nice},     {"system", s.system}, {"irq", s.irq},
            {"softirq", s.softirq}, {"iowait", s.iowait}, {"steal", s.steal},   {"idle", s.idle}};
}

CpuShare share_from_json(const nlohmann::json& j) {
    CpuShare s;
    s.user = field<double>(j, "user");
    s.nice = field<double>(j, "nice");
    s.system = field<double>(j, "system");
    s.irq = field<double>(j, "irq");
    s.softirq = field<double>(j, "softirq");
    s.iowait = field<double>(j, "iowait");
    s.steal = field<double>(j, "steal");
    s.idle = field<double>(j, "idle");
    return s;
}

const nlohmann::json& array_field(const nlohmann::json& j, const char* name, size_t max) {
    auto it = j.find(name);
    if (it == j.end() || !it->is_array() || it->size() > max) {
        throw ProtocolError(std::string("field '") + name + "' must be an array of at most " + std::to_string(max));
    }
    return *it;
}

nlohmann::json to_json(const Placement& p) {
    nlohmann::json irqs = nlohmann::json::array();
    for (const auto& i : p.irqs) {
        irqs.push_back({{"irq", i.irq},
                        {"name", i.name},
                        {"affinity", i.affinity},
                        {"affinity_before", i.affinity_before},
                        {"interrupts", i.interrupts},
                        {"per_cpu", i.per_cpu}});
    }
    nlohmann::json pages = nlohmann::json::object();
    for (const auto& [node, n] : p.buffer_pages_by_node) pages[std::to_string(node)] = n;
    return {{"interface", p.interface},
            {"pci", p.pci},
            {"device_numa_node", p.device_numa_node},
            {"mem_node", p.mem_node},
            {"buffer_pages_by_node", pages},
            {"cpu_nodes", p.cpu_nodes},
            {"irqs", irqs},
            {"irq_note", p.irq_note},
            {"gpu", to_json(p.gpu)}};
}

Placement placement_from_json(const nlohmann::json& j) {
    Placement p;
    p.interface = field<std::string>(j, "interface");
    p.pci = field<std::string>(j, "pci");
    p.device_numa_node = field_in<int>(j, "device_numa_node", -1, 65535);
    p.mem_node = field_in<int>(j, "mem_node", -1, 65535);
    const auto& pages = j.at("buffer_pages_by_node");
    if (!pages.is_object() || pages.size() > 1024)
        throw ProtocolError("field 'buffer_pages_by_node' must be a small object");
    for (const auto& [node, n] : pages.items()) {
        try {
            p.buffer_pages_by_node[std::stoi(node)] = value_as<uint64_t>(n, "buffer_pages_by_node");
        } catch (const std::exception&) {
            throw ProtocolError("field 'buffer_pages_by_node' holds a bad entry");
        }
    }
    for (const auto& n : array_field(j, "cpu_nodes", kMaxStreams)) p.cpu_nodes.push_back(value_as<int>(n, "cpu_nodes"));
    for (const auto& i : array_field(j, "irqs", 4096)) {
        IrqReport r;
        r.irq = field<int>(i, "irq");
        r.name = field<std::string>(i, "name");
        r.affinity = field<std::string>(i, "affinity");
        r.affinity_before = field<std::string>(i, "affinity_before");
        r.interrupts = field<uint64_t>(i, "interrupts");
        for (const auto& v : array_field(i, "per_cpu", 65536)) r.per_cpu.push_back(value_as<uint64_t>(v, "per_cpu"));
        p.irqs.push_back(std::move(r));
    }
    p.irq_note = field<std::string>(j, "irq_note");
    if (j.contains("gpu")) p.gpu = gpu_placement_from_json(j.at("gpu"));  // optional: older peers
    return p;
}

}  // namespace

nlohmann::json to_json(const CpuUsage& u) {
    nlohmann::json per = nlohmann::json::array();
    for (const auto& c : u.per_cpu) {
        auto o = to_json(c.share);
        o["cpu"] = c.cpu;
        per.push_back(o);
    }
    nlohmann::json top = nlohmann::json::array();
    for (const auto& t : u.others.top) top.push_back({{"pid", t.pid}, {"comm", t.comm}, {"cpu_s", t.cpu_s}});
    return {{"elapsed_s", u.elapsed_s},  {"ncpus", u.ncpus},
            {"all_pct", to_json(u.all)}, {"busy_cpu_s", u.busy_cpu_s},
            {"per_cpu_pct", per},        {"other_processes", {{"cpu_s", u.others.cpu_s}, {"top", top}}}};
}

CpuUsage cpu_usage_from_json(const nlohmann::json& j) {
    CpuUsage u;
    u.elapsed_s = field_in<double>(j, "elapsed_s", 0, 1e7);
    u.ncpus = field_in<int>(j, "ncpus", 1, 65536);
    u.all = share_from_json(j.at("all_pct"));
    u.busy_cpu_s = field<double>(j, "busy_cpu_s");
    for (const auto& c : array_field(j, "per_cpu_pct", 65536))
        u.per_cpu.push_back({field<int>(c, "cpu"), share_from_json(c)});
    const auto& others = j.at("other_processes");
    u.others.cpu_s = field<double>(others, "cpu_s");
    for (const auto& t : array_field(others, "top", 64)) {
        u.others.top.push_back({field<int>(t, "pid"), field<std::string>(t, "comm"), field<double>(t, "cpu_s")});
    }
    return u;
}

nlohmann::json to_json(const SideResult& s) {
    nlohmann::json shared = nlohmann::json::array();
    for (const auto& t : s.shared_with) shared.push_back(to_json(t));
    nlohmann::json j = {{"host", s.host},
                        {"role", role_name(s.role)},
                        {"bytes", s.bytes},
                        {"ops", s.ops},
                        {"path", s.path},
                        {"zerocopy",
                         {{"sent_bytes", s.zerocopy.sent_bytes},
                          {"copied_bytes", s.zerocopy.copied_bytes},
                          {"completions", s.zerocopy.completions},
                          {"enobufs", s.zerocopy.enobufs},
                          {"rx_mapped_bytes", s.zerocopy.rx_mapped_bytes},
                          {"rx_copied_bytes", s.zerocopy.rx_copied_bytes}}},
                        {"elapsed_s", s.elapsed_s},
                        {"loops_s", s.loops_s},
                        {"stream_bytes", s.stream_bytes},
                        {"cpus", s.cpus},
                        {"cpu", to_json(s.cpu)},
                        {"process_user_s", s.process_user_s},
                        {"process_sys_s", s.process_sys_s},
                        {"placement", to_json(s.placement)},
                        {"socket_send_buffer", s.socket_send_buffer},
                        {"socket_recv_buffer", s.socket_recv_buffer},
                        {"rcv_lowat", s.rcv_lowat},
                        {"longest_call_s", s.longest_call_s},
                        {"longest_call_end_s", s.longest_call_end_s},
                        {"warnings", s.warnings},
                        {"shared_with", shared},
                        {"messages", to_json(s.messages)},
                        {"memory", to_json(s.memory)}};
    if (!s.rdma.empty()) j["rdma"] = to_json(s.rdma);
    if (s.explain.ran || !s.explain.problem.empty()) j["explain"] = to_json(s.explain);
    if (!s.udp.empty()) j["udp"] = to_json(s.udp);
    if (!s.flow_bytes.empty()) j["flow_bytes"] = s.flow_bytes;
    if (!s.tcp.empty()) j["tcp_info"] = to_json(s.tcp);
    if (!s.tcp_settings.congestion.empty()) j["tcp_settings"] = to_json(s.tcp_settings);
    if (!s.connection_close.empty()) j["connection_close"] = s.connection_close;
    return j;
}

SideResult side_result_from_json(const nlohmann::json& j) {
    try {
        SideResult s;
        s.host = field<std::string>(j, "host");
        std::string role = field<std::string>(j, "role");
        if (role != "send" && role != "recv") throw ProtocolError("field 'role' must be send or recv");
        s.role = role == "send" ? Role::send : Role::recv;
        s.bytes = field<uint64_t>(j, "bytes");
        s.ops = field<uint64_t>(j, "ops");
        s.path = field<std::string>(j, "path");
        const auto& zc = j.at("zerocopy");
        s.zerocopy.sent_bytes = field<uint64_t>(zc, "sent_bytes");
        s.zerocopy.copied_bytes = field<uint64_t>(zc, "copied_bytes");
        s.zerocopy.completions = field<uint64_t>(zc, "completions");
        s.zerocopy.enobufs = field<uint64_t>(zc, "enobufs");
        s.zerocopy.rx_mapped_bytes = field<uint64_t>(zc, "rx_mapped_bytes");
        s.zerocopy.rx_copied_bytes = field<uint64_t>(zc, "rx_copied_bytes");
        s.elapsed_s = field_in<double>(j, "elapsed_s", 0, 1e7);
        if (j.contains("loops_s")) s.loops_s = field_in<double>(j, "loops_s", 0, 1e7);  // absent from older servers
        for (const auto& b : array_field(j, "stream_bytes", kMaxStreams))
            s.stream_bytes.push_back(value_as<uint64_t>(b, "stream_bytes"));
        for (const auto& c : array_field(j, "cpus", kMaxStreams)) s.cpus.push_back(value_as<int>(c, "cpus"));
        s.cpu = cpu_usage_from_json(j.at("cpu"));
        s.process_user_s = field<double>(j, "process_user_s");
        s.process_sys_s = field<double>(j, "process_sys_s");
        s.placement = placement_from_json(j.at("placement"));
        s.socket_send_buffer = field<uint64_t>(j, "socket_send_buffer");
        s.socket_recv_buffer = field<uint64_t>(j, "socket_recv_buffer");
        s.rcv_lowat = field_or<uint64_t>(j, "rcv_lowat", 0);  // absent from older servers
        if (j.contains("longest_call_s")) {                   // absent from older servers
            s.longest_call_s = field_in<double>(j, "longest_call_s", 0, 1e7);
            s.longest_call_end_s = field_in<double>(j, "longest_call_end_s", 0, 1e7);
        }
        for (const auto& w : array_field(j, "warnings", 64)) s.warnings.push_back(value_as<std::string>(w, "warnings"));
        if (j.contains("shared_with"))  // absent from older servers
            for (const auto& t : array_field(j, "shared_with", 64))
                s.shared_with.push_back(shared_host_test_from_json(t));
        if (j.contains("messages")) s.messages = message_side_from_json(j.at("messages"));  // absent from older servers
        if (j.contains("rdma")) s.rdma = rdma_info_from_json(j.at("rdma"));
        if (j.contains("udp")) s.udp = udp_info_from_json(j.at("udp"));
        if (j.contains("flow_bytes"))  // --flows only
            for (const auto& b : array_field(j, "flow_bytes", kMaxDataConnections))
                s.flow_bytes.push_back(value_as<uint64_t>(b, "flow_bytes"));
        if (j.contains("memory")) s.memory = memory_report_from_json(j.at("memory"));    // optional: older peers
        if (j.contains("explain")) s.explain = explain_side_from_json(j.at("explain"));  // --explain only
        s.tcp = tcp_samples_from_json(j, "tcp_info");  // these three: absent from older peers, and off TCP
        if (j.contains("tcp_settings")) s.tcp_settings = tcp_tuning_from_json(j.at("tcp_settings"));
        if (j.contains("connection_close")) {
            s.connection_close = field<std::string>(j, "connection_close");
            if (s.connection_close.size() > 200) throw ProtocolError("field 'connection_close' is too long");
        }
        return s;
    } catch (const nlohmann::json::exception& e) {
        throw ProtocolError(std::string("malformed result: ") + e.what());
    }
}

FlowFigures flow_figures(const SideResult& s) {
    FlowFigures f;
    f.flows = flow_stats(s.flow_bytes);
    auto bps = [&](uint64_t bytes) { return s.elapsed_s > 0 ? static_cast<double>(bytes) * 8 / s.elapsed_s : 0.0; };
    f.min_bps = bps(f.flows.min_bytes);
    f.median_bps = bps(f.flows.median_bytes);
    f.max_bps = bps(f.flows.max_bytes);
    return f;
}

namespace {
nlohmann::json side_summary(const SideResult& s) {
    auto j = to_json(s);
    if (FlowFigures f = flow_figures(s); f.flows.flows > 0) {
        j["flows"] = {
            {"count", f.flows.flows},         {"min_bytes", f.flows.min_bytes}, {"median_bytes", f.flows.median_bytes},
            {"max_bytes", f.flows.max_bytes}, {"min_bps", f.min_bps},           {"median_bps", f.median_bps},
            {"max_bps", f.max_bps},           {"jain_index", f.flows.jain}};
    }
    if (j.contains("tcp_info")) {
        for (size_t i = 0; i < s.tcp.size(); ++i) j["tcp_info"][i]["limited_by"] = tcp_limit_line(s.tcp[i]);
    }
    j["cpu_util_pct"] = s.cpu_util_pct();
    j["service_demand_us_per_kb"] = s.service_demand_us_per_kb();
    j["process_cpu_util_pct"] = s.process_cpu_util_pct();
    j["process_service_demand_us_per_kb"] = s.process_service_demand_us_per_kb();
    j["test_cpus_busy_s"] = s.test_cpus_busy_s();
    j["test_cpus_service_demand_us_per_kb"] = service_demand_us_per_kb(s.test_cpus_busy_s(), s.bytes);
    j["other_processes_cpu_pct_of_one_cpu"] = s.others_cpu_pct_of_one_cpu();
    j["whole_host_cpu_shared"] = s.host_shared();
    if (s.zerocopy.sent_bytes > 0) {
        j["zerocopy"]["copied_pct"] =
            100.0 * static_cast<double>(s.zerocopy.copied_bytes) / static_cast<double>(s.zerocopy.sent_bytes);
    }
    if (s.zerocopy.rx_mapped_bytes + s.zerocopy.rx_copied_bytes > 0) {
        j["zerocopy"]["rx_mapped_pct"] = 100.0 * static_cast<double>(s.zerocopy.rx_mapped_bytes) /
                                         static_cast<double>(s.zerocopy.rx_mapped_bytes + s.zerocopy.rx_copied_bytes);
    }
    return j;
}
}  // namespace

const char* explain_unit(TestKind t) {
    return is_transaction_test(t) ? "us/tran" : t == TestKind::msgrate ? "us/msg" : "us/KB";
}

double explain_units(const TestResult& r, const SideResult& s) {
    if (is_message_test(r.test)) return static_cast<double>(r.messages.messages);
    return static_cast<double>(s.bytes) / 1024.0;
}

namespace {
// The JSON report's explain object gains each category per unit, and the deltas against the baseline.
void add_explain_per_unit(nlohmann::json& side, const TestResult& r, const SideResult& s,
                          const std::vector<std::pair<Category, double>>& delta) {
    if (!s.explain.ran) return;
    double units = explain_units(r, s);
    nlohmann::json per = nlohmann::json::object();
    for (size_t i = 0; i < kCategoryCount; ++i)
        per[category_names()[i].key] = explain_per_unit(s.explain.category_s[i], units);
    auto& e = side["explain"];
    e["unit"] = explain_unit(r.test);
    e["per_unit"] = per;
    e["sampled_per_unit"] = explain_per_unit(s.explain.busy_s, units);
    // Each category's share of the sampled busy time and its 95 % sampling error (binomial), in %.
    nlohmann::json share = nlohmann::json::object(), error = nlohmann::json::object();
    for (size_t i = 0; i < kCategoryCount; ++i) {
        const char* key = category_names()[i].key;
        share[key] = s.explain.busy_s > 0 ? 100.0 * s.explain.category_s[i] / s.explain.busy_s : 0.0;
        error[key] = share_error_pct(s.explain.category_samples[i], s.explain.busy_samples);
    }
    e["share_pct"] = share;
    e["share_error_pct"] = error;
    if (!delta.empty()) {
        nlohmann::json d = nlohmann::json::object();
        for (const auto& [c, v] : delta) d[category_key(c)] = v;
        e["delta_vs_baseline_per_unit"] = d;
    }
}
}  // namespace

nlohmann::json to_json(const TestResult& r) {
    nlohmann::json j = {
        {"transport", transport_name(r.transport)},
        {"test", test_name(r.test)},
        {"rx", rx_mode_name(r.rx)},
        {"message_size", r.message_size},
        {"streams", r.streams},
        {"bytes", r.bytes},
        {"elapsed_s", r.elapsed_s},
        {"throughput_gbps", r.throughput_gbps},
        {"setup_ms", r.setup_ms},
        {"iterations",
         {{"count", r.iterations.iterations},
          {"confidence_level_pct", r.iterations.level_pct},
          {"width_goal_pct", r.iterations.width_goal_pct},
          {"throughput_width_pct", r.iterations.throughput_width_pct},
          {"metric", r.iterations.metric},
          {"met", r.iterations.met}}},
        {"baseline", r.baseline.transport.empty()
                         ? nlohmann::json(nullptr)
                         : nlohmann::json{{"transport", r.baseline.transport},
                                          {"throughput_ratio", r.baseline.throughput},
                                          {"local_service_demand_ratio", r.baseline.local_service_demand},
                                          {"remote_service_demand_ratio", r.baseline.remote_service_demand}}},
        {"local", side_summary(r.local)},
        {"remote", side_summary(r.remote)},
        {"warnings", r.warnings}};
    if (is_message_test(r.test)) j[test_name(r.test)] = to_json(r.messages, r.test, r.message_size);
    add_explain_per_unit(j["local"], r, r.local, r.baseline.local_explain_delta);
    add_explain_per_unit(j["remote"], r, r.remote, r.baseline.remote_explain_delta);
    if (!r.bidir_with.empty()) j["bidir"] = {{"with", r.bidir_with}, {"sum_gbps", r.bidir_sum_gbps}};
    if (r.interval_s > 0) {
        j["interval_s"] = r.interval_s;
        j["intervals"] = nlohmann::json::array();
        for (const auto& row : r.intervals) j["intervals"].push_back(to_json(row, r.test));
    }
    return j;
}

}  // namespace zc
