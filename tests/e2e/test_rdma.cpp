// RDMA transports end to end: real zcserver and zcperf processes over an RDMA device.
// Runs where /sys/class/infiniband has a device (the Soft-RoCE guest: scripts/rdma_vm.sh, label
// rdma); skipped with the reason elsewhere. The one test that needs *no* device runs on the host.
// Throughput is not asserted (Soft-RoCE under TCG is ~1/100 of hardware): correctness is. Every
// receiver checks a pattern sample of each message it counts, so "bytes match" means bytes landed.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "../transport_built.hpp"
#include "process.hpp"
#include "report.hpp"
#include "protocol/run_spec.hpp"
#include "paths/data_setup.hpp"
#if ZCPERF_WITH_RDMA
#include <arpa/inet.h>
#include <poll.h>
#include <rdma/rsocket.h>

#include <future>

#include "core/data_connection.hpp"
#include "rdma/rsocket_paths.hpp"
#endif

using namespace zc::e2e;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

bool have_rdma_device() {
    std::error_code ec;
    std::filesystem::directory_iterator it("/sys/class/infiniband", ec);
    return !ec && it != std::filesystem::directory_iterator();
}

// The address the data must use: on the RDMA device's netdev (rdma_cm refuses loopback).
std::string rdma_ip() { return env_or("RDMA_VM_IP", env_or("ZCPERF_RDMA_IP", "")); }

#define REQUIRE_RDMA()                                                                                              \
    do {                                                                                                            \
        if (!have_rdma_device())                                                                                    \
            GTEST_SKIP() << "no RDMA device (/sys/class/infiniband is empty): run these "                           \
                            "in the Soft-RoCE guest, scripts/rdma_vm.sh -- ctest -L rdma";                          \
        if (rdma_ip().empty()) GTEST_SKIP() << "set RDMA_VM_IP or ZCPERF_RDMA_IP to an address on the RDMA netdev"; \
    } while (0)

// A zcserver bound to the RDMA address.
class RdmaServer {
public:
    // `env`: NAME=VALUE settings for the server's environment only (run through env(1)).
    explicit RdmaServer(const std::vector<std::string>& env = {}) : port_(free_port()) {
        std::vector<std::string> argv;
        if (!env.empty()) argv.push_back("/usr/bin/env");
        argv.insert(argv.end(), env.begin(), env.end());
        argv.insert(argv.end(), {zcserver_bin(), "--bind", rdma_ip(), "--port", std::to_string(port_)});
        proc_ = std::make_unique<Process>(argv);
        if (!proc_->wait_for_stderr("listening on", 60s))
            throw std::runtime_error("zcserver did not start: " + proc_->stderr_so_far());
    }
    std::string address() const { return rdma_ip() + ":" + std::to_string(port_); }
    Process& process() { return *proc_; }
    uint16_t port() const { return port_; }

private:
    uint16_t port_;
    std::unique_ptr<Process> proc_;
};

void expect_rdma_side(const json& side, const std::string& cq_mode, bool verbs) {
    ASSERT_TRUE(side.contains("rdma")) << side.dump();
    const json& r = side["rdma"];
    if (verbs) {
        EXPECT_EQ(r["device"], env_or("RDMA_VM_DEV", r["device"].get<std::string>()));
        EXPECT_GT(r["port"].get<int>(), 0);
        EXPECT_EQ(r["gid_index"].get<int>(),
                  std::stoi(env_or("RDMA_VM_GID_INDEX", std::to_string(r["gid_index"].get<int>()))));
        EXPECT_GT(r["mtu"].get<int>(), 0);
        EXPECT_FALSE(r["link_layer"].get<std::string>().empty());
        EXPECT_EQ(r["cq_mode"], cq_mode);
        EXPECT_GT(r["registered_bytes"].get<uint64_t>(), 0u);
        EXPECT_GE(r["registration_ms"].get<double>(), 0.0);
    }
}

struct Case {
    std::string transport, test, size, amount;  // amount: "-n X" or "-l X"
    int streams, qps;
    std::string cq;
    int postlist;
    std::string buffer = {}, gpu_path = {};  // GPU memory cases (RdmaStaged)
};

void PrintTo(const Case& c, std::ostream* os) {
    *os << c.transport << " " << c.test << " -m " << c.size << " " << c.amount << " -P " << c.streams << " --qps "
        << c.qps << " --cq-mode " << c.cq << " --postlist " << c.postlist;
    if (!c.buffer.empty()) *os << " --buffer " << c.buffer << " --gpu-path " << c.gpu_path;
}

std::string case_name(const testing::TestParamInfo<Case>& i) {
    std::string n = i.param.transport + "_" + i.param.test + "_" + i.param.size + "_" + i.param.amount + "_P" +
                    std::to_string(i.param.streams) + "_q" + std::to_string(i.param.qps) + "_" + i.param.cq + "_pl" +
                    std::to_string(i.param.postlist);
    if (!i.param.buffer.empty()) n += "_" + i.param.buffer + "_" + i.param.gpu_path;
    for (char& c : n)
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
    return n;
}

// --cq-mode auto: the passive side of a one-sided transfer sleeps, and so does every side of a stream
// over a software device (rxe, siw: the guest's); every other side polls.
std::string cq_mode_run(const Case& c, const json& side) {
    if (c.cq != "auto") return c.cq;
    bool recv = side["role"] == "recv";
    bool passive = (c.transport == "rdma-write" && recv) || (c.transport == "rdma-read" && !recv);
    const std::string provider = side["rdma"].value("provider", "");
    bool software_stream = (c.test == "stream" || c.test == "maerts") && (provider == "rxe" || provider == "siw");
    return passive || software_stream ? "event" : "poll";
}

// zcperf's arguments for a case.
std::vector<std::string> case_args(const Case& c, const std::string& server) {
    std::vector<std::string> args{"-H",   server, "-T",   c.transport, "-t",
                                  c.test, "-m",   c.size, "-P",        std::to_string(c.streams)};
    args.insert(args.end(),
                {"--qps", std::to_string(c.qps), "--cq-mode", c.cq, "--postlist", std::to_string(c.postlist)});
    if (!c.buffer.empty()) args.insert(args.end(), {"--buffer", c.buffer, "--gpu-path", c.gpu_path});
    args.push_back(c.amount[0] == 'n' ? "-n" : "-l");
    args.push_back(c.amount.substr(1));
    return args;
}

