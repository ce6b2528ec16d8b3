#include "tls/tls_report.hpp"

#include <fmt/format.h>

#include <tuple>

#include "protocol/field_table.hpp"

namespace zc {

namespace {

constexpr const char* kKey = "tls";
constexpr const char* kTlsStat = "tls_stat";
constexpr size_t kMaxCounters = 64;
constexpr size_t kMaxCounterName = 64;

const auto kFields = std::make_tuple(text("crypto", &TlsSideReport::crypto, 16, "16 bytes"),
                                     text("version", &TlsSideReport::version, 16, "16 bytes"),
                                     text("cipher", &TlsSideReport::cipher, 64, "64 bytes"),
                                     number("record_payload", &TlsSideReport::record_payload, 0u, 1u << 20, 0u),
                                     number("openssl_ktls_send", &TlsSideReport::openssl_ktls_send, false, true, false),
                                     number("openssl_ktls_recv", &TlsSideReport::openssl_ktls_recv, false, true, false),
                                     text("kernel_tx", &TlsSideReport::kernel_tx, 64, "64 bytes"),
                                     text("kernel_rx", &TlsSideReport::kernel_rx, 64, "64 bytes"),
                                     text("rx_expect_no_pad", &TlsSideReport::rx_expect_no_pad, 100, "100 bytes"),
                                     text("offload", &TlsSideReport::offload, 300, "300 bytes"),
                                     number("sessions", &TlsSideReport::sessions, 0u, 1u << 20, 0u),
                                     number("tls_stat_present", &TlsSideReport::tls_stat_present, false, true, false),
                                     text("note", &TlsSideReport::note, 500, "500 bytes"));

std::string direction(const std::string& kernel, bool openssl) {
    return (kernel.empty() ? std::string("not in the kernel") : "kernel (" + kernel + ")") +
           (openssl ? ", OpenSSL: handed over" : ", OpenSSL: not handed over");
}

int64_t counter(const TlsSideReport& r, const char* name) {
    auto it = r.tls_stat.find(name);
    return it == r.tls_stat.end() ? 0 : it->second;
}

std::vector<std::string> human_lines(const TlsSideReport& r, const SideResult&) {
    const bool in_kernel = r.crypto == TlsSideReport::kKernelCrypto;
    std::vector<std::string> out;
    out.push_back(fmt::format("tls: {} {}, records of up to {} B, crypto in {}", r.version, r.cipher, r.record_payload,
                              in_kernel ? "the kernel (kTLS)" : "user space (OpenSSL)"));
    if (in_kernel) {
        out.push_back("  kTLS send: " + direction(r.kernel_tx, r.openssl_ktls_send));
        out.push_back("  kTLS receive: " + direction(r.kernel_rx, r.openssl_ktls_recv) +
                      (r.rx_expect_no_pad.empty() ? "" : "; TLS_RX_EXPECT_NO_PAD " + r.rx_expect_no_pad));
    }
    if (!r.offload.empty()) {
        const bool device = counter(r, "TlsTxDevice") > 0 || counter(r, "TlsRxDevice") > 0;
        out.push_back("  --tls-offload: " + r.offload + "; the kernel " +
                      (device ? "put the keys on the NIC (TLS_DEVICE)"
                              : "kept the keys in software (TlsTxDevice and TlsRxDevice did not grow)"));
    }
    if (!r.tls_stat_present) {
        out.push_back("  /proc/net/tls_stat: not present (no tls module loaded)");
    } else {
        std::string moved;
        for (const auto& [name, d] : r.tls_stat)
            if (d != 0) moved += fmt::format("{}{} {:+}", moved.empty() ? "" : ", ", name, d);
        out.push_back("  /proc/net/tls_stat over the run (the host's): " + (moved.empty() ? "no change" : moved));
    }
    if (!r.note.empty()) out.push_back("  " + r.note);
    return out;
}

// The first five columns are the fields of those names (kernel_tx, kernel_rx: 1 when the kernel holds the keys).
std::vector<std::string> csv_columns() {
    using R = TlsSideReport;
    return {name_of(kFields, &R::crypto),    name_of(kFields, &R::version),   name_of(kFields, &R::cipher),
            name_of(kFields, &R::kernel_tx), name_of(kFields, &R::kernel_rx), "decrypt_errors",
            "rx_no_pad_violations"};
}

std::vector<std::string> csv_cells(const TlsSideReport& r) {
    return {r.crypto,
            r.version,
            r.cipher,
            r.kernel_tx.empty() ? "0" : "1",
            r.kernel_rx.empty() ? "0" : "1",
            std::to_string(counter(r, "TlsDecryptError")),
            std::to_string(counter(r, "TlsRxNoPadViolation"))};
}

// Both sides ran the handshake's one agreement; the kernel's decryption errors are the test's to see.
std::vector<std::string> check_sides(const TlsSideReport& tx, const TlsSideReport& rx) {
    std::vector<std::string> notes;
    if (tx.cipher != rx.cipher || tx.version != rx.version)
        notes.push_back("tls: the sides report different sessions: " + tx.version + " " + tx.cipher + " and " +
                        rx.version + " " + rx.cipher);
    if (int64_t bad = counter(rx, "TlsDecryptError"); bad > 0)
        notes.push_back(
            fmt::format("tls: the kernel counted {} record(s) that failed to decrypt (TlsDecryptError)", bad));
    return notes;
}

// Its key, its struct's two codecs and its hooks, in KindBlockOf's order.
constexpr KindBlockOf<TlsSideReport> kTls = {kKey,        to_json,   tls_side_from_json, human_lines,
                                             csv_columns, csv_cells, check_sides};
const KindBlockType kBlock = kind_block_type<kTls>();

}  // namespace

nlohmann::json to_json(const TlsSideReport& r) {
    nlohmann::json j = nlohmann::json::object();
    encode_fields(j, r, kFields);
    j[kTlsStat] = nlohmann::json::object();
    for (const auto& [name, d] : r.tls_stat) j[kTlsStat][name] = d;
    return j;
}

TlsSideReport tls_side_from_json(const nlohmann::json& j) {
    try {
        TlsSideReport r;
        if (!j.is_object()) throw ProtocolError("field 'tls' must be an object");
        decode_fields(j, r, kFields);
        if (!j.contains(kTlsStat)) return r;
        const auto& stat = j.at(kTlsStat);
        if (!stat.is_object() || stat.size() > kMaxCounters)
            throw ProtocolError("field 'tls_stat' must be an object of at most 64 counters");
        for (const auto& [name, v] : stat.items()) {
            if (name.size() > kMaxCounterName || !v.is_number_integer())
                throw ProtocolError("field 'tls_stat' holds a counter that is not a named integer: " +
                                    name.substr(0, kMaxCounterName));
            r.tls_stat[name] = v.get<int64_t>();
        }
        return r;
    } catch (const nlohmann::json::exception& e) {
        throw ProtocolError(std::string("malformed tls block: ") + e.what());
    }
}

const KindBlockType& tls_block_type() { return kBlock; }

}  // namespace zc
