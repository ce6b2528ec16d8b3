#pragma once
// Where a stream socket goes: a host and port as the user wrote them ("host:port", "[v6]:port"), the address
// family -4/-6 chose and the socket it opens (TCP's, or another kind's stream socket), and the numeric addresses
// of a connected socket's two ends. The control connection's and every kind's on IP addresses; the tcp kind's
// tcp/tcp_socket.hpp connects and listens with them.
#include <sys/socket.h>

#include <cstdint>
#include <string>

namespace zc {

// How a stream socket on IP addresses is opened: TCP's, or another kind's stream socket that the tcp kind's
// loops run on as they are (MPTCP: IPPROTO_MPTCP; SMC: an AF_SMC socket, whose protocol says the address family).
struct StreamSocket {
    int domain = 0;      // socket()'s domain; 0: the address's family (AF_INET, AF_INET6)
    int protocol = 0;    // socket()'s protocol (0: the family's TCP), for an IPv4 address
    int protocol6 = -1;  // for an IPv6 address (-1: `protocol`)
    bool is_tcp() const { return domain == 0 && protocol == 0 && protocol6 <= 0; }
    int domain_for(int family) const { return domain ? domain : family; }
    int protocol_for(int family) const { return family == AF_INET6 && protocol6 >= 0 ? protocol6 : protocol; }
};

struct Endpoint {
    std::string host;
    uint16_t port = 0;
    int family = AF_UNSPEC;  // -4/-6: AF_INET or AF_INET6 resolves the host in that family only
    StreamSocket socket{};   // TCP, or the kind's own stream socket
};

// "host", "host:port", "[v6addr]:port", "v6addr" (no port) -> Endpoint with `default_port`.
Endpoint parse_endpoint(const std::string& text, uint16_t default_port);

std::string local_address(int fd);  // numeric address of the socket's local end
std::string peer_address(int fd);

}  // namespace zc
