#pragma once
// MSG_ZEROCOPY (SO_ZEROCOPY): the kernel pins the user pages instead of copying them and reports
// on the socket's error queue when it is done with each send, and whether it copied after all
// (SO_EE_CODE_ZEROCOPY_COPIED: always so on loopback and veth, where the receiver would otherwise
// see pages the sender may still change).
#include <cstddef>

#include "tcp/send_ring.hpp"
#include "core/stream_counters.hpp"

namespace zc {

class TcpMsgZerocopySender {
public:
    // Enables SO_ZEROCOPY; throws std::runtime_error naming the cause when the kernel refuses.
    TcpMsgZerocopySender(int fd, size_t message_size, size_t alignment);
    // Sends until the stop rule says so, then waits for every completion (inside the interval:
    // it is part of the cost) and shuts the write side down.
    StreamCounters run(const StopRule& stop);
    const HostBuffer& buffer() const { return ring_.buffer(0); }

private:
    // Reads every completion queued now; blocks up to `wait_ms` for one first (0 = do not block).
    bool reap(StreamCounters& c, int wait_ms);

    int fd_;
    SendRing ring_;
    uint32_t next_id_ = 0;  // the kernel numbers zero-copy sends per socket, from 0
};

}  // namespace zc
