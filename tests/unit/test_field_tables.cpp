// The results and control messages through their field tables (protocol/field_table.hpp): every field of
// every converted struct survives encode then decode with a value other than its default (a field
// dropped from a table fails here), an older peer's message without the newer fields decodes with their
// defaults, and a malformed nested value is a ProtocolError naming the field.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "protocol/field_table.hpp"
#include "protocol/messages.hpp"

using namespace zc;
using nlohmann::json;

namespace {

LatencyHistogram histogram(std::initializer_list<uint64_t> ns) {
    LatencyHistogram h;
    h.prepare();
    for (uint64_t v : ns) h.record(v);
    return h;
}

void expect_histogram_eq(const LatencyHistogram& a, const LatencyHistogram& b) {
    EXPECT_EQ(a.count(), b.count());
    EXPECT_EQ(a.min(), b.min());
    EXPECT_EQ(a.max(), b.max());
    EXPECT_EQ(a.sum(), b.sum());
    EXPECT_EQ(a.sparse(), b.sparse());
}

// Every field set, none to its default.
SideResult full_side() {
    SideResult s;
    s.host = "client-1";
    s.role = Role::recv;
    s.bytes = 12345678901234ull;
    s.ops = 987654;
    s.path = "rx-zerocopy";
    s.zerocopy = {11, 12, 13, 14, 15, 16};
    s.elapsed_s = 10.5;
    s.loops_s = 10.25;
    s.stream_bytes = {1, 2};
    s.flow_bytes = {3, 4, 5, 6};
    s.cpus = {2, 3};
    s.cpu.elapsed_s = 10.0002;
    s.cpu.ncpus = 4;
    s.cpu.all = {12.5, 0.25, 30.125, 1.5, 8.75, 0.1, 0.05, 46.725};
    s.cpu.busy_cpu_s = 2.1045;
    s.cpu.per_cpu = {{7, {1, 2, 3, 4, 5, 6, 7, 8}}};
    s.cpu.others.cpu_s = 0.73;
    s.cpu.others.top = {{4242, "tmux: server", 0.5}};
    s.process_user_s = 0.125;
    s.process_sys_s = 1.5;
    Placement& p = s.placement;
    p.interface = "enp1s0f0np0";
    p.pci = "0000:01:00.0";
    p.device_numa_node = 1;
    p.mem_node = 2;
    p.buffer_pages_by_node = {{0, 12}, {3, 4096}};
    p.cpu_nodes = {1, 0};
    p.irqs = {{142, "mlx5_comp0", "6", "0-15", 123456, {0, 5, 7}}};
    p.irq_note = "IRQs moved";
    p.gpu = {"cuda:1", "NVIDIA H200", "0000:3b:00.0", 1, "pci0000:17/0000:3b:00.0", "same root port", true};
    s.socket_send_buffer = 425984;
    s.socket_recv_buffer = 131072;
    s.rcv_lowat = 65536;
    s.longest_call_s = 0.25;
    s.longest_call_end_s = 3.5;
    s.warnings = {"w1", "w2"};
    s.shared_with = {{"zcperf", 4321, "10.0.0.2", "tcp stream", 1.5, {4, 5}, true}};
    s.messages.messages = 1000;
    s.messages.stream_messages = {600, 400};
    s.messages.segments = 1100;
    s.messages.rtt = histogram({1000, 2000, 3000000});
    s.messages.connect = histogram({50000, 70000});
    MemoryReport& m = s.memory;
    m.buffer = "cuda:1";
    m.gpu_path = "staged";
    m.gpu_path_note = "direct refused: ibv_reg_dmabuf_mr";
    m.stage_slot_bytes = 1 << 20;
    m.stage_slots = 4;
    m.stage_batch = 16;
    m.staging = {101, 102, 103, 104};
    s.tcp_settings.congestion = "bbr";
    s.tcp_settings.family = "IPv6";
    s.connection_close = "close() after the response";
    return s;
}

void expect_full_side_eq(const SideResult& a, const SideResult& b) {
    EXPECT_EQ(a.host, b.host);
    EXPECT_EQ(a.role, b.role);
    EXPECT_EQ(a.bytes, b.bytes);
    EXPECT_EQ(a.ops, b.ops);
    EXPECT_EQ(a.path, b.path);
    EXPECT_EQ(a.zerocopy.sent_bytes, b.zerocopy.sent_bytes);
    EXPECT_EQ(a.zerocopy.copied_bytes, b.zerocopy.copied_bytes);
    EXPECT_EQ(a.zerocopy.completions, b.zerocopy.completions);
    EXPECT_EQ(a.zerocopy.enobufs, b.zerocopy.enobufs);
    EXPECT_EQ(a.zerocopy.rx_mapped_bytes, b.zerocopy.rx_mapped_bytes);
    EXPECT_EQ(a.zerocopy.rx_copied_bytes, b.zerocopy.rx_copied_bytes);
    EXPECT_DOUBLE_EQ(a.elapsed_s, b.elapsed_s);
    EXPECT_DOUBLE_EQ(a.loops_s, b.loops_s);
    EXPECT_EQ(a.stream_bytes, b.stream_bytes);
    EXPECT_EQ(a.flow_bytes, b.flow_bytes);
    EXPECT_EQ(a.cpus, b.cpus);
    EXPECT_DOUBLE_EQ(a.cpu.elapsed_s, b.cpu.elapsed_s);
    EXPECT_EQ(a.cpu.ncpus, b.cpu.ncpus);
    EXPECT_DOUBLE_EQ(a.cpu.all.user, b.cpu.all.user);
    EXPECT_DOUBLE_EQ(a.cpu.all.idle, b.cpu.all.idle);
    EXPECT_DOUBLE_EQ(a.cpu.busy_cpu_s, b.cpu.busy_cpu_s);
    ASSERT_EQ(b.cpu.per_cpu.size(), 1u);
    EXPECT_EQ(b.cpu.per_cpu[0].cpu, 7);
    const CpuShare& x = b.cpu.per_cpu[0].share;
    EXPECT_EQ((std::vector<double>{x.user, x.nice, x.system, x.irq, x.softirq, x.iowait, x.steal, x.idle}),
              (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8}));
    EXPECT_DOUBLE_EQ(a.cpu.others.cpu_s, b.cpu.others.cpu_s);
    ASSERT_EQ(b.cpu.others.top.size(), 1u);
    EXPECT_EQ(b.cpu.others.top[0].pid, 4242);
    EXPECT_EQ(b.cpu.others.top[0].comm, "tmux: server");
    EXPECT_DOUBLE_EQ(b.cpu.others.top[0].cpu_s, 0.5);
    EXPECT_DOUBLE_EQ(a.process_user_s, b.process_user_s);
    EXPECT_DOUBLE_EQ(a.process_sys_s, b.process_sys_s);
    const Placement& p = a.placement;
    const Placement& q = b.placement;
    EXPECT_EQ(p.interface, q.interface);
    EXPECT_EQ(p.pci, q.pci);
    EXPECT_EQ(p.device_numa_node, q.device_numa_node);
    EXPECT_EQ(p.mem_node, q.mem_node);
    EXPECT_EQ(p.buffer_pages_by_node, q.buffer_pages_by_node);
    EXPECT_EQ(p.cpu_nodes, q.cpu_nodes);
    ASSERT_EQ(q.irqs.size(), 1u);
    EXPECT_EQ(q.irqs[0].irq, 142);
    EXPECT_EQ(q.irqs[0].name, "mlx5_comp0");
    EXPECT_EQ(q.irqs[0].affinity, "6");
    EXPECT_EQ(q.irqs[0].affinity_before, "0-15");
    EXPECT_EQ(q.irqs[0].interrupts, 123456u);
    EXPECT_EQ(q.irqs[0].per_cpu, (std::vector<uint64_t>{0, 5, 7}));
    EXPECT_EQ(p.irq_note, q.irq_note);
    EXPECT_EQ(p.gpu.device, q.gpu.device);
    EXPECT_EQ(p.gpu.name, q.gpu.name);
    EXPECT_EQ(p.gpu.pci, q.gpu.pci);
    EXPECT_EQ(p.gpu.numa_node, q.gpu.numa_node);
    EXPECT_EQ(p.gpu.pcie_path, q.gpu.pcie_path);
    EXPECT_EQ(p.gpu.nic_relation, q.gpu.nic_relation);
    EXPECT_EQ(p.gpu.shares_root_port, q.gpu.shares_root_port);
    EXPECT_EQ(a.socket_send_buffer, b.socket_send_buffer);
    EXPECT_EQ(a.socket_recv_buffer, b.socket_recv_buffer);
    EXPECT_EQ(a.rcv_lowat, b.rcv_lowat);
    EXPECT_DOUBLE_EQ(a.longest_call_s, b.longest_call_s);
    EXPECT_DOUBLE_EQ(a.longest_call_end_s, b.longest_call_end_s);
    EXPECT_EQ(a.warnings, b.warnings);
    ASSERT_EQ(b.shared_with.size(), 1u);
    EXPECT_EQ(b.shared_with[0].pid, 4321);
    EXPECT_EQ(b.shared_with[0].cpus, (std::vector<int>{4, 5}));
    EXPECT_TRUE(b.shared_with[0].died);
    EXPECT_EQ(a.messages.messages, b.messages.messages);
    EXPECT_EQ(a.messages.stream_messages, b.messages.stream_messages);
    EXPECT_EQ(a.messages.segments, b.messages.segments);
    expect_histogram_eq(a.messages.rtt, b.messages.rtt);
    expect_histogram_eq(a.messages.connect, b.messages.connect);
    const MemoryReport& m = a.memory;
    const MemoryReport& n = b.memory;
    EXPECT_EQ(m.buffer, n.buffer);
    EXPECT_EQ(m.gpu_path, n.gpu_path);
    EXPECT_EQ(m.gpu_path_note, n.gpu_path_note);
    EXPECT_EQ(m.stage_slot_bytes, n.stage_slot_bytes);
    EXPECT_EQ(m.stage_slots, n.stage_slots);
    EXPECT_EQ(m.stage_batch, n.stage_batch);
    EXPECT_EQ(m.staging.bytes, n.staging.bytes);
    EXPECT_EQ(m.staging.copies, n.staging.copies);
    EXPECT_EQ(m.staging.copy_ns, n.staging.copy_ns);
    EXPECT_EQ(m.staging.wait_ns, n.staging.wait_ns);
    EXPECT_EQ(a.tcp_settings.congestion, b.tcp_settings.congestion);
    EXPECT_EQ(a.tcp_settings.family, b.tcp_settings.family);
    EXPECT_EQ(a.connection_close, b.connection_close);
}

