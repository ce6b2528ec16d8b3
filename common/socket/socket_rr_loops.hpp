#pragma once
// The rr loops' definitions (declared in socket_rr.hpp), for the files that instantiate them with a
// memory and a call policy: socket_rr.cpp (kernel sockets) and rdma/rsocket_rr.cpp (rsockets).
#include <time.h>

#include <cerrno>

#include "socket/socket_rr.hpp"

namespace zc {

namespace rr_detail {

// Inline here (not monotonic_ns() from another file): the call sits twice in every transaction.
inline int64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// The whole message out; a blocking send returns short only when interrupted.
template <typename Api>
inline bool send_all(int fd, const std::byte* b, size_t n, StreamCounters& c) {
    size_t done = 0;
    while (done < n) {
        ssize_t r = Api::send(fd, b + done, n - done);
        if (r < 0) {
            if (errno == EINTR) continue;
            c.error = errno;
            c.failed_call = Api::send_call;
            return false;
        }
        done += static_cast<size_t>(r);
        ++c.ops;
    }
    return true;
}

enum class Got { whole, end, failed };

// The whole message in: MSG_WAITALL lets the kernel fill it in one call however many segments it
// takes (it returns short only on a signal, the receive timeout or the peer's end).
template <typename Api>
inline Got recv_all(int fd, std::byte* b, size_t n, StreamCounters& c) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = Api::recv(fd, b + got, n - got);
        if (r > 0) {
            got += static_cast<size_t>(r);
            c.bytes += static_cast<uint64_t>(r);
            ++c.ops;
        } else if (r == 0) {
            if (got == 0) return Got::end;
            c.error = ECONNRESET;  // ended inside a message
            c.failed_call = Api::recv_call;
            return Got::failed;
        } else if (errno != EINTR) {
            c.error = errno;
            c.failed_call = Api::recv_call;
            return Got::failed;
        }
    }
    return Got::whole;
}

}  // namespace rr_detail

template <typename Memory, typename Api>
TcpRrInitiatorOn<Memory, Api>::TcpRrInitiatorOn(int fd, size_t message_size, size_t alignment, LatencyHistogram& rtt,
                                                const BufferSpec& where)
    : fd_(fd), mem_(message_size, alignment, where, true), rtt_(rtt) {
    Api::no_delay(fd_);
    rtt_.prepare();
}

template <typename Memory, typename Api>
StreamCounters TcpRrInitiatorOn<Memory, Api>::run(const StopRule& stop) {
    StreamCounters c;
    const size_t n = mem_.size();
    uint64_t segs0 = Api::segments(fd_, true);
    while (!stop.abort->load(std::memory_order_relaxed)) {
        int64_t t0 = rr_detail::now_ns();
        // The round trip includes both stagings of GPU memory: the request is not ready to send
        // before it is out of the GPU, nor the answer usable before it is back in.
        if (!rr_detail::send_all<Api>(fd_, mem_.outgoing(n), n, c)) break;
        if (rr_detail::recv_all<Api>(fd_, mem_.incoming(), n, c) != rr_detail::Got::whole) {
            if (!c.error) {  // the responder ended the connection between messages: it went away
                c.error = ECONNRESET;
                c.failed_call = Api::recv_call;
            }
            break;
        }
        mem_.arrived(n);
        int64_t t1 = rr_detail::now_ns();
        rtt_.record(static_cast<uint64_t>(t1 - t0));
        ++c.messages;
        stop.publish(c);
        if (t1 >= stop.deadline_ns) break;
    }
    c.segments = Api::segments(fd_, true) - segs0;
    c.staging = mem_.staging();
    // The end, after a clean run only: towards a dead peer rshutdown waits out the queue pair's retries.
    if (!c.error && !stop.abort->load(std::memory_order_relaxed)) Api::shutdown_write(fd_);
    return c;
}

template <typename Memory, typename Api>
TcpRrResponderOn<Memory, Api>::TcpRrResponderOn(int fd, size_t message_size, size_t alignment, const BufferSpec& where)
    : fd_(fd), mem_(message_size, alignment, where, false) {
    Api::no_delay(fd_);
}

template <typename Memory, typename Api>
StreamCounters TcpRrResponderOn<Memory, Api>::run(const StopRule& stop) {
    StreamCounters c;
    const size_t n = mem_.size();
    uint64_t segs0 = Api::segments(fd_, true);
    // The answer is what arrived, taken back out of the side's memory (from the GPU when it is there).
    while (rr_detail::recv_all<Api>(fd_, mem_.incoming(), n, c) == rr_detail::Got::whole) {
        mem_.arrived(n);
        if (!rr_detail::send_all<Api>(fd_, mem_.outgoing(n), n, c)) break;
        ++c.messages;
        stop.publish(c);
    }
    c.segments = Api::segments(fd_, true) - segs0;
    c.staging = mem_.staging();
    return c;
}

}  // namespace zc
