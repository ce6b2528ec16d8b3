#include "transport/tcp_copy.hpp"

#include <sys/socket.h>
#include <time.h>

#include <algorithm>
#include <cerrno>

namespace zc {

namespace {
inline int64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);  // vDSO: tens of ns, negligible beside a send()
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}
}  // namespace

StreamCounters tcp_copy_send(int fd, const std::byte* buf, size_t message_size, const StopRule& stop) {
    StreamCounters c;
    const bool budgeted = stop.byte_budget > 0;
    while (true) {
        size_t len = message_size;
        if (budgeted) {
            uint64_t left = stop.byte_budget - c.bytes;
            if (left == 0) break;
            len = static_cast<size_t>(std::min<uint64_t>(left, message_size));
        } else if (now_ns() >= stop.deadline_ns) {
            break;
        }
        if (stop.abort->load(std::memory_order_relaxed)) break;
        ssize_t n = ::send(fd, buf, len, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            c.error = errno;
            c.failed_call = "send";
            break;
        }
        c.bytes += static_cast<uint64_t>(n);
        ++c.ops;
    }
    ::shutdown(fd, SHUT_WR);
    return c;
}

StreamCounters tcp_copy_recv(int fd, std::byte* buf, size_t message_size) {
    StreamCounters c;
    while (true) {
        ssize_t n = ::recv(fd, buf, message_size, 0);
        if (n > 0) {
            c.bytes += static_cast<uint64_t>(n);
            ++c.ops;
        } else if (n == 0) {
            break;
        } else if (errno != EINTR) {
            c.error = errno;
            c.failed_call = "recv";
            break;
        }
    }
    return c;
}

}  // namespace zc