template <class M>
M through_wire(const M& m) {
    return std::get<M>(decode_body(encode_body(m)));
}

}  // namespace

TEST(FieldTableRoundTrip, EveryFieldOfASideResult) {
    SideResult a = full_side();
    expect_full_side_eq(a, through_wire(ResultMsg{a}).side);
}

TEST(FieldTableRoundTrip, OptionalBlocksAreLeftOutWhenEmptyAndStayEmpty) {
    SideResult a = full_side();
    a.flow_bytes.clear();
    a.connection_close.clear();
    a.tcp_settings = {};
    a.messages.rtt = {};
    a.messages.connect = {};
    json j = to_json(a);
    for (const char* f : {"flow_bytes", "connection_close", "tcp_settings", "rdma", "udp", "explain", "tcp_info"})
        EXPECT_FALSE(j.contains(f)) << f;
    EXPECT_FALSE(j["messages"].contains("rtt_ns"));
    EXPECT_FALSE(j["messages"].contains("connect_ns"));
    SideResult b = side_result_from_json(j);
    EXPECT_TRUE(b.flow_bytes.empty());
    EXPECT_TRUE(b.connection_close.empty());
    EXPECT_EQ(b.messages.rtt.count(), 0u);
}

// What a peer from before each optional field sent: the fields it lacks keep their defaults.
TEST(FieldTableOlderPeer, SideResultWithoutTheNewerFieldsDecodesWithDefaults) {
    json j = to_json(full_side());
    for (const char* f : {"loops_s", "rcv_lowat", "longest_call_s", "longest_call_end_s", "shared_with", "messages",
                          "memory", "flow_bytes", "tcp_settings", "connection_close"})
        j.erase(f);
    j["placement"].erase("gpu");
    SideResult s = side_result_from_json(j);
    SideResult d;
    EXPECT_EQ(s.loops_s, 0);
    EXPECT_EQ(s.measured_s(), s.elapsed_s);
    EXPECT_EQ(s.rcv_lowat, 0u);
    EXPECT_EQ(s.longest_call_s, 0);
    EXPECT_EQ(s.longest_call_end_s, 0);
    EXPECT_TRUE(s.shared_with.empty());
    EXPECT_EQ(s.messages.messages, 0u);
    EXPECT_EQ(s.memory.buffer, d.memory.buffer);  // "host"
    EXPECT_EQ(s.placement.gpu.numa_node, -1);
    EXPECT_TRUE(s.placement.gpu.device.empty());
    EXPECT_TRUE(s.flow_bytes.empty());
    EXPECT_TRUE(s.tcp_settings.congestion.empty());
    EXPECT_TRUE(s.connection_close.empty());
    EXPECT_EQ(s.bytes, 12345678901234ull);  // and the rest as sent

    // Older still: a memory block without the note, a histogram without its count.
    j = to_json(full_side());
    j["memory"].erase("gpu_path_note");
    j["messages"]["rtt_ns"].erase("count");
    s = side_result_from_json(j);
    EXPECT_TRUE(s.memory.gpu_path_note.empty());
    EXPECT_EQ(s.memory.gpu_path, "staged");
    EXPECT_EQ(s.messages.rtt.count(), 3u);
}

