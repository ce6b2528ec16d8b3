#pragma once
// --tls-offload (ktls, ktls-sendfile): TLS records encrypted and decrypted by the NIC (TLS_DEVICE). The
// kernel tries the NIC by itself whenever OpenSSL sets TLS_TX or TLS_RX and keeps the keys in software
// where the NIC cannot, so the option does not ask the kernel for anything it would not do: it requires
// the offload (the interface's tls-hw-tx-offload / tls-hw-rx-offload, as ethtool -k reads them, checked
// before the handshake, refused with ethtool's words where off), asks for TLS_TX_ZEROCOPY_RO with
// sendfile (the NIC reads the file's pages as they are: no copy of them into the record), and reports
// what the kernel did (TlsTxDevice / TlsRxDevice, the setsockopt's answer).
#include <string>

#include "system/netdev_features.hpp"

namespace zc {

inline constexpr const char* kTlsOffloadKey = "tls-offload";
inline constexpr const char* kTlsTxOffload = "tls-hw-tx-offload";
inline constexpr const char* kTlsRxOffload = "tls-hw-rx-offload";

// "" when `interface`'s features offer what the side needs (`tx`: it sends, `rx`: it receives); else the
// refusal, e.g. "lo: tls-hw-tx-offload off [fixed]: this NIC cannot encrypt TLS records; run without
// --tls-offload".
std::string tls_offload_refusal(const std::string& interface, const NetdevFeatures& features, bool tx, bool rx);

// The same for a connected socket: its interface read (getsockname, getifaddrs), its features read
// (SIOCETHTOOL); a socket whose interface or features cannot be read is refused saying so.
std::string tls_offload_refusal(int fd, bool tx, bool rx);

// The same before any connection: the interface the kernel routes `host` (an address or a name; `family`
// AF_INET, AF_INET6 or 0) through, found by connecting a UDP socket to it (which sends nothing).
std::string tls_offload_refusal_towards(const std::string& host, int family, bool tx, bool rx);

// TLS_TX_ZEROCOPY_RO (Linux 5.19+) on a socket whose TLS_TX is set: "on", or why not.
std::string set_tx_zerocopy_ro(int fd);

}  // namespace zc
