// The control protocol's messages: every type round-trips, and anything malformed is a ProtocolError.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "protocol/frame.hpp"
#include "protocol/messages.hpp"
#include "tcp/tcp_params.hpp"

using namespace zc;
using nlohmann::json;

namespace {

HalfSpec sample_spec() {
    HalfSpec s;
    s.transport = transport_named("tcp-msgzc");
    s.test = Workload::maerts;
    s.rx = RxMode::zerocopy;
    s.kind_params.set(kTcpParams).uring_fixed = true;
    s.message_size = 65536;
    s.duration_s = 7.25;
    s.total_bytes = 0;
    s.streams = 4;
    s.alignment = 8192;
    s.side.cpus = {1, 3, 5};
    s.side.socket_buffer = 4u << 20;
    s.side.mem_node = 1;
    s.side.irq_cpus = {6, 7};
    return s;
}

HostInfo sample_host() {
    HostInfo h;
    h.hostname = "server-1.example";
    h.kernel = "6.8.0-45-generic";
    h.boot_id = "3f2a9c1e-5b7d-4e21-9a0b-123456789abc";
    h.pid = 31337;
    h.cpus = {0, 1, 2, 3, 8, 9};
    h.numa_nodes = {0, 1};
    h.transports = {"tcp"};
    h.memory_types = {"host", "hugepage"};
    return h;
}

Welcome sample_welcome() {
    Welcome w;
    w.software = "zcserver 0.1.0";
    w.has_host = true;
    w.host = sample_host();
    return w;
}

SideResult sample_side() {
    SideResult s;
    s.host = "client-\"quoted\"-\xc3\xa9";  // JSON escaping and UTF-8 survive
    s.role = Role::recv;
    s.bytes = 12345678901234ull;
    s.ops = 987654;
    s.path = "tcp-msgzc";
    s.zerocopy.sent_bytes = 12345678901234ull;
    s.zerocopy.copied_bytes = 1234567;
    s.zerocopy.completions = 98765;
    s.zerocopy.enobufs = 3;
    s.zerocopy.rx_mapped_bytes = 4096ull * 1000000;
    s.zerocopy.rx_copied_bytes = 777;
    s.elapsed_s = 10.000123;
    s.stream_bytes = {6172839450617ull, 6172839450617ull};
    s.cpus = {2, 3};
    s.cpu.elapsed_s = 10.0002;
    s.cpu.ncpus = 4;
    s.cpu.all = {12.5, 0.25, 30.125, 1.5, 8.75, 0.1, 0.05, 46.725};
    s.cpu.busy_cpu_s = 2.1045;
    s.cpu.per_cpu = {{0, {1, 0, 2, 0, 0.5, 0, 0, 96.5}},
                     {1, {3, 0, 4, 0, 1, 0, 0, 92}},
                     {2, {40, 1, 50, 5, 4, 0, 0, 0}},
                     {3, {6, 0, 64.5, 1, 29.5, 0.4, 0.2, 0}}};
    s.cpu.others.cpu_s = 0.73;
    s.cpu.others.top = {{4242, "tmux: server", 0.5}, {777, "Web Content", 0.2}, {1, "systemd", 0.03}};
    s.process_user_s = 0.123456789;
    s.process_sys_s = 1.987654321;
    s.placement.interface = "enp1s0f0np0";
    s.placement.pci = "0000:01:00.0";
    s.placement.device_numa_node = 1;
    s.placement.mem_node = 1;
    s.placement.buffer_pages_by_node = {{0, 12}, {1, 4096}};
    s.placement.cpu_nodes = {1, 1};
    s.placement.irqs = {{142, "mlx5_comp0@pci:0000:01:00.0", "6", "0-15", 123456, {0, 0, 0, 0, 0, 0, 123456, 0}},
                        {143, "mlx5_comp1@pci:0000:01:00.0", "7", "0-15", 99, {1, 0, 0, 0, 0, 0, 0, 98}}};
    s.placement.irq_note = "IRQs moved to CPUs 6-7 for the test";
    s.socket_send_buffer = 425984;
    s.socket_recv_buffer = 131072;
    s.warnings = {"CPU 2 was not the one asked for", "second warning"};
    return s;
}

void expect_share_eq(const CpuShare& a, const CpuShare& b) {
    EXPECT_DOUBLE_EQ(a.user, b.user);
    EXPECT_DOUBLE_EQ(a.nice, b.nice);
    EXPECT_DOUBLE_EQ(a.system, b.system);
    EXPECT_DOUBLE_EQ(a.irq, b.irq);
    EXPECT_DOUBLE_EQ(a.softirq, b.softirq);
    EXPECT_DOUBLE_EQ(a.iowait, b.iowait);
    EXPECT_DOUBLE_EQ(a.steal, b.steal);
    EXPECT_DOUBLE_EQ(a.idle, b.idle);
}

void expect_side_eq(const SideResult& a, const SideResult& b) {
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
    EXPECT_EQ(a.stream_bytes, b.stream_bytes);
    EXPECT_EQ(a.cpus, b.cpus);
    EXPECT_DOUBLE_EQ(a.cpu.elapsed_s, b.cpu.elapsed_s);
    EXPECT_EQ(a.cpu.ncpus, b.cpu.ncpus);
    expect_share_eq(a.cpu.all, b.cpu.all);
    EXPECT_DOUBLE_EQ(a.cpu.busy_cpu_s, b.cpu.busy_cpu_s);
    ASSERT_EQ(a.cpu.per_cpu.size(), b.cpu.per_cpu.size());
    for (size_t i = 0; i < a.cpu.per_cpu.size(); ++i) {
        EXPECT_EQ(a.cpu.per_cpu[i].cpu, b.cpu.per_cpu[i].cpu);
        expect_share_eq(a.cpu.per_cpu[i].share, b.cpu.per_cpu[i].share);
    }
    EXPECT_DOUBLE_EQ(a.cpu.others.cpu_s, b.cpu.others.cpu_s);
    ASSERT_EQ(a.cpu.others.top.size(), b.cpu.others.top.size());
    for (size_t i = 0; i < a.cpu.others.top.size(); ++i) {
        EXPECT_EQ(a.cpu.others.top[i].pid, b.cpu.others.top[i].pid);
        EXPECT_EQ(a.cpu.others.top[i].comm, b.cpu.others.top[i].comm);
        EXPECT_DOUBLE_EQ(a.cpu.others.top[i].cpu_s, b.cpu.others.top[i].cpu_s);
    }
    EXPECT_DOUBLE_EQ(a.process_user_s, b.process_user_s);
    EXPECT_DOUBLE_EQ(a.process_sys_s, b.process_sys_s);
    EXPECT_EQ(a.placement.interface, b.placement.interface);
    EXPECT_EQ(a.placement.pci, b.placement.pci);
    EXPECT_EQ(a.placement.device_numa_node, b.placement.device_numa_node);
    EXPECT_EQ(a.placement.mem_node, b.placement.mem_node);
    EXPECT_EQ(a.placement.buffer_pages_by_node, b.placement.buffer_pages_by_node);
    EXPECT_EQ(a.placement.cpu_nodes, b.placement.cpu_nodes);
    ASSERT_EQ(a.placement.irqs.size(), b.placement.irqs.size());
    for (size_t i = 0; i < a.placement.irqs.size(); ++i) {
        EXPECT_EQ(a.placement.irqs[i].irq, b.placement.irqs[i].irq);
        EXPECT_EQ(a.placement.irqs[i].name, b.placement.irqs[i].name);
        EXPECT_EQ(a.placement.irqs[i].affinity, b.placement.irqs[i].affinity);
        EXPECT_EQ(a.placement.irqs[i].affinity_before, b.placement.irqs[i].affinity_before);
        EXPECT_EQ(a.placement.irqs[i].interrupts, b.placement.irqs[i].interrupts);
        EXPECT_EQ(a.placement.irqs[i].per_cpu, b.placement.irqs[i].per_cpu);
    }
    EXPECT_EQ(a.placement.irq_note, b.placement.irq_note);
    EXPECT_EQ(a.socket_send_buffer, b.socket_send_buffer);
    EXPECT_EQ(a.socket_recv_buffer, b.socket_recv_buffer);
    EXPECT_EQ(a.warnings, b.warnings);
}

// Through the full wire path: frame, header check, body decode.
Message round_trip(const Message& m) {
    std::string wire = encode_message(m);
    std::array<char, kFrameHeaderSize> h{};
    std::copy_n(wire.begin(), kFrameHeaderSize, h.begin());
    size_t n = decode_frame_header(h, kMaxReplyBody);
    EXPECT_EQ(n, wire.size() - kFrameHeaderSize);
    return decode_body(std::string_view(wire).substr(kFrameHeaderSize));
}

json body_json(const Message& m) { return json::parse(encode_body(m)); }

void expect_rejected(const json& j, const std::string& why) {
    EXPECT_THROW(decode_body(j.dump()), ProtocolError) << why << ": " << j.dump().substr(0, 300);
}

// The error message names the offending field.
void expect_rejected_naming(const json& j, const std::string& name) {
    try {
        decode_body(j.dump());
        ADD_FAILURE() << "accepted: " << j.dump().substr(0, 300);
    } catch (const ProtocolError& e) {
        EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
}

}  // namespace

// ---------------------------------------------------------------- round trips of every message type

TEST(MessageRoundTrip, Hello) {
    Hello h;
    h.version = kProtocolVersion;
    h.software = "zcperf 0.1.0";
    h.boot_id = "3f2a9c1e-5b7d-4e21-9a0b-123456789abc";
    h.pid = 4321;
    h.nonce = "0123456789abcdef0123456789abcdef";
    Message m = round_trip(h);
    ASSERT_TRUE(std::holds_alternative<Hello>(m));
    const auto& g = std::get<Hello>(m);
    EXPECT_EQ(g.version, kProtocolVersion);
    EXPECT_EQ(g.software, "zcperf 0.1.0");
    EXPECT_EQ(g.boot_id, h.boot_id);
    EXPECT_EQ(g.pid, 4321);
    EXPECT_EQ(g.nonce, "0123456789abcdef0123456789abcdef");
}

TEST(MessageRoundTrip, WelcomeWithHostInfo) {
    Welcome w = sample_welcome();
    w.auth_proof = "proof-over-the-client-nonce";
    Message m = round_trip(w);
    ASSERT_TRUE(std::holds_alternative<Welcome>(m));
    const auto& g = std::get<Welcome>(m);
    EXPECT_EQ(g.version, kProtocolVersion);
    EXPECT_EQ(g.software, "zcserver 0.1.0");
    EXPECT_EQ(g.host.hostname, "server-1.example");
    EXPECT_EQ(g.host.kernel, "6.8.0-45-generic");
    EXPECT_EQ(g.host.boot_id, w.host.boot_id);
    EXPECT_EQ(g.host.pid, 31337);
    EXPECT_EQ(g.host.cpus, (std::vector<int>{0, 1, 2, 3, 8, 9}));
    EXPECT_EQ(g.host.numa_nodes, (std::vector<int>{0, 1}));
    EXPECT_EQ(g.host.transports, (std::vector<std::string>{"tcp"}));
    EXPECT_EQ(g.host.memory_types, (std::vector<std::string>{"host", "hugepage"}));
    EXPECT_TRUE(g.has_host);
    EXPECT_EQ(g.auth_proof, "proof-over-the-client-nonce");
    EXPECT_TRUE(g.auth_challenge.empty());
}

TEST(MessageRoundTrip, WelcomeChallengeWithoutHost) {
    // With a shared key, the first welcome carries only the challenge: no host facts before authentication.
    Welcome w;
    w.software = "zcserver 0.1.0";
    w.auth_challenge = "c0ffee";
    w.auth_proof = "beef";
    w.host = sample_host();  // not sent while has_host is false
    EXPECT_FALSE(body_json(w).contains("host"));
    Message m = round_trip(w);
    ASSERT_TRUE(std::holds_alternative<Welcome>(m));
    const auto& g = std::get<Welcome>(m);
    EXPECT_FALSE(g.has_host);
    EXPECT_EQ(g.auth_challenge, "c0ffee");
    EXPECT_EQ(g.auth_proof, "beef");
    EXPECT_TRUE(g.host.hostname.empty());
    EXPECT_TRUE(g.host.cpus.empty());
}

TEST(MessageRoundTrip, Auth) {
    Message m = round_trip(Auth{"a1b2c3"});
    ASSERT_TRUE(std::holds_alternative<Auth>(m));
    EXPECT_EQ(std::get<Auth>(m).proof, "a1b2c3");
    EXPECT_EQ(body_json(Auth{"x"}), (json{{"type", "auth"}, {"proof", "x"}}));
}

TEST(MessageRoundTrip, SetupWithServerSpec) {
    Message m = round_trip(zc::Setup{sample_spec()});
    ASSERT_TRUE(std::holds_alternative<zc::Setup>(m));
    const HalfSpec& s = std::get<zc::Setup>(m).spec;
    EXPECT_EQ(s.transport, transport_named("tcp-msgzc"));
    EXPECT_EQ(s.test, Workload::maerts);
    EXPECT_EQ(s.rx, RxMode::zerocopy);
    EXPECT_TRUE(tcp_params(s).uring_fixed);
    EXPECT_EQ(s.message_size, 65536u);
    EXPECT_DOUBLE_EQ(s.duration_s, 7.25);
    EXPECT_EQ(s.total_bytes, 0u);
    EXPECT_EQ(s.streams, 4);
    EXPECT_EQ(s.alignment, 8192u);
    EXPECT_EQ(s.side.cpus, (std::vector<int>{1, 3, 5}));
    EXPECT_EQ(s.side.socket_buffer, 4u << 20);
    EXPECT_EQ(s.side.mem_node, 1);
    EXPECT_EQ(s.side.irq_cpus, (std::vector<int>{6, 7}));
}

TEST(MessageRoundTrip, SetupAtTheLimits) {
    HalfSpec s = sample_spec();
    s.test = Workload::stream;
    s.message_size = kMaxMessageSize;
    s.duration_s = 0;  // allowed because a byte total is given
    s.total_bytes = 1ull << 50;
    s.streams = kMaxStreams;
    s.alignment = kMaxAlignment;
    s.side.cpus = {};
    s.side.socket_buffer = kMaxSocketBuffer;
    s.side.mem_node = 65535;
    s.side.irq_cpus = {0, 65535};
    Message m = round_trip(zc::Setup{s});
    HalfSpec g = std::get<zc::Setup>(m).spec;
    EXPECT_EQ(g.test, Workload::stream);
    EXPECT_EQ(g.message_size, kMaxMessageSize);
    EXPECT_EQ(g.total_bytes, 1ull << 50);
    EXPECT_EQ(g.streams, 256);
    EXPECT_EQ(g.alignment, 1ull << 21);
    EXPECT_TRUE(g.side.cpus.empty());
    EXPECT_EQ(g.side.socket_buffer, 1ull << 30);
    EXPECT_EQ(g.side.mem_node, 65535);
    EXPECT_EQ(g.side.irq_cpus, (std::vector<int>{0, 65535}));
    // smallest allowed
    s.message_size = 1;
    s.alignment = 1;
    s.streams = 1;
    s.total_bytes = 0;
    s.duration_s = 0.01;
    s.side.cpus = {0, 65535};
    s.side.mem_node = -1;  // not bound
    s.side.irq_cpus = {};
    g = std::get<zc::Setup>(round_trip(zc::Setup{s})).spec;
    EXPECT_EQ(g.side.mem_node, -1);
    EXPECT_TRUE(g.side.irq_cpus.empty());
    EXPECT_EQ(g.message_size, 1u);
    EXPECT_EQ(g.alignment, 1u);
    EXPECT_DOUBLE_EQ(g.duration_s, 0.01);
    EXPECT_EQ(g.side.cpus, (std::vector<int>{0, 65535}));
}

TEST(MessageRoundTrip, SetupWithEveryTransportAndReceiveMode) {
    const Transport transports[] = {transport_named("tcp"), transport_named("tcp-sendfile"),
                                    transport_named("tcp-msgzc"), transport_named("tcp-uringzc")};
    const RxMode modes[] = {RxMode::copy, RxMode::zerocopy, RxMode::splice, RxMode::trunc};
    for (Transport t : transports) {
        for (RxMode rx : modes) {
            for (bool fixed : {false, true}) {
                HalfSpec s = sample_spec();
                s.transport = t;
                s.rx = rx;
                s.kind_params.set(kTcpParams).uring_fixed = fixed;
                HalfSpec g = std::get<zc::Setup>(round_trip(zc::Setup{s})).spec;
                EXPECT_EQ(g.transport, t) << transport_name(t);
                EXPECT_EQ(g.rx, rx) << rx_mode_name(rx);
                EXPECT_EQ(tcp_params(g).uring_fixed, fixed);
            }
        }
    }
    // On the wire they are names, not enum numbers.
    json j = body_json(zc::Setup{sample_spec()});
    EXPECT_EQ(j["spec"]["transport"], "tcp-msgzc");
    EXPECT_EQ(j["spec"]["rx"], "zerocopy");
    EXPECT_EQ(j["spec"]["uring_fixed"], true);
}

TEST(MessageRoundTrip, Ready) {
    Message m = round_trip(Ready{65535, std::numeric_limits<uint64_t>::max()});
    ASSERT_TRUE(std::holds_alternative<Ready>(m));
    EXPECT_EQ(std::get<Ready>(m).data_port, 65535);
    EXPECT_EQ(std::get<Ready>(m).token, std::numeric_limits<uint64_t>::max());
    m = round_trip(Ready{1, 0x0123456789abcdefull});
    EXPECT_EQ(std::get<Ready>(m).data_port, 1);
    EXPECT_EQ(std::get<Ready>(m).token, 0x0123456789abcdefull);
}

TEST(MessageRoundTrip, StartStartedStop) {
    EXPECT_TRUE(std::holds_alternative<Start>(round_trip(Start{})));
    EXPECT_TRUE(std::holds_alternative<Started>(round_trip(Started{})));
    EXPECT_TRUE(std::holds_alternative<Stop>(round_trip(Stop{})));
    EXPECT_EQ(encode_body(Start{}), R"({"type":"start"})");
    EXPECT_EQ(encode_body(Started{}), R"({"type":"started"})");
    EXPECT_EQ(encode_body(Stop{}), R"({"type":"stop"})");
}

TEST(MessageRoundTrip, ResultWithFullSideResult) {
    SideResult s = sample_side();
    Message m = round_trip(ResultMsg{s});
    ASSERT_TRUE(std::holds_alternative<ResultMsg>(m));
    expect_side_eq(std::get<ResultMsg>(m).side, s);
}

TEST(MessageRoundTrip, ResultWithManyCpusFitsTheReplyLimit) {
    // A 512-CPU host's per-CPU table must fit kMaxReplyBody.
    SideResult s = sample_side();
    s.cpu.ncpus = 512;
    s.cpu.per_cpu.clear();
    for (int c = 0; c < 512; ++c)
        s.cpu.per_cpu.push_back({c, {1.0 / 3, 0, 2.0 / 3, 0.1, 0.2, 0.3, 0.4, 96.0 + c / 1000.0}});
    std::string wire = encode_message(ResultMsg{s});
    EXPECT_LE(wire.size() - kFrameHeaderSize, kMaxReplyBody);
    expect_side_eq(std::get<ResultMsg>(round_trip(ResultMsg{s})).side, s);
}

TEST(MessageRoundTrip, ErrorMsg) {
    Message m = round_trip(ErrorMsg{"CPU 7 is not available here; CPUs: 0-3"});
    ASSERT_TRUE(std::holds_alternative<ErrorMsg>(m));
    EXPECT_EQ(std::get<ErrorMsg>(m).reason, "CPU 7 is not available here; CPUs: 0-3");
}

TEST(MessageRoundTrip, LongErrorReasonIsCutTo4096) {
    Message m = round_trip(ErrorMsg{std::string(10000, 'e')});
    EXPECT_EQ(std::get<ErrorMsg>(m).reason, std::string(4096, 'e'));
}

TEST(MessageNames, EveryAlternative) {
    EXPECT_STREQ(message_name(Hello{}), "hello");
    EXPECT_STREQ(message_name(Welcome{}), "welcome");
    EXPECT_STREQ(message_name(zc::Setup{}), "setup");
    EXPECT_STREQ(message_name(Ready{}), "ready");
    EXPECT_STREQ(message_name(Start{}), "start");
    EXPECT_STREQ(message_name(Started{}), "started");
    EXPECT_STREQ(message_name(Stop{}), "stop");
    EXPECT_STREQ(message_name(ResultMsg{}), "result");
    EXPECT_STREQ(message_name(ErrorMsg{}), "error");
    EXPECT_STREQ(message_name(Auth{}), "auth");
    for (const Message& m : std::vector<Message>{Hello{}, Welcome{}, zc::Setup{}, Ready{}, Start{}, Started{}, Stop{},
                                                 ResultMsg{}, ErrorMsg{}, Auth{}}) {
        EXPECT_EQ(body_json(m).at("type"), message_name(m));
    }
}

// ---------------------------------------------------------------- versioning

TEST(MessageVersion, LaterHelloStaysDecodable) {
    json j = {{"type", "hello"}, {"version", 7}, {"new_field", {1, 2, 3}}};
    Message m = decode_body(j.dump());
    ASSERT_TRUE(std::holds_alternative<Hello>(m));
    EXPECT_EQ(std::get<Hello>(m).version, 7);
    EXPECT_EQ(std::get<Hello>(m).software, "");
    EXPECT_EQ(std::get<Hello>(m).pid, 0);
}

TEST(MessageVersion, WelcomeOfAnotherVersionNeedsNoHost) {
    json j = {{"type", "welcome"}, {"version", kProtocolVersion + 1}, {"software", "zcserver 9"}};
    Message m = decode_body(j.dump());
    ASSERT_TRUE(std::holds_alternative<Welcome>(m));
    EXPECT_EQ(std::get<Welcome>(m).version, kProtocolVersion + 1);
    EXPECT_EQ(std::get<Welcome>(m).software, "zcserver 9");
    EXPECT_TRUE(std::get<Welcome>(m).host.hostname.empty());
    EXPECT_FALSE(std::get<Welcome>(m).has_host);
    // A later version's host, whatever its shape, is not read.
    j["host"] = "anything";
    EXPECT_FALSE(std::get<Welcome>(decode_body(j.dump())).has_host);
}

TEST(MessageVersion, WelcomeWithoutHostIsAnUnauthenticatedWelcome) {
    json j = {{"type", "welcome"}, {"version", kProtocolVersion}, {"auth_challenge", "abc"}};
    Welcome w = std::get<Welcome>(decode_body(j.dump()));
    EXPECT_FALSE(w.has_host);
    EXPECT_EQ(w.auth_challenge, "abc");
    EXPECT_EQ(w.auth_proof, "");
}

// ---------------------------------------------------------------- malformed bodies

TEST(MessageMalformed, NotJson) {
    for (const char* body : {"", " ", "{", "}", "ZCPF", "GET / HTTP/1.1", "{\"type\":\"start\"", "{'type':'start'}",
                             "{\"type\":\"start\"} trailing", "nul", "\xff\xfe{}", "{\"type\":\"st\xff\"}"}) {
        try {
            decode_body(body);
            ADD_FAILURE() << "accepted: " << body;
        } catch (const ProtocolError& e) {
            EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos) << body << ": " << e.what();
        }
    }
}

