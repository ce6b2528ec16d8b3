// The results and control messages through their field tables (protocol/field_table.hpp): every field of
// every converted struct survives encode then decode with a value other than its default (a field
// dropped from a table fails here), an older peer's message without the newer fields decodes with their
// defaults, and a malformed nested value is a ProtocolError naming the field.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "protocol/field_table.hpp"
#include "protocol/messages.hpp"
#include "rdma/rdma_info.hpp"
#include "tcp/tcp_report.hpp"
#include "udp/udp_info.hpp"

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
    s.pacing = {2500000000ull, {PacingMethod::kernel_fq, 1234567890}};
    TcpSideReport tcp;  // the TCP family's block (its own test: test_tcp_block.cpp)
    tcp.rcv_lowat = 65536;
    tcp.settings.congestion = "bbr";
    tcp.settings.family = "IPv6";
    tcp.connection_close = "close() after the response";
    tcp.flow_bytes = {3, 4, 5, 6};  // --flows: the block's, with their figures over the side's interval
    tcp.flows = flow_figures(tcp.flow_bytes, s.elapsed_s, 0);
    s.kinds[tcp_block_type().key] = to_json(tcp);
    return s;
}

// Each listed member equal in both (a double crosses JSON exactly); `what` and its index name a mismatch.
template <class S, class... T>
void expect_members_eq(const char* what, const S& a, const S& b, T S::*... members) {
    int i = 0;
    auto one = [&](auto member) {
        int at = i++;  // counted here: the message is only built on a failure
        EXPECT_EQ(a.*member, b.*member) << what << " member #" << at;
    };
    (one(members), ...);
}

void expect_full_side_eq(const SideResult& a, const SideResult& b) {
    using SR = SideResult;
    expect_members_eq("side", a, b, &SR::host, &SR::role, &SR::bytes, &SR::ops, &SR::path, &SR::elapsed_s, &SR::loops_s,
                      &SR::stream_bytes, &SR::cpus, &SR::process_user_s, &SR::process_sys_s, &SR::socket_send_buffer,
                      &SR::socket_recv_buffer, &SR::longest_call_s, &SR::longest_call_end_s, &SR::warnings, &SR::kinds);
    using Z = ZeroCopyCounts;
    expect_members_eq("zerocopy", a.zerocopy, b.zerocopy, &Z::sent_bytes, &Z::copied_bytes, &Z::completions,
                      &Z::enobufs, &Z::rx_mapped_bytes, &Z::rx_copied_bytes);
    expect_members_eq("cpu", a.cpu, b.cpu, &CpuUsage::elapsed_s, &CpuUsage::ncpus, &CpuUsage::busy_cpu_s);
    const CpuShare& x = b.cpu.all;
    EXPECT_EQ((std::vector<double>{x.user, x.nice, x.system, x.irq, x.softirq, x.iowait, x.steal, x.idle}),
              (std::vector<double>{12.5, 0.25, 30.125, 1.5, 8.75, 0.1, 0.05, 46.725}));
    ASSERT_EQ(b.cpu.per_cpu.size(), 1u);
    EXPECT_EQ(b.cpu.per_cpu[0].cpu, 7);
    const CpuShare& y = b.cpu.per_cpu[0].share;
    EXPECT_EQ((std::vector<double>{y.user, y.nice, y.system, y.irq, y.softirq, y.iowait, y.steal, y.idle}),
              (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8}));
    EXPECT_EQ(a.cpu.others.cpu_s, b.cpu.others.cpu_s);
    ASSERT_EQ(b.cpu.others.top.size(), 1u);
    using Top = OtherLoad::Top;
    expect_members_eq("top", a.cpu.others.top[0], b.cpu.others.top[0], &Top::pid, &Top::comm, &Top::cpu_s);
    using P = Placement;
    expect_members_eq("placement", a.placement, b.placement, &P::interface, &P::pci, &P::device_numa_node, &P::mem_node,
                      &P::buffer_pages_by_node, &P::cpu_nodes, &P::irq_note);
    ASSERT_EQ(b.placement.irqs.size(), 1u);
    using I = IrqReport;
    expect_members_eq("irq", a.placement.irqs[0], b.placement.irqs[0], &I::irq, &I::name, &I::affinity,
                      &I::affinity_before, &I::interrupts, &I::per_cpu);
    using G = GpuPlacement;
    expect_members_eq("gpu", a.placement.gpu, b.placement.gpu, &G::device, &G::name, &G::pci, &G::numa_node,
                      &G::pcie_path, &G::nic_relation, &G::shares_root_port);
    ASSERT_EQ(b.shared_with.size(), 1u);
    using H = ConcurrentTest;
    expect_members_eq("shared_with", a.shared_with[0], b.shared_with[0], &H::program, &H::pid, &H::peer, &H::test,
                      &H::overlap_s, &H::cpus, &H::died);
    using MS = MessageSide;
    expect_members_eq("messages", a.messages, b.messages, &MS::messages, &MS::stream_messages, &MS::segments);
    expect_histogram_eq(a.messages.rtt, b.messages.rtt);
    expect_histogram_eq(a.messages.connect, b.messages.connect);
    using M = MemoryReport;
    expect_members_eq("memory", a.memory, b.memory, &M::buffer, &M::gpu_path, &M::gpu_path_note, &M::stage_slot_bytes,
                      &M::stage_slots, &M::stage_batch);
    using SC = StagingCounts;
    expect_members_eq("staging", a.memory.staging, b.memory.staging, &SC::bytes, &SC::copies, &SC::copy_ns,
                      &SC::wait_ns);
    EXPECT_EQ(a.pacing.bitrate, b.pacing.bitrate);
    expect_members_eq("pacing", a.pacing.counts, b.pacing.counts, &PacingCounts::method, &PacingCounts::sleep_ns);
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
    a.kinds.clear();  // no TCP block: none of its fields are sent
    a.messages.rtt = {};
    a.messages.connect = {};
    a.pacing = {};  // unpaced: no pacing section
    json j = to_json(a);
    for (const char* f : {"flow_bytes", "flows", "connection_close", "tcp_settings", "rcv_lowat", "rdma", "udp",
                          "explain", "tcp_info", "pacing"})
        EXPECT_FALSE(j.contains(f)) << f;
    EXPECT_FALSE(j["messages"].contains("rtt_ns"));
    EXPECT_FALSE(j["messages"].contains("connect_ns"));
    SideResult b = side_result_from_json(j);
    EXPECT_TRUE(b.kinds.empty());
    EXPECT_EQ(b.messages.rtt.count(), 0u);
    EXPECT_FALSE(b.pacing.asked());
}

