#include "mptcp/mptcp_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "protocol/field_table.hpp"
#include "protocol/run_spec.hpp"

namespace zc {

namespace {

constexpr const char* kKey = "mptcp";
constexpr const char* kConnections = "connections";
constexpr const char* kSubflows = "subflows";
constexpr const char* kNote = "note";
constexpr const char* kBytesAcked = "bytes_acked";  // a subflow's and the connection's
constexpr const char* kBytesReceived = "bytes_received";
constexpr uint64_t kMaxBytes = ~0ull;
constexpr size_t kMaxSubflowsOnWire = 64;
// Bytes a subflow's tcpi_bytes_acked may count beyond the data it carried, besides zero-window probes the
// kernel counts: its SYN and FIN, and up to 2 more (6 over two subflows beyond reinjection in 1 of 20 loaded
// runs: probes, on kernels that do not count them).
constexpr uint64_t kExtraPerSubflow = 4;

const auto kSubflowFields = std::make_tuple(
    number("id", &MptcpSubflowReport::id, 0u, ~0u, 0u), text("local", &MptcpSubflowReport::local, 64, "an address"),
    text("remote", &MptcpSubflowReport::remote, 64, "an address"),
    number(kBytesAcked, &MptcpSubflowReport::bytes_acked, 0, kMaxBytes, 0),
    number(kBytesReceived, &MptcpSubflowReport::bytes_received, 0, kMaxBytes, 0));

const auto kConnectionFields =
    std::make_tuple(number(kKey, &MptcpConnectionReport::mptcp, false, true, false),
                    text("fallback", &MptcpConnectionReport::fallback, 300, "300 bytes"),
                    text("source", &MptcpConnectionReport::source, 100, "100 bytes"),
                    number("flags", &MptcpConnectionReport::flags, 0u, ~0u, 0u),
                    number("has_bytes", &MptcpConnectionReport::has_bytes, false, true, false),
                    number("bytes_sent", &MptcpConnectionReport::bytes_sent, 0, kMaxBytes, 0),
                    number(kBytesReceived, &MptcpConnectionReport::bytes_received, 0, kMaxBytes, 0),
                    number(kBytesAcked, &MptcpConnectionReport::bytes_acked, 0, kMaxBytes, 0),
                    number("bytes_retrans", &MptcpConnectionReport::bytes_retrans, 0, kMaxBytes, 0),
                    number("probes_counted", &MptcpConnectionReport::probes_counted, false, true, false),
                    number("window_probes", &MptcpConnectionReport::window_probes, 0, kMaxBytes, 0));

// An array of records, each through its table; at most `max` of them.
template <class T, class Table>
std::vector<T> records_from_json(const nlohmann::json& j, const char* name, size_t max, const Table& table) {
    std::vector<T> out;
    if (!j.contains(name)) return out;  // an older peer: none
    const auto& a = j.at(name);
    if (!a.is_array() || a.size() > max)
        throw ProtocolError(std::string("field '") + name + "' must be an array of at most " + std::to_string(max));
    for (const auto& e : a) decode_fields(e, out.emplace_back(), table);
    return out;
}

// Each side's bytes counted by a connection's subflows (a sender's are acked, a receiver's received;
// rr counts both ways), the share each subflow carried.
uint64_t subflow_bytes(const MptcpSubflowReport& s) { return s.bytes_acked + s.bytes_received; }

// `position` (from 1) names the subflow where the kernel gave no id (MPTCP_TCPINFO, before 6.5).
std::string subflow_line(const MptcpSubflowReport& s, size_t position, uint64_t all) {
    double share = all ? 100.0 * static_cast<double>(subflow_bytes(s)) / static_cast<double>(all) : 0;
    return fmt::format("  subflow {} {} -> {}: {} B acked, {} B received, {:.1f}% of the subflows' bytes",
                       s.id ? s.id : position, s.local, s.remote, s.bytes_acked, s.bytes_received, share);
}

std::vector<std::string> human_lines(const MptcpSideReport& r, const SideResult&) {
    std::vector<std::string> out;
    constexpr size_t kShown = 4;  // streams shown in full; the rest summed
    for (size_t i = 0; i < r.connections.size() && i < kShown; ++i) {
        const auto& c = r.connections[i];
        if (!c.mptcp) {
            out.push_back(fmt::format("mptcp stream {}: FELL BACK TO TCP, not MPTCP: {}", i, c.fallback));
            continue;
        }
        std::string head = fmt::format("mptcp stream {}: {} subflow{} ({}); ", i, c.subflows.size(),
                                       c.subflows.size() == 1 ? "" : "s", c.source);
        uint64_t all = 0;
        for (const auto& s : c.subflows) all += subflow_bytes(s);
        if (!c.has_bytes) {  // a kernel before 6.5: printing its zeros as the connection's would be a lie
            out.push_back(head + "no connection byte counters in this kernel (MPTCP_INFO has them from Linux 6.5)");
            for (size_t k = 0; k < c.subflows.size(); ++k) out.push_back(subflow_line(c.subflows[k], k + 1, all));
            out.push_back(
                fmt::format("  subflows' sum: acked {} B, received {} B (nothing of the connection's to "
                            "check it against)",
                            c.subflow_acked(), c.subflow_received()));
            continue;
        }
        out.push_back(head + fmt::format("connection sent {} B, acked {} B, received {} B, reinjected {} B",
                                         c.bytes_sent, c.bytes_acked, c.bytes_received, c.bytes_retrans));
        for (size_t k = 0; k < c.subflows.size(); ++k) out.push_back(subflow_line(c.subflows[k], k + 1, all));
        if (std::string problem = subflow_sum_problem(c); !problem.empty()) {
            out.push_back("  SUBFLOWS DO NOT ADD UP: " + problem);
            continue;
        }
        uint64_t twice = c.subflow_received() > c.bytes_received ? c.subflow_received() - c.bytes_received : 0;
        std::string probes = c.probes_counted && c.window_probes
                                 ? fmt::format(" + the host's {} zero-window probes", c.window_probes)
                                 : "";
        out.push_back(fmt::format(
            "  subflows sum to the connection: acked {} (connection {} + reinjected {}{}), "
            "received {} (connection {} + {} the peer sent twice)",
            c.subflow_acked(), c.bytes_acked, c.bytes_retrans, probes, c.subflow_received(), c.bytes_received, twice));
    }
    if (r.connections.size() > kShown)
        out.push_back(
            fmt::format("mptcp: {} more streams (the JSON report lists them)", r.connections.size() - kShown));
    if (!r.note.empty()) out.push_back("mptcp: " + r.note);
    return out;
}

std::vector<std::string> csv_columns() {
    // The connections' and the subflows' sums (one side's streams together), and whether each added up.
    return {kConnections, "fallbacks",    "subflow_count",     "subflows_bytes_acked", "subflows_bytes_received",
            kBytesAcked,  kBytesReceived, "bytes_retrans_sum", "subflows_add_up"};
}

std::vector<std::string> csv_cells(const MptcpSideReport& r) {
    uint64_t fallbacks = 0, subflows = 0, sa = 0, sr = 0, a = 0, rc = 0, rt = 0;
    bool add_up = true;
    for (const auto& c : r.connections) {
        fallbacks += c.mptcp ? 0 : 1;
        subflows += c.subflows.size();
        sa += c.subflow_acked();
        sr += c.subflow_received();
        a += c.bytes_acked;
        rc += c.bytes_received;
        rt += c.bytes_retrans;
        add_up = add_up && subflow_sum_problem(c).empty();
    }
    auto n = [](uint64_t v) { return std::to_string(v); };
    return {n(r.connections.size()), n(fallbacks), n(subflows), n(sa), n(sr), n(a), n(rc), n(rt), add_up ? "1" : "0"};
}

// The receiver's subflows may count bytes twice that the sender reinjected: never more than those.
std::vector<std::string> check_sides(const MptcpSideReport& tx, const MptcpSideReport& rx) {
    std::vector<std::string> notes;
    for (const auto* side : {&tx, &rx})
        for (const auto& c : side->connections)
            if (!c.mptcp) {
                notes.push_back("mptcp: " + std::string(side == &tx ? "the sender's" : "the receiver's") +
                                " connection is plain TCP, not MPTCP: " + c.fallback);
                return notes;
            }
    for (size_t i = 0; i < tx.connections.size() && i < rx.connections.size(); ++i) {
        const auto &t = tx.connections[i], &r = rx.connections[i];
        if (!t.has_bytes || !r.has_bytes) continue;
        uint64_t slack = 2 * r.subflows.size();
        uint64_t twice = r.subflow_received() > r.bytes_received ? r.subflow_received() - r.bytes_received : 0;
        if (twice > t.bytes_retrans + t.window_probes + slack)
            notes.push_back(fmt::format(
                "mptcp stream {}: the receiver's subflows counted {} B more than its connection, "
                "but the sender reinjected only {} B{}",
                i, twice, t.bytes_retrans,
                t.probes_counted ? fmt::format(" (and its host sent {} zero-window probes)", t.window_probes) : ""));
    }
    return notes;
}

// Its key, its struct's two codecs and its hooks, in KindBlockOf's order.
constexpr KindBlockOf<MptcpSideReport> kMptcp = {kKey,        to_json,   mptcp_side_from_json, human_lines,
                                                 csv_columns, csv_cells, check_sides};
const KindBlockType kBlock = kind_block_type<kMptcp>();

}  // namespace

uint64_t MptcpConnectionReport::subflow_acked() const {
    uint64_t n = 0;
    for (const auto& s : subflows) n += s.bytes_acked;
    return n;
}
uint64_t MptcpConnectionReport::subflow_received() const {
    uint64_t n = 0;
    for (const auto& s : subflows) n += s.bytes_received;
    return n;
}

MptcpConnectionReport connection_report(const MptcpRead& read) {
    MptcpConnectionReport c;
    c.mptcp = read.mptcp;
    c.fallback = read.fallback;
    c.source = read.source;
    c.flags = read.info.flags;
    c.has_bytes = read.info.has_bytes;
    c.bytes_sent = read.info.bytes_sent;
    c.bytes_received = read.info.bytes_received;
    c.bytes_acked = read.info.bytes_acked;
    c.bytes_retrans = read.info.bytes_retrans;
    for (const auto& s : read.subflows)
        c.subflows.push_back({s.id, s.local, s.remote, s.bytes_acked, s.bytes_received});
    return c;
}

std::string subflow_sum_problem(const MptcpConnectionReport& c) {
    if (!c.mptcp || !c.has_bytes) return "";  // nothing to add up: plain TCP, or a kernel before 6.5
    if (c.subflows.empty()) return "the kernel listed no subflow";
    const uint64_t slack = 2 * c.subflows.size(), acked = c.subflow_acked(), received = c.subflow_received();
    // Read while data is in flight, a subflow has TCP-acked bytes the connection has not yet data-acked
    // (they wait for a gap on the other subflow): the upper bound is what the connection sent (its acked
    // holds one more, the DATA_FIN, once all is acked).
    const uint64_t carried = std::max(c.bytes_sent, c.bytes_acked) + c.bytes_retrans + c.window_probes;
    if (acked + slack < c.bytes_acked || acked > carried + kExtraPerSubflow * c.subflows.size())
        return fmt::format("the subflows acked {} B, the connection {} B of {} B sent (+ {} B reinjected{})", acked,
                           c.bytes_acked, c.bytes_sent, c.bytes_retrans,
                           c.probes_counted ? fmt::format(", + {} zero-window probes", c.window_probes) : "");
    if (received + slack < c.bytes_received)
        return fmt::format("the subflows received {} B, the connection {} B", received, c.bytes_received);
    return "";
}

nlohmann::json to_json(const MptcpSideReport& r) {
    nlohmann::json j = nlohmann::json::object();
    j[kConnections] = nlohmann::json::array();
    for (const auto& c : r.connections) {
        nlohmann::json cj;
        encode_fields(cj, c, kConnectionFields);
        cj[kSubflows] = nlohmann::json::array();
        for (const auto& s : c.subflows) encode_fields(cj[kSubflows].emplace_back(), s, kSubflowFields);
        j[kConnections].push_back(std::move(cj));
    }
    if (!r.note.empty()) j[kNote] = r.note;
    return j;
}

MptcpSideReport mptcp_side_from_json(const nlohmann::json& j) {
    try {
        MptcpSideReport r;
        if (!j.is_object()) throw ProtocolError("field 'mptcp' must be an object");
        r.connections = records_from_json<MptcpConnectionReport>(j, kConnections, kMaxStreams, kConnectionFields);
        const auto& wire = j.contains(kConnections) ? j.at(kConnections) : nlohmann::json::array();
        for (size_t i = 0; i < r.connections.size(); ++i)
            r.connections[i].subflows =
                records_from_json<MptcpSubflowReport>(wire[i], kSubflows, kMaxSubflowsOnWire, kSubflowFields);
        decode_fields(j, r, std::make_tuple(text(kNote, &MptcpSideReport::note, 500, "500 bytes")));
        return r;
    } catch (const nlohmann::json::exception& e) {
        throw ProtocolError(std::string("malformed mptcp block: ") + e.what());
    }
}

const KindBlockType& mptcp_block_type() { return kBlock; }

}  // namespace zc
