#include "protocol/message_stats.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <stdexcept>
#include <string>

#include "measure/service_demand.hpp"
#include "protocol/json_fields.hpp"
#include "protocol/result.hpp"

namespace zc {

void MessageSide::add_stream(uint64_t m, uint64_t segs, const LatencyHistogram& h) {
    messages += m;
    stream_messages.push_back(m);
    segments += segs;
    rtt.merge(h);
}

void MessageSide::merge(const MessageSide& o) {
    connect.merge(o.connect);
    messages += o.messages;
    segments += o.segments;
    if (stream_messages.size() < o.stream_messages.size()) stream_messages.resize(o.stream_messages.size());
    for (size_t i = 0; i < o.stream_messages.size(); ++i) stream_messages[i] += o.stream_messages[i];
    rtt.merge(o.rtt);
    samples.insert(samples.end(), o.samples.begin(), o.samples.end());
}

namespace {

// The fixed set, then --percentiles' choice under the same names (p99.99 ...).
nlohmann::json summary_json(const LatencySummary& s, double scale) {
    nlohmann::json j = {{"min", s.min_us * scale}, {"mean", s.mean_us * scale}, {"p50", s.p50_us * scale},
                        {"p90", s.p90_us * scale}, {"p99", s.p99_us * scale},   {"p99.9", s.p999_us * scale},
                        {"max", s.max_us * scale}};
    for (const PercentileReading& c : s.chosen) j[percentile_label(c.percentile)] = c.us * scale;
    return j;
}

// --percentiles with their errors: [{"percentile": 99.99, "rtt_us": ..., "error_pct": ...}, ...]
nlohmann::json percentiles_json(const LatencySummary& s) {
    nlohmann::json a = nlohmann::json::array();
    for (const PercentileReading& c : s.chosen)
        a.push_back({{"percentile", c.percentile}, {"rtt_us", c.us}, {"error_pct", c.error_pct}});
    return a;
}

}  // namespace

// The histogram itself (non-empty buckets, nanoseconds), so percentiles can be recomputed or merged
// later; bounded by the bucket count.
nlohmann::json histogram_json(const LatencyHistogram& h) {
    nlohmann::json buckets = nlohmann::json::array();
    for (const auto& [i, n] : h.sparse()) buckets.push_back({i, n});
    return {{"count", h.count()},
            {"min", h.min()},
            {"max", h.max()},
            {"sum", h.sum()},
            {"sub_bucket_bits", LatencyHistogram::kSubBits},
            {"buckets", buckets}};
}

LatencyHistogram histogram_from_json(const nlohmann::json& h, const std::string& name) {
    if (field<int>(h, "sub_bucket_bits") != LatencyHistogram::kSubBits)
        throw ProtocolError(name + ": other bucket layout");
    const auto& b = h.at("buckets");
    if (!b.is_array() || b.size() > LatencyHistogram::kBuckets) throw ProtocolError(name + ": too many buckets");
    std::vector<std::pair<uint32_t, uint64_t>> buckets;
    for (const auto& e : b) {
        if (!e.is_array() || e.size() != 2) throw ProtocolError(name + ": a bucket is not [index, count]");
        buckets.emplace_back(value_as<uint32_t>(e[0], name), value_as<uint64_t>(e[1], name));
    }
    try {
        return LatencyHistogram::from_sparse(buckets, field<uint64_t>(h, "min"), field<uint64_t>(h, "max"),
                                             field<uint64_t>(h, "sum"));
    } catch (const std::invalid_argument& e) {
        throw ProtocolError(name + ": " + e.what());
    }
}

nlohmann::json to_json(const MessageSide& m) {
    nlohmann::json j = {{"messages", m.messages}, {"stream_messages", m.stream_messages}, {"segments", m.segments}};
    if (m.rtt.count()) j["rtt_ns"] = histogram_json(m.rtt);
    if (m.connect.count()) j["connect_ns"] = histogram_json(m.connect);
    return j;
}

MessageSide message_side_from_json(const nlohmann::json& j) {
    MessageSide m;
    m.messages = field<uint64_t>(j, "messages");
    m.segments = field<uint64_t>(j, "segments");
    const auto& per = j.at("stream_messages");
    if (!per.is_array() || per.size() > static_cast<size_t>(kMaxStreams)) {
        throw ProtocolError("field 'stream_messages' must be an array of at most " + std::to_string(kMaxStreams));
    }
    for (const auto& v : per) m.stream_messages.push_back(value_as<uint64_t>(v, "stream_messages"));
    if (j.contains("rtt_ns")) m.rtt = histogram_from_json(j.at("rtt_ns"), "rtt_ns");
    if (j.contains("connect_ns")) m.connect = histogram_from_json(j.at("connect_ns"), "connect_ns");
    return m;
}

MessageResult message_result(TestKind test, uint32_t batch, const SideResult& local, const SideResult& remote,
                             double receiver_elapsed_s, const std::vector<double>& percentiles) {
    const char* what = is_transaction_test(test) ? "transactions" : "messages";
    const MessageSide& l = local.messages;
    const MessageSide& r = remote.messages;
    // UDP may lose datagrams: the side that counts what arrived is the figure (rr: the initiator, its
    // answers; msgrate: the receiver), and it may only count fewer than the other side handled.
    const bool lossy = local.udp.datagram_path;
    const MessageSide& counted = !lossy || test == TestKind::rr || local.role == Role::recv ? l : r;
    const MessageSide& handled = &counted == &l ? r : l;
    if (lossy && counted.messages > handled.messages) {
        throw std::runtime_error(std::string(what) + " count mismatch: over UDP " + std::to_string(counted.messages) +
                                 " arrived but the other side handled only " + std::to_string(handled.messages) +
                                 ". No figures are reported for this test.");
    }
    // crr, cc: the server's streams share one listener, so only the totals pair up.
    const bool per_stream = !is_connection_test(test);
    if (!lossy && (l.messages != r.messages || (per_stream && l.stream_messages != r.stream_messages))) {
        throw std::runtime_error(std::string(what) + " count mismatch: zcperf counted " + std::to_string(l.messages) +
                                 " but zcserver " + std::to_string(r.messages) +
                                 "; a peer ended a connection early. No figures are reported for this test.");
    }
    MessageResult m;
    m.messages = lossy ? counted.messages : l.messages;
    m.batch = batch;
    // The transactions are the client's loops' count: over their interval, not the side's, which ends
    // once the server's result came (a few ms later on a quiet 2-CPU VM, ~0.08 s under load).
    m.elapsed_s = is_transaction_test(test) ? local.measured_s() : receiver_elapsed_s;
    if (m.elapsed_s > 0) {
        m.messages_per_s = static_cast<double>(m.messages) / m.elapsed_s;
        for (uint64_t s : l.stream_messages) m.stream_messages_per_s.push_back(static_cast<double>(s) / m.elapsed_s);
    }
    if (m.messages) {
        m.segments_per_message = static_cast<double>(l.segments) / static_cast<double>(m.messages);
        m.calls_per_message = static_cast<double>(local.ops) / static_cast<double>(m.messages);
    }
    m.percentiles = percentiles;
    m.rtt = summarize(l.rtt, percentiles);
    for (const auto& kept : l.samples) {
        m.samples_kept += kept->kept();
        m.samples_dropped += kept->dropped();
    }
    if (m.samples_dropped) {
        m.notes.push_back(
            fmt::format("--samples: the buffer ({} per stream) filled: {} transactions kept in the file, "
                        "{} dropped (the histogram and percentiles count them all)",
                        l.samples.front()->capacity(), m.samples_kept, m.samples_dropped));
    }
    m.connect = summarize(l.connect);
    m.local_sd_us = service_demand_us_per_tran(local.cpu.busy_cpu_s, m.messages);
    m.remote_sd_us = service_demand_us_per_tran(remote.cpu.busy_cpu_s, m.messages);
    m.local_proc_sd_us = service_demand_us_per_tran(local.process_cpu_s(), m.messages);
    m.remote_proc_sd_us = service_demand_us_per_tran(remote.process_cpu_s(), m.messages);
    m.tcp = local.rdma.empty() && !lossy;  // TCP sides carry no rdma block (nor a UDP path); rsockets and verbs do
    char how[320];
    if (is_connection_test(test)) {
        std::snprintf(how, sizeof(how),
                      "a new TCP connection per transaction (%s); latency of the whole transaction "
                      "and of socket()+connect()",
                      test == TestKind::crr ? "connect, request, response, close" : "connect, close");
        if (!local.connection_close.empty()) m.measured = std::string(how) + "; " + local.connection_close;
    } else if (lossy && test == TestKind::rr) {
        std::snprintf(how, sizeof(how),
                      "one UDP datagram each way per transaction; a request unanswered within %d ms is counted lost "
                      "and the next one sent",
                      kUdpRrWaitMs);
    } else if (lossy) {
        std::snprintf(how, sizeof(how),
                      "one UDP datagram per message, %u per %s call; the receiver counts the datagrams that arrived "
                      "by their sequence numbers (lost ones are not counted)",
                      batch, batch == 1 ? "send()" : "sendmmsg()");
    } else if (m.tcp) {
        std::snprintf(how, sizeof(how),
                      "%u per %s call with TCP_NODELAY; the receiver reads in bulk and counts whole messages; segments "
                      "from the sender's TCP_INFO (MSS units)",
                      batch, batch == 1 ? "send()" : "sendmmsg()");
    } else if (!local.rdma.cq_mode.empty()) {  // verbs
        const RdmaInfo& ri = local.rdma;
        if (test == TestKind::msgrate) {
            std::snprintf(
                how, sizeof(how),
                "one %s work request each, up to %u chained per ibv_post_send (%llu calls for %llu requests), "
                "%llu posted inline (max_inline %u); the receiver checks each message's pattern and returns "
                "credits; CQ %s",
                local.path == "rdma-write" ? "RDMA WRITE" : "SEND", batch,
                static_cast<unsigned long long>(ri.post_calls), static_cast<unsigned long long>(ri.data_sends),
                static_cast<unsigned long long>(ri.inline_sends), ri.max_inline, ri.cq_mode.c_str());
        } else {
            std::snprintf(how, sizeof(how),
                          "arrival seen by %s; %llu of %llu messages posted inline (max_inline %u); CQ %s",
                          ri.rr_wait.c_str(), static_cast<unsigned long long>(ri.inline_sends),
                          static_cast<unsigned long long>(ri.data_sends), ri.max_inline, ri.cq_mode.c_str());
        }
    } else {
        std::snprintf(how, sizeof(how), "rsend/rrecv (rsockets: copied through their registered buffers)");
    }
    if (m.measured.empty()) m.measured = how;
    if (m.tcp && test == TestKind::msgrate && m.messages && m.segments_per_message < 0.9) {
        char segs[32];
        std::snprintf(segs, sizeof(segs), "%.2f", m.segments_per_message);
        m.notes.push_back(
            std::string("msgrate: the kernel sent ") + segs +
            " data segments per message: it merged messages handed over while earlier ones were still "
            "queued (tcp_autocorking; TCP_NODELAY does not stop it), so this is the rate of messages given "
            "to the kernel and delivered, not of packets");
    }
    return m;
}

nlohmann::json to_json(const MessageResult& m, TestKind test, uint64_t message_size) {
    if (is_transaction_test(test)) {
        nlohmann::json j = {{"transactions", m.messages},
                            {"transactions_per_s", m.messages_per_s},
                            {"elapsed_s", m.elapsed_s},
                            {"stream_transactions_per_s", m.stream_messages_per_s},
                            {"rtt_us", summary_json(m.rtt, 1.0)},
                            // One-way latency as OSU and perftest give it: half the round trip.
                            {"latency_us", summary_json(m.rtt, 0.5)},
                            {"latency_definition", "RTT/2"},
                            {"samples", m.rtt.samples},
                            {"rtt_percentiles", percentiles_json(m.rtt)},
                            {"local_sd_us_per_tran", m.local_sd_us},
                            {"remote_sd_us_per_tran", m.remote_sd_us},
                            {"local_proc_sd_us_per_tran", m.local_proc_sd_us},
                            {"remote_proc_sd_us_per_tran", m.remote_proc_sd_us},
                            {"client_calls_per_tran", m.calls_per_message},
                            {"client_segments_per_tran", m.segments_per_message},
                            {"measured", m.measured}};
        if (m.samples_kept || m.samples_dropped) {
            j["samples_kept"] = m.samples_kept;
            j["samples_dropped"] = m.samples_dropped;
        }
        if (is_connection_test(test)) {
            j["connect_us"] = summary_json(m.connect, 1.0);
            j.erase("latency_us");  // half a transaction of four system calls is no one-way latency
            j.erase("latency_definition");
        }
        return j;
    }
    return {{"messages", m.messages},
            {"messages_per_s", m.messages_per_s},
            {"elapsed_s", m.elapsed_s},
            {"stream_messages_per_s", m.stream_messages_per_s},
            {"batch", m.batch},
            {"sender_calls_per_message", m.calls_per_message},
            {"sender_segments_per_message", m.segments_per_message},
            {"measured", std::to_string(message_size) + " B messages, " + m.measured},
            {"local_sd_us_per_msg", m.local_sd_us},
            {"remote_sd_us_per_msg", m.remote_sd_us},
            {"local_proc_sd_us_per_msg", m.local_proc_sd_us},
            {"remote_proc_sd_us_per_msg", m.remote_proc_sd_us}};
}

}  // namespace zc