// --flows from a peer that sent its flows' bytes without their figures: the rates are over its measured interval.
TEST(FieldTableOlderPeer, FlowBytesWithoutTheirFiguresGetThemFromTheSidesInterval) {
    json j = to_json(full_side());
    j.erase("flows");
    j["elapsed_s"] = 2.0;
    j["flow_bytes"] = {250'000, 500'000, 1'000'000};
    const TcpSideReport tcp = tcp_block_of(side_result_from_json(j));
    EXPECT_EQ(tcp.flows.flows.flows, 3u);
    EXPECT_DOUBLE_EQ(tcp.flows.min_bps, 1e6);
    EXPECT_DOUBLE_EQ(tcp.flows.max_bps, 4e6);
    EXPECT_EQ(tcp.flows.transaction_bytes, 0u);
    j["flows"] = {{"min_bps", -1.0}, {"median_bps", 0.0}, {"max_bps", 0.0}};  // the measuring side's, bounded
    try {
        side_result_from_json(j);
        ADD_FAILURE() << "accepted a negative rate";
    } catch (const ProtocolError& e) {
        EXPECT_NE(std::string(e.what()).find("min_bps"), std::string::npos) << e.what();
    }
}

// What a peer from before each optional field sent: the fields it lacks keep their defaults.
TEST(FieldTableOlderPeer, SideResultWithoutTheNewerFieldsDecodesWithDefaults) {
    json j = to_json(full_side());
    for (const char* f : {"loops_s", "rcv_lowat", "longest_call_s", "longest_call_end_s", "shared_with", "messages",
                          "memory", "flow_bytes", "flows", "tcp_settings", "connection_close", "pacing"})
        j.erase(f);
    j["placement"].erase("gpu");
    SideResult s = side_result_from_json(j);
    SideResult d;
    EXPECT_EQ(s.loops_s, 0);
    EXPECT_EQ(s.measured_s(), s.elapsed_s);
    EXPECT_EQ(s.longest_call_s, 0);
    EXPECT_EQ(s.longest_call_end_s, 0);
    EXPECT_TRUE(s.shared_with.empty());
    EXPECT_EQ(s.messages.messages, 0u);
    EXPECT_EQ(s.memory.buffer, d.memory.buffer);  // "host"
    EXPECT_EQ(s.placement.gpu.numa_node, -1);
    EXPECT_TRUE(s.placement.gpu.device.empty());
    EXPECT_FALSE(s.pacing.asked());  // an older peer's -b figures were its udp block's
    const TcpSideReport tcp = tcp_block_of(s);
    EXPECT_TRUE(tcp.flow_bytes.empty());
    EXPECT_EQ(tcp.rcv_lowat, 0u);
    EXPECT_TRUE(tcp.settings.congestion.empty());
    EXPECT_TRUE(tcp.connection_close.empty());
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

// name_of: the JSON name of a member's line (a CSV column or a figure named as its field).
TEST(FieldTableNames, NameOfFindsTheMembersLine) {
    struct S {
        int a = 0, b = 0;
        std::string c;
        double d = 0;
    };
    const auto table = std::make_tuple(number("first", &S::a), number("second", &S::b), str("third", &S::c),
                                       derived<S>("derived", [](const S& s) { return s.a + s.b; }));
    EXPECT_STREQ(name_of(table, &S::a), "first");
    EXPECT_STREQ(name_of(table, &S::b), "second");
    EXPECT_STREQ(name_of(table, &S::c), "third");
    EXPECT_THROW(name_of(table, &S::d), std::logic_error);  // no line for it
}

// The report (encoded only) keeps its keys: each side's figures, and the blocks of the options that add them.
TEST(FieldTableReport, TestResultCarriesItsBlocks) {
    TestResult r;
    r.test = Workload::rr;
    r.local = full_side();
    r.remote = full_side();
    r.messages.rtt.p50_us = 10;
    r.bidir_with = "maerts";
    r.bidir_sum_gbps = 3.5;
    r.interval_s = 1;
    r.intervals = {IntervalRow{}};
    r.iterations.iterations = 3;
    r.round_figures = {json{{"transactions_per_s", 1000.0}}, json{{"transactions_per_s", 1100.0}}};
    r.message_size = 64;
    r.streams = 2;
    r.bytes = 12345;
    r.elapsed_s = 2.5;
    r.throughput_gbps = 0.75;
    r.baseline.transport = "tcp";
    r.baseline.throughput = 1.25;
    json j = to_json(r);
    EXPECT_EQ(j["transport"], "tcp");
    EXPECT_EQ(j["test"], "rr");
    EXPECT_EQ(j["iterations"]["count"], 3);
    // -i's rounds beside the statistics, the figures compare reads, the stream figures the load shares.
    EXPECT_EQ(j[kIterationsKey][kRoundsKey].size(), 2u);
    EXPECT_DOUBLE_EQ(j[kIterationsKey][kRoundsKey][1]["transactions_per_s"].get<double>(), 1100.0);
    EXPECT_TRUE(j[kFiguresKey].contains("transactions_per_s"));
    EXPECT_EQ(j["message_size"], 64);
    EXPECT_EQ(j["streams"], 2);
    EXPECT_EQ(j["bytes"], 12345);
    EXPECT_DOUBLE_EQ(j["elapsed_s"].get<double>(), 2.5);
    EXPECT_DOUBLE_EQ(j["throughput_gbps"].get<double>(), 0.75);
    EXPECT_FALSE(j.contains("under_load"));
    EXPECT_EQ(j["baseline"]["transport"], "tcp");
    EXPECT_DOUBLE_EQ(j["baseline"]["throughput_ratio"].get<double>(), 1.25);
    EXPECT_EQ(j["bidir"]["with"], "maerts");
    EXPECT_EQ(j["intervals"].size(), 1u);
    EXPECT_TRUE(j["intervals"][0].contains("transactions"));
    EXPECT_DOUBLE_EQ(j["rr"]["rtt_us"]["p50"].get<double>(), 10);
    EXPECT_DOUBLE_EQ(j["rr"]["latency_us"]["p50"].get<double>(), 5);
    EXPECT_EQ(j["rr"]["latency_definition"], "RTT/2");
    EXPECT_FALSE(j["rr"].contains("connect_us"));
    // --percentiles' choice under its labels in each summary (halved in the one-way one), errors apart.
    r.messages.rtt.chosen = {{99.99, 40, 0.5}};
    r.messages.connect.chosen = {{90, 70, 0.25}};
    j = to_json(r);
    EXPECT_DOUBLE_EQ(j["rr"]["rtt_us"]["p99.99"].get<double>(), 40);
    EXPECT_DOUBLE_EQ(j["rr"]["latency_us"]["p99.99"].get<double>(), 20);
    EXPECT_EQ(j["rr"]["rtt_percentiles"], json::parse(R"([{"percentile": 99.99, "rtt_us": 40.0, "error_pct": 0.5}])"));
    EXPECT_EQ(j["local"]["flows"]["count"], 4);
    EXPECT_DOUBLE_EQ(j["local"]["zerocopy"]["copied_pct"].get<double>(), 100.0 * 12 / 11);
    EXPECT_TRUE(j["local"].contains("cpu_util_pct"));
    EXPECT_DOUBLE_EQ(j["local"]["memory"]["stage_copy_s"].get<double>(), 103e-9);
    r.test = Workload::stream;  // a stream test's rate among its figures under the field's own name
    EXPECT_DOUBLE_EQ(to_json(r)[kFiguresKey]["throughput_gbps"].get<double>(), 0.75);
    r.test = Workload::crr;
    j = to_json(r);
    EXPECT_TRUE(j["crr"].contains("connect_us"));
    EXPECT_DOUBLE_EQ(j["crr"]["connect_us"]["p90"].get<double>(), 70);
    EXPECT_FALSE(j["crr"].contains("latency_us"));
    TcpSideReport no_flows = tcp_block_of(r.local);
    no_flows.flow_bytes.clear();
    r.local.kinds[tcp_block_type().key] = to_json(no_flows);
    r.bidir_with.clear();
    r.interval_s = 0;
    r.baseline.transport.clear();
    j = to_json(r);
    EXPECT_FALSE(j["local"].contains("flows"));
    EXPECT_FALSE(j.contains("bidir"));
    EXPECT_FALSE(j.contains("intervals"));
    EXPECT_TRUE(j["baseline"].is_null());
}

namespace {

UdpInfo full_udp() {
    UdpInfo u;
    u.used = true;
    u.datagram_path = true;
    u.counts = {1001, 1010, true, 9, 7, 3, 0.00125, 11, 13, 17, 1472, 21, 23, 25, true};
    u.gso_where = "software";
    u.rx_mode = "gro";
    return u;
}

RdmaInfo full_rdma() {
    return {.device = "mlx5_1",
            .port = 2,
            .gid_index = 3,
            .mtu = 4096,
            .link_layer = "Ethernet",
            .cq_mode = "event",
            .qps = 8,
            .registration_ms = 1.25,
            .registered_bytes = 1ull << 33,
            .credit_waits = 44,
            .gpu_path = "staged",
            .gpu_path_note = "direct refused",
            .stage_slots = 16,
            .contexts_opened = 2,
            .max_inline = 220,
            .inline_sends = 55,
            .data_sends = 66,
            .post_calls = 7,
            .rr_wait = "receive completion",
            .thread_domains = 4,
            .provider = "mlx5",
            .doorbell_env = {{"MLX5_SHUT_UP_BF", "1"}}};
}

}  // namespace

TEST(FieldTableRoundTrip, EveryFieldOfUdpInfo) {
    UdpInfo a = full_udp();
    json j = to_json(a);
    UdpInfo b = udp_info_from_json(j);
    EXPECT_TRUE(b.used);
    expect_members_eq("udp", a, b, &UdpInfo::datagram_path, &UdpInfo::gso_where, &UdpInfo::rx_mode);
    using C = UdpCounts;
    expect_members_eq("udp counts", a.counts, b.counts, &C::datagrams, &C::sender_datagrams, &C::end_marker, &C::lost,
                      &C::reordered, &C::duplicates, &C::kernel_drops, &C::gro_buffers, &C::rr_timeouts, &C::gso_size,
                      &C::snmp_in_errors, &C::snmp_rcvbuf_errors, &C::snmp_sndbuf_errors, &C::snmp_valid);
    EXPECT_DOUBLE_EQ(b.counts.jitter_s, a.counts.jitter_s);
    // The wire's own units and shapes, as before the table.
    EXPECT_DOUBLE_EQ(j["jitter_ms"].get<double>(), 1.25);
    EXPECT_FALSE(j.contains("bitrate")) << "-b's figures are the side's pacing section";
    EXPECT_DOUBLE_EQ(j["loss_pct"].get<double>(), a.loss_pct());
    EXPECT_EQ(j["snmp"]["rcvbuf_errors"], 23);
    // Through a whole result too.
    SideResult s = full_side();
    s.kinds[udp_block_type().key] = to_json(a);
    EXPECT_EQ(udp_block_of(through_wire(ResultMsg{s}).side).counts.gro_buffers, 13u);
}

TEST(FieldTableOlderPeer, UdpInfoWithoutSnmpAndWithItsOldPacingFields) {
    json j = to_json(full_udp());
    j.erase("snmp");         // not read on that side
    j["bitrate"] = 1000000;  // an older peer sent -b's figures in the udp block: read past, not an error
    j["pacing"] = "sender clock";
    j["paced_sleep_s"] = 0.5;
    UdpInfo b = udp_info_from_json(j);
    EXPECT_FALSE(b.counts.snmp_valid);
    EXPECT_EQ(b.counts.snmp_rcvbuf_errors, 0u);
    EXPECT_FALSE(to_json(b).contains("snmp"));
    EXPECT_FALSE(to_json(b).contains("pacing"));
    for (auto [key, bad] :
         {std::pair<const char*, json>{"jitter_ms", -1}, {"gso_size", 65536}, {"snmp", 3}, {"datagrams", -2}}) {
        json x = to_json(full_udp());
        x[key] = bad;
        try {
            udp_info_from_json(x);
            ADD_FAILURE() << key << " = " << bad.dump() << " was taken";
        } catch (const ProtocolError& e) {
            EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
        }
    }
    json missing = to_json(full_udp());
    missing.erase("lost");  // required: every peer with UDP sent it
    EXPECT_THROW(udp_info_from_json(missing), ProtocolError);
}

TEST(FieldTableRoundTrip, EveryFieldOfRdmaInfo) {
    RdmaInfo a = full_rdma();
    RdmaInfo b = rdma_info_from_json(to_json(a));
    using R = RdmaInfo;
    expect_members_eq("rdma", a, b, &R::device, &R::port, &R::gid_index, &R::mtu, &R::link_layer, &R::cq_mode, &R::qps,
                      &R::registration_ms, &R::registered_bytes, &R::credit_waits, &R::gpu_path, &R::gpu_path_note,
                      &R::stage_slots, &R::contexts_opened, &R::max_inline, &R::inline_sends, &R::data_sends,
                      &R::post_calls, &R::rr_wait, &R::thread_domains, &R::provider, &R::doorbell_env);
    SideResult s = full_side();
    s.kinds[rdma_block_type().key] = to_json(a);  // the RDMA kinds' block, under "rdma" as before
    EXPECT_EQ(rdma_info_from_json(through_wire(ResultMsg{s}).side.kinds.at("rdma")).post_calls, 7u);
}

TEST(FieldTableOlderPeer, RdmaInfoOfTheFirstReleaseDecodesWithDefaults) {
    json j = to_json(full_rdma());
    for (const char* f : {"gpu_path", "gpu_path_note", "stage_slots", "contexts_opened", "max_inline", "inline_sends",
                          "data_sends", "post_calls", "rr_wait", "provider", "thread_domains", "doorbell_env"})
        j.erase(f);
    RdmaInfo b = rdma_info_from_json(j);
    EXPECT_EQ(b.device, "mlx5_1");
    EXPECT_EQ(b.credit_waits, 44u);
    EXPECT_TRUE(b.gpu_path.empty() && b.gpu_path_note.empty() && b.rr_wait.empty() && b.provider.empty());
    EXPECT_EQ(b.stage_slots + b.contexts_opened + b.max_inline + b.thread_domains, 0u);
    EXPECT_EQ(b.inline_sends + b.data_sends + b.post_calls, 0u);
    EXPECT_TRUE(b.doorbell_env.empty());
    for (const char* required : {"device", "port", "gid_index", "mtu", "link_layer", "cq_mode", "qps",
                                 "registration_ms", "registered_bytes", "credit_waits"}) {
        json x = to_json(full_rdma());
        x.erase(required);
        EXPECT_THROW(rdma_info_from_json(x), ProtocolError) << required;
    }
    json x = to_json(full_rdma());
    x["provider"] = std::string(300, 'p');
    EXPECT_THROW(rdma_info_from_json(x), ProtocolError);
    x = to_json(full_rdma());
    x["port"] = 256;
    EXPECT_THROW(rdma_info_from_json(x), ProtocolError);
}
