// The message tests (rr, msgrate) above the loops: both sides' counts checked, rates and service
// demand per transaction, the figures carried through JSON and repetitions, and the command line.
#include <gtest/gtest.h>

#include <initializer_list>

#include "../transport_built.hpp"
#include "parse_cli.hpp"
#include "cli.hpp"
#include "iterations.hpp"
#include "protocol/json_fields.hpp"
#include "rdma/rdma_info.hpp"
#include "rdma/rdma_options.hpp"
#include "run_driver.hpp"
#include "../half_spec.hpp"
#include "tcp/tcp_ops.hpp"
#include "tcp/tcp_msgrate.hpp"
#include "kind/spec_rules.hpp"

using namespace zc;
using zc::test::half_spec;

namespace {
// What a half of this message test may not do (spec_problem), with the options it carries.
std::string problem(Workload test, Transport t, RxMode rx, uint64_t total_bytes, uint32_t batch,
                    const RdmaOptions& rdma = {}) {
    HalfSpec h = half_spec(t, 1, {}, rx, test);
    h.total_bytes = total_bytes;
    h.batch = batch;
    h.kind_params.set(kRdmaParams) = rdma;
    return spec_problem(h, Role::send);
}
}  // namespace
using zc::test::parse;

namespace {

SideResult side(Role role, uint64_t transactions, double elapsed_s, double busy_cpu_s) {
    SideResult s;
    s.role = role;
    s.bytes = transactions;  // 1-byte messages: bytes received = transactions
    s.ops = 2 * transactions;
    s.elapsed_s = elapsed_s;
    s.stream_bytes = {transactions};
    s.cpus = {0};
    s.cpu.elapsed_s = elapsed_s;
    s.cpu.ncpus = 2;
    s.cpu.busy_cpu_s = busy_cpu_s;
    s.messages.messages = transactions;
    s.messages.stream_messages = {transactions};
    s.messages.segments = transactions;
    return s;
}

TestSpec rr_spec() {
    TestSpec s;
    s.test = Workload::rr;
    s.message_size = 1;
    return s;
}

}  // namespace

TEST(MessageTests, RrRatesLatencyAndServiceDemandPerTransaction) {
    SideResult client = side(Role::send, 100000, 5.0, 2.5);
    client.messages.rtt.prepare();
    for (int i = 0; i < 100000; ++i) client.messages.rtt.record(i % 2 ? 40000 : 20000);  // 20 and 40 us
    SideResult server = side(Role::recv, 100000, 5.1, 3.0);
    TestResult r = merge_sides(rr_spec(), client, server, true);
    const MessageResult& m = r.messages;
    EXPECT_EQ(m.messages, 100000u);
    EXPECT_DOUBLE_EQ(m.elapsed_s, 5.0);  // the client's interval: it timed the transactions
    EXPECT_DOUBLE_EQ(m.messages_per_s, 20000.0);
    EXPECT_DOUBLE_EQ(m.rtt.mean_us, 30.0);
    EXPECT_DOUBLE_EQ(m.rtt.p50_us, 20.031);  // the midpoint of [19968, 20096) ns: 128 ns buckets at 20 us
    EXPECT_NEAR(m.rtt.p99_us, 40.0, 40.0 / 256);
    EXPECT_DOUBLE_EQ(m.local_sd_us, 25.0);  // 2.5 CPU-s / 100000 transactions
    EXPECT_DOUBLE_EQ(m.remote_sd_us, 30.0);
    EXPECT_DOUBLE_EQ(m.calls_per_message, 2.0);
    nlohmann::json j = to_json(r);
    ASSERT_TRUE(j.contains("rr"));
    EXPECT_EQ(j["rr"]["transactions"], 100000);
    EXPECT_DOUBLE_EQ(j["rr"]["latency_us"]["mean"].get<double>(), 15.0);
    EXPECT_DOUBLE_EQ(j["rr"]["rtt_us"]["mean"].get<double>(), 30.0);
    for (const char* k : {"min", "mean", "p50", "p90", "p99", "p99.9", "max"})
        EXPECT_TRUE(j["rr"]["rtt_us"].contains(k)) << k;
    EXPECT_FALSE(j.contains("msgrate"));
}

