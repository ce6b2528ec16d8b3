#include "transport/tcp_rr.hpp"

#include <netinet/in.h>
#include <linux/tcp.h>  // tcp_info with the data segment counts (glibc's is older)
#include <sys/socket.h>
#include <time.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace zc {

namespace {

// Inline here (not monotonic_ns() from another file): the call sits twice in every transaction.
inline int64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// The whole message out; a blocking send returns short only when interrupted.
inline bool send_all(int fd, const std::byte* b, size_t n, StreamCounters& c) {
    size_t done = 0;
    while (done < n) {
        ssize_t r = ::send(fd, b + done, n - done, MSG_NOSIGNAL);
        if (r < 0) {
            if (errno == EINTR) continue;
            c.error = errno;
            c.failed_call = "send";
            return false;
        }
        done += static_cast<size_t>(r);
        ++c.ops;
    }
    return true;
}

enum class Got { whole, end, failed };

// The whole message in: MSG_WAITALL lets the kernel fill it in one call however many segments it
// takes (it returns short only on a signal, the receive timeout or the peer's end).
inline Got recv_all(int fd, std::byte* b, size_t n, StreamCounters& c) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = ::recv(fd, b + got, n - got, MSG_WAITALL);
        if (r > 0) {
            got += static_cast<size_t>(r);
            c.bytes += static_cast<uint64_t>(r);
            ++c.ops;
        } else if (r == 0) {
            if (got == 0) return Got::end;
            c.error = ECONNRESET;  // ended inside a message
            c.failed_call = "recv";
            return Got::failed;
        } else if (errno != EINTR) {
            c.error = errno;
            c.failed_call = "recv";
            return Got::failed;
        }
    }
    return Got::whole;
}

}  // namespace

void set_no_delay(int fd) {
    int one = 1;
    if (::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) != 0) {
        throw std::runtime_error(std::string("setsockopt(TCP_NODELAY) failed: ") + std::strerror(errno));
    }
}

uint64_t tcp_data_segments(int fd, bool out) {
    tcp_info info{};
    socklen_t len = sizeof(info);
    if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return 0;
    return out ? info.tcpi_data_segs_out : info.tcpi_data_segs_in;
}

template <typename Memory>
TcpRrInitiatorOn<Memory>::TcpRrInitiatorOn(int fd, size_t message_size, size_t alignment, LatencyHistogram& rtt,
                                           const BufferSpec& where)
    : fd_(fd), mem_(message_size, alignment, where, true), rtt_(rtt) {
    set_no_delay(fd_);
    rtt_.prepare();
}

template <typename Memory>
StreamCounters TcpRrInitiatorOn<Memory>::run(const StopRule& stop) {
    StreamCounters c;
    const size_t n = mem_.size();
    uint64_t segs0 = tcp_data_segments(fd_, true);
    while (!stop.abort->load(std::memory_order_relaxed)) {
        int64_t t0 = now_ns();
        // The round trip includes both stagings of GPU memory: the request is not ready to send
        // before it is out of the GPU, nor the answer usable before it is back in.
        if (!send_all(fd_, mem_.outgoing(n), n, c)) break;
        if (recv_all(fd_, mem_.incoming(), n, c) != Got::whole) {
            if (!c.error) {  // the responder ended the connection between messages: it went away
                c.error = ECONNRESET;
                c.failed_call = "recv";
            }
            break;
        }
        mem_.arrived(n);
        int64_t t1 = now_ns();
        rtt_.record(static_cast<uint64_t>(t1 - t0));
        ++c.messages;
        if (t1 >= stop.deadline_ns) break;
    }
    c.segments = tcp_data_segments(fd_, true) - segs0;
    c.staging = mem_.staging();
    ::shutdown(fd_, SHUT_WR);
    return c;
}

template <typename Memory>
TcpRrResponderOn<Memory>::TcpRrResponderOn(int fd, size_t message_size, size_t alignment, const BufferSpec& where)
    : fd_(fd), mem_(message_size, alignment, where, false) {
    set_no_delay(fd_);
}

template <typename Memory>
StreamCounters TcpRrResponderOn<Memory>::run() {
    StreamCounters c;
    const size_t n = mem_.size();
    uint64_t segs0 = tcp_data_segments(fd_, true);
    // The answer is what arrived, taken back out of the side's memory (from the GPU when it is there).
    while (recv_all(fd_, mem_.incoming(), n, c) == Got::whole) {
        mem_.arrived(n);
        if (!send_all(fd_, mem_.outgoing(n), n, c)) break;
        ++c.messages;
    }
    c.segments = tcp_data_segments(fd_, true) - segs0;
    c.staging = mem_.staging();
    return c;
}

template class TcpRrInitiatorOn<HostRrMessage>;
template class TcpRrResponderOn<HostRrMessage>;
template class TcpRrInitiatorOn<GpuRrMessage>;
template class TcpRrResponderOn<GpuRrMessage>;

}  // namespace zc