TEST(FieldTableOlderPeer, MessagesWithoutTheNewerFields) {
    Hello h = std::get<Hello>(decode_body(R"({"type":"hello","version":1})"));
    EXPECT_EQ(h.pid, 0);
    EXPECT_TRUE(h.nonce.empty());
    Ready r = std::get<Ready>(decode_body(R"({"type":"ready","data_port":5001,"token":7})"));
    EXPECT_EQ(r.data_port, 5001);
    EXPECT_EQ(r.token, 7u);
    EXPECT_EQ(r.waited_s, 0);
    json d = {{"kind", "nic"}, {"name", "eth0"}, {"pci", ""}, {"numa_node", -1}};
    Topology t = topology_from_json({{"nodes", json::array()}, {"devices", {d}}});
    ASSERT_EQ(t.devices.size(), 1u);
    EXPECT_TRUE(t.devices[0].pcie_path.empty());
    SideInterval i = side_interval_from_json(to_json(SideInterval{}));
    EXPECT_EQ(i.shared_tests, 0u);
}

TEST(FieldTableRoundTrip, EveryFieldOfTheControlMessages) {
    Hello h{3, "zcperf 9", "boot-1", 4321, "nonce-1"};
    Hello g = through_wire(h);
    EXPECT_EQ(g.version, 3);
    EXPECT_EQ(g.software, h.software);
    EXPECT_EQ(g.boot_id, h.boot_id);
    EXPECT_EQ(g.pid, h.pid);
    EXPECT_EQ(g.nonce, h.nonce);

    Welcome w;
    w.software = "zcserver 9";
    w.auth_challenge = "challenge";
    w.auth_proof = "proof";
    w.has_host = true;
    w.host = {"server-1", "6.8.0", "boot-2", 99, {0, 2}, {0, 1}, {"tcp", "udp"}, {"host", "pinned"}, {}};
    w.host.topology.node_cpus = {{0, {0, 1}}, {1, {2, 3}}};
    w.host.topology.devices = {{"rdma", "mlx5_0", "0000:3b:00.0", 1, "pci0000:17/0000:3b:00.0"}};
    w.features = {"intervals", "flows"};
    Welcome v = through_wire(w);
    EXPECT_EQ(v.version, kProtocolVersion);
    EXPECT_EQ(v.software, w.software);
    EXPECT_EQ(v.auth_challenge, w.auth_challenge);
    EXPECT_EQ(v.auth_proof, w.auth_proof);
    EXPECT_TRUE(v.has_host);
    EXPECT_EQ(v.host.hostname, "server-1");
    EXPECT_EQ(v.host.kernel, "6.8.0");
    EXPECT_EQ(v.host.boot_id, "boot-2");
    EXPECT_EQ(v.host.pid, 99);
    EXPECT_EQ(v.host.cpus, w.host.cpus);
    EXPECT_EQ(v.host.numa_nodes, w.host.numa_nodes);
    EXPECT_EQ(v.host.transports, w.host.transports);
    EXPECT_EQ(v.host.memory_types, w.host.memory_types);
    EXPECT_EQ(v.host.topology.node_cpus, w.host.topology.node_cpus);
    ASSERT_EQ(v.host.topology.devices.size(), 1u);
    const DeviceLocality& dv = v.host.topology.devices[0];
    EXPECT_EQ(dv.kind, "rdma");
    EXPECT_EQ(dv.name, "mlx5_0");
    EXPECT_EQ(dv.pci, "0000:3b:00.0");
    EXPECT_EQ(dv.numa_node, 1);
    EXPECT_EQ(dv.pcie_path, "pci0000:17/0000:3b:00.0");
    EXPECT_EQ(v.features, w.features);

    Ready r = through_wire(Ready{5001, 0xfeedfacecafebeefull, 2.5});
    EXPECT_EQ(r.data_port, 5001);
    EXPECT_EQ(r.token, 0xfeedfacecafebeefull);
    EXPECT_DOUBLE_EQ(r.waited_s, 2.5);
    EXPECT_EQ(through_wire(Auth{"p"}).proof, "p");
    EXPECT_EQ(through_wire(ErrorMsg{"why"}).reason, "why");

    SideInterval s;
    s.index = 7;
    s.start_s = 1.5;
    s.end_s = 2.5;
    s.bytes = 1000;
    s.messages = 10;
    s.cpu_util_pct = 50;
    s.busy_cpu_s = 1.25;
    s.process_cpu_s = 0.75;
    s.rtt_samples = 9;
    s.rtt_p50_us = 12.5;
    s.rtt_p99_us = 99.5;
    s.shared_tests = 2;
    SideInterval t = through_wire(IntervalMsg{s}).sample;
    EXPECT_EQ(t.index, 7u);
    EXPECT_DOUBLE_EQ(t.start_s, 1.5);
    EXPECT_DOUBLE_EQ(t.end_s, 2.5);
    EXPECT_EQ(t.bytes, 1000u);
    EXPECT_EQ(t.messages, 10u);
    EXPECT_DOUBLE_EQ(t.cpu_util_pct, 50);
    EXPECT_DOUBLE_EQ(t.busy_cpu_s, 1.25);
    EXPECT_DOUBLE_EQ(t.process_cpu_s, 0.75);
    EXPECT_EQ(t.rtt_samples, 9u);
    EXPECT_DOUBLE_EQ(t.rtt_p50_us, 12.5);
    EXPECT_DOUBLE_EQ(t.rtt_p99_us, 99.5);
    EXPECT_EQ(t.shared_tests, 2u);
}

