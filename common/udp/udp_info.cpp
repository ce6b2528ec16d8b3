#include "udp/udp_info.hpp"

#include <fmt/format.h>

#include "protocol/field_table.hpp"
#include "protocol/result.hpp"

namespace zc {

double UdpInfo::loss_pct() const {
    const uint64_t sent = sent_datagrams();
    return sent ? 100.0 * static_cast<double>(counts.lost) / static_cast<double>(sent) : 0.0;
}

namespace {
// Both sides of a UDP stream test: rr's receiver has no --rx mode, and there a lost request or answer is counted
// by the initiator (rr_timeouts), not a mismatch.
bool stream_sides(const UdpInfo& tx, const UdpInfo& rx) {
    return tx.datagram_path && rx.datagram_path && !rx.rx_mode.empty();
}
}  // namespace

std::string udp_count_problem(const UdpInfo& tx, uint64_t tx_bytes, const UdpInfo& rx, uint64_t rx_bytes) {
    if (!stream_sides(tx, rx)) return "";
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

std::vector<std::string> udp_side_notes(const UdpInfo& tx, const UdpInfo& rx) {
    std::vector<std::string> out;
    if (!stream_sides(tx, rx)) return out;
    const UdpCounts& r = rx.counts;
    if (!r.end_marker && tx.counts.datagrams) {
        out.push_back(
            "udp: the sender's end marker never reached the receiver: datagrams lost after the last one "
            "received are not counted as lost");
    }
    if (r.kernel_drops != r.lost || (r.snmp_valid && r.snmp_rcvbuf_errors + r.snmp_in_errors > 0 && r.lost == 0)) {
        out.push_back(fmt::format(
            "udp: the receiver counted {} datagrams lost; the kernel says the sockets dropped {} (sk_drops), and the "
            "host's Udp RcvbufErrors rose by {}, InErrors by {} over the test{}",
            r.lost, r.kernel_drops, r.snmp_rcvbuf_errors, r.snmp_in_errors,
            r.kernel_drops > r.lost   ? ": the socket's count includes the end marker's repeats it dropped "
                                        "while full, and other UDP sockets' drops count in the host's"
            : r.kernel_drops < r.lost ? ": the rest were lost before the socket (qdisc, NIC, the network)"
                                      : ": other UDP sockets on the host dropped datagrams"));
    }
    return out;
}

namespace {

constexpr const char* kLossPct = "loss_pct";  // the wire's derived field and the CSV's column

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

const auto kUdpInfoFields =
    std::make_tuple(number("datagram_path", &UdpInfo::datagram_path), flat(&UdpInfo::counts, kUdpCountFields),
                    derived<UdpInfo>(kLossPct, [](const UdpInfo& u) { return u.loss_pct(); }),  // for readers
                    str("gso_where", &UdpInfo::gso_where), str("rx_mode", &UdpInfo::rx_mode));

// The side's line: what each side counted (datagrams, calls, GSO/GRO), the receiver's loss beside the
// kernel's drops.
std::string counts_text(const UdpInfo& u, const SideResult& s) {
    const UdpCounts& c = u.counts;
    auto per_call = [&](uint64_t n) { return s.ops ? static_cast<double>(n) / static_cast<double>(s.ops) : 0.0; };
    if (u.datagram_path && !u.rx_mode.empty()) {
        const uint64_t sent = u.sent_datagrams();
        std::string out = fmt::format(
            "received {} of {} datagrams, lost {} ({:.3f}%), reordered {}, duplicates {}, jitter {:.3f} ms; "
            "--rx {}",
            c.datagrams, sent, c.lost, u.loss_pct(), c.reordered, c.duplicates, c.jitter_s * 1e3, u.rx_mode);
        if (c.gro_buffers)
            out += fmt::format(", GRO: {} coalesced buffers, {:.2f} datagrams per receive", c.gro_buffers,
                               per_call(c.datagrams));
        out += fmt::format("; kernel: the sockets dropped {}", c.kernel_drops);
        if (c.snmp_valid)
            out += fmt::format(", Udp RcvbufErrors +{} InErrors +{} (host)", c.snmp_rcvbuf_errors, c.snmp_in_errors);
        if (!c.end_marker) out += "; the end marker never came";
        return out;
    }
    if (u.datagram_path && c.datagrams == 0 && s.role == Role::send)  // rr's initiator
        return fmt::format("{} requests unanswered within {} ms (counted lost, not waited for)", c.rr_timeouts,
                           kUdpRrWaitMs);
    if (!u.datagram_path || c.datagrams == 0) return "";
    std::string out =
        fmt::format("sent {} datagrams in {} calls ({:.1f} per call)", c.datagrams, s.ops, per_call(c.datagrams));
    if (c.gso_size)
        out += fmt::format(", GSO segments of {} B, cut in {}", c.gso_size,
                           u.gso_where == "device"     ? "the device"
                           : u.gso_where == "software" ? "software (the device lacks tx-udp-segmentation)"
                           : u.gso_where == "none"     ? "no device (lo hands the whole buffer up)"
                                                       : "an unknown place");
    return out;
}

std::vector<std::string> human_lines(const UdpInfo& u, const SideResult& s) {
    std::string out = counts_text(u, s);
    if (out.empty()) return {};
    return {"udp: " + out};
}

// UDP paths' columns ("<side>_udp_<name>"): datagrams sent or received, the receiver's loss, the kernel's drops.
std::vector<std::string> csv_columns() {
    using C = UdpCounts;
    const auto& t = kUdpCountFields;  // each column named as its wire field
    return {name_of(t, &C::datagrams),    name_of(t, &C::lost),       kLossPct,
            name_of(t, &C::reordered),    name_of(t, &C::duplicates), name_of(t, &C::jitter_s),
            name_of(t, &C::kernel_drops), name_of(t, &C::gso_size),   name_of(t, &C::gro_buffers),
            name_of(t, &C::rr_timeouts)};
}

std::vector<std::string> csv_cells(const UdpInfo& u) {
    if (!u.datagram_path) return std::vector<std::string>(csv_columns().size());
    const UdpCounts& c = u.counts;
    auto n = [](uint64_t v) { return std::to_string(v); };
    return {n(c.datagrams),    n(c.lost),       fmt::format("{:.4f}", u.loss_pct()),
            n(c.reordered),    n(c.duplicates), fmt::format("{:.6f}", c.jitter_s * 1e3),
            n(c.kernel_drops), n(c.gso_size),   n(c.gro_buffers),
            n(c.rr_timeouts)};
}

// A message test's words on how its messages went: one datagram each, counted by their sequence numbers.
std::string messages_measured(const UdpInfo&, const SideResult&, Workload test, uint32_t batch) {
    if (test == Workload::rr)
        return fmt::format(
            "one UDP datagram each way per transaction; a request unanswered within {} ms is counted lost and the "
            "next one sent",
            kUdpRrWaitMs);
    return fmt::format(
        "one UDP datagram per message, {} per {} call; the receiver counts the datagrams that arrived by their "
        "sequence numbers (lost ones are not counted)",
        batch, batch == 1 ? "send()" : "sendmmsg()");
}

UdpInfo block_from_json(const nlohmann::json& j) { return udp_info_from_json(j); }

constexpr KindBlockOf<UdpInfo> kUdp = {.key = "udp",
                                       .to_json = to_json,
                                       .from_json = block_from_json,
                                       .human_lines = human_lines,
                                       .csv_columns = csv_columns,
                                       .csv_cells = csv_cells,
                                       .check_sides = udp_side_notes,
                                       .count_problem = udp_count_problem,
                                       .messages_measured = messages_measured};
const KindBlockType kBlock = kind_block_type<kUdp>();

}  // namespace

nlohmann::json to_json(const UdpInfo& u) { return encoded(u, kUdpInfoFields); }

UdpInfo udp_info_from_json(const nlohmann::json& j) {
    UdpInfo u = decoded<UdpInfo>(j, kUdpInfoFields);
    u.used = true;
    return u;
}

}  // namespace zc

namespace zc {

const KindBlockType& udp_block_type() { return kBlock; }

UdpInfo udp_block_of(const SideResult& side) {
    auto it = side.kinds.find(kBlock.key);
    return it == side.kinds.end() ? UdpInfo{} : udp_info_from_json(it->second);
}

}  // namespace zc
