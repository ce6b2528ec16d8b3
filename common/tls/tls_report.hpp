#pragma once
// The tls and ktls kinds' report block (protocol/kind_block.hpp), one per side: what the handshake
// agreed (version, cipher, record size), per direction whether the kernel holds the keys (OpenSSL's
// BIO_get_ktls_send/recv beside the kernel's own getsockopt SOL_TLS), TLS_RX_EXPECT_NO_PAD, and
// /proc/net/tls_stat's counters over the side's run (from before its handshakes to its end).
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "protocol/kind_block.hpp"

namespace zc {

struct TlsSideReport {
    static constexpr const char* kKernelCrypto = "kernel";  // crypto's value under kTLS
    std::string crypto;                                     // "openssl" (user space) or kKernelCrypto
    std::string version, cipher;
    uint32_t record_payload = 0;  // bytes of plaintext per record at most
    bool openssl_ktls_send = false, openssl_ktls_recv = false;
    std::string kernel_tx, kernel_rx;         // "aes-128-gcm 1.3" when the socket holds the keys, "" when not
    std::string rx_expect_no_pad;             // "on", why not, or "" (not asked: no kTLS receive)
    std::string offload;                      // --tls-offload: the NIC's features, TLS_TX_ZEROCOPY_RO; "" not asked
    uint32_t sessions = 0;                    // the side's connections read (the first one's values above)
    bool tls_stat_present = false;            // /proc/net/tls_stat exists (the tls module is loaded)
    std::map<std::string, int64_t> tls_stat;  // each counter's change over the run
    std::string note;
};

nlohmann::json to_json(const TlsSideReport& r);
TlsSideReport tls_side_from_json(const nlohmann::json& j);  // throws ProtocolError

const KindBlockType& tls_block_type();

}  // namespace zc
