#include "paths/exchange_path.hpp"

#include <algorithm>
#include <stdexcept>

#include "paths/data_path.hpp"
#include "paths/test_rules.hpp"

namespace zc {

void make_exchange_path(ExchangePath& path, const ServerSpec& half, Role role, DataConnection& conn,
                        LatencyHistogram& rtt) {
    if (is_rdma(half.transport)) {
        if (std::string why = spec_problem(half, role); !why.empty()) throw std::runtime_error(why);
        return make_rdma_exchange_path(path, half, role, conn, rtt);
    }
    make_exchange_path(path, half, role, tcp_fd(conn), rtt);
}

void make_exchange_path(ExchangePath& path, const ServerSpec& half, Role role, int fd, LatencyHistogram& rtt) {
    if (std::string why = spec_problem(half, role); !why.empty()) throw std::runtime_error(why);
    if (is_rdma(half.transport)) throw std::logic_error("make_exchange_path: an RDMA path needs its data connection");
    size_t size = half.message_size;
    size_t align = half.alignment;
    const BufferSpec& where = half.side.buffer;
    if (is_udp(half.transport)) {
        if (half.test == TestKind::rr && role == Role::send)
            path.emplace<UdpRrInitiator>(fd, size, align, rtt);
        else if (half.test == TestKind::rr)
            path.emplace<UdpRrResponder>(fd, size, align);
        else if (role == Role::send)
            path.emplace<UdpSender>(fd, udp_send_options(half));
        else
            path.emplace<UdpReceiver>(fd, udp_recv_options(half));
        return;
    }
    if (half.test == TestKind::rr) {
        if (where.on_gpu()) {  // TCP only stages GPU memory (spec_problem refused --gpu-path direct)
            if (role == Role::send)
                path.emplace<TcpRrGpuInitiator>(fd, size, align, rtt, where);
            else
                path.emplace<TcpRrGpuResponder>(fd, size, align, where);
        } else {
            if (role == Role::send)
                path.emplace<TcpRrInitiator>(fd, size, align, rtt, where);
            else
                path.emplace<TcpRrResponder>(fd, size, align, where);
        }
    } else {
        if (role == Role::send)
            path.emplace<TcpMsgRateSender>(fd, size, align, half.batch);
        else
            path.emplace<TcpMsgRateReceiver>(fd, size, align);
    }
}

const HostBuffer* buffer_of(const ExchangePath& path) {
    return std::visit(
        [](const auto& p) -> const HostBuffer* {
            if constexpr (requires { p.buffer(); })
                return &p.buffer();
            else
                return nullptr;
        },
        path);
}

StreamCounters run_exchange_path(ExchangePath& path, const StopRule& stop) {
    return std::visit(
        [&](auto& p) -> StreamCounters {
            using P = std::decay_t<decltype(p)>;
            if constexpr (std::is_same_v<P, std::monostate>)
                return {};
            else
                return p.run(stop);
        },
        path);
}

}  // namespace zc
