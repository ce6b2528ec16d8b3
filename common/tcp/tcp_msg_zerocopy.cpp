#include "tcp/tcp_msg_zerocopy.hpp"

#include <linux/errqueue.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif

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
    if (wait_ms > 0) {
        pollfd p{fd_, 0, 0};  // POLLERR is always reported
        int rc = ::poll(&p, 1, wait_ms);
        if (rc <= 0) return false;
    }
    bool got = false;
    while (true) {
        char control[128];
        msghdr msg{};
        msg.msg_control = control;
        msg.msg_controllen = sizeof(control);
        if (::recvmsg(fd_, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) break;  // EAGAIN: queue empty
        for (cmsghdr* cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
            auto* ee = reinterpret_cast<sock_extended_err*>(CMSG_DATA(cm));
            if (ee->ee_origin != SO_EE_ORIGIN_ZEROCOPY || ee->ee_errno != 0) continue;
            bool copied = ee->ee_code & SO_EE_CODE_ZEROCOPY_COPIED;
            ++c.zerocopy.completions;
            // One notification covers the range of send ids [ee_info, ee_data].
            for (uint32_t id = ee->ee_info; id != ee->ee_data + 1; ++id) {
                size_t slot = id % ring_.slots();
                if (!ring_.busy(slot)) continue;
                uint64_t b = ring_.release(slot);
                if (copied) c.zerocopy.copied_bytes += b;
            }
            got = true;
        }
    }
    return got;
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
