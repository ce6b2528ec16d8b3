#include "tcp/tcp_report.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <iterator>
#include <limits>

#include "core/units.hpp"
#include "protocol/field_table.hpp"
#include "protocol/result.hpp"

namespace zc {

namespace {

constexpr uint32_t kU32 = std::numeric_limits<uint32_t>::max();
constexpr uint64_t kU64 = std::numeric_limits<uint64_t>::max();
// A stream's list is bounded by the streams a test may have, times --flows' connections each.
constexpr size_t kMaxSamples = 1 << 16;

const auto kTcpSampleFields = std::make_tuple(
    number("interval_s", &TcpSample::interval_s, 0.0, 1e9), number("has_chrono", &TcpSample::has_chrono, false, true),
    number("rtt_us", &TcpSample::rtt_us, 0, kU32), number("rttvar_us", &TcpSample::rttvar_us, 0, kU32),
    number("min_rtt_us", &TcpSample::min_rtt_us, 0, kU32), number("cwnd", &TcpSample::snd_cwnd, 0, kU32),
    number("ssthresh", &TcpSample::snd_ssthresh, 0, kU32), number("mss", &TcpSample::snd_mss, 0, kU32),
    number("snd_wnd", &TcpSample::snd_wnd, 0, kU32), number("rcv_space", &TcpSample::rcv_space, 0, kU32),
    number("ca_state", &TcpSample::ca_state, 0, 255),
    // The kernel's last samples keep their names (tcpi_delivery_rate, tcpi_pacing_rate), so an older
    // peer's mean the same; the interval's mean delivery rate is new (absent: an older peer, none).
    number("delivery_rate_Bps", &TcpSample::last_delivery_rate_Bps, 0, kU64),
    number("delivery_app_limited", &TcpSample::last_delivery_app_limited, false, true, false),
    number("pacing_rate_Bps", &TcpSample::last_pacing_rate_Bps, 0, kU64),
    number("bytes_acked", &TcpSample::bytes_acked, 0, kU64, 0),
    number("mean_delivery_rate_Bps", &TcpSample::delivery_rate_Bps, 0, kU64, 0),
    number("busy", &TcpSample::busy, 0.0, 1.0), number("rwnd_limited", &TcpSample::rwnd_limited, 0.0, 1.0),
    number("sndbuf_limited", &TcpSample::sndbuf_limited, 0.0, 1.0),
    number("retransmits", &TcpSample::retransmits, 0, kU64), number("bytes_sent", &TcpSample::bytes_sent, 0, kU64),
    number("bytes_retrans", &TcpSample::bytes_retrans, 0, kU64),
    number("bytes_received", &TcpSample::bytes_received, 0, kU64),
    derived<TcpSample>("limited_by", [](const TcpSample& t) { return tcp_limit_line(t); }));  // for readers

const auto kTcpTuningFields = std::make_tuple(
    text("congestion", &TcpTuningInForce::congestion, 16, "an algorithm name (16 bytes)"),
    number("max_pacing_rate_Bps", &TcpTuningInForce::max_pacing_Bps, 0, kU64),
    number("tos", &TcpTuningInForce::tos, -1, 255), text("bind_dev", &TcpTuningInForce::bind_dev, 16, "IFNAMSIZ"),
    text("family", &TcpTuningInForce::family, 8, "IPv4 or IPv6"));

bool has_streams(const TcpSideReport& t) { return !t.streams.empty(); }
bool has_settings(const TcpSideReport& t) { return !t.settings.congestion.empty(); }
bool has_close(const TcpSideReport& t) { return !t.connection_close.empty(); }

// --flows: how many connections each tcp_info stream sums, sent only then; absent: 1.
constexpr const char* kConnectionsPerStream = "tcp_info_connections_per_stream";
nlohmann::json connections_json(const TcpSideReport& t) {
    return t.connections_per_stream > 1 ? nlohmann::json(t.connections_per_stream) : nlohmann::json();
}
void connections_from_json(const nlohmann::json& v, TcpSideReport& t) {
    t.connections_per_stream = value_as<uint32_t>(v, kConnectionsPerStream);
    if (t.connections_per_stream < 1 || t.connections_per_stream > kMaxSamples)
        throw ProtocolError(fmt::format("field '{}' = {} is outside [1, {}]", kConnectionsPerStream,
                                        t.connections_per_stream, kMaxSamples));
}

// rcv_lowat: sent by a side's block (its settings read: 0 on a sender, as SideResult sent it), left out of
// an interval's (TCP_INFO alone); absent (an older peer, an interval): 0.
constexpr const char* kRcvLowat = "rcv_lowat";
nlohmann::json rcv_lowat_json(const TcpSideReport& t) {
    return t.settings.congestion.empty() && t.rcv_lowat == 0 ? nlohmann::json() : nlohmann::json(t.rcv_lowat);
}
void rcv_lowat_from_json(const nlohmann::json& v, TcpSideReport& t) { t.rcv_lowat = value_as<uint64_t>(v, kRcvLowat); }

// --flows' figures (the side's "flows"): count, bytes and Jain's index from flow_bytes, the rates over the
// measuring side's interval, which the side that measured them sends.
constexpr double kMaxBps = 1e15;
constexpr const char* kFlowsKey = "flows";  // the figures' object, and their CSV count column
const auto kFlowFigureFields =
    std::make_tuple(derived<FlowFigures>("count", [](const FlowFigures& f) { return f.flows.flows; }),
                    derived<FlowFigures>("min_bytes", [](const FlowFigures& f) { return f.flows.min_bytes; }),
                    derived<FlowFigures>("median_bytes", [](const FlowFigures& f) { return f.flows.median_bytes; }),
                    derived<FlowFigures>("max_bytes", [](const FlowFigures& f) { return f.flows.max_bytes; }),
                    number("min_bps", &FlowFigures::min_bps, 0.0, kMaxBps),
                    number("median_bps", &FlowFigures::median_bps, 0.0, kMaxBps),
                    number("max_bps", &FlowFigures::max_bps, 0.0, kMaxBps),
                    derived<FlowFigures>("jain_index", [](const FlowFigures& f) { return f.flows.jain; }),
                    number("transaction_bytes", &FlowFigures::transaction_bytes, 0, kU64, 0));
bool has_flows(const TcpSideReport& t) { return !t.flow_bytes.empty(); }

// The block's fields, at the side's top level (the keys SideResult had): tcp_info, tcp_settings,
// connection_close and --flows' only where there are some.
const auto kTcpSideFields =
    std::make_tuple(sent_if(has_streams, list("tcp_info", &TcpSideReport::streams, kMaxSamples, kTcpSampleFields)),
                    custom<TcpSideReport>(kConnectionsPerStream, connections_json, connections_from_json, true),
                    sent_if(has_settings, object("tcp_settings", &TcpSideReport::settings, kTcpTuningFields)),
                    sent_if(has_close, str("connection_close", &TcpSideReport::connection_close, 200)),
                    custom<TcpSideReport>(kRcvLowat, rcv_lowat_json, rcv_lowat_from_json, true),
                    sent_if(has_flows, list("flow_bytes", &TcpSideReport::flow_bytes, kMaxDataConnections)),
                    sent_if(has_flows, object(kFlowsKey, &TcpSideReport::flows, kFlowFigureFields)));

// TCP_INFO's columns: (name, cell) a line (t: all streams as one).
std::string num(uint64_t v) { return std::to_string(v); }
std::string pct(double share) { return fmt::format("{:.2f}", share * 100); }
#define ZC_TCP_INFO_COLUMNS(X)                                                                                      \
    X("tcp_retransmits", num(t.retransmits)), X("tcp_rtt_us", num(t.rtt_us)), X("tcp_rttvar_us", num(t.rttvar_us)), \
        X("tcp_cwnd", num(t.snd_cwnd)), X("tcp_ssthresh", num(t.snd_ssthresh)),                                     \
        X("tcp_delivery_rate_Bps", num(t.delivery_rate_Bps)),                                                       \
        X("tcp_last_delivery_rate_Bps", num(t.last_delivery_rate_Bps)),                                             \
        X("tcp_last_pacing_rate_Bps", num(t.last_pacing_rate_Bps)), X("tcp_busy_pct", pct(t.busy)),                 \
        X("tcp_rwnd_limited_pct", pct(t.rwnd_limited)), X("tcp_sndbuf_limited_pct", pct(t.sndbuf_limited))

std::string rate_text(uint64_t bytes_per_s) {
    return bytes_per_s ? fmt::format("{:.2f} Gb/s", static_cast<double>(bytes_per_s) * 8 / 1e9) : std::string("-");
}

// What the data sockets ran with, as the kernel reads them back, and a stream receiver's low-water mark.
std::string settings_line(const TcpSideReport& r) {
    const TcpTuningInForce& t = r.settings;
    std::string out = t.congestion.empty()
                          ? std::string()
                          : fmt::format("{} {}, pacing cap {}, tos {}{}", t.family, t.congestion,
                                        t.max_pacing_Bps ? rate_text(t.max_pacing_Bps) : std::string("none"),
                                        t.tos >= 0 ? fmt::format("{:#04x}", t.tos) : std::string("?"),
                                        t.bind_dev.empty() ? "" : ", bound to " + t.bind_dev);
    if (r.rcv_lowat > 0)
        out += (out.empty() ? "" : "; ") + ("recv woken at " + format_size(r.rcv_lowat) + " queued (SO_RCVLOWAT)");
    return out;
}

// One stream's TCP_INFO over the test, and (where it sent) what limited it.
std::string stream_line(const std::string& name, const TcpSample& t) {
    std::string out = fmt::format(
        "{}: rtt {} us (var {}), cwnd {}, ssthresh {}, {} retransmits, delivery {} (bytes acked over the "
        "test), the kernel's last delivery sample {}{}, pacing rate at the end {}",
        name, t.rtt_us, t.rttvar_us, t.snd_cwnd,
        t.snd_ssthresh >= kInfiniteSsthresh ? std::string("-") : std::to_string(t.snd_ssthresh), t.retransmits,
        rate_text(t.delivery_rate_Bps), rate_text(t.last_delivery_rate_Bps),
        t.last_delivery_app_limited ? " (app-limited)" : "", rate_text(t.last_pacing_rate_Bps));
    if (std::string limit = tcp_limit_line(t); !limit.empty()) out += "\n             " + limit;
    return out;
}

// --flows: how evenly the side's connections shared the path (rr: each flow's transactions per second).
std::string flows_line(const FlowFigures& f, const SideResult& side) {
    std::string rates;
    if (f.transaction_bytes > 0) {
        double per = 8.0 * static_cast<double>(f.transaction_bytes);  // bits per transaction, each way
        rates = fmt::format("{:.1f} / {:.1f} / {:.1f} trans/s", f.min_bps / per, f.median_bps / per, f.max_bps / per);
    } else {
        rates = fmt::format("{:.2f} / {:.2f} / {:.2f} Mb/s", f.min_bps / 1e6, f.median_bps / 1e6, f.max_bps / 1e6);
    }
    const size_t threads = side.stream_bytes.size();
    return fmt::format(
        "flows: {} connections over {} thread{}; per flow min / median / max {}; Jain's fairness index {:.4f}",
        f.flows.flows, threads, threads == 1 ? "" : "s", rates, f.flows.jain);
}

std::vector<std::string> human_lines(const TcpSideReport& r, const SideResult& side) {
    std::vector<std::string> out;
    if (!r.flow_bytes.empty()) out.push_back(flows_line(r.flows, side));
    if (std::string settings = settings_line(r); !settings.empty()) out.push_back("tcp: " + settings);
    constexpr size_t kStreamLines = 4;  // more streams: the first few, then all of them as one
    const std::string flows = r.connections_per_stream > 1
                                  ? fmt::format(" ({} connections as one)", r.connections_per_stream)
                                  : std::string();
    for (size_t i = 0; i < r.streams.size() && i < kStreamLines; ++i)
        out.push_back(stream_line(fmt::format("stream {}{}", i, flows), r.streams[i]));
    if (r.streams.size() > kStreamLines)
        out.push_back(stream_line(fmt::format("all {} streams", r.streams.size()), tcp_summary(r.streams)));
    return out;
}

// --flows' columns (empty without): connections, per-flow rate min/median/max, Jain's fairness index.
constexpr const char* kFlowColumns[] = {kFlowsKey, "flow_min_mbps", "flow_median_mbps", "flow_max_mbps", "flow_jain"};
std::vector<std::string> flow_cells(const TcpSideReport& r) {
    if (r.flow_bytes.empty()) return std::vector<std::string>(std::size(kFlowColumns));
    const FlowFigures& f = r.flows;
    auto mbps = [](double bps) { return fmt::format("{:.3f}", bps / 1e6); };
    return {num(r.flow_bytes.size()), mbps(f.min_bps), mbps(f.median_bps), mbps(f.max_bps),
            fmt::format("{:.4f}", f.flows.jain)};
}

// The columns they had as the side's (rcv_lowat, tcp_<setting>), then TCP_INFO's, then --flows'.
std::vector<std::string> csv_columns() {
    using T = TcpTuningInForce;
    const auto& s = kTcpTuningFields;
    auto setting = [](const char* name) { return std::string("tcp_") + name; };
    std::vector<std::string> out = {kRcvLowat,
                                    setting(name_of(s, &T::congestion)),
                                    setting(name_of(s, &T::max_pacing_Bps)),
                                    setting(name_of(s, &T::tos)),
                                    setting(name_of(s, &T::bind_dev)),
                                    setting(name_of(s, &T::family))};
    for (auto& c : tcp_info_csv_columns()) out.push_back(std::move(c));
    out.insert(out.end(), std::begin(kFlowColumns), std::end(kFlowColumns));
    return out;
}

std::vector<std::string> csv_cells(const TcpSideReport& r) {
    const TcpTuningInForce& t = r.settings;
    const std::string tos = t.congestion.empty() ? "" : fmt::format("{}", t.tos);  // settings not read: none
    std::vector<std::string> out = {num(r.rcv_lowat), t.congestion, num(t.max_pacing_Bps), tos, t.bind_dev, t.family};
    for (auto& c : tcp_info_csv_cells(r.streams)) out.push_back(std::move(c));
    for (auto& c : flow_cells(r)) out.push_back(std::move(c));
    return out;
}

// --interval: the sending side's TCP over the interval (the side that sent more: rr's both send), all its
// streams as one; "" where neither side read TCP_INFO.
std::string interval_text(const TcpSideReport& local, const TcpSideReport& remote) {
    const TcpSample l = tcp_summary(local.streams), r = tcp_summary(remote.streams);
    const TcpSample& t = l.bytes_sent >= r.bytes_sent ? l : r;
    if (t.interval_s <= 0) return "";
    return fmt::format("tcp retr {} cwnd {} rtt {} us busy {:.0f}% rwnd {:.0f}% sndbuf {:.0f}%", t.retransmits,
                       t.snd_cwnd, t.rtt_us, t.busy * 100, t.rwnd_limited * 100, t.sndbuf_limited * 100);
}
std::vector<std::string> interval_csv_cells(const TcpSideReport& r) { return tcp_info_csv_cells(r.streams); }

// crr and cc's words on how they were measured gain the close method.
std::string method_note(const TcpSideReport& r) { return r.connection_close; }

nlohmann::json block_json(const TcpSideReport& r) { return to_json(r); }

constexpr KindBlockOf<TcpSideReport> kTcp = {.key = "tcp",
                                             .to_json = block_json,
                                             .from_json = tcp_side_report_from_json,
                                             .human_lines = human_lines,
                                             .csv_columns = csv_columns,
                                             .csv_cells = csv_cells,
                                             .flat = true,
                                             .csv_prefix = "",
                                             .method_note = method_note,
                                             .interval_text = interval_text,
                                             .interval_csv_columns = tcp_info_csv_columns,
                                             .interval_csv_cells = interval_csv_cells};
const KindBlockType kBlock = kind_block_type<kTcp>();

}  // namespace

bool TcpSideReport::empty() const {
    return streams.empty() && settings.congestion.empty() && connection_close.empty() && rcv_lowat == 0 &&
           flow_bytes.empty();
}

nlohmann::json to_json(const TcpSideReport& t) { return t.empty() ? nlohmann::json() : encoded(t, kTcpSideFields); }

TcpSideReport tcp_side_report_from_json(const nlohmann::json& side) {
    if (!side.is_object()) throw ProtocolError("a side's TCP fields must be in an object");
    TcpSideReport t = decoded<TcpSideReport>(side, kTcpSideFields);
    if (!t.flow_bytes.empty() && !side.contains(kFlowsKey)) {
        // An older peer sent its flows' bytes alone: their rates are over its measured interval (the side's).
        constexpr const char* kElapsed = "elapsed_s";
        const auto& elapsed = side.contains(kElapsed) ? side.at(kElapsed) : nlohmann::json(0.0);
        t.flows = flow_figures(t.flow_bytes, value_as<double>(elapsed, kElapsed), 0);
    }
    t.flows.flows = flow_stats(t.flow_bytes);
    return t;
}

const KindBlockType& tcp_block_type() { return kBlock; }

TcpSideReport tcp_block_of(const SideResult& side) {
    auto it = side.kinds.find(kBlock.key);
    return it == side.kinds.end() ? TcpSideReport{} : tcp_side_report_from_json(it->second);
}

std::string flow_count_problem(const SideResult& sender, const SideResult& receiver) {
    return flow_count_problem(tcp_block_of(sender).flow_bytes, tcp_block_of(receiver).flow_bytes);
}

bool ran_flows(const SideResult& side) { return !tcp_block_of(side).flow_bytes.empty(); }

std::vector<std::string> tcp_info_csv_columns() {
#define ZC_NAME(name, cell) std::string(name)
    return {ZC_TCP_INFO_COLUMNS(ZC_NAME)};
#undef ZC_NAME
}

std::vector<std::string> tcp_info_csv_cells(const std::vector<TcpSample>& streams) {
    if (streams.empty()) return std::vector<std::string>(tcp_info_csv_columns().size());
    const TcpSample t = tcp_summary(streams);
#define ZC_CELL(name, cell) cell
    return {ZC_TCP_INFO_COLUMNS(ZC_CELL)};
#undef ZC_CELL
}

}  // namespace zc
