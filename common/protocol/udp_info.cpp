#include "protocol/udp_info.hpp"

#include <cstdio>

#include "protocol/json_fields.hpp"

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
                      "(SO_RXQ_OVFL), and the host's Udp RcvbufErrors rose by %llu, InErrors by %llu over the test%s",
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

nlohmann::json to_json(const UdpInfo& u) {
    const UdpCounts& c = u.counts;
    nlohmann::json j = {{"datagram_path", u.datagram_path},
                        {"datagrams", c.datagrams},
                        {"sender_datagrams", c.sender_datagrams},
                        {"end_marker", c.end_marker},
                        {"lost", c.lost},
                        {"loss_pct", u.loss_pct()},
                        {"reordered", c.reordered},
                        {"duplicates", c.duplicates},
                        {"jitter_ms", c.jitter_s * 1e3},
                        {"kernel_drops", c.kernel_drops},
                        {"gro_buffers", c.gro_buffers},
                        {"rr_timeouts", c.rr_timeouts},
                        {"gso_size", c.gso_size},
                        {"gso_where", u.gso_where},
                        {"rx_mode", u.rx_mode},
                        {"bitrate", u.bitrate},
                        {"pacing", pacing_method_name(u.pacing.method)},
                        {"paced_sleep_s", static_cast<double>(u.pacing.sleep_ns) * 1e-9}};
    if (c.snmp_valid) {
        j["snmp"] = {{"in_errors", c.snmp_in_errors},
                     {"rcvbuf_errors", c.snmp_rcvbuf_errors},
                     {"sndbuf_errors", c.snmp_sndbuf_errors}};
    }
    return j;
}

UdpInfo udp_info_from_json(const nlohmann::json& j) {
    UdpInfo u;
    u.used = true;
    UdpCounts& c = u.counts;
    u.datagram_path = field<bool>(j, "datagram_path");
    c.datagrams = field<uint64_t>(j, "datagrams");
    c.sender_datagrams = field<uint64_t>(j, "sender_datagrams");
    c.end_marker = field<bool>(j, "end_marker");
    c.lost = field<uint64_t>(j, "lost");
    c.reordered = field<uint64_t>(j, "reordered");
    c.duplicates = field<uint64_t>(j, "duplicates");
    c.jitter_s = field_in<double>(j, "jitter_ms", 0.0, 1e9) * 1e-3;
    c.kernel_drops = field<uint64_t>(j, "kernel_drops");
    c.gro_buffers = field<uint64_t>(j, "gro_buffers");
    c.rr_timeouts = field<uint64_t>(j, "rr_timeouts");
    c.gso_size = field_in<uint64_t>(j, "gso_size", 0, 65535);
    u.gso_where = field<std::string>(j, "gso_where");
    u.rx_mode = field<std::string>(j, "rx_mode");
    u.bitrate = field<uint64_t>(j, "bitrate");
    std::string method = field<std::string>(j, "pacing");
    for (PacingMethod m : {PacingMethod::none, PacingMethod::sender_clock, PacingMethod::kernel_fq})
        if (method == pacing_method_name(m)) u.pacing.method = m;
    u.pacing.sleep_ns = static_cast<uint64_t>(field_in<double>(j, "paced_sleep_s", 0.0, 1e9) * 1e9);
    if (j.contains("snmp")) {
        const auto& s = j.at("snmp");
        c.snmp_valid = true;
        c.snmp_in_errors = field<uint64_t>(s, "in_errors");
        c.snmp_rcvbuf_errors = field<uint64_t>(s, "rcvbuf_errors");
        c.snmp_sndbuf_errors = field<uint64_t>(s, "sndbuf_errors");
    }
    return u;
}

}  // namespace zc
