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
#include "socket/socket_calls.hpp"
#include "core/stream_counters.hpp"

namespace zc {

// Memory: where the message lives (rr_message.hpp): HostRrMessage (host or pinned memory, used in
// place) or GpuRrMessage (GPU memory staged through a pinned slot). `where` is the side's --buffer.
// Calls: the socket API's policy (socket_calls.hpp): KernelSockets, or rsockets' Rsockets.
template <typename Memory, typename Calls = KernelSockets>
class RrInitiator {
public:
    // Sets TCP_NODELAY and prepares `rtt` (both before the measured interval).
    RrInitiator(int fd, size_t message_size, size_t alignment, LatencyHistogram& rtt, const BufferSpec& where = {});
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

template <typename Memory, typename Calls = KernelSockets>
class RrResponder {
public:
    RrResponder(int fd, size_t message_size, size_t alignment, const BufferSpec& where = {});
    // Answers every whole request until the initiator ends the connection; messages = answers sent.
    StreamCounters run(const StopRule& stop);
    const HostBuffer& buffer() const { return mem_.buffer(); }
    const Memory& memory() const { return mem_; }

private:
    int fd_;
    Memory mem_;
};

// On kernel sockets both are instantiated in socket_rr.cpp, for these two memories only (tcp/tcp_ops.hpp
// names them for TCP); rsockets' in rdma/rsocket_rr.cpp.
extern template class RrInitiator<HostRrMessage>;
extern template class RrResponder<HostRrMessage>;
extern template class RrInitiator<GpuRrMessage>;
extern template class RrResponder<GpuRrMessage>;

}  // namespace zc
