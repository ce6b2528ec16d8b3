#include "transport/data_path.hpp"

#include <algorithm>
#include <stdexcept>

#include "transport/tcp_socket.hpp"

namespace zc {

namespace {

HostMemory host_memory(const BufferSpec& b) { return b.kind == MemoryKind::pinned ? HostMemory::pinned : HostMemory::pageable; }

// Buffer memory other than pageable host memory is for the copy paths (send/recv) only: the
// others hand the kernel page-cache, pipe or mapped pages, which GPU or pinned memory cannot be.
void require_copy_path(const BufferSpec& b, bool copy_path, const std::string& path) {
    if (b.kind == MemoryKind::host || copy_path) return;
    throw std::invalid_argument("--buffer " + buffer_spec_name(b) + " works with the copying paths only (-T tcp, --rx copy), not " +
                                path + "; use -T tcp / --rx copy for " + buffer_spec_name(b) + " buffers");
}

// GPU memory over TCP is always staged; asking for direct is an error that says so.
bool staged(const PathOptions& o, Transport t) {
    if (!o.buffer.gpu_like()) return false;
    resolve_gpu_path(o.gpu_path, path_can_dma_gpu(t), transport_name(t));
    return true;
}

}  // namespace

// The verbs transports post work requests on memory regions, and a memory region can be GPU memory
// (ibv_reg_dmabuf_mr on the allocation's dmabuf): whether this host's NIC, driver and GPU accept
// it is known only when the side registers (RdmaConnection::open_device), which falls back or fails
// as --gpu-path says. The socket paths (TCP, rsockets) hand bytes to a socket call that copies
// through CPU-addressable pages: never.
bool path_can_dma_gpu(Transport t) {
    return t == Transport::rdma_write || t == Transport::rdma_send || t == Transport::rdma_read;
}

void make_send_path(SendPath& path, Transport t, int fd, const PathOptions& o) {
    require_copy_path(o.buffer, t == Transport::tcp, transport_name(t));
    switch (t) {
        case Transport::tcp:
            if (staged(o, t)) {
                if (o.buffer.simulated()) path.emplace<TcpSimStagedSender>(fd, o.message_size, o.alignment, 0);
                else path.emplace<TcpStagedSender>(fd, o.message_size, o.alignment, o.buffer.device);
            } else {
                path.emplace<TcpCopySender>(fd, o.message_size, o.alignment, host_memory(o.buffer));
            }
            return;
        case Transport::tcp_sendfile: path.emplace<TcpSendfileSender>(fd, o.message_size); return;
        case Transport::tcp_msgzc: path.emplace<TcpMsgZerocopySender>(fd, o.message_size, o.alignment); return;
        case Transport::tcp_uringzc: path.emplace<TcpUringZcSender>(fd, o.message_size, o.alignment, o.uring_fixed); return;
        default: break;  // RDMA: make_rdma_send_path
    }
    throw std::logic_error("make_send_path: unhandled transport");
}

void make_recv_path(RecvPath& path, RxMode m, int fd, const PathOptions& o) {
    require_copy_path(o.buffer, m == RxMode::copy, std::string("--rx ") + rx_mode_name(m));
    set_receive_low_water(fd, o.rcv_lowat);
    switch (m) {
        case RxMode::copy:
            if (staged(o, Transport::tcp)) {
                if (o.buffer.simulated()) path.emplace<TcpSimStagedReceiver>(fd, o.message_size, o.alignment, 0);
                else path.emplace<TcpStagedReceiver>(fd, o.message_size, o.alignment, o.buffer.device);
            } else {
                path.emplace<TcpCopyReceiver>(fd, o.message_size, o.alignment, host_memory(o.buffer));
            }
            return;
        case RxMode::zerocopy: path.emplace<TcpZerocopyReceiver>(fd, o.message_size); return;
        case RxMode::splice: path.emplace<TcpSpliceReceiver>(fd, o.message_size); return;
        case RxMode::trunc: path.emplace<TcpTruncReceiver>(fd, o.message_size); return;
    }
    throw std::logic_error("make_recv_path: unhandled mode");
}

uint64_t path_buffer_bytes(bool sending, Transport t, RxMode m, uint64_t message_size, const BufferSpec& buffer) {
    if (buffer.gpu_like()) {
        if (is_verbs(t)) {
            // Staged (the worst case; direct needs less): the registered host ring of bounce slots,
            // on both sides, plus the GPU memory (the sender's message, the receiver's ring).
            uint64_t ring = std::max<uint64_t>(2 * message_size, std::min<uint64_t>(64ull << 20, 128 * message_size));
            return ring + (sending ? message_size : ring);
        }
        // Socket paths: the pinned bounce slots plus the GPU buffer they stage (tcp_gpu_staged.hpp).
        StageShape s = stage_shape(message_size);
        return s.host_bytes() + s.gpu_bytes(message_size);
    }
    // RDMA receivers hold a ring of slots per stream, bounded to 64 MiB (rdma/wire.hpp), 2 slots at least.
    if (is_rdma(t)) return sending ? message_size : std::max<uint64_t>(2 * message_size, std::min<uint64_t>(64ull << 20, 128 * message_size));
    if (sending) {
        bool ring = t == Transport::tcp_msgzc || t == Transport::tcp_uringzc;
        return message_size * (ring ? SendRing::slots_for(message_size) : 1);  // sendfile: the memfd
    }
    switch (m) {
        case RxMode::copy: return message_size;
        case RxMode::zerocopy: return message_size + std::min<uint64_t>(message_size, 1 << 20);
        case RxMode::splice: return std::min<uint64_t>(std::max<uint64_t>(message_size, 65536), 1 << 20);  // the pipe
        case RxMode::trunc: return 0;
    }
    return message_size;
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

StreamCounters run_send_path(SendPath& path, const StopRule& stop) {
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

StreamCounters run_recv_path(RecvPath& path, const StopRule& stop) {
    return std::visit(
        [&](auto& p) -> StreamCounters {
            if constexpr (std::is_same_v<std::decay_t<decltype(p)>, std::monostate>) {
                return {};
            } else if constexpr (requires { p.run(stop); }) {
                return p.run(stop);
            } else {
                return p.run();
            }
        },
        path);
}

}  // namespace zc
