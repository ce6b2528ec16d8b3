#pragma once
// Optional shared-secret authentication of the control connection: both sides hold the same key
// (--auth-key-file); each proves it with an HMAC-SHA256 over the other's random challenge, so the
// key never crosses the wire and a recorded exchange cannot be replayed.
#include <string>
#include <string_view>

namespace zc {

class SharedSecret {
public:
    // Reads the key (surrounding whitespace dropped). Throws std::runtime_error when the file is
    // unreadable, shorter than 16 bytes, or readable by group/others (say how to fix it).
    static SharedSecret from_file(const std::string& path);
    explicit SharedSecret(std::string key) : key_(std::move(key)) {}

    // hex(HMAC-SHA256(key, role + ":" + challenge)); `role` keeps the two directions apart.
    std::string prove(std::string_view role, std::string_view challenge) const;
    // Constant-time comparison with the expected proof.
    bool verify(std::string_view role, std::string_view challenge, std::string_view proof) const;

private:
    std::string key_;
};

std::string random_challenge();  // 32 random bytes, hex

// Equal-length compare that takes the same time wherever the first difference is.
bool constant_time_equal(std::string_view a, std::string_view b);

}  // namespace zc
