#include "protocol/message_stats.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <stdexcept>
#include <string>

#include "core/transport_registry.hpp"
#include "measure/service_demand.hpp"
#include "protocol/field_table.hpp"
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

// The tests' units: in the errors, and the names of the counts on the wire and in the report.
constexpr const char* kTransactions = "transactions";
constexpr const char* kMessages = "messages";

// A histogram on the wire: its non-empty buckets ([index, count], nanoseconds), so percentiles can be
// recomputed or merged later; bounded by the bucket count.
struct HistogramWire {
    int sub_bucket_bits = LatencyHistogram::kSubBits;
    uint64_t count = 0, min = 0, max = 0, sum = 0;
    std::vector<std::pair<uint32_t, uint64_t>> buckets;
};

nlohmann::json bucket_json(const std::pair<uint32_t, uint64_t>& b) {
    return nlohmann::json::array({b.first, b.second});
}
std::pair<uint32_t, uint64_t> bucket_from_json(const nlohmann::json& e, const char* name) {
    if (!e.is_array() || e.size() != 2)
        throw ProtocolError(std::string("field '") + name + "': a bucket is not [index, count]");
    return {value_as<uint32_t>(e[0], name), value_as<uint64_t>(e[1], name)};
}

constexpr int kSubBits = LatencyHistogram::kSubBits;
const auto kHistogramFields = std::make_tuple(
    number("sub_bucket_bits", &HistogramWire::sub_bucket_bits, kSubBits, kSubBits),  // another layout: refused
    number("count", &HistogramWire::count, 0, UINT64_MAX, 0),  // the buckets' sum, for readers; not needed
    number("min", &HistogramWire::min), number("max", &HistogramWire::max), number("sum", &HistogramWire::sum),
    list("buckets", &HistogramWire::buckets, LatencyHistogram::kBuckets, bucket_json, bucket_from_json));

nlohmann::json histogram_json(const LatencyHistogram& h) {
    return encoded(HistogramWire{kSubBits, h.count(), h.min(), h.max(), h.sum(), h.sparse()}, kHistogramFields);
}

LatencyHistogram histogram_from_json(const nlohmann::json& j, const char* name) {
    if (!j.is_object()) throw ProtocolError(std::string("field '") + name + "' must be an object");
    auto h = decoded<HistogramWire>(j, kHistogramFields);
    try {
        return LatencyHistogram::from_sparse(h.buckets, h.min, h.max, h.sum);
    } catch (const std::invalid_argument& e) {
        throw ProtocolError(std::string(name) + ": " + e.what());
    }
}

bool has_rtt(const MessageSide& m) { return m.rtt.count() > 0; }
bool has_connect(const MessageSide& m) { return m.connect.count() > 0; }

const auto kMessageSideFields = std::make_tuple(
    number(kMessages, &MessageSide::messages), number("segments", &MessageSide::segments),
    list("stream_messages", &MessageSide::stream_messages, kMaxStreams),
    sent_if(has_rtt, custom("rtt_ns", &MessageSide::rtt, histogram_json, histogram_from_json)),
    sent_if(has_connect, custom("connect_ns", &MessageSide::connect, histogram_json, histogram_from_json)));

}  // namespace

nlohmann::json to_json(const MessageSide& m) { return encoded(m, kMessageSideFields); }
MessageSide message_side_from_json(const nlohmann::json& j) { return decoded<MessageSide>(j, kMessageSideFields); }

