#pragma once
// TCP with copies: send() from the user buffer into the socket, recv() out of it. The loops run on
// an already pinned thread and return when done; nothing inside them allocates or calls virtually.
#include <cstddef>

#include "memory/host_buffer.hpp"
#include "core/stream_counters.hpp"

namespace zc {

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
