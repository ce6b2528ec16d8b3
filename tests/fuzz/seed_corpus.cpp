// The seed corpus: one valid framed message of every type (made by the library's own encoder, so it
// follows the wire format as it is now) and a set of malformed ones. Written by
// `ZCPERF_FUZZ_WRITE_CORPUS=DIR zcperf_fuzz_protocol`; run_fuzz.sh refreshes tests/fuzz/corpus/ with
// it on request (--write-corpus) and adds it to every run.
#include "seed_corpus.hpp"

#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "mptcp/mptcp_report.hpp"
#include "protocol/frame.hpp"
#include "protocol/messages.hpp"
#include "rdma/rdma_info.hpp"
#include "rdma/rdma_options.hpp"
#include "tcp/tcp_report.hpp"
#include "udp/udp_info.hpp"
#include "udp/udp_params.hpp"
#include "smc/smc_report.hpp"
#include "tcp/tcp_params.hpp"
#include "tls/tls_report.hpp"

namespace zc::fuzz {

namespace {

HostInfo sample_host() {
    HostInfo h;
    h.hostname = "fuzz-host";
    h.kernel = "6.1.0-fuzz";
    h.boot_id = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
    h.pid = 4242;
    h.cpus = {0, 1, 2, 3};
    h.numa_nodes = {0};
    h.transports = {"tcp", "tcp-sendfile", "tcp-msgzc", "tcp-uringzc"};
    h.memory_types = {"host"};
    return h;
}

HalfSpec sample_spec(Transport t, Workload k, RxMode rx) {
    HalfSpec s;
    s.transport = t;
    s.test = k;
    s.message_size = 65536;
    s.duration_s = 2.5;
    s.total_bytes = 0;
    s.streams = 2;
    s.alignment = 4096;
    s.rx = rx;
    s.kind_params.set(kTcpParams).uring_fixed = t == transport_named("tcp-uringzc");
    s.side.cpus = {0, 1};
    s.side.socket_buffer = 1 << 20;
    return s;
}

SideResult sample_side() {
    SideResult s;
    s.host = "fuzz-host";
    s.role = Role::recv;
    s.bytes = 8ull << 20;
    s.ops = 128;
    s.path = "tcp";
    s.zerocopy.sent_bytes = 4096;
    s.zerocopy.copied_bytes = 1024;
    s.zerocopy.completions = 3;
    s.zerocopy.rx_mapped_bytes = 8192;
    s.zerocopy.rx_copied_bytes = 16;
    s.elapsed_s = 0.125;
    s.stream_bytes = {4ull << 20, 4ull << 20};
    s.cpus = {0, 1};
    s.cpu.elapsed_s = 0.125;
    s.cpu.ncpus = 2;
    s.cpu.all = {10, 0, 20, 1, 5, 0, 0, 64};
    s.cpu.busy_cpu_s = 0.09;
    s.cpu.per_cpu = {{0, {12, 0, 22, 1, 4, 0, 0, 61}}, {1, {8, 0, 18, 1, 6, 0, 0, 67}}};
    s.cpu.others.cpu_s = 0.01;
    s.cpu.others.top = {{77, "benchmark", 0.01}};
    s.process_user_s = 0.01;
    s.process_sys_s = 0.05;
    s.socket_send_buffer = 2626560;
    s.socket_recv_buffer = 131072;
    s.warnings = {"other processes used 8% of one CPU"};
    return s;
}

// Each message type of the variant, default-constructed: covers types added after this file.
template <size_t... I>
void add_defaults(std::vector<std::pair<std::string, std::string>>& out, std::index_sequence<I...>) {
    (..., [&] {
        Message m{std::in_place_index<I>};
        out.emplace_back(std::string("default-") + message_name(m), encode_message(m));
    }());
}

std::string header_only(uint32_t n) {
    std::string h = "ZCPF";
    h += static_cast<char>(n >> 24);
    h += static_cast<char>(n >> 16);
    h += static_cast<char>(n >> 8);
    h += static_cast<char>(n);
    return h;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> seed_inputs() {
    std::vector<std::pair<std::string, std::string>> out;
    auto valid = [&](const std::string& name, const Message& m) {
        out.emplace_back("valid-" + name, encode_message(m));
    };
    auto framed = [&](const std::string& name, const std::string& body) {
        out.emplace_back("bad-" + name, encode_frame(body));
    };

    // One valid message of every type (and the variants a spec can take).
    Hello hello;
    hello.software = "zcperf 0.1.0";
    hello.boot_id = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
    hello.pid = 1234;
    valid("hello", hello);
    Welcome welcome;
    welcome.software = "zcserver 0.1.0";
    welcome.host = sample_host();
    welcome.has_host = true;
    welcome.features = {kFeatureIntervals};
    valid("welcome", welcome);
    valid("setup-tcp-stream", Setup{sample_spec(transport_named("tcp"), Workload::stream, RxMode::copy)});
    valid("setup-sendfile-maerts",
          Setup{sample_spec(transport_named("tcp-sendfile"), Workload::maerts, RxMode::zerocopy)});
    valid("setup-msgzc-stream-splice",
          Setup{sample_spec(transport_named("tcp-msgzc"), Workload::stream, RxMode::splice)});
    HalfSpec bytes_spec = sample_spec(transport_named("tcp-uringzc"), Workload::maerts, RxMode::trunc);
    bytes_spec.total_bytes = 8ull << 20;
    bytes_spec.duration_s = 0;
    valid("setup-uringzc-total-bytes", Setup{bytes_spec});
    // The kinds' own parameters, each in its kind's field table (kind_params_wire.hpp).
    HalfSpec verbs = sample_spec(transport_named("rdma-write"), Workload::msgrate, RxMode::copy);
    verbs.kind_params.set(kRdmaParams) = RdmaOptions{CqMode::event, 256, 8, 64, 2, 2, true};
    verbs.side.kind_params.set(kRdmaSideParams).device = "rxe0";
    valid("setup-rdma-write-params", Setup{verbs});
    HalfSpec gso = sample_spec(transport_named("udp-gso"), Workload::stream, RxMode::gro);
    gso.kind_params.set(kUdpParams).gso_size = 1400;
    valid("setup-udp-gso-size", Setup{gso});
    valid("ready", Ready{40123, 0x0123456789abcdefull});
    valid("start", Start{});
    valid("started", Started{});
    valid("stop", Stop{});
    valid("result", ResultMsg{sample_side()});
    SideResult udp_side = sample_side();  // a paced UDP receiver's side: its block under "udp"
    UdpInfo udp;
    udp.datagram_path = true;
    udp.rx_mode = "gro";
    udp.counts.datagrams = 1000;
    udp.counts.sender_datagrams = 1002;
    udp.counts.end_marker = true;
    udp.counts.lost = 2;
    udp_side.kinds[udp_block_type().key] = to_json(udp);
    udp_side.pacing = {20000000, {PacingMethod::sender_clock, 250000000}};  // -b's section, any kind's
    valid("result-udp", ResultMsg{udp_side});
    SideResult rdma_side = sample_side();  // a verbs sender's side: its block under "rdma"
    RdmaInfo rdma;
    rdma.device = "rxe0";
    rdma.provider = "rxe";
    rdma.cq_mode = "poll";
    rdma.qps = 2;
    rdma.data_sends = 80;
    rdma.post_calls = 10;
    rdma.doorbell_env = {{"MLX5_SHUT_UP_BF", "1"}};
    rdma_side.kinds[rdma_block_type().key] = to_json(rdma);
    valid("result-rdma", ResultMsg{rdma_side});
    SideResult tcp_side = sample_side();  // a TCP receiver's side: its TCP block's fields at its top level
    TcpSideReport tcp;
    tcp.streams.resize(2);
    tcp.streams[0].interval_s = 10;
    tcp.streams[0].rtt_us = 42;
    tcp.streams[1].bytes_received = 1 << 20;
    tcp.settings = {"cubic", 0, 0, "", "IPv4"};
    tcp.rcv_lowat = 256 << 10;
    tcp_side.kinds[tcp_block_type().key] = to_json(tcp);
    valid("result-tcp", ResultMsg{tcp_side});
    tcp.flow_bytes = {1 << 20, 3 << 19, 1 << 21};  // --flows: each connection's bytes and their figures
    tcp.flows = flow_figures(tcp.flow_bytes, 10, 0);
    tcp_side.kinds[tcp_block_type().key] = to_json(tcp);
    valid("result-tcp-flows", ResultMsg{tcp_side});
    SideResult mptcp_side = sample_side();  // an MPTCP sender's side: one connection of two subflows, one fallback
    MptcpSideReport mptcp;
    MptcpConnectionReport joined;
    joined.mptcp = true;
    joined.source = "MPTCP_FULL_INFO";
    joined.has_bytes = true;
    joined.bytes_sent = joined.bytes_acked = 8ull << 20;
    joined.bytes_retrans = 1400;
    joined.probes_counted = true;
    joined.window_probes = 1;
    joined.subflows = {{1, "10.0.0.1:40000", "10.0.0.2:5001", 5ull << 20, 0},
                       {2, "10.0.1.1:40001", "10.0.1.2:5001", 3ull << 20, 0}};
    MptcpConnectionReport fallback;
    fallback.fallback = "the peer did not answer MP_CAPABLE";
    mptcp.connections = {joined, fallback};
    mptcp_side.kinds[mptcp_block_type().key] = to_json(mptcp);
    valid("result-mptcp", ResultMsg{mptcp_side});
    SideResult smc_side = sample_side();  // an smc client's side: one connection fell back, one SMC-R
    SmcSideReport smc;
    SmcConnection fell;
    fell.mode = static_cast<uint8_t>(SmcMode::fallback);
    fell.has_fallback = true;
    fell.reason = 0x05000000;
    fell.peer_diagnosis = 0x03030000;
    fell.local = fell.remote = "127.0.0.1";
    fell.local_port = 40000;
    fell.remote_port = 5001;
    SmcConnection smcr;
    smcr.has_conninfo = smcr.has_link = true;
    smcr.rmb_size = smcr.peer_rmb_size = 65536;
    smcr.ib_device = "rxe0";
    smcr.ib_port = 1;
    smcr.gid = "0000:0000:0000:0000:0000:ffff:c612:0001";
    smc.connections = {fell, smcr};
    smc.stats.present = smc.stats.fallback_totals = true;
    smc.stats.smcr.client_v2_ok = 1;
    smc.stats.smcr.tx_bytes = 8ull << 20;
    smc.stats.server_fallbacks = 1;
    smc.stats.reasons = {{0x05000000, true, 1}};
    smc_side.kinds[smc_block_type().key] = to_json(smc);
    valid("result-smc", ResultMsg{smc_side});
    SideResult tls_side = sample_side();  // a kTLS receiver's side: the handshake's terms and tls_stat's counters
    TlsSideReport tls;
    tls.crypto = TlsSideReport::kKernelCrypto;
    tls.version = "TLSv1.3";
    tls.cipher = "TLS_AES_128_GCM_SHA256";
    tls.record_payload = 16384;
    tls.openssl_ktls_recv = true;
    tls.kernel_rx = "aes-128-gcm 1.3";
    tls.rx_expect_no_pad = "on";
    tls.sessions = 2;
    tls.tls_stat_present = true;
    tls.tls_stat = {{"TlsRxSw", 2}, {"TlsCurrRxSw", 0}};
    tls_side.kinds[tls_block_type().key] = to_json(tls);
    valid("result-tls", ResultMsg{tls_side});
    SideInterval sample;
    sample.index = 3;
    sample.start_s = 0.3;
    sample.end_s = 0.4;
    sample.bytes = 123456789;
    sample.messages = 0;
    sample.cpu_util_pct = 48.5;
    sample.busy_cpu_s = 0.097;
    sample.process_cpu_s = 0.09;
    valid("interval", IntervalMsg{sample});
    sample.messages = 41000;
    sample.rtt_samples = 41000;
    sample.rtt_p50_us = 23.5;
    sample.rtt_p99_us = 40.25;
    valid("interval-rr", IntervalMsg{sample});
    valid("error", ErrorMsg{"CPU 4000 is not available to zcserver on fuzz-host; its CPUs are 0-3"});
    Hello future;
    future.version = 99;
    future.software = "zcperf 9.9";
    valid("hello-version-99", future);
    Welcome old_welcome;
    old_welcome.version = 1;  // another version (zcperf 1.0's): the host is not decoded
    valid("welcome-version-1", old_welcome);

    add_defaults(out, std::make_index_sequence<std::variant_size_v<Message>>{});

    // Malformed framing.
    out.emplace_back("bad-http", "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    out.emplace_back("bad-short-header", "ZCP");
    out.emplace_back("bad-oversize", header_only(0x7fffffff) + "{}");
    out.emplace_back("bad-over-request-limit", header_only(kMaxRequestBody + 1) + "{\"type\":\"start\"}");
    out.emplace_back("bad-empty-body", header_only(0));
    std::string cut = encode_message(hello);
    out.emplace_back("bad-truncated-hello", cut.substr(0, cut.size() / 2));
    // Malformed bodies.
    framed("not-json", "{not json");
    framed("json-array", "[1,2,3]");
    framed("json-string", "\"hello\"");
    framed("no-type", R"({"version":1})");
    framed("type-number", R"({"type":5})");
    framed("unknown-type", R"({"type":"bogus"})");
    framed("hello-version-string", R"({"type":"hello","version":"1"})");
    framed("hello-version-float", R"({"type":"hello","version":1.5})");
    framed("hello-version-huge", R"({"type":"hello","version":4294967297})");
    framed("welcome-no-host", R"({"type":"welcome","version":1})");
    framed("welcome-host-array", R"({"type":"welcome","version":1,"host":[]})");
    framed("ready-port-0", R"({"type":"ready","data_port":0,"token":1})");
    framed("ready-port-huge", R"({"type":"ready","data_port":4294967297,"token":1})");
    framed("ready-token-negative", R"({"type":"ready","data_port":1,"token":-1})");
    framed("setup-no-spec", R"({"type":"setup"})");
    framed("setup-spec-null", R"({"type":"setup","spec":null})");
    framed("setup-unknown-transport",
           R"({"type":"setup","spec":{"transport":"carrier-pigeon","test":"stream","rx":"copy","message_size":1,)"
           R"("total_bytes":0,"duration_s":1,"streams":1,"alignment":1,)"
           R"("uring_fixed":false,"socket_buffer":0,"cpus":[]}})");
    framed("setup-streams-0",
           R"({"type":"setup","spec":{"transport":"tcp","test":"stream","rx":"copy","message_size":1,)"
           R"("total_bytes":0,"duration_s":1,"streams":0,"alignment":1,)"
           R"("uring_fixed":false,"socket_buffer":0,"cpus":[]}})");
    framed("setup-alignment-3",
           R"({"type":"setup","spec":{"transport":"tcp","test":"maerts","rx":"zerocopy","message_size":1,)"
           R"("total_bytes":0,"duration_s":1,"streams":1,"alignment":3,)"
           R"("uring_fixed":false,"socket_buffer":0,"cpus":[]}})");
    framed("setup-cpu-negative",
           R"({"type":"setup","spec":{"transport":"tcp","test":"stream","rx":"copy","message_size":1,)"
           R"("total_bytes":0,"duration_s":1,"streams":1,"alignment":1,)"
           R"("uring_fixed":false,"socket_buffer":0,"cpus":[-1]}})");
    framed("setup-rdma-postlist-over-depth",
           R"({"type":"setup","spec":{"transport":"rdma-write","test":"msgrate","rx":"copy","message_size":2,)"
           R"("total_bytes":0,"duration_s":1,"streams":1,"alignment":1,"tx_depth":8,"postlist":16,)"
           R"("uring_fixed":false,"socket_buffer":0,"cpus":[]}})");
    framed("setup-gso-size-huge",
           R"({"type":"setup","spec":{"transport":"udp-gso","test":"stream","rx":"copy","message_size":1,)"
           R"("total_bytes":0,"duration_s":1,"streams":1,"alignment":1,"gso_size":70000,)"
           R"("uring_fixed":false,"socket_buffer":0,"cpus":[]}})");
    framed("setup-duration-huge",
           R"({"type":"setup","spec":{"transport":"tcp","test":"stream","rx":"copy","message_size":1,)"
           R"("total_bytes":0,"duration_s":1e308,"streams":1,"alignment":1,)"
           R"("uring_fixed":false,"socket_buffer":0,"cpus":[]}})");
    framed("result-side-null", R"({"type":"result","side":null})");
    {
        nlohmann::json side = to_json(sample_side());
        side["mptcp"] = {{"connections", {{{"mptcp", true}, {"subflows", nlohmann::json::array()}}}}};
        for (int i = 0; i < 65; ++i) side["mptcp"]["connections"][0]["subflows"].push_back({{"id", i}});
        framed("result-mptcp-subflows-over-bound", nlohmann::json{{"type", "result"}, {"side", side}}.dump());
        side.erase("mptcp");
        side["smc"] = {{"connections", {{{"mode", 1}, {"local_port", 1}, {"remote_port", 2}, {"reason", -1}}}}};
        framed("result-smc-reason-negative", nlohmann::json{{"type", "result"}, {"side", side}}.dump());
        side.erase("smc");
        side["tls"] = {{"crypto", "kernel"}, {"tls_stat", {{"TlsTxSw", "many"}}}};
        framed("result-tls-stat-text", nlohmann::json{{"type", "result"}, {"side", side}}.dump());
        side.erase("tls");
        side["pacing"] = {{"bitrate", 999}, {"method", "sender clock"}, {"sleep_s", 0.5}};  // under -b's 1k
        framed("result-pacing-bitrate-under-1k", nlohmann::json{{"type", "result"}, {"side", side}}.dump());
    }
    framed("result-bad-role", R"({"type":"result","side":{"host":"h","role":"sideways"}})");
    framed("interval-no-sample", R"({"type":"interval"})");
    {
        nlohmann::json good = to_json(sample);
        auto bad = [&](const char* name, const char* field, nlohmann::json v) {
            nlohmann::json s = good;
            s[field] = std::move(v);
            framed(name, nlohmann::json{{"type", "interval"}, {"sample", s}}.dump());
        };
        bad("interval-index-negative", "index", -1);
        bad("interval-bytes-float", "bytes", 1e300);
        bad("interval-cpu-over-100", "cpu_util_pct", 100.5);
        bad("interval-end-before-start", "end_s", 0.1);
        bad("interval-start-huge", "start_s", 1e308);
    }
    framed("error-no-reason", R"({"type":"error"})");
    framed("error-reason-number", R"({"type":"error","reason":42})");
    framed("duplicate-keys", R"({"type":"start","type":"stop"})");
    framed("invalid-utf8", "{\"type\":\"\xff\xfe\"}");
    framed("nul-in-string", std::string("{\"type\":\"st\0art\"}", 17));
    // Deep nesting inside an otherwise valid message.
    framed("deep-nesting", "{\"type\":\"start\",\"x\":" + std::string(20000, '[') + std::string(20000, ']') + "}");
    // A long unknown type whose 64-byte cut in the rejection's reason splits a UTF-8 character.
    framed("unknown-type-utf8-cut", "{\"type\":\"" + std::string(63, 'a') + "\xc3\xa9\"}");
    // A long error reason whose 4096-byte cut splits a UTF-8 character.
    framed("error-reason-utf8-cut", "{\"type\":\"error\",\"reason\":\"" + std::string(4095, 'a') + "\xc3\xa9\"}");
    // A result whose stream_bytes and cpus hold numbers no integer can take.
    {
        nlohmann::json side = to_json(sample_side());
        side["stream_bytes"] = {1e300, -1.5};
        side["cpus"] = {1e300};
        framed("result-float-overflow", nlohmann::json{{"type", "result"}, {"side", side}}.dump());
    }
    return out;
}

void write_seed_corpus(const std::string& dir) {
    for (const auto& [name, bytes] : seed_inputs()) {
        std::ofstream f(dir + "/" + name + ".bin", std::ios::binary | std::ios::trunc);
        if (!f) throw std::runtime_error("cannot write " + dir + "/" + name + ".bin");
        f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
}

}  // namespace zc::fuzz
