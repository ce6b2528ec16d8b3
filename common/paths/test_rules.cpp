#include "paths/test_rules.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/gpu_path.hpp"
#include "rdma/wire.hpp"
#include "tcp/send_ring.hpp"
#include "socket/staged_stream.hpp"
#include "tcp/tcp_msgrate.hpp"
#include "paths/udp_rules.hpp"

namespace zc {

namespace {

// The rules of the message tests (rr, msgrate) that do not depend on memory.
std::string message_test_problem(const ServerSpec& h, const TransportInfo& t) {
    std::string name = test_name(h.test);
    const bool verbs = t.kind == TransportKind::verbs;
    if (!(t.tests & bit(h.test))) {
        if (t.no_message_tests) return name + " over " + t.name + " is not offered: " + t.no_message_tests;
        return name + " runs over the tcp transport (send/recv) or rsocket, rdma-send, rdma-write; " + t.name +
               " is a bulk sender path for stream and maerts";
    }
    if (h.batch != 1 && t.id != Transport::tcp && t.id != Transport::udp) {
        return "--batch is sendmmsg() (tcp, udp); over " + std::string(t.name) +
               (verbs ? " chain work requests with --postlist N instead" : " there is no batched send");
    }
    if (verbs && h.test == TestKind::rr && h.rdma.qps != 1) {
        return "rr keeps one message in flight per transaction, on one QP: --qps must be 1 (use -P N for N "
               "connections, each with its own QP)";
    }
    if (verbs && h.test == TestKind::rr && h.rdma.postlist != 1) {
        return "--postlist chains the work requests of many messages; rr has one message per transaction (use "
               "-t msgrate for --postlist)";
    }
    if (h.rx != RxMode::copy && !(t.kind == TransportKind::udp && h.test == TestKind::msgrate)) {
        return name + " receives with recv (--rx copy); --rx " + rx_mode_name(h.rx) + " is for stream and maerts";
    }
    if (h.total_bytes > 0) return name + " runs for a time (-l SECONDS); -n BYTES is for stream and maerts";
    if (h.test == TestKind::rr && h.batch != 1)
        return "--batch is for -t msgrate; rr has one message in flight per transaction";
    if (h.batch < 1 || h.batch > kMaxBatch) return "--batch must be 1.." + std::to_string(kMaxBatch);
    return "";
}

// This side's --buffer for the role it plays.
std::string memory_problem(const ServerSpec& h, Role role, const TransportInfo& t) {
    const BufferSpec& b = h.side.buffer;
    if (h.test == TestKind::msgrate) return msgrate_buffer_problem(b);
    if (h.test == TestKind::rr && b.simulated()) {
        return "--buffer sim-gpu (a test kind) stages stream tests only; rr stages GPU memory with CUDA";
    }
    if (h.test == TestKind::rr && t.kind != TransportKind::tcp && b.kind != MemoryKind::host) {
        return "--buffer " + buffer_spec_name(b) +
               " with rr runs over -T tcp (staged through pinned memory); RDMA "
               "message tests use host memory";
    }
    // A TCP receiver is chosen by --rx: only recv (copy) lands the data in the buffer.
    if (role == Role::recv && t.kind == TransportKind::tcp && !is_message_test(h.test)) {
        if (b.kind != MemoryKind::host && h.rx != RxMode::copy) {
            return "the receiver's --buffer " + buffer_spec_name(b) + " works with --rx copy, not --rx " +
                   rx_mode_name(h.rx) + " (it maps, splices or drops the data instead of landing it in the buffer)";
        }
    } else if (!(t.buffers & bit(b.kind))) {
        return std::string(role == Role::send ? "the sender's" : "the receiver's") + " --buffer " +
               buffer_spec_name(b) +
               " works with -T tcp, rsocket (GPU memory, staged) and the verbs transports (rdma-write, rdma-send, "
               "rdma-read), not " +
               t.name + ": it hands the kernel or the NIC its own host pages";
    }
    if (b.gpu_like()) {
        try {
            resolve_gpu_path(h.side.gpu_path, t.gpu_direct, t.name);
        } catch (const std::invalid_argument& e) {
            return e.what();
        }
    }
    return "";
}

// A verbs receiver's ring of slots, bounded to 64 MiB per stream, 2 slots at least (rdma/wire.hpp).
uint64_t rdma_ring_bytes(uint64_t message_size) {
    return std::max<uint64_t>(2 * message_size, std::min<uint64_t>(64ull << 20, 128 * message_size));
}

}  // namespace

std::string spec_problem(const ServerSpec& half, Role role) {
    const TransportInfo& t = transport_info(half.transport);
    if (half.rdma.thread_domains && t.kind != TransportKind::verbs) {
        return "--thread-domains is for the verbs transports (rdma-write, rdma-send, rdma-read), whose threads post "
               "work requests themselves; " +
               std::string(t.name) + " has no queue pairs of ours to put in one";
    }
    if (is_message_test(half.test)) {
        if (std::string why = message_test_problem(half, t); !why.empty()) return why;
    }
    if (t.kind == TransportKind::udp) return udp_spec_problem(half, role);
    if (std::string why = udp_options_problem(half); !why.empty()) return why;
    return memory_problem(half, role, t);
}

std::string spec_problem(const TestSpec& spec) {
    if (std::string why = spec_problem(side_half(spec, spec.local), client_role(spec.test)); !why.empty()) return why;
    return spec_problem(side_half(spec, spec.remote), server_role(spec.test));
}

// msgrate measures how many small messages per second the send/recv calls move. With GPU memory
// each message would need its own staging copy (a CUDA call costs ~4 us, 10x a small send), so the
// figure would be the copy engine's call rate, not the path's message rate; batching the copies (as
// the staged stream does) would make it the stream's figure again. Neither is a message rate, so
// msgrate refuses rather than report one of them under its name.
std::string msgrate_buffer_problem(const BufferSpec& b) {
    if (b.kind == MemoryKind::host) return "";
    return "--buffer " + buffer_spec_name(b) +
           " is for stream, maerts and rr; msgrate uses host memory (a staged "
           "GPU message would measure one CUDA copy per message, ~4 us each, not the path's message rate; "
           "use -t stream for staged GPU throughput or -t rr for its per-message cost)";
}

// The verbs transports post work requests on memory regions, and a memory region can be GPU memory
// (ibv_reg_dmabuf_mr on the allocation's dmabuf): whether this host's NIC, driver and GPU accept
// it is known only when the side registers (RdmaConnection::open_device), which falls back or fails
// as --gpu-path says. The socket paths (TCP, rsockets) hand bytes to a socket call that copies
// through CPU-addressable pages: never.
bool path_can_dma_gpu(Transport t) { return transport_info(t).gpu_direct; }

uint64_t buffer_bytes(const ServerSpec& h, Role role) {
    const TransportInfo& t = transport_info(h.transport);
    if (t.kind == TransportKind::udp) return udp_buffer_bytes(h, role);
    const uint64_t m = h.message_size;
    const bool sending = role == Role::send;
    const BufferSpec& b = h.side.buffer;
    if (is_message_test(h.test)) {
        if (h.test == TestKind::msgrate && !sending && t.kind == TransportKind::verbs) {
            // The receiver's ring of at least rdma_wire::kMsgrateWindow slots per QP.
            uint32_t window = std::max(h.rdma.tx_depth, rdma_wire::kMsgrateWindow);
            return uint64_t(h.rdma.qps) * rdma_wire::slots_per_qp(window, h.rdma.qps, m) * m;
        }
        if (h.test == TestKind::msgrate && !sending) return TcpMsgRateReceiver::kChunk;
        if (b.gpu_like()) return 2 * m;  // rr: the GPU message and its pinned bounce slot
        return m;                        // rr: one buffer for both directions; msgrate sender: one message
    }
    if (b.gpu_like()) {
        if (t.kind == TransportKind::verbs) {
            // Staged (the worst case; direct needs less): the registered host ring of bounce slots,
            // on both sides, plus the GPU memory (the sender's message, the receiver's ring).
            uint64_t ring = rdma_ring_bytes(m);
            return ring + (sending ? m : ring);
        }
        // Socket paths: the pinned bounce slots plus the GPU buffer they stage (staged_stream.hpp).
        StageShape s = stage_shape(m);
        return s.host_bytes() + s.gpu_bytes(m);
    }
    if (t.kind != TransportKind::tcp) return sending ? m : rdma_ring_bytes(m);
    if (sending) return m * (t.send_buffer == SendBuffer::zc_ring ? SendRing::slots_for(m) : 1);  // file: the memfd
    switch (h.rx) {
        case RxMode::copy:
            return m;
        case RxMode::zerocopy:
            return m + std::min<uint64_t>(m, 1 << 20);
        case RxMode::splice:
            return std::min<uint64_t>(std::max<uint64_t>(m, 65536), 1 << 20);  // the pipe
        case RxMode::trunc:
            return 0;
        case RxMode::mmsg:
        case RxMode::gro:
            break;  // UDP's (above)
    }
    return m;
}

}  // namespace zc
