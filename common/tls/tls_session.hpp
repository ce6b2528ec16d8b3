#pragma once
// The tls kind's handshake (OpenSSL): the client side offers the one version and cipher asked for
// (--tls-version, --tls-cipher), the server side takes any of the three AEAD ciphers in TLS 1.2 or 1.3,
// so the server needs no option of its own: what ran is what the client offered. The server's key and
// self-signed certificate are made in memory once per process (nothing to install); the client does not
// verify them: the data is encrypted as a TLS server would, the peer is the one the control connection
// chose. With kTLS asked for (SSL_OP_ENABLE_KTLS) OpenSSL hands the keys to the kernel after the
// handshake; what it handed over is read back, never assumed (tls_kernel.hpp).
#include <map>
#include <memory>
#include <string>

struct ssl_st;  // OpenSSL's SSL

namespace zc {

// The kind's options as the client's command line gives them (TestParams::kind_options, by these keys).
inline constexpr const char* kTlsVersionKey = "tls-version";
inline constexpr const char* kTlsCipherKey = "tls-cipher";
inline constexpr const char* kTlsCipherNames = "aes-128-gcm, aes-256-gcm, chacha20-poly1305";

struct TlsChoice {
    int version = 13;                    // 12 or 13
    std::string cipher = "aes-128-gcm";  // one of kTlsCipherNames
};

// The options' text checked: throws std::invalid_argument naming what is accepted.
int parse_tls_version(const std::string& text);
std::string checked_tls_cipher(const std::string& text);
TlsChoice tls_choice(const std::map<std::string, std::string>& kind_options);

// One connection's OpenSSL session (SSL_free when the last holder lets go).
using TlsSessionPtr = std::shared_ptr<ssl_st>;

// The handshake on a connected, blocking TCP socket whose receive timeout bounds every wait. `ktls`:
// SSL_OP_ENABLE_KTLS. Throws std::runtime_error with OpenSSL's reason and what to check.
TlsSessionPtr tls_client_handshake(int fd, const TlsChoice& choice, bool ktls);
TlsSessionPtr tls_server_handshake(int fd, bool ktls);

// What the handshake agreed: "TLSv1.3", "TLS_AES_128_GCM_SHA256"; OpenSSL's view of kTLS per direction.
struct TlsAgreed {
    std::string version, cipher;
    bool openssl_ktls_send = false, openssl_ktls_recv = false;
    int max_record_payload = 0;  // bytes of plaintext per record, as set on the session
};
TlsAgreed tls_agreed(ssl_st* ssl);

// OpenSSL's error queue as text (and errno's), for the error a failed call reports; empties the queue.
std::string openssl_errors();

}  // namespace zc
