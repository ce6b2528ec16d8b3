#pragma once
// UDP data "connections": a connected UDP socket per stream on each side. The server binds one UDP
// socket on the address the control connection arrived on and announces its port; each client stream
// connects a socket to it and sends a hello carrying the test's token, repeated every 50 ms until
// answered. For each new client address the server binds a further socket on the same address and
// port (SO_REUSEADDR) and connects it to that client: the kernel prefers the connected socket for
// that peer's datagrams, so every stream has its own socket and port pair, as iperf3 does it. The
// answer leaves from the connected socket. Every wait is bounded.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "core/unique_fd.hpp"

namespace zc {

class UdpListener {
public:
    // Binds `address` (numeric, "" = any) on an ephemeral port. Throws std::runtime_error.
    UdpListener(const std::string& address, uint64_t socket_buffer);
    uint16_t port() const { return port_; }
    // `streams` connected sockets, one per client address that presented `token`, before the deadline.
    // Returns fewer when the deadline or `stopped` comes first (the caller says what that means).
    std::vector<UniqueFd> accept(int streams, uint64_t token, std::chrono::steady_clock::time_point deadline,
                                 const std::atomic<bool>& stopped);

private:
    UniqueFd fd_;
    std::string address_;
    uint64_t socket_buffer_;
    uint16_t port_ = 0;
};

// Connects `streams` UDP sockets to host:port and waits (at most `timeout` each) for the server's
// answer to the hello. Throws std::runtime_error naming the port when no answer comes.
std::vector<UniqueFd> connect_udp_streams(const std::string& host, uint16_t port, int streams, uint64_t token,
                                          std::chrono::milliseconds timeout, uint64_t socket_buffer);

}  // namespace zc
