#include "tcp/tcp_socket.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace zc {

void set_socket_buffers(int fd, uint64_t bytes) {
    if (bytes == 0) return;
    int v = static_cast<int>(bytes);
    if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v)) != 0 ||
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)) != 0) {
        throw std::runtime_error(std::string("cannot set the socket buffers: ") + std::strerror(errno));
    }
}

std::pair<uint64_t, uint64_t> socket_buffers(int fd) {
    int snd = 0, rcv = 0;
    socklen_t len = sizeof(int);
    getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &snd, &len);
    len = sizeof(int);
    getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, &len);
    return {static_cast<uint64_t>(snd), static_cast<uint64_t>(rcv)};
}

void set_receive_low_water(int fd, uint64_t bytes) {
    int v = static_cast<int>(std::min<uint64_t>(bytes, INT32_MAX));
    if (setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &v, sizeof(v)) != 0) {
        throw std::runtime_error(std::string("cannot set SO_RCVLOWAT: ") + std::strerror(errno) +
                                 " (use --rcvlowat 1 for the kernel's default)");
    }
}

uint64_t receive_low_water(int fd) {
    int v = 0;
    socklen_t len = sizeof(v);
    if (getsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &v, &len) != 0) return 0;
    return static_cast<uint64_t>(v);
}

void set_receive_timeout(int fd, std::chrono::milliseconds timeout) {
    timeval tv{static_cast<time_t>(timeout.count() / 1000), static_cast<suseconds_t>(timeout.count() % 1000 * 1000)};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

UniqueFd connect_tcp(const Endpoint& ep, std::chrono::milliseconds timeout, uint64_t socket_buffer,
                     const TcpTuning& tuning) {
    const int family = ep.family;
    addrinfo hints{};
    hints.ai_family = family;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    std::string port = std::to_string(ep.port);
    int rc = getaddrinfo(ep.host.c_str(), port.c_str(), &hints, &res);
    if (rc != 0) {
        const char* only = family == AF_INET ? " as IPv4 (-4)" : family == AF_INET6 ? " as IPv6 (-6)" : "";
        throw std::runtime_error("cannot resolve '" + ep.host + "'" + only + ": " + gai_strerror(rc) +
                                 "; check the host name or give an IP address");
    }
    std::string last_error = "no address";
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (addrinfo* ai = res; ai; ai = ai->ai_next) {
        UniqueFd fd(::socket(ep.socket.domain_for(ai->ai_family), ai->ai_socktype | SOCK_CLOEXEC,
                             ep.socket.is_tcp() ? ai->ai_protocol : ep.socket.protocol_for(ai->ai_family)));
        if (!fd && !ep.socket.is_tcp()) {  // the kind's socket refused (off, or not in this kernel): no address will do
            last_error = std::string("socket: ") + std::strerror(errno);
            break;
        }
        if (!fd) continue;
        set_socket_buffers(fd.get(), socket_buffer);
        if (tuning.any()) {
            try {
                apply_tcp_tuning(fd.get(), tuning);
            } catch (...) {
                freeaddrinfo(res);
                throw;
            }
        }
        int flags = fcntl(fd.get(), F_GETFL);
        fcntl(fd.get(), F_SETFL, flags | O_NONBLOCK);
        int c = ::connect(fd.get(), ai->ai_addr, ai->ai_addrlen);
        if (c != 0 && errno == EINPROGRESS) {
            auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            pollfd p{fd.get(), POLLOUT, 0};
            int pr;
            do {
                pr = ::poll(&p, 1, static_cast<int>(std::max<int64_t>(0, left.count())));
            } while (pr < 0 && errno == EINTR);
            if (pr == 0) {
                last_error =
                    "no answer within " + std::to_string(timeout.count()) + " ms (a firewall, or the host is down?)";
                continue;
            }
            int err = 0;
            socklen_t len = sizeof(err);
            getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
            if (err != 0) {
                last_error = std::strerror(err);
                continue;
            }
        } else if (c != 0) {
            last_error = std::strerror(errno);
            continue;
        }
        fcntl(fd.get(), F_SETFL, flags);
        freeaddrinfo(res);
        return fd;
    }
    freeaddrinfo(res);
    throw std::runtime_error("cannot connect to " + ep.host + ":" + port + ": " + last_error);
}

std::pair<UniqueFd, uint16_t> listen_tcp(const std::string& address, uint16_t port, int backlog, uint64_t socket_buffer,
                                         const StreamSocket& socket) {
    sockaddr_storage ss{};
    socklen_t len = 0;
    int family = AF_INET6;
    auto* s6 = reinterpret_cast<sockaddr_in6*>(&ss);
    auto* s4 = reinterpret_cast<sockaddr_in*>(&ss);
    if (address.empty()) {
        s6->sin6_family = AF_INET6;
        s6->sin6_addr = in6addr_any;
        s6->sin6_port = htons(port);
        len = sizeof(*s6);
    } else if (inet_pton(AF_INET, address.c_str(), &s4->sin_addr) == 1) {
        family = AF_INET;
        s4->sin_family = AF_INET;
        s4->sin_port = htons(port);
        len = sizeof(*s4);
    } else if (inet_pton(AF_INET6, address.c_str(), &s6->sin6_addr) == 1) {
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons(port);
        len = sizeof(*s6);
    } else {
        throw std::invalid_argument("'" + address + "' is not a numeric IPv4 or IPv6 address");
    }
    UniqueFd fd(::socket(socket.domain_for(family), SOCK_STREAM | SOCK_CLOEXEC, socket.protocol_for(family)));
    if (!fd) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
    int one = 1, zero = 0;
    setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (family == AF_INET6 && address.empty()) setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
    set_socket_buffers(fd.get(), socket_buffer);  // inherited by accepted sockets, before the handshake
    if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&ss), len) != 0) {
        int e = errno;
        std::string where = (address.empty() ? "*" : address) + ":" + std::to_string(port);
        if (e == EADDRINUSE)
            throw std::runtime_error("port " + where + " is in use: another zcserver? choose one with --port");
        throw std::runtime_error("cannot bind " + where + ": " + std::strerror(e));
    }
    if (::listen(fd.get(), backlog) != 0) throw std::runtime_error(std::string("listen: ") + std::strerror(errno));
    socklen_t l = sizeof(ss);
    getsockname(fd.get(), reinterpret_cast<sockaddr*>(&ss), &l);
    uint16_t bound = ss.ss_family == AF_INET ? ntohs(s4->sin_port) : ntohs(s6->sin6_port);
    return {std::move(fd), bound};
}

}  // namespace zc