TEST(MessageMalformed, JsonThatIsNotAnObject) {
    for (const char* body : {"[]", "[{\"type\":\"start\"}]", "42", "\"start\"", "null", "true", "-1.5e3"}) {
        try {
            decode_body(body);
            ADD_FAILURE() << "accepted: " << body;
        } catch (const ProtocolError& e) {
            EXPECT_NE(std::string(e.what()).find("not a JSON object"), std::string::npos) << body << ": " << e.what();
        }
    }
}

TEST(MessageMalformed, MissingOrBadType) {
    expect_rejected_naming(json::object(), "type");
    expect_rejected_naming(json{{"version", 1}}, "type");
    expect_rejected_naming(json{{"type", 5}}, "type");
    expect_rejected_naming(json{{"type", nullptr}}, "type");
    expect_rejected_naming(json{{"type", json::array({"start"})}}, "type");
    expect_rejected_naming(json{{"Type", "start"}}, "type");
}

TEST(MessageMalformed, UnknownType) {
    expect_rejected_naming(json{{"type", "bogus"}}, "unknown control message type 'bogus'");
    expect_rejected(json{{"type", ""}}, "empty type");
    expect_rejected(json{{"type", "START"}}, "types are case-sensitive");
    // A huge unknown type is quoted only in part.
    try {
        decode_body(json{{"type", std::string(10000, 'q')}}.dump());
        FAIL();
    } catch (const ProtocolError& e) {
        EXPECT_LT(std::string(e.what()).size(), 200u);
    }
}

