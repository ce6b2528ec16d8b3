#pragma once
// What the message tests (rr, msgrate) count besides bytes: each side's own count (MessageSide,
// part of SideResult, so it crosses the wire), and the test's figures once both sides agreed
// (MessageResult, part of TestResult).
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "measure/latency_histogram.hpp"
#include "protocol/run_spec.hpp"

namespace zc {

struct SideResult;

struct MessageSide {
    // rr: transactions this side completed (client) or answered (server); msgrate: whole messages
    // sent (client) or received (server).
    uint64_t messages = 0;
    std::vector<uint64_t> stream_messages;
    uint64_t segments = 0;     // TCP data segments sent (rr both sides, msgrate sender) or received (msgrate receiver)
    LatencyHistogram rtt;      // rr client: one round trip per transaction; empty everywhere else
    LatencyHistogram connect;  // crr, cc client: socket() to connected, per transaction; empty elsewhere
    // --samples (the client's, never on the wire): each stream's transactions, repetitions one after another
    std::vector<std::shared_ptr<const LatencySamples>> samples;

    void add_stream(uint64_t messages, uint64_t segments, const LatencyHistogram& rtt);
    void merge(const MessageSide& o);  // repetitions of one test: counts add, histograms merge
};

nlohmann::json to_json(const MessageSide& m);
MessageSide message_side_from_json(const nlohmann::json& j);  // throws ProtocolError

struct MessageResult {
    uint64_t messages = 0;  // rr: transactions; msgrate: messages; both sides counted it and agree
    double elapsed_s = 0;   // rr: the client's loops' interval (they time the transactions); msgrate: the receiver's
    double messages_per_s = 0;
    std::vector<double> stream_messages_per_s;
    uint32_t batch = 1;               // msgrate: messages per send call
    double segments_per_message = 0;  // msgrate: the sender's data segments per message; rr: the client's per request
    double calls_per_message = 0;     // the client's send/recv calls per message (rr: per transaction)
    LatencySummary rtt;               // rr: round-trip time per transaction (crr, cc: the whole transaction)
    LatencySummary connect;           // crr, cc: socket() to connected, per transaction
    std::vector<double> percentiles;  // --percentiles: what rtt.chosen reads (kept for merged repetitions)
    uint64_t samples_kept = 0, samples_dropped = 0;  // --samples: written to the file; lost to a full buffer
    // Service demand per message (netperf's us/Tran for rr): whole host and the test's own threads.
    double local_sd_us = 0, remote_sd_us = 0, local_proc_sd_us = 0, remote_proc_sd_us = 0;
    std::vector<std::string> notes;  // what the reader must know to read the figures (for the warnings)
    // msgrate: how the messages were sent and counted, in words (after "N B messages, "); rr over
    // RDMA: how each side saw the answer arrive. From the client's own SideResult.
    std::string measured;
    // The calls are a byte stream's, each message counted in the kernel's data segments (TCP_INFO): the row's
    // tcp_segments. False: the kind counts its own (RDMA's posts, UDP's datagrams) and says how (`measured`).
    bool stream_segments = true;
};

// Checks that both sides counted the same messages (transactions), stream by stream, and computes
// the test's figures. Throws std::runtime_error on a mismatch: no figure is then reported. `transport`'s
// row says whether the calls were a TCP socket's (tcp_segments); another kind's block says how it posted.
MessageResult message_result(Workload test, Transport transport, uint32_t batch, const SideResult& local,
                             const SideResult& remote, double receiver_elapsed_s,
                             const std::vector<double>& percentiles = kDefaultPercentiles);

// The report's object: "rr" {transactions, transactions_per_s, rtt_us{...}, latency_us{...}, ...}
// or "msgrate" {messages, messages_per_s, stream_messages_per_s, ...}.
nlohmann::json to_json(const MessageResult& m, Workload test, uint64_t message_size);

}  // namespace zc
