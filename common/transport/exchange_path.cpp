#include "transport/exchange_path.hpp"

#include <stdexcept>

#include "memory/gpu_path.hpp"
#include "transport/data_path.hpp"

namespace zc {

std::string exchange_spec_problem(TestKind test, Transport transport, RxMode rx, uint64_t total_bytes, uint32_t batch) {
    if (!is_message_test(test)) return "";
    std::string name = test_name(test);
    if (transport != Transport::tcp) {
        return name + " runs over the tcp transport (send/recv); " + transport_name(transport) +
               " is a bulk sender path for stream and maerts";
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

void make_exchange_path(ExchangePath& path, const ServerSpec& half, Role role, int fd, LatencyHistogram& rtt) {
    if (std::string why = exchange_spec_problem(half.test, half.transport, half.rx, half.total_bytes, half.batch);
        !why.empty()) {
        throw std::runtime_error(why);
    }
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

uint64_t exchange_buffer_bytes(TestKind test, Role role, uint64_t message_size, const BufferSpec& buffer) {
    if (test == TestKind::msgrate && role == Role::recv) return TcpMsgRateReceiver::kChunk;
    if (buffer.gpu_like()) return 2 * message_size;  // rr: the GPU message and its pinned bounce slot
    return message_size;  // rr: one buffer for both directions; msgrate sender: one message
}

}  // namespace zc