TEST(MessageMalformed, Hello) {
    expect_rejected_naming(json{{"type", "hello"}}, "version");
    expect_rejected_naming(json{{"type", "hello"}, {"version", "1"}}, "version");
    expect_rejected_naming(json{{"type", "hello"}, {"version", 1.5}}, "version");
    expect_rejected_naming(json{{"type", "hello"}, {"version", 1}, {"pid", "12"}}, "pid");
    expect_rejected_naming(json{{"type", "hello"}, {"version", 1}, {"software", 3}}, "software");
    expect_rejected_naming(json{{"type", "hello"}, {"version", 1}, {"boot_id", false}}, "boot_id");
    expect_rejected_naming(json{{"type", "hello"}, {"version", 1}, {"nonce", 5}}, "nonce");
    expect_rejected_naming(json{{"type", "hello"}, {"version", 1}, {"nonce", std::string(257, 'n')}}, "nonce");
    EXPECT_NO_THROW(decode_body(json{{"type", "hello"}, {"version", 1}, {"nonce", std::string(256, 'n')}}.dump()));
}

TEST(MessageMalformed, Auth) {
    expect_rejected_naming(json{{"type", "auth"}}, "proof");
    expect_rejected_naming(json{{"type", "auth"}, {"proof", 1}}, "proof");
    expect_rejected_naming(json{{"type", "auth"}, {"proof", nullptr}}, "proof");
    expect_rejected_naming(json{{"type", "auth"}, {"proof", std::string(257, 'p')}}, "proof");
    EXPECT_NO_THROW(decode_body(json{{"type", "auth"}, {"proof", std::string(256, 'p')}}.dump()));
}

