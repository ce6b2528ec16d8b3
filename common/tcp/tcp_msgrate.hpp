#pragma once
// Message rate over TCP: the sender hands small messages to the kernel as fast as it can, with
// TCP_NODELAY so each call pushes its data out at once instead of waiting for Nagle. With batch 1
// that is one send() per message; with batch N one sendmmsg() carries N messages (each still its own
// sendmsg inside the kernel, so each is pushed on its own when the connection can send). Whether a
// message really became its own segment is not assumed: the data segments are read from TCP_INFO
// and reported per message. The receiver reads in bulk and counts whole messages.
#include <sys/socket.h>

#include <cstddef>
#include <vector>

#include "memory/host_buffer.hpp"
#include "core/stream_counters.hpp"
#include "kind/spec_rules.hpp"

namespace zc {

class TcpMsgRateSender {
public:
    // Sets TCP_NODELAY; prepares the batch's headers (all pointing at one message buffer).
    TcpMsgRateSender(int fd, size_t message_size, size_t alignment, unsigned batch);
    // Sends until the stop rule says so, finishing a message a signal may have cut, then shuts the
    // write side down. messages = whole messages sent; segments = data segments sent.
    StreamCounters run(const StopRule& stop);
    const HostBuffer& buffer() const { return buf_; }

private:
    int fd_;
    HostBuffer buf_;
    std::vector<iovec> iov_;
    std::vector<mmsghdr> msgs_;
};

class TcpMsgRateReceiver {
public:
    static constexpr size_t kChunk = kMsgrateReceiveChunk;  // kind/spec_rules.hpp sizes its buffer by it
    TcpMsgRateReceiver(int fd, size_t message_size, size_t alignment);
    // Until the sender ends the stream; messages = bytes / message size (a cut message is an error).
    StreamCounters run(const StopRule& stop);
    const HostBuffer& buffer() const { return buf_; }

private:
    int fd_;
    size_t message_size_;
    HostBuffer buf_;
};

}  // namespace zc