// Runs a case and checks what every case must hold: one result, the exact byte count when -n was
// given, both sides counting the same bytes. Returns the result.
json run_case(const Case& c, const std::string& server) {
    json j = zcperf_report(case_args(c, server));
    EXPECT_EQ(j["results"].size(), 1u) << j.dump();
    json r = j["results"].size() == 1 ? j["results"][0]
                                      : json{{"bytes", 0}, {"local", json::object()}, {"remote", json::object()}};
    uint64_t bytes = r["bytes"];
    if (c.amount[0] == 'n') {
        EXPECT_EQ(bytes, std::stoull(c.amount.substr(1)));
    }
    EXPECT_GT(bytes, 0u);
    EXPECT_EQ(r["local"]["bytes"], bytes);
    EXPECT_EQ(r["remote"]["bytes"], bytes);
    return r;
}

class RdmaTransfer : public testing::TestWithParam<Case> {};

}  // namespace

TEST_P(RdmaTransfer, ReceiverCountsVerifiedBytes) {
    REQUIRE_RDMA();
    const Case& c = GetParam();
    RdmaServer server;
    const json r = run_case(c, server.address());
    EXPECT_EQ(r["transport"], c.transport);
    EXPECT_EQ(r["local"]["stream_bytes"].size(), static_cast<size_t>(c.streams));
    EXPECT_GT(r["throughput_gbps"].get<double>(), 0.0);
    // Service demand on both sides, as for TCP.
    EXPECT_GT(r["local"]["service_demand_us_per_kb"].get<double>(), 0.0);
    EXPECT_GT(r["remote"]["service_demand_us_per_kb"].get<double>(), 0.0);
    bool verbs = c.transport.rfind("rdma-", 0) == 0;
    if (verbs) {
        expect_rdma_side(r["local"], cq_mode_run(c, r["local"]), true);
        expect_rdma_side(r["remote"], cq_mode_run(c, r["remote"]), true);
        EXPECT_EQ(r["local"]["rdma"]["qps"].get<int>(), c.streams * c.qps);
    }
    if (c.transport == "rsocket-iomap") {
        const json& rx = r["local"]["role"] == "recv" ? r["local"] : r["remote"];
        expect_rdma_side(rx, "", false);
    }
}

INSTANTIATE_TEST_SUITE_P(
    Rdma, RdmaTransfer,
    testing::Values(
        // Each transport, a byte count that ends mid-message (the short last message must count exactly).
        Case{"rdma-write", "stream", "64K", "n5000003", 1, 1, "poll", 1},
        Case{"rdma-send", "stream", "64K", "n5000003", 1, 1, "poll", 1},
        Case{"rdma-read", "stream", "64K", "n5000003", 1, 1, "poll", 1},
        Case{"rsocket", "stream", "64K", "n5000003", 1, 1, "poll", 1},
        Case{"rsocket-iomap", "stream", "64K", "n5000003", 1, 1, "poll", 1},
        // Several sizes, 4 QPs, both CQ modes, postlist, several streams, and the server sending.
        Case{"rdma-write", "stream", "1M", "l1", 1, 4, "event", 1},
        Case{"rdma-write", "maerts", "4K", "n3000001", 2, 4, "poll", 8},
        Case{"rdma-write", "stream", "100", "n200001", 1, 1, "event", 16},
        Case{"rdma-send", "stream", "1M", "l1", 1, 4, "event", 1},
        Case{"rdma-send", "maerts", "4K", "n3000001", 2, 4, "poll", 8},
        Case{"rdma-send", "stream", "100", "n200001", 1, 1, "event", 16},
        Case{"rdma-read", "stream", "1M", "l1", 1, 4, "event", 1},
        Case{"rdma-read", "maerts", "4K", "n3000001", 2, 4, "poll", 8},
        Case{"rsocket", "maerts", "1M", "l1", 2, 1, "poll", 1},
        Case{"rsocket-iomap", "maerts", "1M", "n7000001", 1, 1, "poll", 1},
        // The default, auto: each side's mode follows its part in the transfer.
        Case{"rdma-write", "stream", "64K", "n5000003", 1, 1, "auto", 1},
        Case{"rdma-write", "maerts", "64K", "n5000003", 1, 2, "auto", 1},
        Case{"rdma-read", "stream", "64K", "n5000003", 1, 1, "auto", 1},
        Case{"rdma-send", "stream", "64K", "n5000003", 1, 1, "auto", 1}),
    case_name);

// ---- rr and msgrate over RDMA ----

struct MsgCase {
    std::string transport, test, sizes;  // sizes: -m, one result each
    int streams, per_context;            // -P, --qps-per-context (0: rdma_cm's shared context)
    std::string cq;
    int postlist, inline_size;
};

void PrintTo(const MsgCase& c, std::ostream* os) {
    *os << c.transport << " -t " << c.test << " -m " << c.sizes << " -P " << c.streams << " --qps-per-context "
        << c.per_context << " --cq-mode " << c.cq << " --postlist " << c.postlist << " --inline " << c.inline_size;
}

std::string msg_case_name(const testing::TestParamInfo<MsgCase>& i) {
    const MsgCase& c = i.param;
    std::string n = c.transport + "_" + c.test + "_" + c.sizes + "_P" + std::to_string(c.streams) + "_ctx" +
                    std::to_string(c.per_context) + "_" + c.cq + "_pl" + std::to_string(c.postlist) + "_in" +
                    std::to_string(c.inline_size);
    for (char& ch : n)
        if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return n;
}

class RdmaMessages : public testing::TestWithParam<MsgCase> {};