TEST(MessageMalformed, Welcome) {
    json good = body_json(sample_welcome());
    ASSERT_NO_THROW(decode_body(good.dump()));
    json j = good;
    j["auth_challenge"] = 7;
    expect_rejected_naming(j, "auth_challenge");
    j = good;
    j["auth_proof"] = json::array();
    expect_rejected_naming(j, "auth_proof");
    j = good;
    j["host"] = "server-1";
    expect_rejected(j, "host not an object");
    for (const char* f : {"hostname", "kernel", "boot_id", "pid", "cpus", "numa_nodes", "transports", "memory_types"}) {
        j = good;
        j["host"].erase(f);
        expect_rejected_naming(j, f);
    }
    j = good;
    j["host"]["cpus"] = {0, "1"};
    expect_rejected_naming(j, "cpus");
    j = good;
    j["host"]["cpus"] = {0, 1.5};
    expect_rejected_naming(j, "cpus");
    j = good;
    j["host"]["transports"] = "tcp";
    expect_rejected_naming(j, "transports");
    j = good;
    j["host"]["memory_types"] = {"host", 1};
    expect_rejected_naming(j, "memory_types");
    j = good;
    j["host"]["transports"] = json::array();
    for (int i = 0; i < 257; ++i) j["host"]["transports"].push_back("t");
    expect_rejected_naming(j, "transports");
    j = good;
    j["host"]["cpus"] = std::vector<int>(65537, 1);
    expect_rejected_naming(j, "cpus");
}

