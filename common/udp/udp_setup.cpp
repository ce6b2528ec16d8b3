#include "udp/udp_setup.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "udp/udp_wire.hpp"

namespace zc {

namespace {

constexpr size_t kHelloBytes = kUdpSeqHeader + 8;  // the header (kUdpHello) and the token
constexpr int kHelloEveryMs = 50;

void set_buffers(int fd, uint64_t bytes) {
    if (!bytes) return;
    int v = static_cast<int>(bytes);
    if (::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v)) != 0 ||
        ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)) != 0)
        throw std::runtime_error(std::string("cannot set the UDP socket buffers: ") + std::strerror(errno));
}

void hello(std::byte* out, uint64_t seq, uint64_t token) {
    write_seq(out, seq, 0);
    std::memcpy(out + kUdpSeqHeader, &token, sizeof(token));
}

UniqueFd bound_socket(int family, const sockaddr* addr, socklen_t len, uint64_t socket_buffer) {
    UniqueFd fd(::socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!fd) throw std::runtime_error(std::string("socket(UDP): ") + std::strerror(errno));
    int one = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    set_buffers(fd.get(), socket_buffer);
    if (::bind(fd.get(), addr, len) != 0)
        throw std::runtime_error(std::string("cannot bind a UDP data socket: ") + std::strerror(errno));
    return fd;
}

}  // namespace

UdpListener::UdpListener(const std::string& address, uint64_t socket_buffer)
    : address_(address), socket_buffer_(socket_buffer) {
    sockaddr_storage ss{};
    socklen_t len = 0;
    if (address.empty() || address.find(':') == std::string::npos) {
        auto* a = reinterpret_cast<sockaddr_in*>(&ss);
        a->sin_family = AF_INET;
        if (!address.empty() && inet_pton(AF_INET, address.c_str(), &a->sin_addr) != 1)
            throw std::runtime_error("UDP data socket: '" + address + "' is not a numeric address");
        len = sizeof(*a);
    } else {
        auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
        a->sin6_family = AF_INET6;
        if (inet_pton(AF_INET6, address.c_str(), &a->sin6_addr) != 1)
            throw std::runtime_error("UDP data socket: '" + address + "' is not a numeric address");
        len = sizeof(*a);
    }
    fd_ = bound_socket(ss.ss_family, reinterpret_cast<sockaddr*>(&ss), len, 0);
    sockaddr_storage bound{};
    socklen_t bl = sizeof(bound);
    ::getsockname(fd_.get(), reinterpret_cast<sockaddr*>(&bound), &bl);
    port_ = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                              : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
}

std::vector<UniqueFd> UdpListener::accept(int streams, uint64_t token, std::chrono::steady_clock::time_point deadline,
                                          const std::atomic<bool>& stopped) {
    std::vector<UniqueFd> out;
    std::vector<sockaddr_storage> peers;
    sockaddr_storage local{};
    socklen_t local_len = sizeof(local);
    ::getsockname(fd_.get(), reinterpret_cast<sockaddr*>(&local), &local_len);
    while (static_cast<int>(out.size()) < streams && !stopped.load()) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) break;
        pollfd p{fd_.get(), POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 100))) <= 0) continue;
        std::byte msg[kHelloBytes];
        sockaddr_storage from{};
        socklen_t fl = sizeof(from);
        ssize_t n = ::recvfrom(fd_.get(), msg, sizeof(msg), MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&from), &fl);
        if (n != static_cast<ssize_t>(kHelloBytes) || read_seq(msg).seq != kUdpHello) continue;  // a stray
        uint64_t got;
        std::memcpy(&got, msg + kUdpSeqHeader, sizeof(got));
        if (got != token) continue;
        size_t known = 0;
        while (known < peers.size() && std::memcmp(&peers[known], &from, fl) != 0) ++known;
        if (known == peers.size()) {  // a new stream: its own socket, connected to it
            UniqueFd s = bound_socket(local.ss_family, reinterpret_cast<sockaddr*>(&local), local_len, socket_buffer_);
            if (::connect(s.get(), reinterpret_cast<sockaddr*>(&from), fl) != 0)
                throw std::runtime_error(std::string("cannot connect a UDP data socket: ") + std::strerror(errno));
            peers.push_back(from);
            out.push_back(std::move(s));
        }
        hello(msg, kUdpHello, token);  // the answer, from the stream's own socket
        (void)::send(out[known].get(), msg, sizeof(msg), MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    return out;
}

std::vector<UniqueFd> connect_udp_streams(const std::string& host, uint16_t port, int streams, uint64_t token,
                                          std::chrono::milliseconds timeout, uint64_t socket_buffer) {
    addrinfo hints{}, *res = nullptr;
    hints.ai_socktype = SOCK_DGRAM;
    std::string service = std::to_string(port);
    if (int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &res); rc != 0)
        throw std::runtime_error("cannot resolve '" + host + "' for UDP: " + gai_strerror(rc));
    std::vector<UniqueFd> out;
    try {
        for (int i = 0; i < streams; ++i) {
            UniqueFd fd(::socket(res->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0));
            if (!fd) throw std::runtime_error(std::string("socket(UDP): ") + std::strerror(errno));
            set_buffers(fd.get(), socket_buffer);
            if (::connect(fd.get(), res->ai_addr, res->ai_addrlen) != 0)
                throw std::runtime_error("cannot connect UDP to " + host + ":" + service + ": " + std::strerror(errno));
            std::byte msg[kHelloBytes], answer[kHelloBytes];
            hello(msg, kUdpHello, token);
            const auto give_up = std::chrono::steady_clock::now() + timeout;
            bool answered = false;
            while (!answered && std::chrono::steady_clock::now() < give_up) {
                (void)::send(fd.get(), msg, sizeof(msg), MSG_NOSIGNAL);
                pollfd p{fd.get(), POLLIN, 0};
                if (::poll(&p, 1, kHelloEveryMs) <= 0) continue;
                ssize_t n = ::recv(fd.get(), answer, sizeof(answer), MSG_DONTWAIT);
                answered = n == static_cast<ssize_t>(kHelloBytes) && std::memcmp(answer, msg, kHelloBytes) == 0;
            }
            if (!answered) {
                throw std::runtime_error("no answer from UDP port " + service + " on " + host + " within " +
                                         std::to_string(timeout.count() / 1000.0).substr(0, 3) +
                                         " s: is a firewall dropping UDP between the hosts?");
            }
            out.push_back(std::move(fd));
        }
    } catch (...) {
        ::freeaddrinfo(res);
        throw;
    }
    ::freeaddrinfo(res);
    return out;
}

}  // namespace zc