// The client's side ends after the server's result came; its loops, which counted the transactions,
// ended before: the rate is over the loops' interval (and falls back to the side's where a side has none).
TEST(MessageTests, TransactionRateIsOverTheClientsLoopsNotItsWaitForTheResult) {
    SideResult client = side(Role::send, 30000, 3.08, 1.0);
    client.loops_s = 3.0;
    SideResult server = side(Role::recv, 30000, 3.01, 1.0);
    for (Workload t : {Workload::rr, Workload::crr, Workload::cc}) {
        TestSpec s = rr_spec();
        s.test = t;
        TestResult r = merge_sides(s, client, server, true);
        EXPECT_DOUBLE_EQ(r.messages.elapsed_s, 3.0) << workload_name(t);
        EXPECT_DOUBLE_EQ(r.messages.messages_per_s, 10000.0) << workload_name(t);
        EXPECT_DOUBLE_EQ(r.messages.stream_messages_per_s.at(0), 10000.0) << workload_name(t);
    }
    SideResult back = side_result_from_json(to_json(client));  // it crosses the wire (a server's side)
    EXPECT_DOUBLE_EQ(back.loops_s, 3.0);
    EXPECT_DOUBLE_EQ(back.measured_s(), 3.0);
    client.loops_s = 0;  // not known: the side's interval
    EXPECT_DOUBLE_EQ(merge_sides(rr_spec(), client, server, true).messages.elapsed_s, 3.08);
    // Repetitions add the loops' intervals as they add the sides'.
    client.loops_s = 3.0;
    TestResult one = merge_sides(rr_spec(), client, server, true);
    TestResult two = merge_iterations({one, one}, ConfidenceGoal{});
    EXPECT_DOUBLE_EQ(two.messages.elapsed_s, 6.0);
    EXPECT_DOUBLE_EQ(two.messages.messages_per_s, 10000.0);
}

TEST(MessageTests, TransactionCountsMustAgree) {
    SideResult client = side(Role::send, 1000, 5.0, 1.0);
    SideResult server = side(Role::recv, 1000, 5.0, 1.0);
    server.messages.messages = 999;
    server.messages.stream_messages = {999};
    EXPECT_THROW(merge_sides(rr_spec(), client, server, false), std::runtime_error);
}

TEST(MessageTests, MsgrateNotesMergedSegments) {
    TestSpec s = rr_spec();
    s.test = Workload::msgrate;
    s.message_size = 2;
    s.batch = 4;
    SideResult tx = side(Role::send, 1000, 1.0, 1.0);
    tx.messages.segments = 200;
    SideResult rx = side(Role::recv, 1000, 2.0, 1.0);
    TestResult r = merge_sides(s, tx, rx, false);
    EXPECT_DOUBLE_EQ(r.messages.messages_per_s, 500.0);  // the receiver's interval
    EXPECT_DOUBLE_EQ(r.messages.segments_per_message, 0.2);
    bool noted = false;
    for (const auto& w : r.warnings) noted |= w.find("segments per message") != std::string::npos;
    EXPECT_TRUE(noted);
    nlohmann::json j = to_json(r);
    EXPECT_EQ(j["msgrate"]["messages"], 1000);
    EXPECT_EQ(j["msgrate"]["batch"], 4);
    EXPECT_EQ(j["msgrate"]["stream_messages_per_s"].size(), 1u);
}

TEST(MessageTests, SideCountsAndHistogramCrossTheWire) {
    SideResult s = side(Role::send, 3, 5.0, 1.0);
    s.messages.rtt.prepare();
    for (uint64_t v : {15000u, 16000u, 90000u}) s.messages.rtt.record(v);
    SideResult back = side_result_from_json(to_json(s));
    EXPECT_EQ(back.messages.messages, 3u);
    EXPECT_EQ(back.messages.stream_messages, std::vector<uint64_t>{3});
    EXPECT_EQ(back.messages.rtt.count(), 3u);
    EXPECT_EQ(back.messages.rtt.percentile(50), s.messages.rtt.percentile(50));
    EXPECT_EQ(back.messages.rtt.max(), 90000u);
    auto j = to_json(s);
    j["messages"]["rtt_ns"]["buckets"][0][0] = 999999;  // out of range: refused, not trusted
    EXPECT_THROW(side_result_from_json(j), ProtocolError);
}

