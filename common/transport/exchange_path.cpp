#include "transport/exchange_path.hpp"

#include <algorithm>
#include <stdexcept>

#include "rdma/wire.hpp"
#include "transport/transport_registry.hpp"

#include "memory/gpu_path.hpp"
#include "transport/data_path.hpp"

namespace zc {

std::string exchange_spec_problem(TestKind test, Transport transport, RxMode rx, uint64_t total_bytes, uint32_t batch,
                                  const RdmaOptions& rdma) {
    if (rdma.thread_domains && !is_verbs(transport)) {
        return "--thread-domains is for the verbs transports (rdma-write, rdma-send, rdma-read), whose threads post "
               "work requests themselves; " + std::string(transport_name(transport)) + " has no queue pairs of ours "
               "to put in one";
    }
    if (!is_message_test(test)) return "";
    std::string name = test_name(test);
    const bool verbs = transport == Transport::rdma_send || transport == Transport::rdma_write;
    if (transport == Transport::rsocket_iomap) {
        return name + " over rsocket-iomap is not offered: riowrite lands data in a ring the receiver mapped, and each "
               "message then needs a notice (rsend) to say it is there, so every message is two transfers, a bulk "
               "path's trade. Use -T rsocket (rsend/rrecv) or -T rdma-write (one-sided writes, nothing else)";
    }
    if (transport == Transport::rdma_read) {
        return name + " over rdma-read is not offered: an RDMA READ is one-sided, the side whose memory is read never "
               "sees a message, so there is nobody to answer or count (ib_read_lat times one read's round trip). Use "
               "-T rdma-send or -T rdma-write";
    }
    if (test == TestKind::msgrate && transport == Transport::rsocket) {
        return "msgrate over rsocket is not offered: rsockets copy each rsend into their own buffer and send in "
               "chunks of up to 64 KiB, so small messages are coalesced and their rate is a stream's. Use -T tcp, "
               "rdma-send or rdma-write";
    }
    if (transport != Transport::tcp && transport != Transport::rsocket && !verbs) {
        return name + " runs over the tcp transport (send/recv) or rsocket, rdma-send, rdma-write; " +
               transport_name(transport) + " is a bulk sender path for stream and maerts";
    }
    if (batch != 1 && transport != Transport::tcp) {
        return "--batch is TCP's sendmmsg(); over " + std::string(transport_name(transport)) +
               (verbs ? " chain work requests with --postlist N instead" : " there is no batched send");
    }
    if (verbs && test == TestKind::rr && rdma.qps != 1) {
        return "rr keeps one message in flight per transaction, on one QP: --qps must be 1 (use -P N for N "
               "connections, each with its own QP)";
    }
    if (verbs && test == TestKind::rr && rdma.postlist != 1) {
        return "--postlist chains the work requests of many messages; rr has one message per transaction (use "
               "-t msgrate for --postlist)";
    }
    if (rx != RxMode::copy) {
        return name + " receives with recv (--rx copy); --rx " + rx_mode_name(rx) + " is for stream and maerts";
    }
    if (total_bytes > 0) return name + " runs for a time (-l SECONDS); -n BYTES is for stream and maerts";
    if (test == TestKind::rr && batch != 1) return "--batch is for -t msgrate; rr has one message in flight per transaction";
    if (batch < 1 || batch > kMaxBatch) return "--batch must be 1.." + std::to_string(kMaxBatch);
    return "";
}

// msgrate measures how many small messages per second the send/recv calls move. With GPU memory
// each message would need its own staging copy (a CUDA call costs ~4 us, 10x a small send), so the
// figure would be the copy engine's call rate, not the path's message rate; batching the copies (as
// the staged stream does) would make it the stream's figure again. Neither is a message rate, so
// msgrate refuses rather than report one of them under its name.
std::string msgrate_buffer_problem(const BufferSpec& b) {
    if (b.kind == MemoryKind::host) return "";
    return "--buffer " + buffer_spec_name(b) + " is for stream, maerts and rr; msgrate uses host memory (a staged "
           "GPU message would measure one CUDA copy per message, ~4 us each, not the path's message rate; "
           "use -t stream for staged GPU throughput or -t rr for its per-message cost)";
}

void make_exchange_path(ExchangePath& path, const ServerSpec& half, Role role, DataConnection& conn, LatencyHistogram& rtt) {
    if (std::string why = exchange_spec_problem(half.test, half.transport, half.rx, half.total_bytes, half.batch, half.rdma);
        !why.empty()) {
        throw std::runtime_error(why);
    }
    if (is_rdma(half.transport)) return make_rdma_exchange_path(path, half, role, conn, rtt);
    make_exchange_path(path, half, role, tcp_fd(conn), rtt);
}

void make_exchange_path(ExchangePath& path, const ServerSpec& half, Role role, int fd, LatencyHistogram& rtt) {
    if (std::string why = exchange_spec_problem(half.test, half.transport, half.rx, half.total_bytes, half.batch, half.rdma);
        !why.empty()) {
        throw std::runtime_error(why);
    }
    if (is_rdma(half.transport)) throw std::logic_error("make_exchange_path: an RDMA path needs its data connection");
    size_t size = half.message_size;
    size_t align = half.alignment;
    const BufferSpec& where = half.side.buffer;
    if (where.simulated() && half.test == TestKind::rr) {
        throw std::runtime_error("--buffer sim-gpu (a test kind) stages stream tests only; rr stages GPU memory with CUDA");
    }
    if (half.test == TestKind::rr) {
        if (where.on_gpu()) {
            // TCP only stages GPU memory; asking for direct is an error that says so.
            resolve_gpu_path(half.side.gpu_path, path_can_dma_gpu(Transport::tcp), transport_name(Transport::tcp));
            if (role == Role::send) path.emplace<TcpRrGpuInitiator>(fd, size, align, rtt, where);
            else path.emplace<TcpRrGpuResponder>(fd, size, align, where);
        } else {
            if (role == Role::send) path.emplace<TcpRrInitiator>(fd, size, align, rtt, where);
            else path.emplace<TcpRrResponder>(fd, size, align, where);
        }
    } else {
        if (where.kind != MemoryKind::host) throw std::runtime_error(msgrate_buffer_problem(where));
        if (role == Role::send) path.emplace<TcpMsgRateSender>(fd, size, align, half.batch);
        else path.emplace<TcpMsgRateReceiver>(fd, size, align);
    }
}

const HostBuffer* buffer_of(const ExchangePath& path) {
    return std::visit(
        [](const auto& p) -> const HostBuffer* {
            if constexpr (requires { p.buffer(); }) return &p.buffer();
            else return nullptr;
        },
        path);
}

StreamCounters run_exchange_path(ExchangePath& path, const StopRule& stop) {
    return std::visit(
        [&](auto& p) -> StreamCounters {
            using P = std::decay_t<decltype(p)>;
            if constexpr (std::is_same_v<P, std::monostate>) return {};
            else if constexpr (requires { p.run(stop); }) return p.run(stop);
            else return p.run();
        },
        path);
}

uint64_t exchange_buffer_bytes(TestKind test, Role role, uint64_t message_size, const BufferSpec& buffer, Transport transport,
                               const RdmaOptions& rdma) {
    if (test == TestKind::msgrate && role == Role::recv && is_verbs(transport)) {
        uint32_t window = std::max(rdma.tx_depth, rdma_wire::kMsgrateWindow);
        return uint64_t(rdma.qps) * rdma_wire::slots_per_qp(window, rdma.qps, message_size) * message_size;
    }
    if (test == TestKind::msgrate && role == Role::recv) return TcpMsgRateReceiver::kChunk;
    if (buffer.gpu_like()) return 2 * message_size;  // rr: the GPU message and its pinned bounce slot
    return message_size;  // rr: one buffer for both directions; msgrate sender: one message
}

}  // namespace zc
