#include "protocol/tcp_report.hpp"

#include <cstdint>
#include <limits>

#include "protocol/field_table.hpp"

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
    number("bytes_received", &TcpSample::bytes_received, 0, kU64));

const auto kTcpTuningFields = std::make_tuple(
    text("congestion", &TcpTuningInForce::congestion, 16, "an algorithm name (16 bytes)"),
    number("max_pacing_rate_Bps", &TcpTuningInForce::max_pacing_Bps, 0, kU64),
    number("tos", &TcpTuningInForce::tos, -1, 255), text("bind_dev", &TcpTuningInForce::bind_dev, 16, "IFNAMSIZ"),
    text("family", &TcpTuningInForce::family, 8, "IPv4 or IPv6"));

}  // namespace

nlohmann::json to_json(const TcpSample& s) { return encoded(s, kTcpSampleFields); }

TcpSample tcp_sample_from_json(const nlohmann::json& j) { return decoded<TcpSample>(j, kTcpSampleFields); }

nlohmann::json to_json(const TcpTuningInForce& t) { return encoded(t, kTcpTuningFields); }

TcpTuningInForce tcp_tuning_from_json(const nlohmann::json& j) {
    return decoded<TcpTuningInForce>(j, kTcpTuningFields);
}

nlohmann::json to_json(const std::vector<TcpSample>& v) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& s : v) a.push_back(to_json(s));
    return a;
}

std::vector<TcpSample> tcp_samples_from_json(const nlohmann::json& j, const char* name) {
    std::vector<TcpSample> out;
    auto it = j.is_object() ? j.find(name) : j.end();
    if (it == j.end()) return out;  // an older peer, or not TCP
    if (!it->is_array() || it->size() > kMaxSamples)
        throw ProtocolError(std::string("field '") + name + "' must be an array of at most " +
                            std::to_string(kMaxSamples));
    for (const auto& e : *it) out.push_back(tcp_sample_from_json(e));
    return out;
}

}  // namespace zc