// A nested value of the wrong shape, a list over its bound: refused, naming the field.
TEST(FieldTableMalformed, NestedValuesNameTheirField) {
    auto rejects_naming = [](const json& j, const std::string& name) {
        try {
            side_result_from_json(j);
            ADD_FAILURE() << "accepted " << name;
        } catch (const ProtocolError& e) {
            EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
        }
    };
    json good = to_json(full_side());
    json j = good;
    j["zerocopy"] = 5;
    rejects_naming(j, "zerocopy");
    j = good;
    j["role"] = "both";
    rejects_naming(j, "role");
    j = good;
    j["messages"]["rtt_ns"]["sub_bucket_bits"] = 3;
    rejects_naming(j, "sub_bucket_bits");
    j = good;
    j["messages"]["rtt_ns"]["buckets"] = {{1, 2, 3}};
    rejects_naming(j, "buckets");
    j = good;
    j["memory"]["stage_slots"] = 1025;
    rejects_naming(j, "stage_slots");
    j = good;
    j["placement"]["gpu"]["shares_root_port"] = 1;
    rejects_naming(j, "shares_root_port");
    j = good;
    j["connection_close"] = std::string(201, 'c');
    rejects_naming(j, "connection_close");
    j = good;
    j["shared_with"] = json::array();
    for (int i = 0; i < 65; ++i) j["shared_with"].push_back(good["shared_with"][0]);
    rejects_naming(j, "shared_with");
    j = good;
    j["flow_bytes"] = std::vector<int>(kMaxDataConnections + 1, 1);
    rejects_naming(j, "flow_bytes");
}