class SetupField : public ::testing::Test {
protected:
    json good = body_json(zc::Setup{sample_spec()});
    void reject(const char* field, const json& value) {
        json j = good;
        j["spec"][field] = value;
        expect_rejected_naming(j, field);
    }
    void accept(const char* field, const json& value) {
        json j = good;
        j["spec"][field] = value;
        EXPECT_NO_THROW(decode_body(j.dump())) << j.dump();
    }
};

TEST_F(SetupField, GoodSpecDecodes) { ASSERT_NO_THROW(decode_body(good.dump())); }

TEST_F(SetupField, MissingSpecOrFields) {
    json j = good;
    j.erase("spec");
    expect_rejected(j, "no spec");
    j = good;
    j["spec"] = json::array({1, 2});
    expect_rejected(j, "spec is an array");
    for (const char* f : {"transport", "test", "message_size", "duration_s", "total_bytes", "streams", "alignment",
                          "socket_buffer", "cpus", "rx", "uring_fixed", "mem_node", "irq_cpus"}) {
        j = good;
        j["spec"].erase(f);
        expect_rejected_naming(j, f);
    }
}

TEST_F(SetupField, WrongTypes) {
    reject("message_size", "1M");
    reject("message_size", 65536.0);
    reject("streams", 1.5);
    reject("streams", "4");
    reject("streams", true);
    reject("duration_s", "10");
    reject("duration_s", true);
    reject("duration_s", nullptr);
    reject("total_bytes", json::array());
    reject("alignment", "4K");
    reject("socket_buffer", json::object());
    reject("transport", 1);
    reject("test", nullptr);
    reject("cpus", "0-3");
    reject("cpus", 3);
    reject("cpus", json::object());
    reject("rx", 1);
    reject("rx", json::array({"copy"}));
    reject("uring_fixed", 1);
    reject("uring_fixed", "true");
    reject("uring_fixed", nullptr);
}

TEST_F(SetupField, UnknownNames) {
    reject("transport", "sctp");  // udp is a transport now
    reject("transport", "TCP");
    reject("test", "tcp_crr");
    reject("transport", "tcp-zc");
    for (const char* rx : {"mmap", "", "Copy"}) {
        json j = good;
        j["spec"]["rx"] = rx;
        expect_rejected_naming(j, "unknown receive mode");
    }
    accept("transport", "tcp-uringzc");
    accept("rx", "trunc");
    json j = good;
    j["spec"]["test"] = "request_response";
    try {
        decode_body(j.dump());
        FAIL();
    } catch (const ProtocolError& e) {
        EXPECT_NE(std::string(e.what()).find("request_response"), std::string::npos) << e.what();
    }
}

TEST_F(SetupField, MessageSizeRange) {
    reject("message_size", 0);
    reject("message_size", (1ull << 30) + 1);
    reject("message_size", -1);
    reject("message_size", std::numeric_limits<uint64_t>::max());
    accept("message_size", 1);
    accept("message_size", 1ull << 30);
}

TEST_F(SetupField, StreamsRange) {
    reject("streams", 0);
    reject("streams", -1);
    reject("streams", 257);
    reject("streams", 1000);
    accept("streams", 1);
    accept("streams", 256);
}

TEST_F(SetupField, DurationRange) {
    reject("duration_s", -1);
    reject("duration_s", -0.001);
    reject("duration_s", 0);  // no byte total: a duration is needed
    reject("duration_s", 0.001);
    reject("duration_s", 86400.5);
    reject("duration_s", 1e300);
    accept("duration_s", 0.01);
    accept("duration_s", 86400);
    accept("duration_s", 10);  // an integer JSON number is a fine double
    json j = good;
    j["spec"]["total_bytes"] = 1 << 20;
    j["spec"]["duration_s"] = 0;
    EXPECT_NO_THROW(decode_body(j.dump()));
    j["spec"]["duration_s"] = -1;
    expect_rejected_naming(j, "duration_s");
}

TEST_F(SetupField, TotalBytesAndSocketBufferRange) {
    reject("total_bytes", (1ull << 50) + 1);
    reject("total_bytes", -5);
    reject("socket_buffer", (1ull << 30) + 1);
    reject("socket_buffer", -1);
    accept("socket_buffer", 0);
    accept("socket_buffer", 1ull << 30);
}

TEST_F(SetupField, ReceiveLowWaterRangeAndOlderClients) {
    reject("rcv_lowat", 0);
    reject("rcv_lowat", (1ull << 30) + 1);
    reject("rcv_lowat", -1);
    reject("rcv_lowat", "256K");
    accept("rcv_lowat", 1);
    accept("rcv_lowat", 1ull << 30);
    json j = good;
    j["spec"].erase("rcv_lowat");  // a client from before --rcvlowat: the kernel's default
    EXPECT_EQ(tcp_params(std::get<zc::Setup>(decode_body(j.dump())).spec).rcv_lowat, 1u);
}

TEST_F(SetupField, AlignmentPowerOfTwo) {
    reject("alignment", 0);
    reject("alignment", 3);
    reject("alignment", 4095);
    reject("alignment", 6144);
    reject("alignment", (1ull << 21) + 1);
    reject("alignment", 1ull << 22);
    reject("alignment", -4096);
    for (uint64_t a = 1; a <= kMaxAlignment; a *= 2) accept("alignment", a);
}

TEST_F(SetupField, CpuLists) {
    reject("cpus", {0, -1});
    reject("cpus", {-5});
    reject("cpus", {0, "1"});
    reject("cpus", {"0"});
    reject("cpus", {1.5});
    reject("cpus", {1.0});
    reject("cpus", {nullptr});
    reject("cpus", json::array({json::array({1})}));
    reject("cpus", {65536});
    reject("cpus", {4294967296ll});
    reject("cpus", {std::numeric_limits<uint64_t>::max()});
    reject("cpus", std::vector<int>(4097, 0));
    reject("cpus", std::vector<int>(100000, 0));
    accept("cpus", std::vector<int>(4096, 1));
    accept("cpus", json::array());
    // The IRQ CPU list has the same rules.
    reject("irq_cpus", {0, -1});
    reject("irq_cpus", {"3"});
    reject("irq_cpus", {2.0});
    reject("irq_cpus", {65536});
    reject("irq_cpus", "0-3");
    reject("irq_cpus", std::vector<int>(4097, 0));
    accept("irq_cpus", {0, 65535});
}

TEST_F(SetupField, MemNodeRange) {
    reject("mem_node", -2);
    reject("mem_node", 65536);
    reject("mem_node", "0");
    reject("mem_node", 0.5);
    reject("mem_node", nullptr);
    accept("mem_node", -1);
    accept("mem_node", 0);
    accept("mem_node", 65535);
}