MessageResult message_result(Workload test, Transport transport, uint32_t batch, const SideResult& local,
                             const SideResult& remote, double receiver_elapsed_s,
                             const std::vector<double>& percentiles) {
    const char* what = is_transaction_test(test) ? kTransactions : kMessages;
    const MessageSide& l = local.messages;
    const MessageSide& r = remote.messages;
    // A kind that may lose messages (UDP's datagrams): the side that counts what arrived is the figure (rr: the
    // initiator, its answers; msgrate: the receiver), and it may only count fewer than the other side handled.
    const bool lossy = kind_block_counts_losses(local);
    const MessageSide& counted = !lossy || test == Workload::rr || local.role == Role::recv ? l : r;
    const MessageSide& handled = &counted == &l ? r : l;
    if (lossy && counted.messages > handled.messages) {
        throw std::runtime_error(std::string(what) + " count mismatch: over " + transport_name(transport) + " " +
                                 std::to_string(counted.messages) + " arrived but the other side handled only " +
                                 std::to_string(handled.messages) + ". No figures are reported for this test.");
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
    // The row: its calls are a TCP byte stream's, its segments TCP_INFO's.
    m.stream_segments = transport_info(transport).tcp_segments;
    char how[320] = "";
    if (is_connection_test(test)) {
        std::snprintf(how, sizeof(how),
                      "a new TCP connection per transaction (%s); latency of the whole transaction "
                      "and of socket()+connect()",
                      test == Workload::crr ? "connect, request, response, close" : "connect, close");
        if (std::string note = kind_block_method_note(local.kinds); !note.empty())
            m.measured = std::string(how) + "; " + note;  // the kind's word on it (TCP: the close method)
    } else if (m.stream_segments) {
        std::snprintf(how, sizeof(how),
                      "%u per %s call with TCP_NODELAY; the receiver reads in bulk and counts whole messages; segments "
                      "from the sender's TCP_INFO (MSS units)",
                      batch, batch == 1 ? "send()" : "sendmmsg()");
    } else {  // a kind that counts its own calls (RDMA's posts, UDP's datagrams): its block says how
        m.measured = kind_block_messages_measured(local, test, batch);
    }
    if (m.measured.empty()) m.measured = how;
    if (m.stream_segments && test == Workload::msgrate && m.messages && m.segments_per_message < 0.9) {
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

namespace {

// --percentiles' choice under their own names (p99.99 ...) beside the fixed ones.
void add_chosen(const LatencySummary& s, nlohmann::json& j) {
    for (const PercentileReading& c : s.chosen) j[percentile_label(c.percentile)] = c.us;
}

// The report's fields (encoded only). Latency figures in us, as percentiles.
const auto kLatencySummaryFields =
    std::make_tuple(number("min", &LatencySummary::min_us), number("mean", &LatencySummary::mean_us),
                    number("p50", &LatencySummary::p50_us), number("p90", &LatencySummary::p90_us),
                    number("p99", &LatencySummary::p99_us), number("p99.9", &LatencySummary::p999_us),
                    number("max", &LatencySummary::max_us), spread<LatencySummary>(add_chosen));

LatencySummary halved(LatencySummary s) {
    for (double LatencySummary::*m :
         {&LatencySummary::min_us, &LatencySummary::mean_us, &LatencySummary::p50_us, &LatencySummary::p90_us,
          &LatencySummary::p99_us, &LatencySummary::p999_us, &LatencySummary::max_us})
        s.*m /= 2;
    for (PercentileReading& c : s.chosen) c.us /= 2;
    return s;
}

using MR = MessageResult;
constexpr const char* kMeasured = "measured";  // msgrate's starts with the message size
const auto kBothReportFields = std::make_tuple(number("elapsed_s", &MR::elapsed_s), str(kMeasured, &MR::measured));

const auto kTransactionReportFields = std::tuple_cat(
    kBothReportFields,
    std::make_tuple(number(kTransactions, &MR::messages), number("transactions_per_s", &MR::messages_per_s),
                    list("stream_transactions_per_s", &MR::stream_messages_per_s, kMaxStreams),
                    object("rtt_us", &MR::rtt, kLatencySummaryFields),
                    derived<MR>("samples", [](const MR& m) { return m.rtt.samples; }),
                    number("local_sd_us_per_tran", &MR::local_sd_us),
                    number("remote_sd_us_per_tran", &MR::remote_sd_us),
                    number("local_proc_sd_us_per_tran", &MR::local_proc_sd_us),
                    number("remote_proc_sd_us_per_tran", &MR::remote_proc_sd_us),
                    number("client_calls_per_tran", &MR::calls_per_message),
                    number("client_segments_per_tran", &MR::segments_per_message)));

// rr: one-way latency as OSU and perftest give it, half the round trip. crr, cc: half a transaction of
// four system calls is no one-way latency; the connect time instead.
const auto kOneWayLatencyFields = std::make_tuple(
    derived<MR>("latency_us", [](const MR& m) { return encoded(halved(m.rtt), kLatencySummaryFields); }),
    derived<MR>("latency_definition", [](const MR&) { return "RTT/2"; }));
const auto kConnectFields = std::make_tuple(object("connect_us", &MR::connect, kLatencySummaryFields));

const auto kMessageReportFields = std::tuple_cat(
    kBothReportFields,
    std::make_tuple(number(kMessages, &MR::messages), number("messages_per_s", &MR::messages_per_s),
                    list("stream_messages_per_s", &MR::stream_messages_per_s, kMaxStreams), number("batch", &MR::batch),
                    number("sender_calls_per_message", &MR::calls_per_message),
                    number("sender_segments_per_message", &MR::segments_per_message),
                    number("local_sd_us_per_msg", &MR::local_sd_us), number("remote_sd_us_per_msg", &MR::remote_sd_us),
                    number("local_proc_sd_us_per_msg", &MR::local_proc_sd_us),
                    number("remote_proc_sd_us_per_msg", &MR::remote_proc_sd_us)));

// --percentiles' errors in rtt_percentiles (their values are in each latency summary), and what --samples kept.
void add_chosen_percentiles(nlohmann::json& j, const MessageResult& m) {
    nlohmann::json a = nlohmann::json::array();
    for (const PercentileReading& c : m.rtt.chosen)
        a.push_back({{"percentile", c.percentile}, {"rtt_us", c.us}, {"error_pct", c.error_pct}});
    j["rtt_percentiles"] = a;
    if (m.samples_kept || m.samples_dropped) {
        j["samples_kept"] = m.samples_kept;
        j["samples_dropped"] = m.samples_dropped;
    }
}

}  // namespace

nlohmann::json to_json(const MessageResult& m, Workload test, uint64_t message_size) {
    if (is_transaction_test(test)) {
        nlohmann::json j = encoded(m, kTransactionReportFields);
        if (is_connection_test(test))
            encode_fields(j, m, kConnectFields);
        else
            encode_fields(j, m, kOneWayLatencyFields);
        add_chosen_percentiles(j, m);
        return j;
    }
    nlohmann::json j = encoded(m, kMessageReportFields);
    j[kMeasured] = std::to_string(message_size) + " B messages, " + m.measured;
    return j;
}

}  // namespace zc