// The report (encoded only) keeps its keys: each side's figures, and the blocks of the options that add them.
TEST(FieldTableReport, TestResultCarriesItsBlocks) {
    TestResult r;
    r.test = TestKind::rr;
    r.local = full_side();
    r.remote = full_side();
    r.messages.rtt.p50_us = 10;
    r.bidir_with = "maerts";
    r.bidir_sum_gbps = 3.5;
    r.interval_s = 1;
    r.intervals = {IntervalRow{}};
    r.iterations.iterations = 3;
    r.baseline.transport = "tcp";
    r.baseline.throughput = 1.25;
    json j = to_json(r);
    EXPECT_EQ(j["transport"], "tcp");
    EXPECT_EQ(j["test"], "rr");
    EXPECT_EQ(j["iterations"]["count"], 3);
    EXPECT_EQ(j["baseline"]["transport"], "tcp");
    EXPECT_DOUBLE_EQ(j["baseline"]["throughput_ratio"].get<double>(), 1.25);
    EXPECT_EQ(j["bidir"]["with"], "maerts");
    EXPECT_EQ(j["intervals"].size(), 1u);
    EXPECT_TRUE(j["intervals"][0].contains("transactions"));
    EXPECT_DOUBLE_EQ(j["rr"]["rtt_us"]["p50"].get<double>(), 10);
    EXPECT_DOUBLE_EQ(j["rr"]["latency_us"]["p50"].get<double>(), 5);
    EXPECT_EQ(j["rr"]["latency_definition"], "RTT/2");
    EXPECT_FALSE(j["rr"].contains("connect_us"));
    EXPECT_EQ(j["local"]["flows"]["count"], 4);
    EXPECT_DOUBLE_EQ(j["local"]["zerocopy"]["copied_pct"].get<double>(), 100.0 * 12 / 11);
    EXPECT_TRUE(j["local"].contains("cpu_util_pct"));
    EXPECT_DOUBLE_EQ(j["local"]["memory"]["stage_copy_s"].get<double>(), 103e-9);
    r.test = TestKind::crr;
    j = to_json(r);
    EXPECT_TRUE(j["crr"].contains("connect_us"));
    EXPECT_FALSE(j["crr"].contains("latency_us"));
    r.local.flow_bytes.clear();
    r.bidir_with.clear();
    r.interval_s = 0;
    r.baseline.transport.clear();
    j = to_json(r);
    EXPECT_FALSE(j["local"].contains("flows"));
    EXPECT_FALSE(j.contains("bidir"));
    EXPECT_FALSE(j.contains("intervals"));
    EXPECT_TRUE(j["baseline"].is_null());
}
