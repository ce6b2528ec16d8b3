#pragma once
// Control-connection framing: 4-byte magic "ZCPF", 4-byte big-endian body length, then a JSON body.
// The magic never changes, so a peer of another protocol version still gets a readable error
// (the version lives in the hello). Every read is bounded in size and in time.
#include <array>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace zc {

struct ProtocolError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// The peer went away or did not answer in time (not a malformed message).
struct ConnectionError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

inline constexpr std::array<char, 4> kFrameMagic = {'Z', 'C', 'P', 'F'};
inline constexpr size_t kFrameHeaderSize = 8;
// Client -> server messages are small (a test spec); server -> client results carry per-CPU tables.
inline constexpr size_t kMaxRequestBody = 64 * 1024;
inline constexpr size_t kMaxReplyBody = 4 * 1024 * 1024;

std::string encode_frame(std::string_view body);

// Validates a header and returns the body length. Throws ProtocolError on a wrong magic (naming
// what the bytes look like, e.g. an HTTP client) or a length over `max_body`.
size_t decode_frame_header(const std::array<char, kFrameHeaderSize>& header, size_t max_body);

// Blocking helpers for the client side (the server uses Boost.Asio with the same two functions).
void write_all(int fd, std::string_view data, std::chrono::milliseconds timeout);
std::string read_frame(int fd, size_t max_body, std::chrono::milliseconds timeout);

}  // namespace zc