TEST(MessageTests, RepetitionsAddTransactionsAndMergeHistograms) {
    std::vector<TestResult> runs;
    for (int i = 0; i < 2; ++i) {
        SideResult c = side(Role::send, 1000, 1.0, 0.5);
        c.messages.rtt.prepare();
        for (int k = 0; k < 1000; ++k) c.messages.rtt.record(i == 0 ? 10000 : 30000);
        runs.push_back(merge_sides(rr_spec(), c, side(Role::recv, 1000, 1.0, 0.5), false));
    }
    TestResult m = merge_iterations(runs, ConfidenceGoal{});
    EXPECT_EQ(m.messages.messages, 2000u);
    EXPECT_DOUBLE_EQ(m.messages.messages_per_s, 1000.0);
    EXPECT_DOUBLE_EQ(m.messages.rtt.mean_us, 20.0);
    EXPECT_EQ(m.messages.rtt.samples, 2000u);
}

TEST(MessageTests, CommandLineDefaultsAndBadCombinations) {
    ClientOptions o;
    ASSERT_EQ(parse({"-t", "rr,msgrate,stream"}, o), -1);
    auto specs = expand_tests(o);
    ASSERT_EQ(specs.size(), 3u);
    EXPECT_EQ(specs[0].message_size, 1u);        // rr: netperf's TCP_RR default
    EXPECT_EQ(specs[1].message_size, 2u);        // msgrate
    EXPECT_EQ(specs[2].message_size, 1u << 20);  // stream
    ClientOptions sized;
    ASSERT_EQ(parse({"-t", "rr", "-m", "1..4", "--cpu", "0"}, sized), -1);
    EXPECT_EQ(expand_tests(sized).size(), 3u);
    ClientOptions batched;
    ASSERT_EQ(parse({"-t", "rr,msgrate", "--batch", "8"}, batched), -1);
    auto b = expand_tests(batched);
    EXPECT_EQ(b[0].batch, 1u);  // rr: one message in flight
    EXPECT_EQ(b[1].batch, 8u);
    ClientOptions big;
    ASSERT_EQ(parse({"-t", "rr", "-m", "1G"}, big), -1);
    for (const auto& bad : std::vector<std::vector<std::string>>{{"-t", "rr", "-n", "1G"},
                                                                 {"-t", "rr", "-T", "tcp-sendfile"},
                                                                 {"-t", "msgrate", "-T", "tcp,tcp-msgzc"},
                                                                 {"-t", "rr", "--rx", "zerocopy"},
                                                                 {"-t", "stream", "--batch", "4"},
                                                                 {"-t", "msgrate", "--batch", "0"},
                                                                 {"-t", "msgrate", "--batch", "1025"},
                                                                 {"-t", "rr", "-m", "2G"},
                                                                 {"-t", "pingpong"}}) {
        ClientOptions x;
        EXPECT_EQ(parse(bad, x), 2) << bad[1] << " " << bad[2] << " " << bad[3];
    }
}

