#include "security/shared_secret.hpp"

#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace zc {

namespace {
std::string hex(const unsigned char* p, size_t n) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string s;
    for (size_t i = 0; i < n; ++i) {
        s += digits[p[i] >> 4];
        s += digits[p[i] & 15];
    }
    return s;
}
}  // namespace

SharedSecret SharedSecret::from_file(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw std::runtime_error("cannot read the key file " + path);
    if (st.st_mode & (S_IRWXG | S_IRWXO)) {
        throw std::runtime_error("the key file " + path + " is readable by others; run: chmod 600 " + path);
    }
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string key = ss.str();
    while (!key.empty() && std::isspace(static_cast<unsigned char>(key.back()))) key.pop_back();
    while (!key.empty() && std::isspace(static_cast<unsigned char>(key.front()))) key.erase(key.begin());
    if (key.size() < 16) {
        throw std::runtime_error("the key in " + path +
                                 " is shorter than 16 bytes; make one with: head -c 32 /dev/urandom | base64 > " +
                                 path);
    }
    return SharedSecret(std::move(key));
}

std::string SharedSecret::prove(std::string_view role, std::string_view challenge) const {
    std::string msg = std::string(role) + ":" + std::string(challenge);
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()), reinterpret_cast<const unsigned char*>(msg.data()),
         msg.size(), mac, &len);
    return hex(mac, len);
}

bool SharedSecret::verify(std::string_view role, std::string_view challenge, std::string_view proof) const {
    return constant_time_equal(prove(role, challenge), proof);
}

std::string random_challenge() {
    unsigned char b[32];
    if (RAND_bytes(b, sizeof(b)) != 1) throw std::runtime_error("no randomness for the authentication challenge");
    return hex(b, sizeof(b));
}

bool constant_time_equal(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    unsigned char diff = 0;
    for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

}  // namespace zc
