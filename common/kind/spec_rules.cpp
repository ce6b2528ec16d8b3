#include "kind/spec_rules.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/gpu_path.hpp"
#include "kind/kind_module.hpp"
#include "socket/staged_stream.hpp"

namespace zc {

namespace {

// The rules of the message tests (rr, msgrate) that do not depend on memory.
std::string message_test_problem(const HalfSpec& h, const TransportInfo& t) {
    std::string name = workload_name(h.test);
    if (!(t.tests & bit(h.test))) {
        auto runs_it = [&](const TransportInfo& r) { return (r.tests & bit(h.test)) != 0; };
        if (is_connection_test(h.test)) {
            return name +
                   " opens a TCP connection per transaction (the kernel's connect and accept are what it "
                   "measures): it runs over -T " +
                   transport_names_where(runs_it) + ", not " + t.name;
        }
        if (t.no_message_tests) return name + " over " + t.name + " is not offered: " + t.no_message_tests;
        return name + " runs over " +
               transport_names_where([&](const TransportInfo& r) { return (r.tests & bit(h.test)) != 0; }) + "; " +
               t.name + " is a bulk sender path for stream and maerts";
    }
    if (h.test == Workload::rr && h.batch != 1)
        return "--batch is for -t msgrate; rr has one message in flight per transaction";
    if (h.batch != 1 && !(t.batch_tests & bit(h.test))) {
        auto batches = [&](const TransportInfo& r) { return (r.batch_tests & bit(h.test)) != 0; };
        return "--batch is sendmmsg() (" + transport_names_where(batches) + "); over " + std::string(t.name) +
               (transport_ops(t.id).messages_per_call ? " chain work requests with --postlist N instead"
                                                      : " there is no batched send");
    }
    // A kind's receive mode may serve its message test's receiver too (its RxModeRow's tests).
    if (const RxModeRow* m = rx_mode_row(t, h.rx); h.rx != RxMode::copy && !(m && (m->tests & bit(h.test)))) {
        return name + " receives with recv (--rx copy); --rx " + rx_mode_name(h.rx) + " is for stream and maerts";
    }
    if (h.total_bytes > 0) return name + " runs for a time (-l SECONDS); -n BYTES is for stream and maerts";
    if (h.batch < 1 || h.batch > kMaxBatch) return "--batch must be 1.." + std::to_string(kMaxBatch);
    return "";
}

// This side's --buffer for the role it plays.
std::string memory_problem(const HalfSpec& h, Role role, const TransportInfo& t) {
    const BufferSpec& b = h.side.buffer;
    if (h.test == Workload::msgrate) return msgrate_buffer_problem(b);
    if (is_connection_test(h.test) && b.kind != MemoryKind::host) {
        return workload_name(h.test) +
               std::string(" uses host memory (its cost is the connection, not the data); --buffer ") +
               buffer_spec_name(b) + " is for stream, maerts and rr";
    }
    if (h.test == Workload::rr && b.simulated()) {
        return "--buffer sim-gpu (a test kind) stages stream tests only; rr stages GPU memory with CUDA";
    }
    if (h.test == Workload::rr && !(t.message_buffers & bit(b.kind))) {
        return "--buffer " + buffer_spec_name(b) + " with rr runs over -T " +
               transport_names_where([&](const TransportInfo& r) { return (r.message_buffers & bit(b.kind)) != 0; }) +
               " (staged through pinned memory); " + t.name + " runs rr in host memory";
    }
    // A receiver chosen by --rx (its kind's rows): only those that land the data take other memory.
    if (role == Role::recv && !transport_ops(t.id).rx_modes.empty() && !is_message_test(h.test)) {
        if (b.kind != MemoryKind::host && !rx_mode_row(t, h.rx)->lands_in_buffer) {
            return "the receiver's --buffer " + buffer_spec_name(b) + " works with --rx copy, not --rx " +
                   rx_mode_name(h.rx) + " (it maps, splices or drops the data instead of landing it in the buffer)";
        }
    } else if (!(t.buffers & bit(b.kind))) {
        return std::string(role == Role::send ? "the sender's" : "the receiver's") + " --buffer " +
               buffer_spec_name(b) + " works with -T " +
               transport_names_where([&](const TransportInfo& r) { return (r.buffers & bit(b.kind)) != 0; }) +
               ", not " + t.name + ": it hands the kernel or the NIC its own host pages";
    }
    if (b.gpu_like()) {
        try {
            resolve_gpu_path(h.side.gpu_path, t.gpu_direct, t.name, t.tcp_sockets);
        } catch (const std::invalid_argument& e) {
            return e.what();
        }
    }
    return "";
}

}  // namespace

uint64_t rdma_ring_bytes(uint64_t message_size) {
    return std::max<uint64_t>(2 * message_size, std::min<uint64_t>(64ull << 20, 128 * message_size));
}

uint64_t staged_socket_bytes(uint64_t message_size) {
    StageShape s = stage_shape(message_size);
    return s.host_bytes() + s.gpu_bytes(message_size);
}

uint64_t message_test_bytes(const HalfSpec& h, Role role) {
    if (h.test == Workload::msgrate && role == Role::recv) return kMsgrateReceiveChunk;
    if (h.side.buffer.gpu_like()) return 2 * h.message_size;  // rr: the GPU message and its pinned bounce slot
    return h.message_size;  // rr: one buffer for both directions; msgrate sender: one message
}

// -b, every kind's: on a test whose loop keeps its own clock ("" when none). Every stream loop asks the stop
// rule, which paces (core/stream_counters.hpp); a message loop keeps its own clock unless its row's paced_tests
// say otherwise, so a -b it would ignore is refused, not passed.
std::string pacing_problem(const HalfSpec& h, const TransportInfo& t) {
    if (!h.bitrate || (t.paced_tests & bit(h.test))) return "";
    std::string out = std::string("-b paces a stream (stream, maerts); ") + t.name + "'s " + workload_name(h.test) +
                      " runs as fast as its " + (h.test == Workload::msgrate ? "calls go" : "transactions go");
    auto paces = [&](const TransportInfo& r) { return (r.paced_tests & bit(h.test)) != 0; };
    if (std::string rows = transport_names_where(paces); !rows.empty())
        out += std::string(" (-b paces ") + workload_name(h.test) + " over -T " + rows + ")";
    return out;
}

std::string spec_problem(const HalfSpec& half, Role role) {
    const TransportInfo& t = transport_info(half.transport);
    for (const KindModule* m : kind_modules())  // each kind's rules over its own options, on any kind's half
        if (m->half_problem)
            if (std::string why = m->half_problem(half, role); !why.empty()) return why;
    if (is_message_test(half.test)) {
        if (std::string why = message_test_problem(half, t); !why.empty()) return why;
    }
    if (std::string why = rx_mode_problem(half); !why.empty()) return why;
    if (auto kind_problem = transport_ops(t.id).kind_problem)  // the kind's own rules, its parameters' among them
        if (std::string why = kind_problem(half, role); !why.empty()) return why;
    if (std::string why = pacing_problem(half, t); !why.empty()) return why;
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

uint64_t buffer_bytes(const HalfSpec& h, Role role) { return transport_ops(h.transport).buffer_bytes(h, role); }

}  // namespace zc
