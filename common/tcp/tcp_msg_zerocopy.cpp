#include "tcp/tcp_msg_zerocopy.hpp"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "socket/zerocopy_completions.hpp"

namespace zc {

TcpMsgZerocopySender::TcpMsgZerocopySender(int fd, size_t message_size, size_t alignment)
    : fd_(fd), ring_(message_size, alignment) {
    int one = 1;
    if (setsockopt(fd_, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)) != 0) {
        throw std::runtime_error(std::string("the kernel refused SO_ZEROCOPY (") + std::strerror(errno) +
                                 "): MSG_ZEROCOPY needs Linux 4.14 or later for TCP");
    }
}

bool TcpMsgZerocopySender::reap(StreamCounters& c, int wait_ms) {
    unsigned got = read_zerocopy_completions(fd_, wait_ms, [&](uint32_t lo, uint32_t hi, bool copied) {
        ++c.zerocopy.completions;
        for (uint32_t id = lo; id != hi + 1; ++id) {  // one notification covers the ids [lo, hi]
            size_t slot = id % ring_.slots();
            if (!ring_.busy(slot)) continue;
            uint64_t b = ring_.release(slot);
            if (copied) c.zerocopy.copied_bytes += b;
        }
    });
    return got > 0;
}

StreamCounters TcpMsgZerocopySender::run(const StopRule& stop) {
    StreamCounters c;
    while (size_t len = stop.next_length(c.bytes, ring_.message_size())) {
        size_t slot = next_id_ % ring_.slots();
        while (ring_.busy(slot)) reap(c, 1000);  // the kernel still holds this slot's pages
        ssize_t n = ::send(fd_, ring_.data(slot), len, MSG_ZEROCOPY | MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == ENOBUFS) {  // optmem_max exhausted by pinned pages: wait for completions
                ++c.zerocopy.enobufs;
                reap(c, 10);
                continue;
            }
            c.error = errno;
            c.failed_call = "send(MSG_ZEROCOPY)";
            break;
        }
        ring_.hand_over(slot, static_cast<uint64_t>(n));
        ++next_id_;
        c.bytes += static_cast<uint64_t>(n);
        c.zerocopy.sent_bytes += static_cast<uint64_t>(n);
        ++c.ops;
        stop.publish(c);
        if (ring_.in_flight() > ring_.slots() / 2) reap(c, 0);
    }
    for (int tries = 0; ring_.in_flight() > 0 && tries < 50; ++tries) reap(c, 100);
    ::shutdown(fd_, SHUT_WR);
    return c;
}

}  // namespace zc