// LIBRARY BUG found by this test (present at commit cdb1086; a fix is in progress in the working tree) (field<T> in
// protocol/json_fields.hpp): an integer that does not fit the target type is narrowed by nlohmann's get<int>() *before*
// field_in checks the range, so 2^32 + 1 streams decodes as 1 stream and a data port of 2^32 + 80 as port 80, instead
// of being rejected as out of range.
TEST_F(SetupField, IntegerTooLargeForTheFieldTypeIsRejectedNotWrapped) {
    reject("streams", 4294967297ll);                                          // 2^32 + 1 -> (int)1 is inside [1, 256]
    reject("streams", 4294967300ll);                                          // 2^32 + 4
    json r = {{"type", "ready"}, {"data_port", 4294967376ll}, {"token", 1}};  // 2^32 + 80
    expect_rejected_naming(r, "data_port");
}

TEST(MessageMalformed, Ready) {
    json good = body_json(Ready{5001, 99});
    ASSERT_NO_THROW(decode_body(good.dump()));
    auto with = [&](const char* f, const json& v) {
        json j = good;
        j[f] = v;
        return j;
    };
    expect_rejected_naming(with("data_port", 0), "data_port");
    expect_rejected_naming(with("data_port", 65536), "data_port");
    expect_rejected_naming(with("data_port", -80), "data_port");
    expect_rejected_naming(with("data_port", "80"), "data_port");
    expect_rejected_naming(with("data_port", 80.5), "data_port");
    expect_rejected_naming(with("token", "x"), "token");
    expect_rejected_naming(with("token", 1.5), "token");
    expect_rejected_naming(with("token", nullptr), "token");
    json j = good;
    j.erase("token");
    expect_rejected_naming(j, "token");
    j = good;
    j.erase("data_port");
    expect_rejected_naming(j, "data_port");
}

TEST(MessageMalformed, Error) {
    expect_rejected_naming(json{{"type", "error"}}, "reason");
    expect_rejected_naming(json{{"type", "error"}, {"reason", 5}}, "reason");
    expect_rejected_naming(json{{"type", "error"}, {"reason", {"a", "b"}}}, "reason");
}

class ResultField : public ::testing::Test {
protected:
    json good = body_json(ResultMsg{sample_side()});
    json& side(json& j) { return j["side"]; }
};

TEST_F(ResultField, GoodResultDecodes) { ASSERT_NO_THROW(decode_body(good.dump())); }

TEST_F(ResultField, MissingFields) {
    json j = good;
    j.erase("side");
    expect_rejected(j, "no side");
    for (const char* f :
         {"host", "role", "bytes", "ops", "path", "zerocopy", "elapsed_s", "stream_bytes", "cpus", "cpu",
          "process_user_s", "process_sys_s", "socket_send_buffer", "socket_recv_buffer", "warnings"}) {
        j = good;
        side(j).erase(f);
        expect_rejected(j, std::string("side without ") + f);
    }
    for (const char* f : {"elapsed_s", "ncpus", "all_pct", "busy_cpu_s", "per_cpu_pct", "other_processes"}) {
        j = good;
        side(j)["cpu"].erase(f);
        expect_rejected(j, std::string("cpu without ") + f);
    }
    for (const char* f : {"user", "nice", "system", "irq", "softirq", "iowait", "steal", "idle"}) {
        j = good;
        side(j)["cpu"]["all_pct"].erase(f);
        expect_rejected_naming(j, f);
        j = good;
        side(j)["cpu"]["per_cpu_pct"][2].erase(f);
        expect_rejected_naming(j, f);
    }
    for (const char* f :
         {"sent_bytes", "copied_bytes", "completions", "enobufs", "rx_mapped_bytes", "rx_copied_bytes"}) {
        j = good;
        side(j)["zerocopy"].erase(f);
        expect_rejected_naming(j, f);
    }
    for (const char* f : {"interface", "pci", "device_numa_node", "mem_node", "buffer_pages_by_node", "cpu_nodes",
                          "irqs", "irq_note"}) {
        j = good;
        side(j)["placement"].erase(f);
        expect_rejected(j, std::string("placement without ") + f);
    }
    for (const char* f : {"irq", "name", "affinity", "affinity_before", "interrupts", "per_cpu"}) {
        j = good;
        side(j)["placement"]["irqs"][1].erase(f);
        expect_rejected_naming(j, f);
    }
    j = good;
    side(j)["cpu"]["per_cpu_pct"][0].erase("cpu");
    expect_rejected_naming(j, "cpu");
    for (const char* f : {"pid", "comm", "cpu_s"}) {
        j = good;
        side(j)["cpu"]["other_processes"]["top"][1].erase(f);
        expect_rejected_naming(j, f);
    }
    j = good;
    side(j)["cpu"]["other_processes"].erase("top");
    expect_rejected_naming(j, "top");
}