TEST(MessageTests, ServerSideChecksAndBufferSizes) {
    EXPECT_EQ(problem(Workload::rr, transport_named("tcp"), RxMode::copy, 0, 1), "");
    // The rows that run rr, named from the table.
    EXPECT_NE(problem(Workload::rr, transport_named("tcp-uringzc"), RxMode::copy, 0, 1).find("rr runs over tcp, "),
              std::string::npos);
    EXPECT_NE(problem(Workload::msgrate, transport_named("tcp"), RxMode::copy, 100, 1).find("-l"), std::string::npos);
    EXPECT_NE(problem(Workload::rr, transport_named("tcp"), RxMode::copy, 0, 4), "");
    EXPECT_EQ(problem(Workload::stream, transport_named("tcp-msgzc"), RxMode::zerocopy, 100, 1), "");
    EXPECT_EQ(buffer_bytes(half_spec(transport_named("tcp"), 1ull << 30, {}, RxMode::copy, Workload::rr), Role::recv),
              1ull << 30);
    // rr takes host, pinned and GPU memory; msgrate host memory only, and the server says so too.
    EXPECT_EQ(msgrate_buffer_problem({MemoryKind::host, 0}), "");
    EXPECT_NE(msgrate_buffer_problem({MemoryKind::cuda, 1}).find("msgrate uses host memory"), std::string::npos);
    HalfSpec gpu_msgrate = server_half(rr_spec());
    gpu_msgrate.test = Workload::msgrate;
    gpu_msgrate.side.buffer = {MemoryKind::cuda, 0};
    StreamLoop path;
    LatencyHistogram rtt;
    EXPECT_THROW(make_tcp_exchange(path, gpu_msgrate, Role::send, -1, rtt), std::runtime_error);
    EXPECT_EQ(buffer_bytes(half_spec(transport_named("tcp"), 2, {}, RxMode::copy, Workload::msgrate), Role::recv),
              TcpMsgRateReceiver::kChunk);
    // Verbs msgrate: the receiver's ring, at least 512 slots per QP (2 QPs x 512 x 4 KiB).
    RdmaOptions two;
    two.qps = 2;
    HalfSpec verbs = half_spec(transport_named("rdma-send"), 4096, {}, RxMode::copy, Workload::msgrate);
    verbs.kind_params.set(kRdmaParams) = two;
    EXPECT_EQ(buffer_bytes(verbs, Role::recv), 2ull * 512 * 4096);
    // The spec carries the test kind and batch to the server, and refuses a bad batch.
    TestSpec s = rr_spec();
    s.test = Workload::msgrate;
    s.batch = 16;
    HalfSpec back = half_spec_from_json(to_json(server_half(s)));
    EXPECT_EQ(back.test, Workload::msgrate);
    EXPECT_EQ(back.batch, 16u);
    auto j = to_json(server_half(s));
    j["batch"] = 5000;
    EXPECT_THROW(half_spec_from_json(j), ProtocolError);
    j.erase("batch");
    EXPECT_EQ(half_spec_from_json(j).batch, 1u);  // an older client
}

TEST(MessageTests, RdmaTransportsAndWhatTheyRefuse) {
    for (Transport t : {transport_named("rdma-send"), transport_named("rdma-write"), transport_named("rsocket")}) {
        EXPECT_EQ(problem(Workload::rr, t, RxMode::copy, 0, 1), "") << transport_name(t);
    }
    for (Transport t : {transport_named("rdma-send"), transport_named("rdma-write")}) {
        EXPECT_EQ(problem(Workload::msgrate, t, RxMode::copy, 0, 1, RdmaOptions{CqMode::poll, 128, 8, 64, 2, 2}), "")
            << transport_name(t);
    }
    auto says = [](const std::string& why, const char* what) {
        EXPECT_NE(why.find(what), std::string::npos) << "'" << why << "' should say '" << what << "'";
    };
    says(problem(Workload::rr, transport_named("rsocket-iomap"), RxMode::copy, 0, 1), "-T rsocket");
    says(problem(Workload::rr, transport_named("rdma-read"), RxMode::copy, 0, 1), "one-sided");
    says(problem(Workload::msgrate, transport_named("rdma-read"), RxMode::copy, 0, 1), "-T rdma-send");
    says(problem(Workload::msgrate, transport_named("rsocket"), RxMode::copy, 0, 1), "coalesced");
    says(problem(Workload::msgrate, transport_named("rdma-send"), RxMode::copy, 0, 4), "--postlist");
    RdmaOptions two_qps;
    two_qps.qps = 2;
    says(problem(Workload::rr, transport_named("rdma-write"), RxMode::copy, 0, 1, two_qps), "--qps must be 1");
    RdmaOptions chained;
    chained.postlist = 8;
    says(problem(Workload::rr, transport_named("rdma-send"), RxMode::copy, 0, 1, chained), "-t msgrate");
    // The stream tests keep every RDMA option.
    EXPECT_EQ(problem(Workload::stream, transport_named("rdma-write"), RxMode::copy, 0, 1, two_qps), "");
}

