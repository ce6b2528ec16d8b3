#include "protocol/udp_info.hpp"

#include <cstdio>

#include "protocol/field_table.hpp"

namespace zc {

double UdpInfo::loss_pct() const {
    uint64_t sent = counts.end_marker ? counts.sender_datagrams : counts.datagrams + counts.lost;
    return sent ? 100.0 * static_cast<double>(counts.lost) / static_cast<double>(sent) : 0.0;
}

std::string udp_count_problem(const UdpInfo& tx, uint64_t tx_bytes, const UdpInfo& rx, uint64_t rx_bytes) {
    const UdpCounts &s = tx.counts, &r = rx.counts;
    if (rx_bytes > tx_bytes) {
        return "the receiver counted " + std::to_string(rx_bytes) + " bytes but the sender sent only " +
               std::to_string(tx_bytes) + " (datagrams from another sender on the port?)";
    }
    if (r.end_marker && r.sender_datagrams != s.datagrams) {
        return "the sender's end marker said " + std::to_string(r.sender_datagrams) +
               " datagrams but the sender counted " + std::to_string(s.datagrams);
    }
    if (r.end_marker && r.datagrams + r.lost != s.datagrams) {
        return "the receiver counted " + std::to_string(r.datagrams) + " datagrams received and " +
               std::to_string(r.lost) + " lost, not the " + std::to_string(s.datagrams) + " the sender sent";
    }
    return "";
}

std::vector<std::string> udp_notes(const UdpInfo& tx, double tx_rate_bps, int streams, const UdpInfo& rx, bool is_udp) {
    std::vector<std::string> out;
    char line[512];
    if (tx.bitrate) {
        double err = 100.0 * (tx_rate_bps - static_cast<double>(tx.bitrate)) / static_cast<double>(tx.bitrate);
        std::snprintf(line, sizeof(line),
                      "-b %s%s: the sender achieved %s (%+.2f%%), paced by %s; it waited %.3f s for its schedule%s",
                      bitrate_text(tx.bitrate).c_str(),
                      streams > 1 ? (" per stream (" + std::to_string(streams) + " streams)").c_str() : "",
                      bitrate_text(static_cast<uint64_t>(tx_rate_bps)).c_str(), err,
                      pacing_method_name(tx.pacing.method), static_cast<double>(tx.pacing.sleep_ns) * 1e-9,
                      err < -5 && tx.pacing.method == PacingMethod::sender_clock
                          ? " (it fell behind: the rate is more than this path sends)"
                          : "");
        out.push_back(line);
    } else if (is_udp && tx.counts.datagrams) {
        out.push_back(
            "UDP without -b: the sender sends as fast as it can, so the receiver's share of it (the loss) "
            "is part of the figure; give -b RATE for a paced test");
    }
    if (rx.empty()) return out;
    const UdpCounts& r = rx.counts;
    if (!r.end_marker && tx.counts.datagrams) {
        out.push_back(
            "udp: the sender's end marker never reached the receiver: datagrams lost after the last one "
            "received are not counted as lost");
    }
    if (r.kernel_drops != r.lost || (r.snmp_valid && r.snmp_rcvbuf_errors + r.snmp_in_errors > 0 && r.lost == 0)) {
        std::snprintf(line, sizeof(line),
                      "udp: the receiver counted %llu datagrams lost; the kernel says the sockets dropped %llu "
                      "(sk_drops), and the host's Udp RcvbufErrors rose by %llu, InErrors by %llu over the test%s",
                      static_cast<unsigned long long>(r.lost), static_cast<unsigned long long>(r.kernel_drops),
                      static_cast<unsigned long long>(r.snmp_rcvbuf_errors),
                      static_cast<unsigned long long>(r.snmp_in_errors),
                      r.kernel_drops > r.lost   ? ": the socket's count includes the end marker's repeats it dropped "
                                                  "while full, and other UDP sockets' drops count in the host's"
                      : r.kernel_drops < r.lost ? ": the rest were lost before the socket (qdisc, NIC, the network)"
                                                : ": other UDP sockets on the host dropped datagrams");
        out.push_back(line);
    }
    return out;
}

namespace {

// The wire fields, one line each (field_table.hpp): all required, as every peer since UDP has sent them,
// except the host's snmp counters, sent only when they were read.
const auto kSnmpFields = std::make_tuple(number("in_errors", &UdpCounts::snmp_in_errors),
                                         number("rcvbuf_errors", &UdpCounts::snmp_rcvbuf_errors),
                                         number("sndbuf_errors", &UdpCounts::snmp_sndbuf_errors));

nlohmann::json snmp_json(const UdpCounts& c) { return c.snmp_valid ? encoded(c, kSnmpFields) : nlohmann::json(); }
void snmp_from_json(const nlohmann::json& v, UdpCounts& c) {
    if (!v.is_object()) throw ProtocolError("field 'snmp' must be an object");
    decode_fields(v, c, kSnmpFields);
    c.snmp_valid = true;
}

const auto kUdpCountFields = std::make_tuple(
    number("datagrams", &UdpCounts::datagrams), number("sender_datagrams", &UdpCounts::sender_datagrams),
    number("end_marker", &UdpCounts::end_marker), number("lost", &UdpCounts::lost),
    number("reordered", &UdpCounts::reordered), number("duplicates", &UdpCounts::duplicates),
    scaled("jitter_ms", &UdpCounts::jitter_s, 1e3, 1e-3, 0.0, 1e9),  // seconds kept, milliseconds sent
    number("kernel_drops", &UdpCounts::kernel_drops), number("gro_buffers", &UdpCounts::gro_buffers),
    number("rr_timeouts", &UdpCounts::rr_timeouts), number("gso_size", &UdpCounts::gso_size, 0, 65535),
    custom<UdpCounts>("snmp", snmp_json, snmp_from_json, true));

// A method this side does not know (a newer peer's) reads as none, as before the table.
PacingMethod pacing_method_from(const std::string& name) {
    for (PacingMethod m : {PacingMethod::none, PacingMethod::sender_clock, PacingMethod::kernel_fq})
        if (name == pacing_method_name(m)) return m;
    return PacingMethod::none;
}
const auto kPacingFields =
    std::make_tuple(named("pacing", &PacingCounts::method, pacing_method_name, pacing_method_from),
                    scaled("paced_sleep_s", &PacingCounts::sleep_ns, 1e-9, 1e9, 0.0, 1e9));

const auto kUdpInfoFields =
    std::make_tuple(number("datagram_path", &UdpInfo::datagram_path), flat(&UdpInfo::counts, kUdpCountFields),
                    derived<UdpInfo>("loss_pct", [](const UdpInfo& u) { return u.loss_pct(); }),  // for readers
                    str("gso_where", &UdpInfo::gso_where), str("rx_mode", &UdpInfo::rx_mode),
                    number("bitrate", &UdpInfo::bitrate), flat(&UdpInfo::pacing, kPacingFields));

}  // namespace

nlohmann::json to_json(const UdpInfo& u) { return encoded(u, kUdpInfoFields); }

UdpInfo udp_info_from_json(const nlohmann::json& j) {
    UdpInfo u = decoded<UdpInfo>(j, kUdpInfoFields);
    u.used = true;
    return u;
}

}  // namespace zc
