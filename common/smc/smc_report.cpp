#include "smc/smc_report.hpp"

#include <fmt/format.h>

#include <map>
#include <tuple>

#include "protocol/field_table.hpp"
#include "protocol/run_spec.hpp"
#include "smc/smc_codes.hpp"

namespace zc {

namespace {

constexpr const char* kKey = "smc";
// Keys named twice here (a table's and a CSV column's): once each.
constexpr const char* kConnections = "connections";
constexpr const char* kReason = "reason";
constexpr const char* kPeerDiagnosis = "peer_diagnosis";
constexpr const char* kIbDevice = "ib_device";
constexpr const char* kRmbSize = "rmb_size";
constexpr const char* kPeerRmbSize = "peer_rmb_size";
constexpr const char* kClientFallbacks = "client_fallbacks";
constexpr const char* kServerFallbacks = "server_fallbacks";
constexpr const char* kNote = "note";
constexpr uint64_t kMaxCount = ~0ull;
constexpr size_t kMaxReasons = 64;  // the kernel keeps at most 30 a side
constexpr size_t kGidBytes = 40;    // smc_diag_linkinfo's gid[40]

const auto kConnectionFields = std::make_tuple(
    number("mode", &SmcConnection::mode, uint8_t{0}, uint8_t{255}),
    text("local", &SmcConnection::local, 64, "an address"), text("remote", &SmcConnection::remote, 64, "an address"),
    number("local_port", &SmcConnection::local_port), number("remote_port", &SmcConnection::remote_port),
    number("has_fallback", &SmcConnection::has_fallback, false, true, false),
    number(kReason, &SmcConnection::reason, 0u, ~0u, 0u),
    number(kPeerDiagnosis, &SmcConnection::peer_diagnosis, 0u, ~0u, 0u),
    number("has_conninfo", &SmcConnection::has_conninfo, false, true, false),
    number("sndbuf_size", &SmcConnection::sndbuf_size, 0u, ~0u, 0u),
    number(kRmbSize, &SmcConnection::rmb_size, 0u, ~0u, 0u),
    number(kPeerRmbSize, &SmcConnection::peer_rmb_size, 0u, ~0u, 0u),
    number("has_link", &SmcConnection::has_link, false, true, false),
    text(kIbDevice, &SmcConnection::ib_device, 64, "64 bytes"),
    number("ib_port", &SmcConnection::ib_port, 0u, 255u, 0u), text("gid", &SmcConnection::gid, kGidBytes, "40 bytes"),
    text("peer_gid", &SmcConnection::peer_gid, kGidBytes, "40 bytes"),
    number("link_id", &SmcConnection::link_id, 0u, 255u, 0u), number("role", &SmcConnection::role, 0u, 255u, 0u),
    number("has_dmb", &SmcConnection::has_dmb, false, true, false),
    number("dmb_gid", &SmcConnection::dmb_gid, 0, kMaxCount, 0),
    number("dmb_peer_gid", &SmcConnection::dmb_peer_gid, 0, kMaxCount, 0));

const auto kTechFields = std::make_tuple(number("client_v1_ok", &SmcTechStats::client_v1_ok, 0, kMaxCount, 0),
                                         number("client_v2_ok", &SmcTechStats::client_v2_ok, 0, kMaxCount, 0),
                                         number("server_v1_ok", &SmcTechStats::server_v1_ok, 0, kMaxCount, 0),
                                         number("server_v2_ok", &SmcTechStats::server_v2_ok, 0, kMaxCount, 0),
                                         number("rx_bytes", &SmcTechStats::rx_bytes, 0, kMaxCount, 0),
                                         number("tx_bytes", &SmcTechStats::tx_bytes, 0, kMaxCount, 0),
                                         number("rx_calls", &SmcTechStats::rx_calls, 0, kMaxCount, 0),
                                         number("tx_calls", &SmcTechStats::tx_calls, 0, kMaxCount, 0));

const auto kReasonFields = std::make_tuple(number("code", &SmcFallbackCount::code, 0u, ~0u),
                                           number("server", &SmcFallbackCount::server, false, true),
                                           number("count", &SmcFallbackCount::count, 0, kMaxCount));

const auto kStatsFields = std::make_tuple(
    number("present", &SmcStats::present, false, true, false), text("absent", &SmcStats::absent, 300, "300 bytes"),
    object("smcr", &SmcStats::smcr, kTechFields), object("smcd", &SmcStats::smcd, kTechFields),
    number("client_handshake_errors", &SmcStats::client_handshake_errors, 0, kMaxCount, 0),
    number("server_handshake_errors", &SmcStats::server_handshake_errors, 0, kMaxCount, 0),
    number("fallback_totals", &SmcStats::fallback_totals, false, true, false),
    number(kClientFallbacks, &SmcStats::client_fallbacks, 0, kMaxCount, 0),
    number(kServerFallbacks, &SmcStats::server_fallbacks, 0, kMaxCount, 0),
    list("reasons", &SmcStats::reasons, kMaxReasons, kReasonFields), text(kNote, &SmcStats::note, 300, "300 bytes"));

const auto kSideFields = std::make_tuple(
    list(kConnections, &SmcSideReport::connections, kMaxStreams, kConnectionFields),
    object("stats", &SmcSideReport::stats, kStatsFields), text(kNote, &SmcSideReport::note, 500, "500 bytes"));

size_t fallbacks(const SmcSideReport& r) {
    size_t n = 0;
    for (const auto& c : r.connections) n += c.fell_back() ? 1 : 0;
    return n;
}

const SmcConnection* first_fallback(const SmcSideReport& r) {
    for (const auto& c : r.connections)
        if (c.fell_back()) return &c;
    return nullptr;
}

// The codes' names: "0x05000000 peer declined, the peer's diagnosis 0x03030000 no SMC device".
std::string codes(const SmcConnection& c) {
    std::string out = smc_code_label(c.reason);
    if (c.peer_diagnosis) out += ", the peer's diagnosis " + smc_code_label(c.peer_diagnosis);
    return out;
}

// What to do: the sentence of the code that says most (the peer's diagnosis where the peer declined).
std::string what_to_do(const SmcConnection& c) {
    const uint32_t telling = c.peer_diagnosis ? c.peer_diagnosis : c.reason;
    const SmcCode* code = smc_code(telling);
    return code ? std::string(code->meaning) : "";
}

std::string size_text(uint32_t bytes) {
    return bytes % 1024 == 0 ? fmt::format("{} KiB", bytes / 1024) : fmt::format("{} B", bytes);
}

// One line per kind of connection: its mode, and for a fallback its reason; for SMC-R its link.
std::string connection_line(const SmcConnection& c, size_t count) {
    std::string head = fmt::format("smc: {} connection{} {}", count, count == 1 ? "" : "s", smc_mode_name(c.mode));
    if (c.fell_back()) {
        std::string todo = what_to_do(c);
        return head + ": " + codes(c) + (todo.empty() ? "" : ": " + todo);
    }
    std::string out = head;
    if (c.has_link)
        out += fmt::format(" over {} port {} (GID {} -> peer GID {})", c.ib_device, c.ib_port, c.gid, c.peer_gid);
    if (c.has_dmb) out += fmt::format(" (ISM GID {:#x} -> peer {:#x})", c.dmb_gid, c.dmb_peer_gid);
    if (c.has_conninfo)
        out += fmt::format(", RMB {}, the peer's {}, send buffer {}", size_text(c.rmb_size), size_text(c.peer_rmb_size),
                           size_text(c.sndbuf_size));
    return out;
}

std::string stats_line(const SmcStats& s) {
    if (!s.present) return "smc host counters: absent: " + s.absent;
    std::string out = fmt::format(
        "smc host counters over the test: SMC-R {} handshakes, {} B sent and {} B received through RMBs; SMC-D {} "
        "handshakes, {} B sent, {} B received; handshake errors {} client, {} server",
        s.smcr.handshakes(), s.smcr.tx_bytes, s.smcr.rx_bytes, s.smcd.handshakes(), s.smcd.tx_bytes, s.smcd.rx_bytes,
        s.client_handshake_errors, s.server_handshake_errors);
    if (s.fallback_totals)
        out += fmt::format("; fallbacks {} client, {} server", s.client_fallbacks, s.server_fallbacks);
    for (const auto& r : s.reasons)
        out += fmt::format("; {} x{} ({})", smc_code_label(r.code), r.count, r.server ? "server side" : "client side");
    if (!s.note.empty()) out += " (" + s.note + ")";
    return out;
}

std::vector<std::string> human_lines(const SmcSideReport& r, const SideResult&) {
    std::vector<std::string> out;
    if (std::string first = smc_fallback_sentence(r); !first.empty()) out.push_back(first);
    // Connections grouped by what the kernel said: mode, reason and diagnosis (and link).
    std::map<std::tuple<uint8_t, uint32_t, uint32_t, std::string>, std::pair<const SmcConnection*, size_t>> groups;
    for (const auto& c : r.connections) {
        auto& g = groups[{c.mode, c.reason, c.peer_diagnosis, c.ib_device}];
        if (!g.first) g.first = &c;
        ++g.second;
    }
    for (const auto& [k, g] : groups) out.push_back(connection_line(*g.first, g.second));
    out.push_back(stats_line(r.stats));
    if (!r.note.empty()) out.push_back("smc: " + r.note);
    return out;
}

std::vector<std::string> csv_columns() {
    return {kConnections,    "smcr_connections", "smcd_connections", "fallbacks",     kReason,         kPeerDiagnosis,
            kIbDevice,       kRmbSize,           kPeerRmbSize,       "counters",      "smcr_tx_bytes", "smcr_rx_bytes",
            "smcd_tx_bytes", "smcd_rx_bytes",    kClientFallbacks,   kServerFallbacks};
}

std::vector<std::string> csv_cells(const SmcSideReport& r) {
    size_t smcr = 0, smcd = 0;
    for (const auto& c : r.connections) {
        smcr += c.mode == static_cast<uint8_t>(SmcMode::smcr) ? 1 : 0;
        smcd += c.mode == static_cast<uint8_t>(SmcMode::smcd) ? 1 : 0;
    }
    const SmcConnection* f = first_fallback(r);
    const SmcConnection* any = r.connections.empty() ? nullptr : &r.connections.front();
    auto n = [](uint64_t v) { return std::to_string(v); };
    auto hex = [](uint32_t v) { return fmt::format("{:#010x}", v); };
    const auto& s = r.stats;
    auto counted = [&](uint64_t v) { return s.present ? n(v) : std::string(); };  // absent: empty, not 0
    auto fallback_counted = [&](uint64_t v) { return s.present && s.fallback_totals ? n(v) : std::string(); };
    return {n(r.connections.size()),
            n(smcr),
            n(smcd),
            n(fallbacks(r)),
            f ? hex(f->reason) : "",
            f ? hex(f->peer_diagnosis) : "",
            any ? any->ib_device : "",
            any && any->has_conninfo ? n(any->rmb_size) : "",
            any && any->has_conninfo ? n(any->peer_rmb_size) : "",
            s.present ? "1" : "0",
            counted(s.smcr.tx_bytes),
            counted(s.smcr.rx_bytes),
            counted(s.smcd.tx_bytes),
            counted(s.smcd.rx_bytes),
            fallback_counted(s.client_fallbacks),
            fallback_counted(s.server_fallbacks)};
}

// Its key, its struct's two codecs and its hooks, in KindBlockOf's order.
// The test's first line: "smc [TCP fallback]" where any connection fell back (its figures are TCP's).
std::string label_note(const SmcSideReport& r) { return fallbacks(r) ? "TCP fallback" : ""; }

constexpr KindBlockOf<SmcSideReport> kSmc = {.key = kKey,
                                             .to_json = to_json,
                                             .from_json = smc_side_from_json,
                                             .human_lines = human_lines,
                                             .csv_columns = csv_columns,
                                             .csv_cells = csv_cells,
                                             .label_note = label_note};
const KindBlockType kBlock = kind_block_type<kSmc>();

}  // namespace

std::string smc_fallback_sentence(const SmcSideReport& r) {
    const SmcConnection* f = first_fallback(r);
    if (!f) return "";
    const size_t n = fallbacks(r);
    return fmt::format("SMC FELL BACK TO TCP on {} of {} connection{}: these figures are TCP's, not SMC's ({})", n,
                       r.connections.size(), r.connections.size() == 1 ? "" : "s", codes(*f));
}

nlohmann::json to_json(const SmcSideReport& r) {
    nlohmann::json j = nlohmann::json::object();
    encode_fields(j, r, kSideFields);
    return j;
}

SmcSideReport smc_side_from_json(const nlohmann::json& j) {
    try {
        if (!j.is_object()) throw ProtocolError("field 'smc' must be an object");
        SmcSideReport r;
        decode_fields(j, r, kSideFields);
        return r;
    } catch (const nlohmann::json::exception& e) {
        throw ProtocolError(std::string("malformed smc block: ") + e.what());
    }
}

const KindBlockType& smc_block_type() { return kBlock; }

}  // namespace zc
