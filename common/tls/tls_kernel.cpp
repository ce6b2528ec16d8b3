#include "tls/tls_kernel.hpp"

#include <linux/tls.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace zc {

namespace {

std::string read_file(const char* path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

const char* cipher_name(uint16_t type) {
    switch (type) {
        case TLS_CIPHER_AES_GCM_128:
            return "aes-128-gcm";
        case TLS_CIPHER_AES_GCM_256:
            return "aes-256-gcm";
        case TLS_CIPHER_CHACHA20_POLY1305:
            return "chacha20-poly1305";
        default:
            return "other";
    }
}

}  // namespace

std::string ktls_unavailable(const std::string& ulp_list) {
    std::istringstream words(ulp_list);
    std::string w, all;
    while (words >> w) {
        if (w == "tls") return "";
        all += (all.empty() ? "" : " ") + w;
    }
    return "kTLS needs the kernel's TLS ULP, and this kernel offers " +
           (all.empty() ? std::string("none") : "only '" + all + "'") +
           " (/proc/sys/net/ipv4/tcp_available_ulp): load it with `modprobe tls` (root; CONFIG_TLS), or run -T tls "
           "(OpenSSL in user space). zcperf never falls back to user space by itself";
}

std::string ktls_unavailable() { return ktls_unavailable(read_file("/proc/sys/net/ipv4/tcp_available_ulp")); }

KtlsDirection read_ktls(int fd, bool tx) {
    // The header alone (version and cipher, no keys): the kernel answers a header-sized buffer so, and
    // refuses (EINVAL) any size but the exact one of the cipher in force, e.g. AES-256-GCM's for AES-128-GCM.
    tls_crypto_info info{};
    socklen_t len = sizeof(info);
    KtlsDirection d;
    if (::getsockopt(fd, SOL_TLS, tx ? TLS_TX : TLS_RX, &info, &len) != 0 || len < sizeof(info)) return d;
    d.in_force = true;
    d.version = info.version == TLS_1_3_VERSION ? "1.3" : info.version == TLS_1_2_VERSION ? "1.2" : "?";
    d.cipher = cipher_name(info.cipher_type);
    return d;
}

std::string ktls_aead_missing(const std::string& openssl_cipher, const std::string& proc_crypto) {
    const bool chacha = openssl_cipher.find("CHACHA20") != std::string::npos;
    const std::string aead = chacha ? "rfc7539(chacha20,poly1305)" : "gcm(aes)";
    std::istringstream lines(proc_crypto);
    std::string line;
    while (std::getline(lines, line)) {  // "name         : gcm(aes)"
        const size_t colon = line.find(':');
        if (line.rfind("name", 0) != 0 || colon == std::string::npos) continue;
        std::string value = line.substr(colon + 1);
        value.erase(0, value.find_first_not_of(' '));
        if (value == aead) return "";
    }
    return "the kernel has no " + aead + " (/proc/crypto) and could not load it, so it refused the keys: load it " +
           "with `modprobe " + (chacha ? "chacha20poly1305" : "gcm") +
           "` (root), and check that /proc/sys/kernel/modprobe names a working modprobe";
}

std::string ktls_aead_missing(const std::string& openssl_cipher) {
    return ktls_aead_missing(openssl_cipher, read_file("/proc/crypto"));
}

std::string set_expect_no_pad(int fd) {
    int on = 1;
    if (::setsockopt(fd, SOL_TLS, TLS_RX_EXPECT_NO_PAD, &on, sizeof(on)) != 0)
        return errno == ENOPROTOOPT ? "not in this kernel (Linux 6.0+)"
               : errno == EINVAL    ? "refused (TLS 1.3 receive only)"
                                    : std::string("refused: ") + std::strerror(errno);
    int got = 0;
    socklen_t len = sizeof(got);
    if (::getsockopt(fd, SOL_TLS, TLS_RX_EXPECT_NO_PAD, &got, &len) != 0) return "set, not read back";
    return got ? "on" : "off after setting it";
}

TlsStat parse_tls_stat(const std::string& text) {
    TlsStat out;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        std::istringstream words(line);
        std::string name, value, extra;
        if (!(words >> name >> value) || (words >> extra)) continue;
        if (value.find_first_not_of("0123456789") != std::string::npos || value.size() > 19) continue;
        out[name] = std::stoull(value);
    }
    return out;
}

TlsStat read_tls_stat() { return parse_tls_stat(read_file("/proc/net/tls_stat")); }

std::map<std::string, int64_t> tls_stat_delta(const TlsStat& before, const TlsStat& after) {
    std::map<std::string, int64_t> out;
    for (const auto& [name, value] : after) {
        auto it = before.find(name);
        uint64_t was = it == before.end() ? 0 : it->second;
        out[name] = static_cast<int64_t>(value - was);
    }
    return out;
}

}  // namespace zc
