#pragma once
// Request/response over TCP (netperf's TCP_RR): the initiator sends one message and waits for the
// whole answer; the responder waits for a whole request and answers it. Blocking calls with
// TCP_NODELAY, so per transaction a side makes one send() and the recv()s the message needs (one for
// anything that arrives at once), and the initiator reads the clock twice (vDSO) and records the
// round trip in its histogram: no other syscall, allocation or virtual call per transaction.
// Each side has one buffer for both directions: the order is strict, so they never overlap. With
// GPU memory (--buffer cuda) that buffer is on the GPU and each message is staged through a pinned
// slot on its way out and in (rr_message.hpp): two synchronous copies per transaction per side.
// Large messages (up to 1 GiB): TCP takes any length in one send() and cuts the segments itself, so
// its "pieces" are only what a signal leaves (the loops resume where a call stopped); a transport
// with a largest message (verbs' max_msg_sz) sends in pieces of at most that instead.
#include <sys/socket.h>

#include <cstddef>
#include <cstdint>

#include "measure/latency_histogram.hpp"
#include "memory/host_buffer.hpp"
#include "socket/rr_message.hpp"
#include "core/stream_counters.hpp"

namespace zc {

// TCP_NODELAY on: a message goes out when it is handed over, not when Nagle lets it.
void set_no_delay(int fd);
// Data segments the connection sent (out) or received, in MSS units (TCP_INFO; 0 if unknown).
uint64_t tcp_data_segments(int fd, bool out);

// The calls the rr loops make on their descriptor, as a policy (no virtual call): the kernel's
// sockets here; rsockets' rsend/rrecv in rdma/rsocket_rr.cpp, so -T rsocket runs the same loops.
struct KernelSockets {
    static ssize_t send(int fd, const void* b, size_t n) { return ::send(fd, b, n, MSG_NOSIGNAL); }
    // MSG_WAITALL: the kernel fills the whole message in one call however many segments it takes.
    static ssize_t recv(int fd, void* b, size_t n) { return ::recv(fd, b, n, MSG_WAITALL); }
    static void shutdown_write(int fd) { ::shutdown(fd, SHUT_WR); }
    static void no_delay(int fd) { set_no_delay(fd); }
    static uint64_t segments(int fd, bool out) { return tcp_data_segments(fd, out); }
    static constexpr const char* send_call = "send";
    static constexpr const char* recv_call = "recv";
};

// Memory: where the message lives (rr_message.hpp): HostRrMessage (host or pinned memory, used in
// place) or GpuRrMessage (GPU memory staged through a pinned slot). `where` is the side's --buffer.
template <typename Memory, typename Api = KernelSockets>
class TcpRrInitiatorOn {
public:
    // Sets TCP_NODELAY and prepares `rtt` (both before the measured interval).
    TcpRrInitiatorOn(int fd, size_t message_size, size_t alignment, LatencyHistogram& rtt,
                     const BufferSpec& where = {});
    // Transactions until the deadline (at least one), then shuts the write side down: the responder
    // sees the end between two requests. Counts bytes received and calls; messages = transactions.
    StreamCounters run(const StopRule& stop);
    const HostBuffer& buffer() const { return mem_.buffer(); }
    const Memory& memory() const { return mem_; }

private:
    int fd_;
    Memory mem_;
    LatencyHistogram& rtt_;
};

template <typename Memory, typename Api = KernelSockets>
class TcpRrResponderOn {
public:
    TcpRrResponderOn(int fd, size_t message_size, size_t alignment, const BufferSpec& where = {});
    // Answers every whole request until the initiator ends the connection; messages = answers sent.
    StreamCounters run(const StopRule& stop);
    const HostBuffer& buffer() const { return mem_.buffer(); }
    const Memory& memory() const { return mem_; }

private:
    int fd_;
    Memory mem_;
};

// Both are instantiated in socket_rr.cpp, for these two memories only.
extern template class TcpRrInitiatorOn<HostRrMessage>;
extern template class TcpRrResponderOn<HostRrMessage>;
extern template class TcpRrInitiatorOn<GpuRrMessage>;
extern template class TcpRrResponderOn<GpuRrMessage>;
using TcpRrInitiator = TcpRrInitiatorOn<HostRrMessage>;
using TcpRrResponder = TcpRrResponderOn<HostRrMessage>;
using TcpRrGpuInitiator = TcpRrInitiatorOn<GpuRrMessage>;
using TcpRrGpuResponder = TcpRrResponderOn<GpuRrMessage>;

}  // namespace zc
