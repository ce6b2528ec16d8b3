#pragma once
// MSG_ZEROCOPY's completions (SO_ZEROCOPY, TCP and UDP alike): the kernel numbers a socket's zero-copy
// sends from 0 and, once it no longer needs their pages, queues on the socket's error queue one
// notification per range of ids [lo, hi], saying whether it copied after all
// (SO_EE_CODE_ZEROCOPY_COPIED: always so on loopback and veth). Header-only and inline: the senders'
// hot loops call it, with a callback the compiler sees through (no virtual call, no allocation).
#include <linux/errqueue.h>
#include <poll.h>
#include <sys/socket.h>

#include <cstdint>

#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif

namespace zc {

// Reads every notification queued now, calling on_range(lo, hi, copied) for each; blocks up to
// `wait_ms` for one first (0 = do not block). Returns the number of notifications read.
template <typename OnRange>
unsigned read_zerocopy_completions(int fd, int wait_ms, OnRange&& on_range) {
    if (wait_ms > 0) {
        pollfd p{fd, 0, 0};  // POLLERR is always reported
        if (::poll(&p, 1, wait_ms) <= 0) return 0;
    }
    unsigned got = 0;
    while (true) {
        char control[128];
        msghdr msg{};
        msg.msg_control = control;
        msg.msg_controllen = sizeof(control);
        if (::recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) break;  // EAGAIN: queue empty
        for (cmsghdr* cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
            auto* ee = reinterpret_cast<sock_extended_err*>(CMSG_DATA(cm));
            if (ee->ee_origin != SO_EE_ORIGIN_ZEROCOPY || ee->ee_errno != 0) continue;
            on_range(ee->ee_info, ee->ee_data, (ee->ee_code & SO_EE_CODE_ZEROCOPY_COPIED) != 0);
            ++got;
        }
    }
    return got;
}

}  // namespace zc
