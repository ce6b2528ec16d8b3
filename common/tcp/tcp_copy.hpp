#pragma once
// TCP with copies: send() from the user buffer into the socket, recv() out of it. The loops run on
// an already pinned thread and return when done; nothing inside them allocates or calls virtually.
#include <sys/socket.h>
#include <sys/types.h>

#include <cerrno>
#include <cstddef>

#include "memory/host_buffer.hpp"
#include "core/stream_counters.hpp"

namespace zc {

// The sender loop of every call that moves bytes from one place into the socket (send, sendfile):
// `send(len)` returns what the call returned; the counters, EINTR, the error and the half-close at the
// end are here once. `send` is a lambda, inlined: no indirect call in the loop.
template <class Send>
StreamCounters send_until_stop(int fd, size_t max_len, const char* call, const StopRule& stop, Send send) {
    StreamCounters c;
    while (size_t len = stop.next_length(c.bytes, max_len)) {
        ssize_t n = send(len);
        if (n < 0) {
            if (errno == EINTR) continue;
            c.error = errno;
            c.failed_call = call;
            break;
        }
        c.bytes += static_cast<uint64_t>(n);
        ++c.ops;
        stop.publish(c);
    }
    ::shutdown(fd, SHUT_WR);  // the receiver sees the end
    return c;
}

// recv() until the peer ends the stream: with a buffer (copy) or with MSG_TRUNC (discard).
StreamCounters recv_until_end(int fd, std::byte* buf, size_t len, int flags, const char* call, const StopRule& stop);

class TcpCopySender {
public:
    TcpCopySender(int fd, size_t message_size, size_t alignment, HostMemory memory = HostMemory::pageable)
        : fd_(fd), buf_(message_size, alignment, memory) {}
    // Sends until the stop rule says so, then shuts the write side down (the receiver sees the end).
    StreamCounters run(const StopRule& stop);
    const HostBuffer& buffer() const { return buf_; }

private:
    int fd_;
    HostBuffer buf_;
};

class TcpCopyReceiver {
public:
    TcpCopyReceiver(int fd, size_t message_size, size_t alignment, HostMemory memory = HostMemory::pageable)
        : fd_(fd), buf_(message_size, alignment, memory) {}
    StreamCounters run(const StopRule& stop);  // until the peer ends the stream
    const HostBuffer& buffer() const { return buf_; }

private:
    int fd_;
    HostBuffer buf_;
};

}  // namespace zc