TEST_F(ResultField, WrongTypesAndRanges) {
    auto reject_side = [&](const std::function<void(json&)>& mutate, const std::string& why) {
        json j = good;
        mutate(side(j));
        expect_rejected(j, why);
    };
    reject_side([](json& s) { s = "text"; }, "side is a string");
    reject_side([](json& s) { s["role"] = "both"; }, "role both");
    reject_side([](json& s) { s["role"] = 1; }, "role number");
    reject_side([](json& s) { s["bytes"] = "12"; }, "bytes string");
    reject_side([](json& s) { s["bytes"] = 1.5; }, "bytes float");
    reject_side([](json& s) { s["path"] = 5; }, "path number");
    reject_side([](json& s) { s["zerocopy"] = 0; }, "zerocopy not an object");
    reject_side([](json& s) { s["zerocopy"]["sent_bytes"] = "1"; }, "zerocopy sent_bytes string");
    reject_side([](json& s) { s["zerocopy"]["enobufs"] = 0.5; }, "zerocopy enobufs float");
    reject_side([](json& s) { s["placement"] = "numa"; }, "placement a string");
    reject_side([](json& s) { s["placement"]["device_numa_node"] = -2; }, "device node below -1");
    reject_side([](json& s) { s["placement"]["mem_node"] = 70000; }, "mem node too large");
    reject_side([](json& s) { s["placement"]["interface"] = 1; }, "interface number");
    reject_side([](json& s) { s["placement"]["buffer_pages_by_node"] = json::array({1, 2}); }, "pages an array");
    reject_side([](json& s) { s["placement"]["buffer_pages_by_node"] = {{"x", 1}}; }, "pages key not a node");
    reject_side([](json& s) { s["placement"]["buffer_pages_by_node"] = {{"0", "12"}}; }, "pages count a string");
    reject_side([](json& s) { s["placement"]["buffer_pages_by_node"] = {{"99999999999", 1}}; }, "pages node overflows");
    reject_side(
        [](json& s) {
            auto& p = s["placement"]["buffer_pages_by_node"];
            for (int i = 0; i < 1025; ++i) p[std::to_string(i)] = 1;
        },
        "too many page nodes");
    reject_side([](json& s) { s["placement"]["cpu_nodes"] = {"0"}; }, "cpu_nodes string");
    reject_side([](json& s) { s["placement"]["cpu_nodes"] = std::vector<int>(257, 0); }, "too many cpu_nodes");
    reject_side([](json& s) { s["placement"]["irqs"] = json::object(); }, "irqs an object");
    reject_side([](json& s) { s["placement"]["irqs"][0]["per_cpu"] = {"1"}; }, "irq per_cpu string");
    reject_side([](json& s) { s["placement"]["irqs"][0]["interrupts"] = -1.5; }, "irq interrupts float");
    reject_side([](json& s) { s["elapsed_s"] = -1; }, "negative elapsed");
    reject_side([](json& s) { s["elapsed_s"] = 1e8; }, "elapsed over 1e7 s");
    reject_side([](json& s) { s["stream_bytes"] = {1, "2"}; }, "stream_bytes holds a string");
    reject_side([](json& s) { s["stream_bytes"] = {nullptr}; }, "stream_bytes holds null");
    reject_side([](json& s) { s["stream_bytes"] = std::vector<int>(257, 1); }, "too many stream_bytes");
    reject_side([](json& s) { s["stream_bytes"] = 5; }, "stream_bytes not an array");
    reject_side([](json& s) { s["cpus"] = {"0"}; }, "cpus holds a string");
    reject_side([](json& s) { s["cpus"] = std::vector<int>(257, 1); }, "too many cpus");
    reject_side([](json& s) { s["warnings"] = {1}; }, "warnings holds a number");
    reject_side([](json& s) { s["warnings"] = std::vector<std::string>(65, "w"); }, "too many warnings");
    reject_side([](json& s) { s["cpu"] = nullptr; }, "cpu null");
    reject_side([](json& s) { s["cpu"]["ncpus"] = 0; }, "ncpus 0");
    reject_side([](json& s) { s["cpu"]["ncpus"] = 65537; }, "ncpus too large");
    reject_side([](json& s) { s["cpu"]["ncpus"] = 4.0; }, "ncpus float");
    reject_side([](json& s) { s["cpu"]["elapsed_s"] = -0.5; }, "cpu elapsed negative");
    reject_side([](json& s) { s["cpu"]["all_pct"] = {1, 2, 3}; }, "all_pct an array");
    reject_side([](json& s) { s["cpu"]["all_pct"]["user"] = "12.5"; }, "share string");
    reject_side([](json& s) { s["cpu"]["per_cpu_pct"] = json::object(); }, "per_cpu_pct object");
    reject_side([](json& s) { s["cpu"]["per_cpu_pct"][0] = 5; }, "per_cpu entry number");
    reject_side([](json& s) { s["cpu"]["per_cpu_pct"][0]["cpu"] = "0"; }, "per_cpu cpu string");
    reject_side([](json& s) { s["cpu"]["other_processes"] = json::array(); }, "other_processes array");
    reject_side([](json& s) { s["cpu"]["other_processes"]["cpu_s"] = "0.7"; }, "others cpu_s string");
    reject_side([](json& s) { s["cpu"]["other_processes"]["top"][0]["comm"] = 12; }, "top comm number");
    reject_side([](json& s) { s["cpu"]["other_processes"]["top"][0]["pid"] = 1.5; }, "top pid float");
    reject_side(
        [](json& s) {
            auto& top = s["cpu"]["other_processes"]["top"];
            while (top.size() <= 64) top.push_back(top[0]);
        },
        "too many top entries");
    reject_side(
        [](json& s) {
            s["cpu"]["per_cpu_pct"] = json::array();
            for (int i = 0; i < 65537; ++i) s["cpu"]["per_cpu_pct"].push_back(json::object());
        },
        "too many per-CPU entries");
}

// LIBRARY BUG found by this test (present at commit cdb1086; a fix is in progress in the working tree) (field<uint64_t>
// in protocol/json_fields.hpp): is_number_integer() is also true for a negative number, and get<uint64_t>() then wraps
// it, so a result claiming -1 bytes decodes as 18446744073709551615 bytes (and -1 ops likewise) instead of being
// rejected as the wrong type.
TEST_F(ResultField, NegativeByteCountIsRejectedNotWrapped) {
    json j = good;
    side(j)["bytes"] = -1;
    expect_rejected_naming(j, "bytes");
    j = good;
    side(j)["ops"] = -3;
    expect_rejected_naming(j, "ops");
}

// LIBRARY BUG found by this test (present at commit cdb1086; a fix is in progress in the working tree)
// (side_result_from_json and placement_from_json in protocol/result.cpp): the entries of "cpus", "stream_bytes",
// "placement.cpu_nodes" and "placement.irqs[].per_cpu" are read with get<int>() / get<uint64_t>() without the
// is_number_integer() check used everywhere else, so a CPU of 1.5 decodes as CPU 1, a byte count of 2.5 as 2 or -1 as
// 2^64 - 1, and a CPU of 1e300 is a float-to-int conversion out of range (undefined behaviour) instead of a
// ProtocolError.
TEST_F(ResultField, NonIntegerListEntriesAreRejected) {
    json j = good;
    side(j)["cpus"] = {1.5, 3};
    expect_rejected_naming(j, "cpus");
    j = good;
    side(j)["stream_bytes"] = {2.5, 6172839450617ull};
    expect_rejected_naming(j, "stream_bytes");
    j = good;
    side(j)["stream_bytes"] = {-1, 6172839450617ull};
    expect_rejected_naming(j, "stream_bytes");
    // Same pattern in the placement read-back (placement_from_json).
    j = good;
    side(j)["placement"]["cpu_nodes"] = {1.5, 1};
    expect_rejected_naming(j, "cpu_nodes");
    j = good;
    side(j)["placement"]["irqs"][0]["per_cpu"] = {0.5, 1};
    expect_rejected_naming(j, "per_cpu");
}

TEST(MessageMalformed, ErrorReasonCutIsStillCodeable) {
    // 'a' + 3000 x U+00E9 (2 bytes each) = 6001 bytes: cut to 4096 it must stay valid UTF-8, since the reason
    // is shown to the user and written into the JSON report ("errors"), whose dump() rejects broken UTF-8.
    std::string reason = "a";
    for (int i = 0; i < 3000; ++i) reason += "\xc3\xa9";
    Message m = decode_body(encode_body(ErrorMsg{reason}));
    const std::string& got = std::get<ErrorMsg>(m).reason;
    EXPECT_LE(got.size(), 4096u);
    EXPECT_GE(got.size(), 4090u);
    EXPECT_EQ(got.substr(0, 3), "a\xc3\xa9");
    // LIBRARY BUG found by this test (present at commit cdb1086; a fix is in progress in the working tree)
    // (decode_body, "error" branch in protocol/messages.cpp): reason.resize(4096) cuts byte-wise, leaving half of a
    // UTF-8 character (here a lone 0xc3 at byte 4096), so re-encoding the reason (encode_body, or the JSON report's
    // errors array) throws nlohmann type_error 316.
    EXPECT_NO_THROW(json(got).dump());
    EXPECT_NO_THROW(encode_body(ErrorMsg{got}));
}

