#include "paths/data_setup.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "protocol/frame.hpp"
#include "protocol/messages.hpp"
#include "paths/rdma_setup.hpp"
#include "tcp/tcp_socket.hpp"
#include "udp/udp_setup.hpp"

#if ZCPERF_WITH_RDMA
#include <rdma/rsocket.h>

#include "rdma/rdma_connection.hpp"
#include "rdma/sockaddr_text.hpp"
#endif

namespace zc {

namespace {

constexpr auto kStallTimeout = std::chrono::seconds(10);  // a TCP data socket's longest silence
constexpr auto kConnectTimeout = std::chrono::seconds(5);
constexpr auto kRdmaConnectTimeout = std::chrono::seconds(10);

// Accepts TCP data connections until `wanted` have presented the token, before the deadline. Pending
// connections are read side by side, so a stray one that stays silent delays nobody.
std::vector<UniqueFd> accept_tcp(int listener, int wanted, uint64_t token,
                                 std::chrono::steady_clock::time_point deadline, const std::atomic<bool>& stopped) {
    struct Pending {
        UniqueFd fd;
        uint64_t got = 0;
        size_t have = 0;
    };
    std::vector<UniqueFd> ready;
    std::vector<Pending> pending;
    while (static_cast<int>(ready.size()) < wanted && !stopped.load()) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) break;
        std::vector<pollfd> fds{{listener, POLLIN, 0}};
        for (const auto& p : pending) fds.push_back({p.fd.get(), POLLIN, 0});
        if (::poll(fds.data(), fds.size(), static_cast<int>(std::min<int64_t>(left.count(), 100))) <= 0) continue;
        for (size_t i = fds.size() - 1; i >= 1; --i) {
            if (!fds[i].revents) continue;
            Pending& p = pending[i - 1];
            ssize_t n =
                ::recv(p.fd.get(), reinterpret_cast<char*>(&p.got) + p.have, sizeof(p.got) - p.have, MSG_DONTWAIT);
            bool drop = n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR);
            if (n > 0) p.have += static_cast<size_t>(n);
            if (p.have == sizeof(p.got)) {
                if (p.got == token) ready.push_back(std::move(p.fd));
                drop = true;  // ours and taken, or a stray with the wrong token
            }
            if (drop) pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i - 1));
        }
        if (fds[0].revents & POLLIN) {
            int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd >= 0 && pending.size() < 1024)
                pending.push_back({UniqueFd(fd), 0, 0});
            else if (fd >= 0)
                ::close(fd);
        }
    }
    return ready;
}

}  // namespace

DataListener::DataListener(const ServerSpec& half, Role role, const std::string& bind_address)
    : streams_(half.streams) {
    if (is_rdma(half.transport)) {
        rdma_ = std::make_unique<RdmaDataListener>(half, role, bind_address);
        port_ = rdma_->port();
    } else if (is_udp(half.transport)) {
        udp_ = std::make_unique<UdpListener>(bind_address, half.side.socket_buffer);
        port_ = udp_->port();
    } else {
        auto [fd, port] = listen_tcp(bind_address, 0, half.streams, half.side.socket_buffer);
        tcp_ = std::move(fd);
        port_ = port;
    }
}

DataListener::~DataListener() = default;

std::vector<DataConnection> DataListener::accept(uint64_t token, std::chrono::steady_clock::time_point deadline,
                                                 const std::atomic<bool>& stopped) {
    if (rdma_) return rdma_->accept(token, deadline, stopped);
    if (udp_) {
        std::vector<UniqueFd> socks = udp_->accept(streams_, token, deadline, stopped);
        if (stopped.load()) throw std::runtime_error(kStoppedBeforeStart);
        if (static_cast<int>(socks.size()) < streams_) {
            throw std::runtime_error("only " + std::to_string(socks.size()) + " of " + std::to_string(streams_) +
                                     " UDP data streams said hello within 10 s (a firewall dropping UDP?)");
        }
        std::vector<DataConnection> out;
        for (auto& fd : socks) out.emplace_back(std::move(fd));
        udp_.reset();
        return out;
    }
    std::vector<UniqueFd> tcp = accept_tcp(tcp_.get(), streams_, token, deadline, stopped);
    if (stopped.load()) throw std::runtime_error(kStoppedBeforeStart);
    if (static_cast<int>(tcp.size()) < streams_) {
        throw std::runtime_error("only " + std::to_string(tcp.size()) + " of " + std::to_string(streams_) +
                                 " data connections arrived within 10 s (a firewall between the hosts?)");
    }
    std::vector<DataConnection> out;
    for (auto& fd : tcp) {
        set_receive_timeout(fd.get(), kStallTimeout);
        out.emplace_back(std::move(fd));
    }
    tcp_.reset();
    return out;
}

std::vector<DataConnection> connect_data_streams(const ServerSpec& half, Role role, const std::string& host,
                                                 const std::string& address, uint16_t port, uint64_t token) {
    if (is_rdma(half.transport)) return connect_rdma_streams(half, role, address, port, token, kRdmaConnectTimeout);
    std::vector<DataConnection> out;
    if (is_udp(half.transport)) {
        for (auto& fd : connect_udp_streams(host, port, half.streams, token, kConnectTimeout, half.side.socket_buffer))
            out.emplace_back(std::in_place_type<UniqueFd>, std::move(fd));
        return out;
    }
    for (int i = 0; i < half.streams; ++i) {
        UniqueFd fd = connect_tcp(Endpoint{host, port}, kConnectTimeout, half.side.socket_buffer);
        write_all(fd.get(), std::string_view(reinterpret_cast<const char*>(&token), sizeof(token)), kConnectTimeout);
        set_receive_timeout(fd.get(), kStallTimeout);
        out.emplace_back(std::in_place_type<UniqueFd>, std::move(fd));
    }
    return out;
}

std::string local_address_of(const DataConnection& c) {
    if (int fd = tcp_fd(c); fd >= 0) return local_address(fd);
#if ZCPERF_WITH_RDMA
    if (auto* rs = std::get_if<RsocketFd>(&c); rs && *rs) {
        sockaddr_storage ss{};
        socklen_t len = sizeof(ss);
        if (::rgetsockname(rs->get(), reinterpret_cast<sockaddr*>(&ss), &len) == 0) return sockaddr_text(ss);
    }
    if (auto* r = std::get_if<RdmaConnectionPtr>(&c); r && *r) return (*r)->local_address();
#endif
    return {};
}

}  // namespace zc
