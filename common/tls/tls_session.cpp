#include "tls/tls_session.hpp"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace zc {

namespace {

// TLS's largest record (2^14 bytes of plaintext), set on every session so the report says what ran.
constexpr int kRecordPayload = 16384;

struct Cipher {
    const char* name;   // --tls-cipher
    const char* tls13;  // SSL_CTX_set_ciphersuites
    const char* tls12;  // SSL_CTX_set_cipher_list (the server's key is ECDSA)
};
constexpr Cipher kCiphers[] = {
    {"aes-128-gcm", "TLS_AES_128_GCM_SHA256", "ECDHE-ECDSA-AES128-GCM-SHA256"},
    {"aes-256-gcm", "TLS_AES_256_GCM_SHA384", "ECDHE-ECDSA-AES256-GCM-SHA384"},
    {"chacha20-poly1305", "TLS_CHACHA20_POLY1305_SHA256", "ECDHE-ECDSA-CHACHA20-POLY1305"},
};

const Cipher& cipher_named(const std::string& name) {
    for (const Cipher& c : kCiphers)
        if (name == c.name) return c;
    throw std::invalid_argument("unknown --tls-cipher '" + name + "': use " + kTlsCipherNames);
}

struct CtxFree {
    void operator()(SSL_CTX* c) const { SSL_CTX_free(c); }
};
using CtxPtr = std::unique_ptr<SSL_CTX, CtxFree>;

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error(what + ": " + openssl_errors()); }

// The server's ephemeral identity: a P-256 key and a certificate it signs itself, valid for a year.
void use_ephemeral_identity(SSL_CTX* ctx) {
    std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(EVP_EC_gen("P-256"), EVP_PKEY_free);
    std::unique_ptr<X509, decltype(&X509_free)> cert(X509_new(), X509_free);
    if (!key || !cert) fail("TLS: making the server's ephemeral key");
    X509_set_version(cert.get(), 2);
    ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
    X509_gmtime_adj(X509_getm_notAfter(cert.get()), 365L * 24 * 3600);
    X509_set_pubkey(cert.get(), key.get());
    X509_NAME* name = X509_get_subject_name(cert.get());
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("zcserver"), -1, -1, 0);
    X509_set_issuer_name(cert.get(), name);
    if (!X509_sign(cert.get(), key.get(), EVP_sha256()) || !SSL_CTX_use_certificate(ctx, cert.get()) ||
        !SSL_CTX_use_PrivateKey(ctx, key.get()))
        fail("TLS: signing the server's ephemeral certificate");
}

std::string all_of(const char* Cipher::*field) {
    std::string out;
    for (const Cipher& c : kCiphers) out += (out.empty() ? "" : ":") + std::string(c.*field);
    return out;
}

// One context for the process's server side (made once, thread-safe: SSL_new only reads it).
SSL_CTX* server_context() {
    static const CtxPtr ctx = [] {
        CtxPtr c(SSL_CTX_new(TLS_server_method()));
        if (!c) fail("TLS: SSL_CTX_new");
        SSL_CTX_set_min_proto_version(c.get(), TLS1_2_VERSION);
        SSL_CTX_set_max_proto_version(c.get(), TLS1_3_VERSION);
        if (!SSL_CTX_set_ciphersuites(c.get(), all_of(&Cipher::tls13).c_str()) ||
            !SSL_CTX_set_cipher_list(c.get(), all_of(&Cipher::tls12).c_str()))
            fail("TLS: the server's ciphers");
        // No session tickets: a ticket is a record of another type after the handshake, which a kTLS
        // receiver's recv() would fail on (EIO), and nobody resumes these sessions.
        SSL_CTX_set_num_tickets(c.get(), 0);
        SSL_CTX_set_options(c.get(), SSL_OP_NO_RENEGOTIATION);
        use_ephemeral_identity(c.get());
        return c;
    }();
    return ctx.get();
}

CtxPtr client_context(const TlsChoice& choice) {
    const Cipher& cipher = cipher_named(choice.cipher);
    CtxPtr c(SSL_CTX_new(TLS_client_method()));
    if (!c) fail("TLS: SSL_CTX_new");
    int version = choice.version == 12 ? TLS1_2_VERSION : TLS1_3_VERSION;
    SSL_CTX_set_min_proto_version(c.get(), version);
    SSL_CTX_set_max_proto_version(c.get(), version);
    if (!SSL_CTX_set_ciphersuites(c.get(), cipher.tls13) || !SSL_CTX_set_cipher_list(c.get(), cipher.tls12))
        fail("TLS: cipher " + choice.cipher);
    SSL_CTX_set_verify(c.get(), SSL_VERIFY_NONE, nullptr);  // the server's certificate is made per process
    return c;
}