// ---------------------------------------------------------------- adversarial nesting

TEST(MessageMalformed, DeeplyNestedJsonIsRejectedWithoutCrashing) {
    // A reply may be 4 MiB: as deep as JSON nesting can go within it, balanced and unbalanced.
    const size_t depth = kMaxReplyBody / 2;
    std::string unbalanced(depth, '[');
    EXPECT_THROW(decode_body(unbalanced), ProtocolError);
    std::string balanced = std::string(depth, '[') + std::string(depth, ']');
    EXPECT_THROW(decode_body(balanced), ProtocolError);
    std::string in_field =
        "{\"type\":\"result\",\"side\":" + std::string(depth / 2, '[') + std::string(depth / 2, ']') + "}";
    EXPECT_THROW(decode_body(in_field), ProtocolError);
}

// ---------------------------------------------------------------- deterministic mini-fuzz

namespace {

std::vector<std::string> valid_bodies() {
    Hello h;
    h.software = "zcperf";
    h.boot_id = "b";
    h.pid = 12;
    Welcome challenge;
    challenge.auth_challenge = std::string(64, 'c');
    challenge.auth_proof = std::string(64, 'p');
    std::vector<Message> all{h,
                             sample_welcome(),
                             challenge,
                             Auth{std::string(64, 'a')},
                             zc::Setup{sample_spec()},
                             Ready{5001, 1234567},
                             Start{},
                             Started{},
                             Stop{},
                             ResultMsg{sample_side()},
                             ErrorMsg{"nope"}};
    std::vector<std::string> out;
    for (const auto& m : all) out.push_back(encode_body(m));
    return out;
}

// Decodes, and reports anything but success or ProtocolError as a failure naming the input.
// Returns true when the body decoded.
bool decode_or_protocol_error(const std::string& body, int& other_failures) {
    try {
        decode_body(body);
        return true;
    } catch (const ProtocolError&) {
        return false;
    } catch (const std::exception& e) {
        if (++other_failures <= 5) ADD_FAILURE() << "non-ProtocolError " << e.what() << " for: " << body.substr(0, 400);
        return false;
    } catch (...) {
        if (++other_failures <= 5) ADD_FAILURE() << "unknown exception for: " << body.substr(0, 400);
        return false;
    }
}

void collect_pointers(const json& j, const json::json_pointer& at, std::vector<json::json_pointer>& out) {
    out.push_back(at);
    if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it) collect_pointers(it.value(), at / it.key(), out);
    } else if (j.is_array()) {
        for (size_t i = 0; i < j.size(); ++i) collect_pointers(j[i], at / i, out);
    }
}

}  // namespace

TEST(MessageFuzz, RandomBytes) {
    std::mt19937_64 rng(0x5eed1234);
    int others = 0, decoded = 0;
    const std::string alphabet = "{}[]\":,0123456789-+.eE truefalsnyp\\\x01\xff\xc3";
    for (int iter = 0; iter < 20000; ++iter) {
        size_t len = rng() % 48;
        std::string s(len, '\0');
        bool json_like = rng() % 2;
        for (auto& c : s) c = json_like ? alphabet[rng() % alphabet.size()] : static_cast<char>(rng() & 0xff);
        decoded += decode_or_protocol_error(s, others);
    }
    EXPECT_EQ(others, 0);
    EXPECT_EQ(decoded, 0);  // no random string of this alphabet forms {"type":...}
}

TEST(MessageFuzz, TruncationsOfValidBodies) {
    int others = 0;
    for (const auto& body : valid_bodies()) {
        ASSERT_TRUE(decode_or_protocol_error(body, others)) << body;
        for (size_t n = 0; n < body.size(); ++n) {
            // Any proper prefix of a JSON object is incomplete JSON.
            EXPECT_FALSE(decode_or_protocol_error(body.substr(0, n), others)) << body.substr(0, n);
        }
    }
    EXPECT_EQ(others, 0);
}

TEST(MessageFuzz, ByteMutationsOfValidBodies) {
    std::mt19937_64 rng(20240611);
    const std::string alphabet = "{}[]\":,0123456789-.eE \\xtruefalsenul";
    auto bodies = valid_bodies();
    int others = 0, decoded = 0, rejected = 0;
    for (int iter = 0; iter < 30000; ++iter) {
        std::string s = bodies[rng() % bodies.size()];
        int edits = 1 + static_cast<int>(rng() % 3);
        for (int e = 0; e < edits && !s.empty(); ++e) {
            size_t pos = rng() % s.size();
            switch (rng() % 3) {
                case 0:
                    s[pos] = alphabet[rng() % alphabet.size()];
                    break;
                case 1:
                    s.erase(pos, 1 + rng() % 4);
                    break;
                default:
                    s.insert(pos, 1, alphabet[rng() % alphabet.size()]);
                    break;
            }
        }
        if (decode_or_protocol_error(s, others))
            ++decoded;
        else
            ++rejected;
    }
    EXPECT_EQ(others, 0);
    EXPECT_GT(decoded, 0);  // the loop reaches the field checks, not only the JSON parser
    EXPECT_GT(rejected, 0);
}

TEST(MessageFuzz, StructuredFieldReplacements) {
    // Replace or delete one node anywhere in a valid message with a value of another type or range.
    std::mt19937_64 rng(777);
    const std::vector<json> pool{nullptr,
                                 true,
                                 false,
                                 0,
                                 -1,
                                 1,
                                 65536,
                                 4294967296ll,
                                 -4294967296ll,
                                 std::numeric_limits<int64_t>::min(),
                                 std::numeric_limits<uint64_t>::max(),
                                 0.5,
                                 -1e300,
                                 1e300,
                                 "",
                                 "x",
                                 "stream",
                                 "tcp",
                                 "send",
                                 json::array(),
                                 json::array({1, 2}),
                                 json::array({"a"}),
                                 json::object(),
                                 json{{"cpu", 1}}};
    int others = 0, decoded = 0, rejected = 0;
    for (const auto& body : valid_bodies()) {
        json base = json::parse(body);
        std::vector<json::json_pointer> ptrs;
        collect_pointers(base, json::json_pointer(), ptrs);
        for (int iter = 0; iter < 1500; ++iter) {
            json j = base;
            const auto& p = ptrs[rng() % ptrs.size()];
            if (p.empty()) {
                j = pool[rng() % pool.size()];
            } else if (rng() % 5 == 0) {
                json& parent = j[p.parent_pointer()];
                if (parent.is_object())
                    parent.erase(p.back());
                else
                    parent.erase(static_cast<size_t>(std::stoul(p.back())));
            } else {
                j[p] = pool[rng() % pool.size()];
            }
            if (decode_or_protocol_error(j.dump(), others))
                ++decoded;
            else
                ++rejected;
        }
    }
    EXPECT_EQ(others, 0);
    EXPECT_GT(decoded, 0);
    EXPECT_GT(rejected, 0);
}
