#include "tcp/tcp_copy.hpp"

#include <sys/socket.h>

#include <cerrno>

namespace zc {

StreamCounters TcpCopySender::run(const StopRule& stop) {
    StreamCounters c;
    while (size_t len = stop.next_length(c.bytes, buf_.size())) {
        ssize_t n = ::send(fd_, buf_.data(), len, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            c.error = errno;
            c.failed_call = "send";
            break;
        }
        c.bytes += static_cast<uint64_t>(n);
        ++c.ops;
        stop.publish(c);
    }
    ::shutdown(fd_, SHUT_WR);
    return c;
}

StreamCounters recv_until_end(int fd, std::byte* buf, size_t len, int flags, const char* call, const StopRule& stop) {
    StreamCounters c;
    while (true) {
        ssize_t n = ::recv(fd, buf, len, flags);
        if (n > 0) {
            c.bytes += static_cast<uint64_t>(n);
            ++c.ops;
            stop.publish(c);
        } else if (n == 0) {
            break;
        } else if (errno != EINTR) {
            c.error = errno;
            c.failed_call = call;
            break;
        }
    }
    return c;
}

StreamCounters TcpCopyReceiver::run(const StopRule& stop) {
    return recv_until_end(fd_, buf_.data(), buf_.size(), 0, "recv", stop);
}

}  // namespace zc