TEST_P(RdmaMessages, BothSidesCountTheSameAndTheFiguresHold) {
    REQUIRE_RDMA();
    const MsgCase& c = GetParam();
    RdmaServer server;
    json j = zcperf_report({"-H",
                            server.address(),
                            "-T",
                            c.transport,
                            "-t",
                            c.test,
                            "-m",
                            c.sizes,
                            "-l",
                            "1",
                            "-P",
                            std::to_string(c.streams),
                            "--qps-per-context",
                            std::to_string(c.per_context),
                            "--cq-mode",
                            c.cq,
                            "--postlist",
                            std::to_string(c.postlist),
                            "--inline",
                            std::to_string(c.inline_size)},
                           240s);
    size_t sizes = 1 + std::count(c.sizes.begin(), c.sizes.end(), ',');
    ASSERT_EQ(j["results"].size(), sizes) << j.dump();
    const bool verbs = c.transport != "rsocket";
    for (const json& r : j["results"]) {
        SCOPED_TRACE("message size " + std::to_string(r["message_size"].get<uint64_t>()));
        const uint64_t size = r["message_size"];
        const json& lm = r["local"]["messages"];
        const json& rm = r["remote"]["messages"];
        // Both sides counted, and agree stream by stream.
        EXPECT_GT(lm["messages"].get<uint64_t>(), 0u);
        EXPECT_EQ(lm["messages"], rm["messages"]);
        EXPECT_EQ(lm["stream_messages"], rm["stream_messages"]);
        EXPECT_EQ(lm["stream_messages"].size(), static_cast<size_t>(c.streams));
        for (const auto& per : lm["stream_messages"]) EXPECT_GT(per.get<uint64_t>(), 0u);
        if (c.test == "rr") {
            const json& rr = r["rr"];
            EXPECT_EQ(rr["transactions"], lm["messages"]);
            EXPECT_GT(rr["transactions_per_s"].get<double>(), 0.0);
            const json& t = rr["rtt_us"];
            EXPECT_GT(t["min"].get<double>(), 0.0);
            EXPECT_LE(t["min"].get<double>(), t["p50"].get<double>());
            EXPECT_LE(t["p50"].get<double>(), t["p90"].get<double>());
            EXPECT_LE(t["p90"].get<double>(), t["p99"].get<double>());
            EXPECT_LE(t["p99"].get<double>(), t["p99.9"].get<double>());
            EXPECT_LE(t["p99.9"].get<double>(), t["max"].get<double>());
            EXPECT_LE(t["min"].get<double>(), t["mean"].get<double>());
            EXPECT_LE(t["mean"].get<double>(), t["max"].get<double>());
            EXPECT_DOUBLE_EQ(rr["latency_us"]["p50"].get<double>(), t["p50"].get<double>() / 2);
            EXPECT_EQ(rr["samples"], rr["transactions"]);
            // Each side received every message whole: transactions x size bytes.
            EXPECT_EQ(r["local"]["bytes"].get<uint64_t>(), lm["messages"].get<uint64_t>() * size);
            EXPECT_EQ(r["remote"]["bytes"].get<uint64_t>(), lm["messages"].get<uint64_t>() * size);
            EXPECT_GT(rr["local_sd_us_per_tran"].get<double>(), 0.0);
            EXPECT_GT(rr["remote_sd_us_per_tran"].get<double>(), 0.0);
        } else {
            const json& m = r["msgrate"];
            EXPECT_EQ(m["messages"], lm["messages"]);
            EXPECT_GT(m["messages_per_s"].get<double>(), 0.0);
            EXPECT_EQ(m["batch"].get<int>(), c.postlist);
            EXPECT_EQ(m["stream_messages_per_s"].size(), static_cast<size_t>(c.streams));
            // The receiver's bytes are whole messages it checked.
            EXPECT_EQ(r["remote"]["bytes"].get<uint64_t>(), lm["messages"].get<uint64_t>() * size);
        }
        if (!verbs) {
            expect_rdma_side(r["local"], "", false);
            continue;
        }
        for (const char* side : {"local", "remote"}) {
            SCOPED_TRACE(side);
            expect_rdma_side(r[side], c.cq, true);
            const json& d = r[side]["rdma"];
            EXPECT_EQ(d["qps"].get<int>(), c.streams);
            int contexts = c.per_context ? (c.streams + c.per_context - 1) / c.per_context : 0;
            EXPECT_EQ(d["contexts_opened"].get<int>(), contexts);
        }
        const json& tx = r["local"]["rdma"];  // the client sends (rr: both do)
        uint64_t sends = tx["data_sends"], posts = tx["post_calls"], inl = tx["inline_sends"];
        EXPECT_GE(sends, lm["messages"].get<uint64_t>());
        if (c.inline_size > 0 && size <= static_cast<uint64_t>(c.inline_size)) {
            EXPECT_GE(tx["max_inline"].get<uint64_t>(), size);
            EXPECT_EQ(inl, sends);  // every message went inline
        } else {
            EXPECT_EQ(inl, 0u);
        }
        if (c.test == "msgrate") {
            if (c.postlist == 1)
                EXPECT_EQ(posts, sends);
            else
                EXPECT_LT(posts, sends);  // chains really formed
        } else {
            std::string wait = tx["rr_wait"];
            if (c.transport == "rdma-send")
                EXPECT_NE(wait.find("SEND"), std::string::npos) << wait;
            else if (c.cq == "poll")
                EXPECT_NE(wait.find("last byte"), std::string::npos) << wait;
            else
                EXPECT_NE(wait.find("WITH IMM"), std::string::npos) << wait;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(
    Rdma, RdmaMessages,
    testing::Values(
        // rr: each transport at 1 B, 4K and 1M; both CQ modes (rdma-write's two arrival methods); inline;
        // 4 connections; own device contexts.
        MsgCase{"rdma-send", "rr", "1,4K,1M", 1, 0, "poll", 1, 0},
        MsgCase{"rdma-send", "rr", "1,4K", 1, 0, "event", 1, 64},
        MsgCase{"rdma-write", "rr", "1,4K,1M", 1, 0, "poll", 1, 0},
        MsgCase{"rdma-write", "rr", "1,1M", 1, 1, "event", 1, 64},
        MsgCase{"rsocket", "rr", "1,4K,1M", 1, 0, "poll", 1, 0}, MsgCase{"rdma-send", "rr", "64", 4, 2, "poll", 1, 64},
        MsgCase{"rdma-write", "rr", "4K", 4, 0, "event", 1, 0},
        // msgrate: 1 and 4 threads, --qps-per-context 1 and 2, postlist 1 and 8, inline on and off, both CQ modes.
        MsgCase{"rdma-send", "msgrate", "2", 1, 0, "poll", 1, 0},
        MsgCase{"rdma-send", "msgrate", "2", 1, 1, "event", 8, 64},
        MsgCase{"rdma-send", "msgrate", "2", 4, 2, "poll", 8, 64},
        MsgCase{"rdma-send", "msgrate", "2", 4, 1, "event", 1, 0},
        MsgCase{"rdma-send", "msgrate", "2", 4, 0, "poll", 8, 0},
        MsgCase{"rdma-write", "msgrate", "2,4K", 2, 2, "poll", 8, 64}),
    msg_case_name);

// ---- thread domains and the doorbell record ----

// Each side records its provider and the doorbell variables of its own environment: the client
// runs with MLX5_SHUT_UP_BF=1, the server with MLX5_SINGLE_THREADED=1 (rxe ignores both; what is
// tested is that each side reports its own, JSON with every variable, the human line where set).
// --interval on every RDMA transport: the loops publish their counts like TCP's, so the
// rows add up to the result exactly, stream and message tests alike. A server per case, as the other
// RDMA tests have (the first run shared one: its rdma-write rr case stalled after rdma-read's).
TEST(Rdma, IntervalsAddUpOnEveryTransport) {
    REQUIRE_RDMA();
    struct IvCase {
        const char* transport;
        const char* test;
        const char* count;
        const char* cq_mode;  // "": the default (auto)
    };
    for (const IvCase& c :
         {IvCase{"rsocket", "stream", "bytes", ""}, IvCase{"rsocket-iomap", "maerts", "bytes", ""},
          IvCase{"rdma-write", "stream", "bytes", ""}, IvCase{"rdma-send", "maerts", "bytes", ""},
          IvCase{"rdma-read", "stream", "bytes", ""}, IvCase{"rdma-write", "rr", "transactions", ""},
          IvCase{"rdma-send", "rr", "transactions", "event"}, IvCase{"rdma-send", "msgrate", "messages", ""}}) {
        SCOPED_TRACE(std::string(c.transport) + " " + c.test + " " + c.cq_mode);
        RdmaServer server;
        std::vector<std::string> args{"-H", server.address(), "-T", c.transport, "-t", c.test, "-l", "2", "-D", "0.5"};
        if (*c.cq_mode) args.insert(args.end(), {"--cq-mode", c.cq_mode});
        json j = zcperf_report(args);
        // EXPECT and go on: one case's failure must not hide the others'.
        if (j["results"].size() != 1u) {
            ADD_FAILURE() << "no result: " << j.dump();
            continue;
        }
        const json& r = j["results"][0];
        const json& rows = r["intervals"];
        EXPECT_GE(rows.size(), 2u) << r.dump();
        uint64_t sum = 0;
        double end = 0;
        for (const auto& row : rows) {
            EXPECT_DOUBLE_EQ(row["start_s"].get<double>(), end);
            end = row["end_s"].get<double>();
            sum += row[c.count].get<uint64_t>();
        }
        std::string test = c.test;
        uint64_t total = test == "rr"        ? r["rr"]["transactions"].get<uint64_t>()
                         : test == "msgrate" ? r["msgrate"]["messages"].get<uint64_t>()
                                             : r["bytes"].get<uint64_t>();
        EXPECT_EQ(sum, total);
        EXPECT_GT(total, 0u);
    }
}

// A timed rdma-write rr in every CQ mode, the default (auto) first: rr has no passive side, so both
// sides must run the same mode and see arrivals the same way (found by the interval test: with auto,
// the responder once slept for writes with immediate while the polling initiator wrote plain ones,
// and both waited until the 10 s stall limit). Both sides count the same transactions.
TEST(Rdma, RdmaWriteRrTimedInEveryCqMode) {
    REQUIRE_RDMA();
    for (const char* mode : {"", "event", "poll"}) {
        SCOPED_TRACE(std::string("--cq-mode ") + (*mode ? mode : "(default)"));
        RdmaServer server;
        std::vector<std::string> args{"-H", server.address(), "-T", "rdma-write", "-t", "rr", "-l", "2"};
        if (*mode) args.insert(args.end(), {"--cq-mode", mode});
        json j = zcperf_report(args);
        if (j["results"].size() != 1u) {
            ADD_FAILURE() << "no result: " << j.dump();
            continue;
        }
        const json& r = j["results"][0];
        EXPECT_GT(r["rr"]["transactions"].get<uint64_t>(), 0u);
        EXPECT_EQ(r["rr"]["transactions"], r["local"]["messages"]["messages"]);
        EXPECT_EQ(r["local"]["messages"]["messages"], r["remote"]["messages"]["messages"]);
        const json &l = r["local"]["rdma"], &rm = r["remote"]["rdma"];
        EXPECT_EQ(l["cq_mode"], *mode ? mode : "poll") << "auto polls on both sides of an rr";
        EXPECT_EQ(l["cq_mode"], rm["cq_mode"]);
        EXPECT_EQ(l["rr_wait"], rm["rr_wait"]);
    }
}

TEST(Rdma, EachSideRecordsItsProviderAndDoorbellEnvironment) {
    REQUIRE_RDMA();
    RdmaServer server({"MLX5_SINGLE_THREADED=1", "MLX5_SHUT_UP_BF="});
    const std::vector<std::string> args{"/usr/bin/env",
                                        "-u",
                                        "MLX5_SINGLE_THREADED",
                                        "MLX5_SHUT_UP_BF=1",
                                        zcperf_bin(),
                                        "-H",
                                        server.address(),
                                        "-T",
                                        "rdma-write",
                                        "-t",
                                        "msgrate",
                                        "-l",
                                        "1"};
    std::vector<std::string> as_json = args;
    as_json.insert(as_json.end(), {"-o", "json"});
    Outcome o = run(as_json, 120s);
    ASSERT_EQ(o.exit_code, 0) << o.err << o.out;
    json j = report_json(o);
    ASSERT_TRUE(j.is_object()) << o.out;
    const json& r = j["results"][0];
    for (const char* side : {"local", "remote"}) {
        SCOPED_TRACE(side);
        const json& d = r[side]["rdma"];
        std::string provider = d["provider"];
        EXPECT_FALSE(provider.empty());
        EXPECT_NE(provider, "unknown");
        if (std::getenv("RDMA_VM")) {
            EXPECT_EQ(provider, "rxe");  // the guest's device is Soft-RoCE
        }
        EXPECT_EQ(d["thread_domains"], 0);
        for (const char* v : {"MLX5_SHUT_UP_BF", "MLX5_SINGLE_THREADED", "MLX5_POST_SEND_PREFER_BF", "MLX5_TOTAL_UUARS",
                              "MLX5_NUM_LOW_LAT_UUARS", "T5_ENABLE_WC"}) {
            EXPECT_TRUE(d["doorbell_env"].contains(v)) << v << " " << d.dump();
        }
    }
    const json& le = r["local"]["rdma"]["doorbell_env"];
    const json& re = r["remote"]["rdma"]["doorbell_env"];
    EXPECT_EQ(le["MLX5_SHUT_UP_BF"], "1");
    EXPECT_TRUE(le["MLX5_SINGLE_THREADED"].is_null());
    EXPECT_EQ(re["MLX5_SINGLE_THREADED"], "1");
    EXPECT_EQ(re["MLX5_SHUT_UP_BF"], "");  // set, but empty: recorded as it was
    // The human report shows each side's line with what was set there.
    Outcome h = run(args, 120s);
    ASSERT_EQ(h.exit_code, 0) << h.err;
    EXPECT_NE(h.out.find("doorbell env: MLX5_SHUT_UP_BF=1\n"), std::string::npos) << h.out;
    EXPECT_NE(h.out.find("doorbell env: MLX5_SHUT_UP_BF= MLX5_SINGLE_THREADED=1"), std::string::npos) << h.out;
    EXPECT_NE(h.out.find("(provider "), std::string::npos) << h.out;
}

// --thread-domains: rdma-core's rxe and siw providers have no alloc_td (providers/rxe/rxe.c sets no
// such op; libibverbs answers EOPNOTSUPP), so there the run must be refused, naming the provider and
// the call, with no result printed and the daemon serving the next test. A provider that has them
// (mlx5) must run with them in force on both sides and both sides counting the same messages.
struct TdCase {
    std::string transport, test;
    int streams, per_context;
};

void PrintTo(const TdCase& c, std::ostream* os) {
    *os << c.transport << " -t " << c.test << " -P " << c.streams << " --qps-per-context " << c.per_context;
}

class RdmaThreadDomains : public testing::TestWithParam<TdCase> {};

TEST_P(RdmaThreadDomains, RunInForceOrRefusedNamingProviderAndCall) {
    REQUIRE_RDMA();
    const TdCase& c = GetParam();
    RdmaServer server;
    // msgrate: 2-byte messages for a second; stream: an exact count that ends mid message.
    const uint64_t exact = 1000003;
    const std::vector<std::string> what = c.test == "msgrate"
                                              ? std::vector<std::string>{"-m", "2", "-l", "1"}
                                              : std::vector<std::string>{"-m", "64K", "-n", std::to_string(exact)};
    std::vector<std::string> plain_args{"-H", server.address(), "-T", c.transport, "-t", c.test};
    plain_args.insert(plain_args.end(), what.begin(), what.end());
    json plain = zcperf_report(plain_args);
    const std::string provider = plain["results"][0]["local"]["rdma"].value("provider", "");
    ASSERT_FALSE(provider.empty()) << plain.dump();
    const bool lacks = provider == "rxe" || provider == "siw";
    std::vector<std::string> argv{zcperf_bin()};
    argv.insert(argv.end(), plain_args.begin(), plain_args.end());
    argv.insert(argv.end(), {"-P", std::to_string(c.streams), "--qps-per-context", std::to_string(c.per_context),
                             "--thread-domains", "-o", "json"});
    Outcome o = run(argv, 120s);
    if (lacks) {
        EXPECT_EQ(o.exit_code, 1) << o.err << o.out;
        EXPECT_NE(o.err.find("--thread-domains cannot be honoured"), std::string::npos) << o.err;
        EXPECT_NE(o.err.find("provider (" + provider + ") refused ibv_alloc_td"), std::string::npos) << o.err;
        json e = report_json(o);  // the JSON report: no result, the error in "errors"
        ASSERT_TRUE(e.is_object()) << o.out;
        EXPECT_TRUE(e["results"].empty()) << "a result was printed: " << o.out;
        ASSERT_EQ(e["errors"].size(), 1u) << o.out;
        EXPECT_NE(e["errors"][0].get<std::string>().find("refused ibv_alloc_td"), std::string::npos) << o.out;
        // The daemon serves the next test.
        EXPECT_EQ(zcperf_report(plain_args)["results"].size(), 1u);
        return;
    }
    ASSERT_EQ(o.exit_code, 0) << o.err << o.out;
    json j = report_json(o);
    ASSERT_TRUE(j.is_object()) << o.out;
    const json& r = j["results"][0];
    const json& lm = r["local"]["messages"];
    const json& rm = r["remote"]["messages"];
    if (c.test == "msgrate") {
        EXPECT_GT(lm["messages"].get<uint64_t>(), 0u);
        EXPECT_EQ(lm["messages"], rm["messages"]);
        EXPECT_EQ(lm["stream_messages"], rm["stream_messages"]);
        EXPECT_EQ(r["remote"]["bytes"].get<uint64_t>(), lm["messages"].get<uint64_t>() * 2);
    } else {
        EXPECT_EQ(r["local"]["bytes"].get<uint64_t>(), exact);
        EXPECT_EQ(r["remote"]["bytes"].get<uint64_t>(), exact);
    }
    for (const char* side : {"local", "remote"}) EXPECT_EQ(r[side]["rdma"]["thread_domains"], c.streams) << side;
}

INSTANTIATE_TEST_SUITE_P(Rdma, RdmaThreadDomains,
                         testing::Values(TdCase{"rdma-write", "msgrate", 2, 0}, TdCase{"rdma-send", "msgrate", 2, 2},
                                         TdCase{"rdma-write", "stream", 1, 1}),
                         [](const testing::TestParamInfo<TdCase>& i) {
                             std::string n = i.param.transport + "_" + i.param.test + "_P" +
                                             std::to_string(i.param.streams) + "_ctx" +
                                             std::to_string(i.param.per_context);
                             for (char& ch : n)
                                 if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
                             return n;
                         });

// What RDMA cannot do as a message test is refused before anything connects, saying what to use.
TEST(Rdma, MessageTestsRefusedWithWhatToUse) {
    REQUIRE_RDMA_BUILT();
    for (const auto& [args, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"-t", "rr", "-T", "rdma-read"}, "-T rdma-send or -T rdma-write"},
             {{"-t", "rr", "-T", "rsocket-iomap"}, "-T rsocket"},
             {{"-t", "msgrate", "-T", "rsocket"}, "Use -T rdma-send or rdma-write, or -T's default"},
             {{"-t", "rr", "-T", "rdma-send", "--qps", "2"}, "-P N"},
             {{"-t", "msgrate", "-T", "rdma-send", "--batch", "8"}, "--postlist"}}) {
        std::vector<std::string> argv{zcperf_bin(), "-H", "198.18.0.1"};
        argv.insert(argv.end(), args.begin(), args.end());
        Outcome o = run(argv, 30s);
        EXPECT_EQ(o.exit_code, 2) << o.err;
        EXPECT_NE(o.err.find(says), std::string::npos) << o.err;
    }
}

#if ZCPERF_WITH_RDMA
// The cause of the lab's rsocket hang (Lab.RsocketPeerKilledEitherWay), in one process: in librdmacm
// 44.0 an rpoll whose timeout runs out leaks its count of polling threads, and after the next wakeup
// every rpoll spins until an rsocket is ready, its own timeout never honoured. zcperf's wait must not
// leak: after one of its waits ran out and one was woken, the next still ends in time. Then the same
// steps with rpoll's own timeout, whose outcome is printed (it depends on the librdmacm installed).
TEST(Rdma, RsocketWaitStaysBoundedAfterAnRpollTimeout) {
    REQUIRE_RDMA();
    zc::RsocketFd lis(::rsocket(AF_INET, SOCK_STREAM, 0));
    ASSERT_TRUE(lis);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    ASSERT_EQ(inet_pton(AF_INET, rdma_ip().c_str(), &a.sin_addr), 1) << "an IPv4 RDMA address: " << rdma_ip();
    ASSERT_EQ(::rbind(lis.get(), reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
    ASSERT_EQ(::rlisten(lis.get(), 1), 0);
    socklen_t len = sizeof(a);
    ASSERT_EQ(::rgetsockname(lis.get(), reinterpret_cast<sockaddr*>(&a), &len), 0);
    zc::RsocketFd cli(::rsocket(AF_INET, SOCK_STREAM, 0));
    auto connected = std::async(std::launch::async,
                                [&] { return ::rconnect(cli.get(), reinterpret_cast<sockaddr*>(&a), sizeof(a)); });
    zc::RsocketFd srv(::raccept(lis.get(), nullptr, nullptr));
    ASSERT_TRUE(srv);
    ASSERT_EQ(connected.get(), 0);
    char byte = 'x';
    auto send_after = [&](std::chrono::milliseconds d) {
        return std::async(std::launch::async, [&, d] {
            std::this_thread::sleep_for(d);
            return ::rsend(srv.get(), &byte, 1, 0);
        });
    };
    using Clock = std::chrono::steady_clock;
    // 1. zcperf's wait runs out (where librdmacm 44.0's own timeout would leak its count).
    auto t0 = Clock::now();
    EXPECT_FALSE(zc::rsocket_wait_ready(cli.get(), POLLIN, 200));
    EXPECT_GE(Clock::now() - t0, 190ms);
    // 2. A wakeup by data (after a leak, 44.0 suspends polling for good here).
    auto later = send_after(300ms);
    EXPECT_TRUE(zc::rsocket_wait_ready(cli.get(), POLLIN, 10000));
    ASSERT_EQ(later.get(), 1);
    ASSERT_EQ(::rrecv(cli.get(), &byte, 1, 0), 1);
    // 3. Nothing to read: the wait still ends in time (after a leak it would spin until data came).
    t0 = Clock::now();
    auto waited = std::async(std::launch::async, [&] { return zc::rsocket_wait_ready(cli.get(), POLLIN, 200); });
    bool bounded = waited.wait_for(5s) == std::future_status::ready;
    if (!bounded) ::rsend(srv.get(), &byte, 1, 0);  // ends the spin, so the test can end
    EXPECT_TRUE(bounded) << "rsocket_wait_ready(200 ms) still waiting after 5 s";
    EXPECT_FALSE(waited.get()) << "nothing was sent, yet the wait said ready";
    EXPECT_GE(Clock::now() - t0, 190ms);
    // 4. The same steps with rpoll's own timeout, printed (a byte sent after 5 s ends a wait that never would).
    pollfd p{cli.get(), POLLIN, 0};
    EXPECT_EQ(::rpoll(&p, 1, 50), 0);
    later = send_after(300ms);
    EXPECT_EQ(::rpoll(&p, 1, 10000), 1);
    ASSERT_EQ(later.get(), 1);
    ASSERT_EQ(::rrecv(cli.get(), &byte, 1, 0), 1);
    t0 = Clock::now();
    auto rescue = send_after(5s);
    int rc = ::rpoll(&p, 1, 200);
    double s = std::chrono::duration<double>(Clock::now() - t0).count();
    std::cout << "librdmacm's own rpoll with a 200 ms timeout, after one had run out: returned " << rc << " after " << s
              << " s" << (s > 2 ? " (its timeout was not honoured)" : "") << "\n";
    ASSERT_EQ(rescue.get(), 1);
}
#endif

// rdma_cm to a port nothing listens on: a clear error, not a hang.
TEST(Rdma, ClosedPortIsAClearError) {
    REQUIRE_RDMA();
    zc::HalfSpec half;
    half.transport = zc::transport_named("rdma-write");
    half.message_size = 65536;
    uint16_t closed = free_port();
    try {
        zc::connect_data_streams(half, zc::Role::send, rdma_ip(), rdma_ip(), closed, 1);
        FAIL() << "connected to a closed port";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("rejected"), std::string::npos) << e.what();
    }
    half.transport = zc::transport_named("rsocket");
    try {
        zc::connect_data_streams(half, zc::Role::send, rdma_ip(), rdma_ip(), closed, 1);
        FAIL() << "rsocket connected to a closed port";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("rconnect"), std::string::npos) << e.what();
    }
}

// The server killed mid-transfer: the client ends with a clear error, within bounds.
static void expect_server_kill_ends_client(const std::string& transport) {
    RdmaServer server;
    Process client({zcperf_bin(), "-H", server.address(), "-T", transport, "-m", "64K", "-l", "30"});
    std::this_thread::sleep_for(4s);  // set-up done, data flowing (TCG is slow)
    server.process().signal(SIGKILL);
    Outcome o = client.wait(40s);
    EXPECT_FALSE(o.timed_out) << transport;
    EXPECT_EQ(o.exit_code, 1) << transport << o.err;
    EXPECT_LT(o.seconds, 25.0) << transport << ": the client noticed late";
    EXPECT_FALSE(o.err.empty()) << transport;
}

// The client killed mid-transfer: the daemon reports nothing to anyone, and serves the next client.
static void expect_client_kill_leaves_server_serving(const std::string& killed, const std::string& next) {
    RdmaServer server;
    {
        Process client({zcperf_bin(), "-H", server.address(), "-T", killed, "-m", "64K", "-l", "30"});
        std::this_thread::sleep_for(4s);
        client.signal(SIGKILL);
        client.wait(5s);
    }
    json j = zcperf_report({"-H", server.address(), "-T", next, "-m", "64K", "-n", "2M"});
    ASSERT_EQ(j["results"].size(), 1u) << killed << " then " << next;
    EXPECT_EQ(j["results"][0]["bytes"], 2u << 20) << killed << " then " << next;
}

TEST(Rdma, ServerKilledMidTestEndsClientClearly) {
    REQUIRE_RDMA();
    for (const char* t : {"rdma-write", "rdma-read"}) expect_server_kill_ends_client(t);
}

TEST(Rdma, ClientKilledServerKeepsServing) {
    REQUIRE_RDMA();
    expect_client_kill_leaves_server_serving("rdma-send", "rdma-write");
}

// rsockets hide their verbs, yet a killed peer on either side must end the other side clearly (a
// blocked rsend or rclose towards a dead peer never returns by itself).
TEST(Rdma, RsocketPeerKilledEitherWay) {
    REQUIRE_RDMA();
    for (const char* t : {"rsocket", "rsocket-iomap"}) expect_server_kill_ends_client(t);
    expect_client_kill_leaves_server_serving("rsocket", "rsocket");
}

// --rdma-dev holds for verbs and rsockets alike: the device in use is checked on both sides, and a
// name the route does not go through is an error that says what to do, never a silent change.
TEST(Rdma, RdmaDevIsCheckedForVerbsAndRsockets) {
    REQUIRE_RDMA();
    RdmaServer server;
    const std::string dev = env_or("RDMA_VM_DEV", "rxe0");
    for (const char* t : {"rdma-write", "rsocket"}) {
        json j =
            zcperf_report({"-H", server.address(), "-T", t, "-m", "64K", "-n", "1M", "--rdma-dev", dev + "," + dev});
        ASSERT_EQ(j["results"].size(), 1u) << t;
        EXPECT_EQ(j["results"][0]["local"]["rdma"]["device"], dev) << t;
        EXPECT_EQ(j["results"][0]["remote"]["rdma"]["device"], dev) << t;
        for (const char* which : {"nosuch0", ",nosuch0"}) {
            Outcome o =
                run({zcperf_bin(), "-H", server.address(), "-T", t, "-m", "64K", "-n", "1M", "--rdma-dev", which}, 60s);
            EXPECT_EQ(o.exit_code, 1) << t << " " << which << o.err;
            EXPECT_NE(o.err.find("--rdma-dev nosuch0 was asked for"), std::string::npos)
                << t << " " << which << ": " << o.err;
        }
    }
}

// A control connection over loopback asks for RDMA: rdma_cm cannot use loopback; the error says so
// and the daemon keeps serving (the same client then runs TCP fine).
TEST(Rdma, LoopbackAddressIsAClearErrorAndDaemonKeepsServing) {
    REQUIRE_RDMA();
    LocalServer server;  // 127.0.0.1
    Outcome o = run({zcperf_bin(), "-H", server.address(), "-T", "rdma-write", "-m", "64K", "-l", "1"}, 60s);
    EXPECT_EQ(o.exit_code, 1) << o.err;
    EXPECT_NE(o.err.find("loopback"), std::string::npos) << o.err;
    Outcome ok = run({zcperf_bin(), "-H", server.address(), "-m", "64K", "-l", "1"}, 60s);
    EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

// On a host with no RDMA device: a clear error naming what is missing, never TCP instead.
TEST(RdmaAbsent, NoDeviceIsAClearErrorNotAFallback) {
    if (have_rdma_device())
        GTEST_SKIP() << "this host has an RDMA device; the no-device path is tested where there is none";
    LocalServer server;
    // A build without the RDMA transports refuses them as such, as a usage error, just as clearly.
    const bool built = zc::transport_built(zc::transport_named("rsocket"));
    for (const char* t : {"rdma-write", "rsocket"}) {
        Outcome o = run({zcperf_bin(), "-H", server.address(), "-T", t, "-m", "64K", "-l", "1"}, 60s);
        EXPECT_EQ(o.exit_code, built ? 1 : 2) << t << o.err << o.out;
        EXPECT_NE(o.err.find(built ? "no RDMA device" : "is not in this build"), std::string::npos)
            << t << ": " << o.err;
        EXPECT_EQ(o.out.find(std::string("\n") + t + " "), std::string::npos)
            << t << ": a result was printed: " << o.out;
    }
    // The daemon still serves TCP afterwards.
    Outcome ok = run({zcperf_bin(), "-H", server.address(), "-m", "64K", "-l", "1"}, 60s);
    EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

// ---- GPU memory on RDMA transports, with the test memory kind sim-gpu ----
// Neither this guest nor CI has a GPU, so the staged pipelines run with host memory standing in
// for GPU memory (memcpy instead of cudaMemcpyAsync: the same loops, the same slot bookkeeping).
// The sender poisons a bounce slot when its send completes, the receiver checks a pattern sample
// in the bounce slot before the copy on and again in the (sim) GPU memory at the end: a slot sent
// before it was staged, given back before its copy, or a copy to the wrong place fails the test.
// The direct attempt is real: ibv_reg_dmabuf_mr on rxe, refused, and the report must say so.

namespace {
class RdmaStaged : public testing::TestWithParam<Case> {};
}  // namespace

TEST_P(RdmaStaged, EveryByteStagedAndVerified) {
    REQUIRE_RDMA();
    const Case& c = GetParam();
    RdmaServer server;
    const json r = run_case(c, server.address());
    uint64_t bytes = r["bytes"];
    bool verbs = c.transport.rfind("rdma-", 0) == 0;
    std::string local_buf = c.buffer.substr(0, c.buffer.find(','));
    std::string remote_buf = c.buffer.find(',') == std::string::npos ? "host" : c.buffer.substr(c.buffer.find(',') + 1);
    for (const auto& [name, buf] : {std::pair{"local", local_buf}, std::pair{"remote", remote_buf}}) {
        const json& side = r[name];
        const json& m = side["memory"];
        EXPECT_EQ(m["buffer"], buf) << name;
        if (buf != "sim-gpu") {
            EXPECT_EQ(m["gpu_path"], "") << name;
            EXPECT_EQ(m["stage_copies"].get<uint64_t>(), 0u) << name;
            continue;
        }
        EXPECT_EQ(m["gpu_path"], "staged") << name << m.dump();
        std::string note = m["gpu_path_note"];
        if (verbs && c.gpu_path == "auto") {
            // The refusal is rxe's own answer to ibv_reg_dmabuf_mr, and the report carries it.
            EXPECT_EQ(note.rfind("direct refused: ibv_reg_dmabuf_mr: ", 0), 0u) << name << ": " << note;
            EXPECT_EQ(side["rdma"]["gpu_path_note"], note) << name;
        }
        if (verbs && c.gpu_path == "staged") {
            EXPECT_EQ(note, "staged: --gpu-path staged") << name;
        }
        EXPECT_GT(m["stage_copies"].get<uint64_t>(), 0u) << name;
        EXPECT_GT(m["stage_slots"].get<int>(), 0) << name;
        uint64_t staged = m["staged_bytes"];
        // A receiver copies on exactly what landed; a sender stages all it sends (whole messages on
        // verbs, and with a time limit up to a window more that the deadline left unsent).
        EXPECT_GE(staged, bytes) << name;
        if (side["role"] == "recv") {
            EXPECT_EQ(staged, bytes) << name;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(
    Rdma, RdmaStaged,
    testing::Values(
        // GPU (sim) to GPU (sim), each verbs transport's staged pipeline, a byte count ending mid-message.
        Case{"rdma-write", "stream", "64K", "n5000003", 1, 1, "poll", 1, "sim-gpu,sim-gpu", "auto"},
        Case{"rdma-send", "stream", "64K", "n5000003", 1, 2, "poll", 1, "sim-gpu,sim-gpu", "staged"},
        // rdma-read: the reading side (the sink, here the server) stages; the source is host memory.
        Case{"rdma-read", "stream", "64K", "n5000003", 1, 1, "poll", 1, "host,sim-gpu", "auto"},
        Case{"rdma-read", "maerts", "4K", "n3000001", 2, 4, "poll", 8, "sim-gpu,host", "auto"},
        // Several QPs and streams, postlist, small messages, the server sending, one side staged.
        Case{"rdma-write", "maerts", "4K", "n3000001", 2, 4, "poll", 8, "sim-gpu,sim-gpu", "auto"},
        Case{"rdma-send", "stream", "100", "n200001", 1, 1, "event", 16, "sim-gpu,sim-gpu", "auto"},
        Case{"rdma-write", "stream", "1M", "l1", 1, 2, "poll", 1, "sim-gpu", "auto"},
        Case{"rdma-send", "maerts", "1M", "l1", 1, 1, "poll", 1, "host,sim-gpu", "auto"},
        // rsockets: the staged stream loop on rsend/rrecv.
        Case{"rsocket", "stream", "64K", "n5000003", 1, 1, "poll", 1, "sim-gpu,sim-gpu", "auto"},
        Case{"rsocket", "maerts", "1M", "l1", 1, 1, "poll", 1, "sim-gpu,host", "auto"}),
    case_name);

// --gpu-path direct that cannot be honoured is an error naming the refusal, never a staged run.
TEST(Rdma, GpuDirectRefusedIsAClearErrorNotAFallback) {
    REQUIRE_RDMA();
    RdmaServer server;
    for (const char* t : {"rdma-write", "rdma-read"}) {
        // The client (sender) side, then the server (receiver) side.
        for (const char* buf : {"sim-gpu", ",sim-gpu"}) {
            Outcome o = run({zcperf_bin(), "-H", server.address(), "-T", t, "-m", "64K", "-n", "1M", "--buffer", buf,
                             "--gpu-path", "direct"},
                            60s);
            EXPECT_EQ(o.exit_code, 1) << t << " " << buf << o.err << o.out;
            EXPECT_NE(o.err.find("--gpu-path direct cannot be honoured"), std::string::npos)
                << t << " " << buf << ": " << o.err;
            EXPECT_NE(o.err.find("ibv_reg_dmabuf_mr"), std::string::npos) << t << " " << buf << ": " << o.err;
            EXPECT_EQ(o.out.find(std::string("\n") + t + " "), std::string::npos) << "a result was printed: " << o.out;
        }
    }
    // The daemon still serves.
    json j = zcperf_report({"-H", server.address(), "-T", "rdma-write", "-m", "64K", "-n", "1M"});
    EXPECT_EQ(j["results"][0]["bytes"], 1u << 20);
}

// rdma-read's source is passive: its GPU memory can only be read directly; staged is refused with why.
TEST(Rdma, GpuOnPassiveReadSourceCannotStage) {
    REQUIRE_RDMA();
    RdmaServer server;
    Outcome o = run(
        {zcperf_bin(), "-H", server.address(), "-T", "rdma-read", "-m", "64K", "-n", "1M", "--buffer", "sim-gpu"}, 60s);
    EXPECT_EQ(o.exit_code, 1) << o.err << o.out;
    EXPECT_NE(o.err.find("passive"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("direct was refused (ibv_reg_dmabuf_mr"), std::string::npos) << o.err;
}

// ---- --explain over RDMA ----

// Soft-RoCE works in the kernel (rxe's requester, responder and completer, a module's symbols): --explain
// must name that work RDMA, and leave almost nothing unsymbolized (unknown under 5 % of the busy samples),
// on a verbs transport and on rsockets. One kernel here: both sides sample the same CPUs.
TEST(Rdma, ExplainNamesTheProviderAndLeavesLittleUnknown) {
    REQUIRE_RDMA();
    for (const char* t : {"rdma-write", "rsocket"}) {
        SCOPED_TRACE(t);
        RdmaServer server;
        json j = zcperf_report({"-H", server.address(), "-T", t, "-m", "64K", "-l", "2", "--explain-hz", "999"});
        ASSERT_EQ(j["results"].size(), 1u) << j.dump();
        const json& r = j["results"][0];
        for (const char* side : {"local", "remote"}) {
            SCOPED_TRACE(side);
            const json& e = r[side]["explain"];
            if (!e.value("ran", false)) GTEST_SKIP() << "explain did not run: " << e.value("problem", e.dump());
            double busy = e["sampled_busy_cpu_s"], unknown = e["category_s"]["unknown"], rdma = e["category_s"]["rdma"];
            ASSERT_GT(busy, 0.1) << e.dump();
            EXPECT_LT(unknown, 0.05 * busy) << e["top_functions"].dump();
            EXPECT_GT(rdma, 0.01 * busy) << "rdma " << rdma << " of " << busy << " s: " << e["top_functions"].dump();
            EXPECT_GT(e["per_unit"]["rdma"].get<double>(), 0.0);
            // What the guest's CPU went to (categories of 1 % and more), for the log.
            std::cout << t << " " << side << ", " << busy << " busy CPU-s:";
            for (const auto& [k, v] : e["category_s"].items())
                if (v.get<double>() >= 0.01 * busy)
                    std::cout << " " << k << " " << v.get<double>() / busy * 100 << " %";
            std::cout << "\n";
        }
    }
}
