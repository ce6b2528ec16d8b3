#pragma once
// TCP_ZEROCOPY_RECEIVE: whole received pages are mapped into our address space instead of copied;
// what cannot be mapped (a partial page, a sender that copied) is copied with recv and counted so.
// On loopback pages map only when the sender used MSG_ZEROCOPY or SEND_ZC; otherwise it all copies,
// and the report shows it.
#include <cstddef>

#include "memory/host_buffer.hpp"
#include "core/stream_counters.hpp"

namespace zc {

class TcpZerocopyReceiver {
public:
    // Maps a receive window of the socket; throws std::runtime_error naming the cause.
    TcpZerocopyReceiver(int fd, size_t message_size);
    TcpZerocopyReceiver(const TcpZerocopyReceiver&) = delete;
    TcpZerocopyReceiver& operator=(const TcpZerocopyReceiver&) = delete;
    ~TcpZerocopyReceiver();
    StreamCounters run(const StopRule& stop);
    const HostBuffer& buffer() const { return copy_; }

private:
    int fd_;
    size_t window_;
    void* map_ = nullptr;
    HostBuffer copy_;  // for the bytes that cannot be mapped
};

}  // namespace zc
