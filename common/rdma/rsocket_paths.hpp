#pragma once
// rsockets (librdmacm's socket API over RDMA):
//   rsocket:       rsend/rrecv, the copy path: bytes go through rsockets' registered buffers.
//   rsocket-iomap: the receiver riomap()s a ring of slots; the sender riowrite()s each message into
//                  the next slot, then rsend()s an 8-byte notice (rsockets deliver iowrite data before
//                  any later transfer); the receiver checks the slot, counts it and returns slots as
//                  4-byte credits, so the sender never overwrites a slot not yet taken.
//   rsocket with --buffer cuda[:N] (or the test kind sim-gpu): the staged stream loops of
//                  socket/staged_stream.hpp on rsend/rrecv: the GPU's copy engine fills (drains)
//                  one pinned bounce slot while rsend (rrecv) moves another. rsockets copy through
//                  their own registered buffers, so GPU memory can only be staged (--gpu-path direct
//                  is refused).
// The byte stream carries a pattern (byte k = pattern(k % message size)) the receiver samples.
#include <rdma/rsocket.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "memory/host_buffer.hpp"
#include "protocol/run_spec.hpp"
#include "core/data_connection.hpp"
#include "core/stream_counters.hpp"
#include "rdma/rsocket_fd.hpp"
#include "socket/staged_stream.hpp"
#include "socket/socket_rr.hpp"

namespace zc {

// Waits until rsocket (or plain) fd is ready for `events`, up to `ms`; false on timeout. Always bounded,
// whatever librdmacm's rpoll does with a timeout of its own (rsocket_paths.cpp says why).
bool rsocket_wait_ready(int fd, short events, int ms);

// rsend/rrecv for the loops that take no abort flag (rr, the staged streams): they never wait inside
// librdmacm without end (a dead peer's data or credits never come); like TCP's receive timeout, a call
// that cannot move for 10 s fails with EAGAIN ("is the peer stalled?").
ssize_t rsend_bounded(int fd, const void* p, size_t n);
ssize_t rrecv_bounded(int fd, void* p, size_t n);

// rsockets' calls (socket/socket_calls.hpp's policy) for the loops they share with TCP: rr and the
// staged streams. TCP_NODELAY is set when the rsocket is made (configure()); rsockets keep no segment
// counts (0 is reported) and have no MSG_WAITALL (the rr loops take what arrives until the message is whole).
struct Rsockets {
    static constexpr const char* send_call = "rsend";
    static constexpr const char* recv_call = "rrecv";
    static ssize_t send(int fd, const void* p, size_t n) { return rsend_bounded(fd, p, n); }
    static ssize_t recv(int fd, void* p, size_t n) { return rrecv_bounded(fd, p, n); }
    static ssize_t recv_whole(int fd, void* p, size_t n) { return rrecv_bounded(fd, p, n); }
    static void shutdown(int fd, int how) { ::rshutdown(fd, how); }
    static void no_delay(int) {}
    static uint64_t segments(int, bool) { return 0; }
    static std::byte pattern(uint64_t offset);  // rdma/wire.hpp's, as the host rsocket paths send
    static bool check(const std::byte* p, size_t n, uint64_t at, size_t message_size);
};
template <class Copy>
using RsocketStagedSender = StagedStreamSender<Rsockets, Copy>;  // --buffer cuda (CudaStageCopy), sim-gpu
template <class Copy>
using RsocketStagedReceiver = StagedStreamReceiver<Rsockets, Copy>;

class RsocketSender {
public:
    RsocketSender(int fd, size_t message_size, size_t alignment);
    StreamCounters run(const StopRule& stop);
    const HostBuffer& buffer() const { return buf_; }

private:
    int fd_;
    HostBuffer buf_;
};

class RsocketReceiver {
public:
    RsocketReceiver(int fd, size_t message_size, size_t alignment)
        : fd_(fd), msg_(message_size), buf_(message_size, alignment) {}
    StreamCounters run(const StopRule& stop);
    const HostBuffer& buffer() const { return buf_; }

private:
    int fd_;
    size_t msg_;
    HostBuffer buf_;
};

class RsocketIomapSender {
public:
    // Waits (bounded) for the receiver's mapping: its offset and slot count.
    RsocketIomapSender(int fd, size_t message_size, size_t alignment);
    StreamCounters run(const StopRule& stop);
    const HostBuffer& buffer() const { return buf_; }
    uint64_t credit_waits() const { return credit_waits_; }

private:
    int fd_;
    HostBuffer buf_;
    int64_t offset_ = 0;
    uint32_t slots_ = 0;
    uint64_t credit_waits_ = 0;
};

class RsocketIomapReceiver {
public:
    // riomap()s the ring (timed: the registration cost) and tells the sender where it is.
    RsocketIomapReceiver(int fd, size_t message_size, size_t alignment, uint32_t tx_depth);
    ~RsocketIomapReceiver();
    StreamCounters run(const StopRule& stop);
    const HostBuffer& buffer() const { return ring_; }
    double registration_ms() const { return registration_ms_; }

private:
    int fd_;
    size_t msg_;
    uint32_t slots_;
    HostBuffer ring_;
    double registration_ms_ = 0;
};

// rr over rsockets (-T rsocket -t rr): the socket rr loops (socket_rr.hpp) on rsend/rrecv.
extern template class RrInitiator<HostRrMessage, Rsockets>;
extern template class RrResponder<HostRrMessage, Rsockets>;
using RsocketRrInitiator = RrInitiator<HostRrMessage, Rsockets>;
using RsocketRrResponder = RrResponder<HostRrMessage, Rsockets>;

// Set-up. The server listens on the control connection's address, port 0, and accepts `wanted`
// rsockets that present the token; the client connects one per stream and sends the token.
class RsocketListener {
public:
    RsocketListener(const std::string& bind_address, const HalfSpec& half, Role role);
    uint16_t port() const { return port_; }
    std::vector<DataConnection> accept(int wanted, uint64_t token, std::chrono::steady_clock::time_point deadline,
                                       const std::atomic<bool>& stopped);

private:
    RsocketFd fd_;
    uint16_t port_ = 0;
};

RsocketFd connect_rsocket(const std::string& server_address, uint16_t port, uint64_t token, const HalfSpec& half,
                          Role role, std::chrono::milliseconds timeout);

}  // namespace zc
