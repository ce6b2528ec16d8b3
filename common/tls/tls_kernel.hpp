#pragma once
// The kernel's word on kTLS: whether the TLS ULP exists (tcp_available_ulp), what a socket's TLS_TX and
// TLS_RX hold (getsockopt SOL_TLS), TLS_RX_EXPECT_NO_PAD, and
// /proc/net/tls_stat's counters (namespace-wide: on loopback both sides' sessions are in them).
#include <cstdint>
#include <map>
#include <string>

namespace zc {

// "" when the kernel offers the TLS ULP; else why not, naming `modprobe tls` and the ULPs it has.
// `ulp_list`: /proc/sys/net/ipv4/tcp_available_ulp's text (read from there when not given).
std::string ktls_unavailable(const std::string& ulp_list);
std::string ktls_unavailable();

// One direction of a socket's kTLS as getsockopt(SOL_TLS) returns it: in force or not, its version
// ("1.2", "1.3") and cipher ("aes-128-gcm", ...).
struct KtlsDirection {
    bool in_force = false;
    std::string version, cipher;
};
KtlsDirection read_ktls(int fd, bool tx);

// Why the kernel may have refused OpenSSL's keys (setsockopt SOL_TLS) for `openssl_cipher` (an OpenSSL
// cipher name): "" when /proc/crypto (`proc_crypto`, read when not given) lists the AEAD the kernel's
// kTLS allocates for it (gcm(aes), rfc7539(chacha20,poly1305)); else that it lacks it, with what to load.
// The kernel loads the AEAD itself on the first setsockopt; missing afterwards, its module loading failed.
std::string ktls_aead_missing(const std::string& openssl_cipher, const std::string& proc_crypto);
std::string ktls_aead_missing(const std::string& openssl_cipher);

// TLS_RX_EXPECT_NO_PAD (Linux 6.0+, TLS 1.3 receive): asks the kernel to decrypt straight into the
// user's buffer. "on" when read back on, else why not ("not in this kernel", "TLS 1.2", errno's text).
std::string set_expect_no_pad(int fd);

// /proc/net/tls_stat: "TlsCurrTxSw    1" lines, name to value. Lines that are not "name number" are skipped.
using TlsStat = std::map<std::string, uint64_t>;
TlsStat parse_tls_stat(const std::string& text);
TlsStat read_tls_stat();  // empty when the file is not there (no tls module loaded)
// Each counter's growth from `before` to `after` (the Curr* gauges as their change, which may be < 0).
std::map<std::string, int64_t> tls_stat_delta(const TlsStat& before, const TlsStat& after);

}  // namespace zc
