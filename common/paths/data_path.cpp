#include "paths/data_path.hpp"

#include <algorithm>
#include <stdexcept>

#include "tcp/tcp_socket.hpp"
#include "paths/test_rules.hpp"

namespace zc {

namespace {

HostMemory host_memory(const BufferSpec& b) {
    return b.kind == MemoryKind::pinned ? HostMemory::pinned : HostMemory::pageable;
}

void require_runnable(const ServerSpec& h, Role role) {
    if (std::string why = spec_problem(h, role); !why.empty()) throw std::runtime_error(why);
}

}  // namespace

// GPU memory over TCP is always staged (spec_problem refused --gpu-path direct).
void make_send_path(SendPath& path, const ServerSpec& h, int fd) {
    require_runnable(h, Role::send);
    const size_t m = h.message_size, align = h.alignment;
    const BufferSpec& b = h.side.buffer;
    switch (h.transport) {
        case Transport::tcp:
            if (b.simulated())
                path.emplace<TcpSimStagedSender>(fd, m, align, 0);
            else if (b.on_gpu())
                path.emplace<TcpStagedSender>(fd, m, align, b.device);
            else
                path.emplace<TcpCopySender>(fd, m, align, host_memory(b));
            return;
        case Transport::tcp_sendfile:
            path.emplace<TcpSendfileSender>(fd, m);
            return;
        case Transport::tcp_msgzc:
            path.emplace<TcpMsgZerocopySender>(fd, m, align);
            return;
        case Transport::tcp_uringzc:
            path.emplace<TcpUringZcSender>(fd, m, align, h.uring_fixed);
            return;
        case Transport::udp:
        case Transport::udp_gso:
        case Transport::udp_msgzc:
            path.emplace<UdpSender>(fd, udp_send_options(h));
            return;
        default:
            break;  // RDMA: make_rdma_send_path
    }
    throw std::logic_error("make_send_path: " + std::string(transport_name(h.transport)) + " is not a TCP transport");
}

void make_recv_path(RecvPath& path, const ServerSpec& h, int fd) {
    require_runnable(h, Role::recv);
    if (is_rdma(h.transport)) throw std::logic_error("make_recv_path: an RDMA path needs its data connection");
    if (is_udp(h.transport)) {
        path.emplace<UdpReceiver>(fd, udp_recv_options(h));
        return;
    }
    const size_t m = h.message_size, align = h.alignment;
    const BufferSpec& b = h.side.buffer;
    set_receive_low_water(fd, h.rcv_lowat);
    switch (h.rx) {
        case RxMode::copy:
            if (b.simulated())
                path.emplace<TcpSimStagedReceiver>(fd, m, align, 0);
            else if (b.on_gpu())
                path.emplace<TcpStagedReceiver>(fd, m, align, b.device);
            else
                path.emplace<TcpCopyReceiver>(fd, m, align, host_memory(b));
            return;
        case RxMode::zerocopy:
            path.emplace<TcpZerocopyReceiver>(fd, m);
            return;
        case RxMode::splice:
            path.emplace<TcpSpliceReceiver>(fd, m);
            return;
        case RxMode::trunc:
            path.emplace<TcpTruncReceiver>(fd, m);
            return;
        case RxMode::mmsg:
        case RxMode::gro:
            break;  // UDP's (spec_problem refused them over TCP)
    }
    throw std::logic_error("make_recv_path: unhandled mode");
}

void make_send_path(SendPath& path, const ServerSpec& h, DataConnection& conn) {
    if (is_rdma(h.transport)) {
        require_runnable(h, Role::send);
        return make_rdma_send_path(path, h, conn);
    }
    make_send_path(path, h, tcp_fd(conn));
}

void make_recv_path(RecvPath& path, const ServerSpec& h, DataConnection& conn) {
    if (is_rdma(h.transport)) {
        require_runnable(h, Role::recv);
        return make_rdma_recv_path(path, h, conn);
    }
    make_recv_path(path, h, tcp_fd(conn));
}

namespace {
template <typename Variant>
const HostBuffer* buffer_in(const Variant& path) {
    return std::visit(
        [](const auto& p) -> const HostBuffer* {
            if constexpr (requires { p.buffer(); }) {
                return &p.buffer();
            } else {
                return nullptr;
            }
        },
        path);
}
}  // namespace

const HostBuffer* buffer_of(const SendPath& path) { return buffer_in(path); }
const HostBuffer* buffer_of(const RecvPath& path) { return buffer_in(path); }

namespace {
// Every loop, sending or receiving, runs under the stop rule (receivers publish their counts through it).
template <typename Variant>
StreamCounters run_path(Variant& path, const StopRule& stop) {
    return std::visit(
        [&](auto& p) -> StreamCounters {
            if constexpr (std::is_same_v<std::decay_t<decltype(p)>, std::monostate>) {
                return {};
            } else {
                return p.run(stop);
            }
        },
        path);
}
}  // namespace

StreamCounters run_send_path(SendPath& path, const StopRule& stop) { return run_path(path, stop); }
StreamCounters run_recv_path(RecvPath& path, const StopRule& stop) { return run_path(path, stop); }

}  // namespace zc