// The handshake's failure, in words: a timeout, the peer's end, or OpenSSL's reason. `err`: errno as the
// failed call left it (OpenSSL 3 also puts a system error on its queue: ERR_LIB_SYS with that errno).
[[noreturn]] void handshake_failed(SSL* ssl, int rc, int err, const char* side) {
    int why = SSL_get_error(ssl, rc);
    unsigned long first = ERR_peek_error();
    if (ERR_GET_LIB(first) == ERR_LIB_SYS) err = ERR_GET_REASON(first);
    std::string what = std::string("TLS handshake (") + side + ") failed: ";
    if (err == EAGAIN || err == EWOULDBLOCK) {
        ERR_clear_error();
        throw std::runtime_error(what +
                                 "no answer from the peer within the data socket's receive timeout: is it "
                                 "a zcserver that runs -T tls, ktls and ktls-sendfile?");
    }
    if (why == SSL_ERROR_SYSCALL || why == SSL_ERROR_ZERO_RETURN ||
        ERR_GET_REASON(first) == SSL_R_UNEXPECTED_EOF_WHILE_READING) {
        std::string errs = openssl_errors();
        throw std::runtime_error(what + "the peer closed the connection" +
                                 (err ? std::string(" (") + std::strerror(err) + ")" : std::string()) +
                                 (errs.empty() ? "" : ": " + errs) + "; a peer without TLS on this connection?");
    }
    throw std::runtime_error(what + openssl_errors() +
                             " (a peer that does not speak TLS answers 'wrong version number' or 'packet length too "
                             "long')");
}

TlsSessionPtr handshake(SSL_CTX* ctx, int fd, bool ktls, bool client) {
    ERR_clear_error();
    TlsSessionPtr ssl(SSL_new(ctx), SSL_free);
    if (!ssl) fail("TLS: SSL_new");
    if (ktls) SSL_set_options(ssl.get(), SSL_OP_ENABLE_KTLS);
    SSL_set_max_send_fragment(ssl.get(), kRecordPayload);
    if (!SSL_set_fd(ssl.get(), fd)) fail("TLS: SSL_set_fd");
    errno = 0;
    int rc = client ? SSL_connect(ssl.get()) : SSL_accept(ssl.get());
    int err = errno;
    if (rc != 1) handshake_failed(ssl.get(), rc, err, client ? "client" : "server");
    return ssl;
}

}  // namespace

int parse_tls_version(const std::string& text) {
    if (text == "1.2") return 12;
    if (text == "1.3") return 13;
    throw std::invalid_argument("--tls-version '" + text + "': use 1.2 or 1.3");
}

std::string checked_tls_cipher(const std::string& text) { return cipher_named(text).name; }

TlsChoice tls_choice(const std::map<std::string, std::string>& kind_options) {
    TlsChoice c;
    if (auto it = kind_options.find(kTlsVersionKey); it != kind_options.end())
        c.version = parse_tls_version(it->second);
    if (auto it = kind_options.find(kTlsCipherKey); it != kind_options.end()) c.cipher = checked_tls_cipher(it->second);
    return c;
}

TlsSessionPtr tls_client_handshake(int fd, const TlsChoice& choice, bool ktls) {
    CtxPtr ctx = client_context(choice);  // the session keeps its own reference
    return handshake(ctx.get(), fd, ktls, true);
}

TlsSessionPtr tls_server_handshake(int fd, bool ktls) { return handshake(server_context(), fd, ktls, false); }

TlsAgreed tls_agreed(SSL* ssl) {
    TlsAgreed a;
    a.version = SSL_get_version(ssl);
    const SSL_CIPHER* c = SSL_get_current_cipher(ssl);
    a.cipher = c ? SSL_CIPHER_get_name(c) : "";
    a.openssl_ktls_send = BIO_get_ktls_send(SSL_get_wbio(ssl)) == 1;
    a.openssl_ktls_recv = BIO_get_ktls_recv(SSL_get_rbio(ssl)) == 1;
    a.max_record_payload = kRecordPayload;
    return a;
}

std::string openssl_errors() {
    std::string out;
    char buf[256];
    while (unsigned long e = ERR_get_error()) {
        ERR_error_string_n(e, buf, sizeof(buf));
        out += (out.empty() ? "" : "; ") + std::string(buf);
    }
    return out;
}

}  // namespace zc
