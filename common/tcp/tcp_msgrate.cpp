#include "tcp/tcp_msgrate.hpp"

#include <cerrno>

#include "tcp/tcp_copy.hpp"
#include "socket/socket_calls.hpp"

namespace zc {

namespace {
// The clock is read once per this many calls: at 2 B a send is about a microsecond, so the end is
// seen within a few tens of microseconds without a clock read beside every message.
constexpr uint64_t kClockEvery = 32;
}  // namespace

TcpMsgRateSender::TcpMsgRateSender(int fd, size_t message_size, size_t alignment, unsigned batch)
    : fd_(fd), buf_(message_size, alignment), iov_(batch), msgs_(batch) {
    set_no_delay(fd_);
    for (unsigned i = 0; i < batch; ++i) {
        iov_[i] = {buf_.data(), buf_.size()};
        msgs_[i] = {};
        msgs_[i].msg_hdr.msg_iov = &iov_[i];
        msgs_[i].msg_hdr.msg_iovlen = 1;
    }
}

StreamCounters TcpMsgRateSender::run(const StopRule& stop) {
    StreamCounters c;
    const size_t n = buf_.size();
    const unsigned batch = static_cast<unsigned>(msgs_.size());
    uint64_t segs0 = tcp_data_segments(fd_, true);
    for (uint64_t calls = 0;; ++calls) {
        if (calls % kClockEvery == 0) {
            if (stop.abort->load(std::memory_order_relaxed)) break;
            if (monotonic_ns() >= stop.deadline_ns) break;
        }
        if (batch == 1) {
            ssize_t r = ::send(fd_, buf_.data(), n, MSG_NOSIGNAL);
            if (r < 0) {
                if (errno == EINTR) continue;
                c.error = errno;
                c.failed_call = "send";
                break;
            }
            c.bytes += static_cast<uint64_t>(r);
        } else {
            int r = ::sendmmsg(fd_, msgs_.data(), batch, MSG_NOSIGNAL);
            if (r < 0) {
                if (errno == EINTR) continue;
                c.error = errno;
                c.failed_call = "sendmmsg";
                break;
            }
            for (int i = 0; i < r; ++i) c.bytes += msgs_[i].msg_len;
        }
        ++c.ops;
        stop.publish(c);
    }
    // A signal can cut a message short: send its rest, so the receiver counts whole messages only.
    while (!c.error && c.bytes % n != 0) {
        size_t rest = n - static_cast<size_t>(c.bytes % n);
        ssize_t r = ::send(fd_, buf_.data(), rest, MSG_NOSIGNAL);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            c.error = errno;
            c.failed_call = "send";
            break;
        }
        c.bytes += static_cast<uint64_t>(r);
    }
    c.messages = c.bytes / n;
    c.segments = tcp_data_segments(fd_, true) - segs0;
    ::shutdown(fd_, SHUT_WR);
    return c;
}

TcpMsgRateReceiver::TcpMsgRateReceiver(int fd, size_t message_size, size_t alignment)
    : fd_(fd), message_size_(message_size), buf_(kChunk, alignment) {}

StreamCounters TcpMsgRateReceiver::run(const StopRule& stop) {
    uint64_t segs0 = tcp_data_segments(fd_, false);
    StreamCounters c = recv_until_end(fd_, buf_.data(), buf_.size(), 0, "recv", stop);
    c.segments = tcp_data_segments(fd_, false) - segs0;
    c.messages = c.bytes / message_size_;
    if (!c.error && c.bytes % message_size_ != 0) {
        c.error = ECONNRESET;  // the stream ended inside a message
        c.failed_call = "recv";
    }
    return c;
}

}  // namespace zc
