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
template <typename Calls>
inline bool send_all(int fd, const std::byte* b, size_t n, StreamCounters& c) {
    size_t done = 0;
    while (done < n) {
        ssize_t r = Calls::send(fd, b + done, n - done);
        if (r < 0) {
            if (errno == EINTR) continue;
            c.error = errno;
            c.failed_call = Calls::send_call;
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
template <typename Calls>
inline Got recv_all(int fd, std::byte* b, size_t n, StreamCounters& c) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = Calls::recv_whole(fd, b + got, n - got);
        if (r > 0) {
            got += static_cast<size_t>(r);
            c.bytes += static_cast<uint64_t>(r);
            ++c.ops;
        } else if (r == 0) {
            if (got == 0) return Got::end;
            c.error = ECONNRESET;  // ended inside a message
            c.failed_call = Calls::recv_call;
            return Got::failed;
        } else if (errno != EINTR) {
            c.error = errno;
            c.failed_call = Calls::recv_call;
            return Got::failed;
        }
    }
    return Got::whole;
}

}  // namespace rr_detail

template <typename Memory, typename Calls>
RrInitiator<Memory, Calls>::RrInitiator(int fd, size_t message_size, size_t alignment, LatencyHistogram& rtt,
                                        const BufferSpec& where)
    : fd_(fd), mem_(message_size, alignment, where, true), rtt_(rtt) {
    Calls::no_delay(fd_);
    rtt_.prepare();
}

template <typename Memory, typename Calls>
StreamCounters RrInitiator<Memory, Calls>::run(const StopRule& stop) {
    StreamCounters c;
    const size_t n = mem_.size();
    uint64_t segs0 = Calls::segments(fd_, true);
    while (!stop.abort->load(std::memory_order_relaxed)) {
        int64_t t0 = rr_detail::now_ns();
        // The round trip includes both stagings of GPU memory: the request is not ready to send
        // before it is out of the GPU, nor the answer usable before it is back in.
        if (!rr_detail::send_all<Calls>(fd_, mem_.outgoing(n), n, c)) break;
        if (rr_detail::recv_all<Calls>(fd_, mem_.incoming(), n, c) != rr_detail::Got::whole) {
            if (!c.error) {  // the responder ended the connection between messages: it went away
                c.error = ECONNRESET;
                c.failed_call = Calls::recv_call;
            }
            break;
        }
        mem_.arrived(n);
        int64_t t1 = rr_detail::now_ns();
        rtt_.record_transaction(t0, t1);
        ++c.messages;
        stop.publish(c);
        if (t1 >= stop.deadline_ns) break;
    }
    c.segments = Calls::segments(fd_, true) - segs0;
    c.staging = mem_.staging();
    // The end, after a clean run only: towards a dead peer rshutdown waits out the queue pair's retries.
    if (!c.error && !stop.abort->load(std::memory_order_relaxed)) Calls::shutdown(fd_, SHUT_WR);
    return c;
}

template <typename Memory, typename Calls>
RrResponder<Memory, Calls>::RrResponder(int fd, size_t message_size, size_t alignment, const BufferSpec& where)
    : fd_(fd), mem_(message_size, alignment, where, false) {
    Calls::no_delay(fd_);
}

template <typename Memory, typename Calls>
StreamCounters RrResponder<Memory, Calls>::run(const StopRule& stop) {
    StreamCounters c;
    const size_t n = mem_.size();
    uint64_t segs0 = Calls::segments(fd_, true);
    // The answer is what arrived, taken back out of the side's memory (from the GPU when it is there).
    while (rr_detail::recv_all<Calls>(fd_, mem_.incoming(), n, c) == rr_detail::Got::whole) {
        mem_.arrived(n);
        if (!rr_detail::send_all<Calls>(fd_, mem_.outgoing(n), n, c)) break;
        ++c.messages;
        stop.publish(c);
    }
    c.segments = Calls::segments(fd_, true) - segs0;
    c.staging = mem_.staging();
    return c;
}

}  // namespace zc
