#include "tls/tls_options.hpp"

#include <algorithm>
#include <stdexcept>
#include <string_view>

#include "core/kind_description.hpp"
#include "options/kind_options.hpp"
#include "tls/tls_offload.hpp"
#include "tls/tls_session.hpp"

namespace zc {

namespace {

// What the client offers in the handshake (the server takes any of them: tls_session.hpp).
OptionRows tls_rows(const KindOptionTargets& to) {
    KindOptionValues& values = to.values;
    return {
        text("--tls-version",
             "-T tls, ktls, ktls-sendfile: the TLS version the client offers (the server takes 1.2 or 1.3); the "
             "report gives what ran",
             [&values](const std::string& t) { values[kTlsVersionKey] = (parse_tls_version(t), t); })
            .choose({"1.2", "1.3"})
            .shows("1.3"),
        text("--tls-cipher",
             "-T tls, ktls, ktls-sendfile: the AEAD cipher the client offers: aes-128-gcm, aes-256-gcm or "
             "chacha20-poly1305 (TLS 1.2: with ECDHE-ECDSA)",
             [&values](const std::string& t) { values[kTlsCipherKey] = checked_tls_cipher(t); })
            .choose({"aes-128-gcm", "aes-256-gcm", "chacha20-poly1305"})
            .shows("aes-128-gcm"),
        action("--tls-offload",
               "-T ktls, ktls-sendfile: require the NIC's TLS offload (TLS_DEVICE): the data interface must offer "
               "tls-hw-tx-offload to send, tls-hw-rx-offload to receive (as ethtool -k says), else zcperf "
               "refuses to start, in ethtool's words; with ktls-sendfile also TLS_TX_ZEROCOPY_RO. The report says "
               "whether the kernel put the keys on the NIC (TlsTxDevice, TlsRxDevice)",
               [&values] { values[kTlsOffloadKey] = "on"; }),
    };
}

bool tls_kind(const TransportInfo& row) { return row_of_kind(row, "tls"); }

// --tls-offload is the kernel's TLS (ktls, ktls-sendfile), and refused before any test where the route to a
// server leaves by an interface that cannot encrypt (the client sends) or decrypt (it receives) TLS records;
// the data sockets are checked again at connect.
void check_tls_options(const KindOptionRun& run) {
    if (!run.values.contains(kTlsOffloadKey)) return;
    auto ktls = [](const TransportInfo& row) { return tls_kind(row) && row.table == kKernelTls; };
    if (std::none_of(run.transports.begin(), run.transports.end(),
                     [&](Transport t) { return ktls(transport_info(t)); }))
        throw std::invalid_argument("--tls-offload is for -T " + transport_names_where(ktls) +
                                    " (the kernel's TLS): none of the transports given runs it");
    for (const auto& h : run.hosts)
        if (std::string why = tls_offload_refusal_towards(h, run.family, run.sends, run.receives); !why.empty())
            throw std::invalid_argument(why);
}

const KindOptionGroup kTlsOptionGroup{
    .title = "TLS OPTIONS", .rows = tls_rows, .takes = tls_kind, .check = check_tls_options};

}  // namespace

const KindOptionGroup& tls_option_group() { return kTlsOptionGroup; }

}  // namespace zc