TEST(MessageTests, RdmaCommandLine) {
    REQUIRE_RDMA_BUILT();
    ClientOptions o;
    ASSERT_EQ(parse({"-t", "msgrate", "-T", "rdma-send", "-P", "4", "--qps-per-context", "2", "--postlist", "8",
                     "--inline", "64"},
                    o),
              -1);
    auto specs = expand_tests(o);
    ASSERT_EQ(specs.size(), 1u);
    EXPECT_EQ(rdma_params(specs[0]).qps_per_context, 2u);
    EXPECT_EQ(rdma_params(specs[0]).postlist, 8u);
    EXPECT_EQ(specs[0].message_size, 2u);
    ClientOptions rr;
    ASSERT_EQ(parse({"-t", "rr", "-T", "rdma-send,rdma-write,rsocket", "-m", "1,4K,1M"}, rr), -1);
    EXPECT_EQ(expand_tests(rr).size(), 9u);
    for (const auto& bad :
         std::vector<std::vector<std::string>>{{"-t", "rr", "-T", "rdma-send", "--qps", "2"},
                                               {"-t", "rr", "-T", "rdma-write", "--postlist", "4"},
                                               {"-t", "msgrate", "-T", "rdma-send", "--batch", "4"},
                                               {"-t", "rr", "-T", "rdma-read"},
                                               {"-t", "msgrate", "-T", "rsocket-iomap"},
                                               {"-t", "msgrate", "-T", "rdma-send", "--qps-per-context", "5000"}}) {
        ClientOptions x;
        EXPECT_EQ(parse(bad, x), 2) << bad[1] << " " << bad[3] << " " << bad[4];
    }
}

TEST(MessageTests, RepetitionsJudgeTheTransactionRateNotThroughput) {
    // Two rr runs moving the same bytes per second would look identical by Gb/s; their
    // transaction rates (1000/s and 3000/s) differ, and that is what -i/-I must judge.
    std::vector<TestResult> runs;
    for (uint64_t n : {1000, 3000})
        runs.push_back(merge_sides(rr_spec(), side(Role::send, n, 1.0, 0.5), side(Role::recv, n, 1.0, 0.5), false));
    runs[0].throughput_gbps = runs[1].throughput_gbps = 1.0;
    auto t = tracked_series(runs);
    EXPECT_EQ(t[0], (std::vector<double>{1000, 3000}));
    EXPECT_DOUBLE_EQ(t[1][0], 500.0);  // local SD: 0.5 CPU-s per 1000 transactions = 500 us/Tran
    EXPECT_NEAR(t[1][1], 166.667, 0.001);
    TestResult m = merge_iterations(runs, ConfidenceGoal{10, 2, 95, 5});
    EXPECT_EQ(m.iterations.metric, "transactions_per_s");
    EXPECT_GT(m.iterations.throughput_width_pct, 100.0);  // 1000 vs 3000: wide, though Gb/s did not move
    EXPECT_FALSE(m.iterations.met);
    TestSpec ms = rr_spec();
    ms.test = Workload::msgrate;
    EXPECT_EQ(tracked_metric(Workload::msgrate), std::string("messages_per_s"));
    EXPECT_EQ(tracked_metric(Workload::stream), std::string("throughput_gbps"));
}

TEST(MessageTests, VerbsMsgrateSaysHowItSent) {
    TestSpec spec = rr_spec();
    spec.test = Workload::msgrate;
    spec.message_size = 2;
    spec.transport = transport_named("rdma-send");
    spec.kind_params.set(kRdmaParams).postlist = 8;
    SideResult c = side(Role::send, 80, 1.0, 0.5), s = side(Role::recv, 80, 1.0, 0.5);
    c.path = s.path = "rdma-send";
    RdmaInfo posted;  // the client's RDMA block (rdma/rdma_info.hpp) says how it posted
    posted.cq_mode = "poll";
    posted.post_calls = 10;
    posted.data_sends = 80;
    posted.inline_sends = 80;
    posted.max_inline = 64;
    c.kinds[rdma_block_type().key] = to_json(posted);
    TestResult r = merge_sides(spec, c, s, false);
    EXPECT_EQ(r.messages.batch, 8u);  // --postlist, not --batch
    EXPECT_FALSE(r.messages.stream_segments);
    EXPECT_NE(r.messages.measured.find("up to 8 chained per ibv_post_send (10 calls for 80 requests)"),
              std::string::npos)
        << r.messages.measured;
    EXPECT_NE(r.messages.measured.find("80 posted inline (max_inline 64)"), std::string::npos) << r.messages.measured;
    // No TCP autocorking note for verbs, whatever the segment count says.
    for (const auto& w : r.warnings) EXPECT_EQ(w.find("autocorking"), std::string::npos) << w;
    auto j = to_json(r.messages, Workload::msgrate, 2);
    EXPECT_EQ(j["measured"].get<std::string>().rfind("2 B messages, one SEND work request each", 0), 0u) << j.dump();
}
