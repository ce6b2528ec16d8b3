#pragma once
// io_uring IORING_OP_SEND_ZC: zero-copy sends submitted through a ring, each followed by a
// notification when the kernel is done with the buffer; with IORING_SEND_ZC_REPORT_USAGE the
// notification says whether the data was copied after all.
#include <liburing.h>

#include <cstddef>

#include "tcp/send_ring.hpp"
#include "core/stream_counters.hpp"

namespace zc {

class TcpUringZcSender {
public:
    // Sets up the ring (and registers the buffers when `fixed_buffers`); throws std::runtime_error
    // naming the cause when io_uring or SEND_ZC is not available.
    TcpUringZcSender(int fd, size_t message_size, size_t alignment, bool fixed_buffers);
    TcpUringZcSender(const TcpUringZcSender&) = delete;
    TcpUringZcSender& operator=(const TcpUringZcSender&) = delete;
    ~TcpUringZcSender();
    StreamCounters run(const StopRule& stop);
    const HostBuffer& buffer() const { return ring_.buffer(0); }

private:
    void handle(const io_uring_cqe* cqe, StreamCounters& c);

    int fd_;
    SendRing ring_;
    bool fixed_;
    io_uring uring_{};
    bool open_ = false;
    size_t pending_sends_ = 0;  // submitted, result not yet seen
};

}  // namespace zc
