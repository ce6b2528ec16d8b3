#include "udp/udp_rr.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>
#include <string>

#include "udp/udp_socket.hpp"
#include "udp/udp_wire.hpp"

namespace zc {

namespace {
constexpr int kTickMs = 100;
constexpr int64_t kSilenceNs = 2000000000;  // responder: past the test's end, silent this long: done
constexpr int64_t kNoDataNs = 5000000000;   // responder: nothing at all by this long past the end: an error
constexpr int kEndWaitMs = 2000;

// The end marker, repeated every 20 ms until the responder answers (at most kEndWaitMs).
void end_exchange(int fd) {
    std::byte end[kUdpSeqHeader], answer[kUdpSeqHeader];
    write_seq(end, kUdpEnd, 0);
    const int64_t give_up = monotonic_ns() + int64_t{kEndWaitMs} * 1000000;
    while (monotonic_ns() < give_up) {
        if (::send(fd, end, sizeof(end), MSG_NOSIGNAL) < 0 && errno == ECONNREFUSED) return;
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 20) <= 0) continue;
        while (::recv(fd, answer, sizeof(answer), MSG_DONTWAIT) >= 0)
            if (read_seq(answer).seq == kUdpEndAck) return;
    }
}
}  // namespace

UdpRrInitiator::UdpRrInitiator(int fd, size_t message_size, size_t alignment, LatencyHistogram& rtt)
    : fd_(fd), message_size_(message_size), buf_(std::max(message_size, kUdpSeqHeader), alignment), rtt_(rtt) {
    if (std::string why = udp_size_problem(message_size, 0, 0, false); !why.empty()) throw std::runtime_error(why);
    rtt_.prepare();
    set_udp_receive_timeout(fd_, kUdpRrWaitMs);
}

StreamCounters UdpRrInitiator::run(const StopRule& stop) {
    StreamCounters c;
    const size_t m = message_size_;
    const bool numbered = m >= kUdpSeqHeader;
    std::byte* b = buf_.data();
    for (uint64_t seq = 0;; ++seq) {
        if (stop.abort->load(std::memory_order_relaxed)) break;
        const int64_t t0 = monotonic_ns();
        if (t0 >= stop.deadline_ns && seq > 0) break;
        if (numbered) write_seq(b, seq, t0);
        if (::send(fd_, b, m, MSG_NOSIGNAL) < 0) {
            if (errno == EINTR) continue;
            c.error = errno;
            c.failed_call = "send";
            break;
        }
        while (true) {
            ssize_t r = ::recv(fd_, b, buf_.size(), 0);
            if (r < 0 && errno == EINTR) continue;
            if (r < 0 && errno == EAGAIN) {  // the wait ran out: the request or its answer was lost
                ++udp_.rr_timeouts;
                if (!numbered)
                    while (::recv(fd_, b, buf_.size(), MSG_DONTWAIT) >= 0) {}
                break;
            }
            if (r < 0) {
                c.error = errno;
                c.failed_call = "recv";
                break;
            }
            if (r == 0 && stop.abort->load(std::memory_order_relaxed)) break;  // shutdown() by an abort
            if (numbered && (static_cast<size_t>(r) < kUdpSeqHeader || read_seq(b).seq != seq))
                continue;  // a late answer to a request already counted lost
            rtt_.record_transaction(t0, monotonic_ns());
            c.bytes += static_cast<uint64_t>(r);
            ++c.ops;
            ++c.messages;
            stop.publish(c);
            break;
        }
        if (c.error) break;
    }
    if (!c.error && c.messages == 0) {
        c.error = ETIMEDOUT;
        c.failed_call = "no UDP answer came to any request (is the responder reachable over UDP?)";
    }
    if (!c.error || c.error == ETIMEDOUT) end_exchange(fd_);
    return c;
}

UdpRrResponder::UdpRrResponder(int fd, size_t message_size, size_t alignment)
    : fd_(fd), buf_(std::max(message_size, kUdpSeqHeader), alignment) {
    if (std::string why = udp_size_problem(message_size, 0, 0, false); !why.empty()) throw std::runtime_error(why);
    set_udp_receive_timeout(fd_, kTickMs);
}

StreamCounters UdpRrResponder::run(const StopRule& stop) {
    StreamCounters c;
    std::byte* b = buf_.data();
    const int64_t start = monotonic_ns();
    int64_t last = 0;
    while (true) {
        ssize_t r = ::recv(fd_, b, buf_.size(), 0);
        if (r < 0) {
            if (errno == EINTR) continue;
            if (errno != EAGAIN) {
                c.error = errno;
                c.failed_call = "recv";
                break;
            }
            if (stop.abort->load(std::memory_order_relaxed)) break;
            int64_t now = monotonic_ns(), end = std::max(stop.deadline_ns, start);
            if (last == 0 && now > end + kNoDataNs) {
                c.error = ETIMEDOUT;
                c.failed_call = "no UDP request arrived by 5 s past the test's end (a firewall dropping UDP?)";
                break;
            }
            if (last != 0 && now > end && now - last > kSilenceNs) break;  // the initiator went silent
            continue;
        }
        if (r == 0 && stop.abort->load(std::memory_order_relaxed)) break;  // shutdown() by an abort
        last = monotonic_ns();
        // Control is 16 bytes with a reserved number; no request is (a request under 16 bytes has no header).
        if (static_cast<size_t>(r) == kUdpSeqHeader && read_seq(b).seq >= kUdpFirstControl) {
            if (read_seq(b).seq != kUdpEnd) continue;  // a stray hello
            std::byte ack[kUdpSeqHeader];
            write_seq(ack, kUdpEndAck, 0);
            (void)::send(fd_, ack, sizeof(ack), MSG_NOSIGNAL | MSG_DONTWAIT);
            break;
        }
        if (::send(fd_, b, static_cast<size_t>(r), MSG_NOSIGNAL) < 0 && errno != EINTR) {
            c.error = errno;
            c.failed_call = "send";
            break;
        }
        c.bytes += static_cast<uint64_t>(r);
        ++c.ops;
        ++c.messages;
        stop.publish(c);
    }
    return c;
}

}  // namespace zc
